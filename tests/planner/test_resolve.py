"""Every rule of resolution: each bad plan names its path, what was expected and close names,
and every problem of a plan is reported at once."""

import pytest
from schemas import found_for

from planner.models import QueryPlan
from planner.resolve import resolve
from planner.resolved import Limits, PlanInvalid

O, C = {"source_uri": "files/orders.csv", "alias": "o"}, {"source_uri": "files/customers.csv", "alias": "c"}
JOIN = {"alias": "c", "on": [{"left": "o.customer_id", "right": "c.customer_id"}]}


def problems(plan_json, limits=Limits()):
    plan = QueryPlan.model_validate(plan_json)
    with pytest.raises(PlanInvalid) as err:
        resolve(plan, found_for(plan), ["files/orders.csv", "files/customers.csv", "files/book.xlsx"], limits)
    return {p.path: p for p in err.value.problems}


def ok(plan_json):
    plan = QueryPlan.model_validate(plan_json)
    return resolve(plan, found_for(plan), [])


def test_unknown_source_and_dataset_with_close_names():
    got = problems({"datasets": [{"source_uri": "files/order.csv"}]})
    assert got["datasets[0].source_uri"].did_you_mean == ["files/orders.csv"]
    got = problems({"datasets": [{"source_uri": "files/book.xlsx", "dataset_id": "cost"}]})
    assert got["datasets[0].dataset_id"].did_you_mean == ["costs"]
    got = problems({"datasets": [{"source_uri": "files/book.xlsx"}]})
    assert "2 datasets" in got["datasets[0].dataset_id"].message


def test_unknown_ambiguous_and_case_folded_columns():
    got = problems({"datasets": [O, C], "joins": [JOIN], "select": [{"column": "amout"}, {"column": "customer_id"}]})
    assert got["select[0].column"].did_you_mean == ["amount"]
    assert "qualify" in got["select[1].column"].message
    resolved = ok({"datasets": [O], "select": [{"column": "note"}, {"column": "O.amount"}]})
    assert {"input": "note", "column": "o.Note", "how": "case-insensitive"} in resolved.resolved
    assert [o.name for o in resolved.outputs] == ["Note", "amount"]


def test_values_ops_and_buckets_that_do_not_fit_the_type():
    got = problems(
        {
            "datasets": [O],
            "where": [
                {"column": "ordered_on", "op": "gt", "value": "last tuesday"},
                {"column": "amount", "op": "contains", "value": "1"},
                {"column": "amount", "op": "in", "values": [1, "two"]},
                {"column": "region", "op": "eq", "value": 7},
            ],
            "group_by": [{"column": "region", "bucket": "month"}],
            "aggregates": [{"fn": "sum", "column": "ordered_on"}, {"fn": "quantile", "column": "amount"}],
        }
    )
    assert got["where[0].value"].expected == "a date 'YYYY-MM-DD'" and got["where[0].value"].received == "last tuesday"
    assert "contains does not apply to a number" in got["where[1].op"].message
    assert "where[2].values[1]" in got
    assert got["where[3].value"].expected == "a string (of valid Unicode)"
    assert "group_by[0].bucket" in got and "aggregates[0].fn" in got and "aggregates[1].q" in got


def test_join_rules():
    got = problems({"datasets": [O, C]})
    assert "has no join" in got["datasets[1]"].message
    got = problems({"datasets": [O, C], "joins": [JOIN, JOIN]})
    assert "joined twice" in got["joins[1].alias"].message
    got = problems(
        {"datasets": [O, C], "joins": [{"alias": "o", "on": [{"left": "c.customer_id", "right": "o.customer_id"}]}]}
    )
    assert "first dataset" in got["joins[0].alias"].message
    got = problems(
        {"datasets": [O, C], "joins": [{"alias": "c", "on": [{"left": "c.name", "right": "c.customer_id"}]}]}
    )
    assert "joins[0].on[0].left" in got  # the left side must be a dataset before the joined one
    got = problems(
        {"datasets": [O, C], "joins": [{"alias": "c", "on": [{"left": "o.region", "right": "c.customer_id"}]}]}
    )
    assert "knowledge.dataset_approve" in got["joins[0].on[0]"].message


def test_groups_that_span_datasets_and_result_names():
    got = problems(
        {
            "datasets": [O, C],
            "joins": [JOIN],
            "where": [
                {
                    "any": [
                        {"column": "o.region", "op": "eq", "value": "N"},
                        {"column": "c.segment", "op": "eq", "value": "R"},
                    ]
                }
            ],
        }
    )
    assert "inside one dataset" in got["where[0]"].message
    got = problems(
        {
            "datasets": [O],
            "aggregates": [{"fn": "count"}, {"fn": "count", "column": "region", "as": "count"}],
            "order_by": [{"column": "total"}],
            "having": [{"column": "nope", "op": "gt", "value": 1}],
        }
    )
    assert "already the name of aggregates[0]" in got["aggregates[1]"].message
    assert "order_by[0].column" in got and "having[0].column" in got


def test_limits_are_settings():
    many = [{"column": "region", "op": "eq", "value": str(i)} for i in range(6)]
    got = problems({"datasets": [O], "where": many, "limit": 50}, Limits(datasets=8, filters=5, in_values=3, rows=10))
    assert "where" in got and "limit" in got
    got = problems(
        {"datasets": [O], "where": [{"column": "region", "op": "in", "values": ["a", "b", "c", "d"]}]},
        Limits(in_values=3),
    )
    assert got["where[0].values"].expected == "≤ 3"


def test_every_problem_at_once():
    got = problems(
        {
            "datasets": [O],
            "where": [{"column": "x1", "op": "eq", "value": 1}, {"column": "x2", "op": "eq", "value": 1}],
            "select": [{"column": "x3"}],
        }
    )
    assert set(got) == {"where[0].column", "where[1].column", "select[0].column"}


def test_a_join_on_keys_unique_on_neither_side_warns():
    resolved = ok(
        {
            "datasets": [O, C],
            "joins": [{"alias": "c", "on": [{"left": "o.region", "right": "c.segment"}]}],
            "aggregates": [{"fn": "count"}],
        }
    )
    assert any("unique on neither side" in w for w in resolved.warnings)
    assert ok({"datasets": [O, C], "joins": [JOIN], "aggregates": [{"fn": "count"}]}).warnings == []
