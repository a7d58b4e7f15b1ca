"""What comes with a plan's rows (ops/answer.py): the receipt and the answer (QueryOut takes its
rows without looking at them again) are what their models validate to, with every field given,
for plans that read one dataset, compute and measure, nest, and read a column with an open
question; a receipt's lists are its own; the reasons an answer is not complete name each dataset."""

import pytest
from conftest import CSV

from planner.receipt import QueryReceipt
from tabular.ops.query import QueryOut

PLANS = {
    "one dataset": {"datasets": [{"source_uri": "money"}], "aggregates": [{"fn": "sum", "column": "price_usd"}]},
    "computed and measured": {
        "datasets": [{"source_uri": "money"}],
        "compute": [{"as": "twice", "expr": {"mul": ["price_usd", 2]}}],
        "group_by": [{"column": "item"}],
        "aggregates": [{"fn": "sum", "column": "twice", "as": "total"}],
        "measures": [{"as": "share", "expr": {"div": ["total", 2]}}],
    },
    "nested": {
        "datasets": [
            {
                "plan": {
                    "datasets": [{"source_uri": "money"}],
                    "where": [{"column": "price_usd", "op": "gt", "value": 0}],
                    "select": [{"column": "item"}],
                },
                "alias": "positive",
            }
        ],
        "aggregates": [{"fn": "count"}],
    },
    "an open question": {"datasets": [{"source_uri": "amb"}], "aggregates": [{"fn": "max", "column": "when"}]},
}


@pytest.fixture
def ns2(ns):
    assert ns.ingest_file(CSV / "currency.csv", source_uri="money").state == "ready"
    assert ns.ingest_file(CSV / "dates_ambiguous.csv", source_uri="amb").state == "ready"
    return ns


@pytest.mark.parametrize("name", PLANS)
def test_the_answer_built_is_what_its_models_validate_to(ns2, name):
    answer = ns2.query(PLANS[name])
    assert answer.model_fields_set == set(QueryOut.model_fields)  # a field added to QueryOut is given here too
    dumped = answer.receipt.model_dump(mode="json")
    assert QueryReceipt.model_validate(dumped).model_dump(mode="json") == dumped
    assert QueryOut.model_validate(answer.model_dump(mode="json")).model_dump(mode="json") == answer.model_dump(
        mode="json"
    )
    assert dumped["rows_returned"] == len(answer.rows) and dumped["datasets"]


def test_a_receipts_lists_are_its_own(ns2):
    first = ns2.query(PLANS["an open question"])
    first.receipt.warnings.append("said once")
    again = ns2.query(PLANS["an open question"])
    assert "said once" not in again.receipt.warnings
    assert again.receipt.datasets[0].open_questions == ["when: date_order"]
    assert not again.complete and "date_order" in again.incomplete[0]


def test_a_nested_plans_dataset_is_named_with_where_it_is_read(ns2):
    answer = ns2.query(PLANS["nested"])
    assert answer.receipt.datasets[0].within == "datasets[0].plan"
    assert answer.receipt.datasets[0].columns_read == ["item", "price_usd"]
