"""semi and anti joins (SPEC §4, issue 17): "customers with an order", "customers without any",
checked against the CSV files read with the csv module, and on ClickHouse alike."""

from __future__ import annotations

import pytest
from shop import rows, shop_namespace
from test_parity import check_parity

import tabular


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    with shop_namespace(tmp_path_factory.mktemp("semi"), ("customers.csv", "orders.csv")) as ns:
        yield ns


def plan(kind: str, **extra) -> dict:
    return {
        "datasets": [{"source_uri": "customers.csv", "alias": "c"}, {"source_uri": "orders.csv", "alias": "o"}],
        "joins": [{"alias": "o", "kind": kind, "on": [{"left": "c.customer_id", "right": "o.customer_id"}]}],
        **extra,
    }


def test_semi_keeps_each_customer_with_an_order_once_and_anti_those_without(shop):
    # Orders from the West: some customers have one (several, some), some have none.
    ordered = {o["customer_id"] for o in rows("orders.csv") if o["region"] == "West"}
    customers = rows("customers.csv")
    select = {
        "where": [{"column": "o.region", "op": "eq", "value": "West"}],
        "select": [{"column": "c.customer_id"}],
        "order_by": [{"column": "c.customer_id"}],
        "limit": 1000,
    }
    semi = shop.query(plan("semi", **select))
    anti = shop.query(plan("anti", **select))
    assert [r[0] for r in semi.rows] == sorted(int(c["customer_id"]) for c in customers if c["customer_id"] in ordered)
    assert [r[0] for r in anti.rows] == sorted(
        int(c["customer_id"]) for c in customers if c["customer_id"] not in ordered
    )
    assert semi.rows and anti.rows  # the fixture has both kinds
    # Each row once, its own row id, none of the dataset that only decided.
    assert all(ids[1] is None for ids in semi.row_ids) and len({ids[0] for ids in semi.row_ids}) == len(semi.rows)
    assert not semi.receipt.warnings  # nothing can count twice


def test_a_filter_on_the_deciding_dataset_applies_before_the_join(shop):
    west = {o["customer_id"] for o in rows("orders.csv") if o["region"] == "West"}
    got = shop.query(
        plan("semi", where=[{"column": "o.region", "op": "eq", "value": "West"}], aggregates=[{"fn": "count"}])
    )
    assert got.rows == [[sum(1 for c in rows("customers.csv") if c["customer_id"] in west)]]


def test_counting_and_grouping_over_an_anti_join(shop):
    ordered = {o["customer_id"] for o in rows("orders.csv") if o["region"] == "West"}
    expected: dict[str, int] = {}
    for c in rows("customers.csv"):
        if c["customer_id"] not in ordered:
            expected[c["segment"]] = expected.get(c["segment"], 0) + 1
    got = shop.query(
        plan(
            "anti",
            where=[{"column": "o.region", "op": "eq", "value": "West"}],
            group_by=[{"column": "c.segment"}],
            aggregates=[{"fn": "count"}],
        )
    )
    assert {r[0]: r[1] for r in got.rows} == expected


def test_the_columns_of_a_deciding_dataset_cannot_be_read(shop):
    with pytest.raises(tabular.ValidationFailed) as err:
        shop.query(plan("semi", select=[{"column": "c.name"}, {"column": "o.amount"}]))
    (problem,) = err.value.errors
    assert problem.path == "select[1].column" and "joined semi" in problem.message
    with pytest.raises(tabular.ValidationFailed) as err:
        shop.query(plan("anti", aggregates=[{"fn": "sum", "column": "amount"}]))
    assert err.value.errors[0].path == "aggregates[0].column"
    # With no select, every column of the datasets that give rows.
    got = shop.query(plan("semi", limit=1))
    assert [c.name for c in got.columns] == ["c." + name for name in rows("customers.csv")[0]]


@pytest.mark.parametrize("kind", ["semi", "anti"])
def test_clickhouse_answers_alike(shop, kind):
    from test_parity import COMPARED

    answered = COMPARED["answered"]
    west = [{"column": "o.region", "op": "eq", "value": "West"}]
    check_parity(
        shop,
        plan(
            kind,
            where=west,
            select=[{"column": "c.customer_id"}, {"column": "c.segment"}],
            order_by=[{"column": "c.customer_id"}],
            limit=1000,
        ),
    )
    check_parity(shop, plan(kind, where=west, group_by=[{"column": "c.segment"}], aggregates=[{"fn": "count"}]))
    assert COMPARED["answered"] == answered + 2  # both answered on both engines, not refused alike
