"""Plans as datasets, columns compared, join conditions beyond equality, one-row joins (SPEC §4,
issue 32): each answer checked against the fixture CSVs read with the csv module, each refusal at
its path, and the same plans on ClickHouse (chdb) alike."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from shop import rows, shop_namespace
from test_parity import check_parity

import tabular


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    with shop_namespace(tmp_path_factory.mktemp("nested"), ("customers.csv", "orders.csv", "items.csv")) as ns:
        yield ns


ORDERS = {"source_uri": "orders.csv"}


def mean_amount(where: list | None = None) -> dict:
    return {"datasets": [ORDERS], "where": where or [], "aggregates": [{"fn": "avg", "column": "amount", "as": "mean"}]}


def above_average(**extra) -> dict:
    return {
        "datasets": [{**ORDERS, "alias": "o"}, {"plan": mean_amount(), "alias": "m"}],
        "joins": [{"alias": "m", "on": []}],
        "where": [{"column": "amount", "op": "gt", "other": "mean"}],
        "select": [{"column": "order_id", "as": "order_id"}, {"column": "amount", "as": "amount"}],
        "limit": 1000,
        **extra,
    }


def test_orders_above_the_average_amount_are_those_a_reader_counts(shop):
    orders = rows("orders.csv")
    amounts = [Decimal(o["amount"]) for o in orders if o["amount"]]
    mean = sum(amounts) / len(amounts)
    got = shop.query(above_average())
    want = [int(o["order_id"]) for o in orders if o["amount"] and Decimal(o["amount"]) > mean]
    assert [r[0] for r in got.rows] == want  # in the orders' own order: the first dataset's rows
    assert all(Decimal(r[1]) > mean for r in got.rows) and got.complete
    # The receipt names the orders twice: read by the plan and by the plan inside it.
    assert [(d.alias, d.within) for d in got.receipt.datasets] == [("o", ""), ("orders", "datasets[1].plan")]
    assert not got.receipt.warnings  # one row beside each: nothing counts twice


def test_each_orders_share_of_its_customers_total_is_exact(shop):
    """A grouped plan joined back to the rows it groups: its sums keep their exact decimals."""
    orders = [o for o in rows("orders.csv") if o["amount"]]
    totals: dict[str, Decimal] = {}
    for o in orders:
        totals[o["customer_id"]] = totals.get(o["customer_id"], Decimal(0)) + Decimal(o["amount"])
    per_customer = {
        "datasets": [ORDERS],
        "group_by": [{"column": "customer_id"}],
        "aggregates": [{"fn": "sum", "column": "amount", "as": "total"}],
    }
    got = shop.query(
        {
            "datasets": [{**ORDERS, "alias": "o"}, {"plan": per_customer, "alias": "t"}],
            "joins": [{"alias": "t", "on": [{"left": "o.customer_id", "right": "t.customer_id"}]}],
            "where": [{"column": "o.amount", "op": "not_null"}],
            "select": [{"column": "o.order_id", "as": "order_id"}, {"column": "t.total", "as": "total"}],
            "limit": 1000,
        }
    )
    assert {r[0]: r[1] for r in got.rows} == {int(o["order_id"]): str(totals[o["customer_id"]]) for o in orders}
    assert [c.type for c in got.columns] == ["number", "number"]
    # The group key is unique in the grouped result: no warning that rows may count twice.
    assert not got.receipt.warnings
    # Its row ids: the order's in orders.csv; a plan's result has none of its own (null).
    assert all(ids[0] >= 1 and ids[1] is None for ids in got.row_ids)


def test_a_group_over_a_grouped_result_counts_customers_per_order_count(shop):
    counts: dict[str, int] = {}
    for o in rows("orders.csv"):
        counts[o["customer_id"]] = counts.get(o["customer_id"], 0) + 1
    histogram: dict[int, int] = {}
    for n in counts.values():
        histogram[n] = histogram.get(n, 0) + 1
    got = shop.query(
        {
            "datasets": [
                {
                    "plan": {
                        "datasets": [ORDERS],
                        "group_by": [{"column": "customer_id"}],
                        "aggregates": [{"fn": "count", "as": "orders"}],
                    },
                    "alias": "per_customer",
                }
            ],
            "group_by": [{"column": "orders"}],
            "aggregates": [{"fn": "count", "as": "customers"}],
        }
    )
    assert got.rows == [[n, histogram[n]] for n in sorted(histogram)]


def test_a_nested_top_n_applies_its_limit_only_with_its_order(shop):
    top = {
        "datasets": [ORDERS],
        "where": [{"column": "amount", "op": "not_null"}],
        "select": [{"column": "order_id"}, {"column": "amount"}],
        "order_by": [{"column": "amount", "desc": True}],
        "limit": 3,
    }
    got = shop.query({"datasets": [{"plan": top, "alias": "top"}], "aggregates": [{"fn": "count", "as": "n"}]})
    assert got.rows == [[3]]
    listed = shop.query({"datasets": [{"plan": top, "alias": "top"}]})
    amounts = sorted((Decimal(o["amount"]) for o in rows("orders.csv") if o["amount"]), reverse=True)[:3]
    assert [Decimal(r[1]) for r in listed.rows] == amounts  # in the nested plan's own order
    assert [ids[0] for ids in listed.row_ids] == [None, None, None]


def test_two_columns_of_one_dataset_compared(shop):
    got = shop.query(
        {
            "datasets": [{"source_uri": "customers.csv"}],
            "compute": [{"as": "joined", "expr": {"cast": ["since", {"value": "date"}]}}],
            "where": [{"column": "since", "op": "ge", "other": "joined"}],
            "aggregates": [{"fn": "count", "as": "n"}],
        }
    )
    assert got.rows == [[sum(1 for c in rows("customers.csv") if c["since"])]]
    items = rows("items.csv")
    orders = {o["order_id"]: o for o in rows("orders.csv")}
    # Two columns of two datasets: after the join.
    got = shop.query(
        {
            "datasets": [{"source_uri": "items.csv", "alias": "i"}, {**ORDERS, "alias": "o"}],
            "joins": [{"alias": "o", "on": [{"left": "i.order_id", "right": "o.order_id"}]}],
            "where": [{"column": "i.price", "op": "gt", "other": "o.amount"}],
            "aggregates": [{"fn": "count", "as": "n"}],
        }
    )
    want = sum(
        1
        for i in items
        if i["order_id"] in orders
        and i["price"]
        and orders[i["order_id"]]["amount"]
        and Decimal(i["price"]) > Decimal(orders[i["order_id"]]["amount"])
    )
    assert got.rows == [[want]] and want > 0


def test_having_compares_two_result_columns(shop):
    got = shop.query(
        {
            "datasets": [ORDERS],
            "group_by": [{"column": "region"}],
            "aggregates": [
                {"fn": "max", "column": "qty", "as": "most"},
                {"fn": "min", "column": "qty", "as": "least"},
            ],
            "having": [{"column": "most", "op": "gt", "other": "least"}],
        }
    )
    by_region: dict[str, list[int]] = {}
    for o in rows("orders.csv"):
        if o["qty"]:
            by_region.setdefault(o["region"] or None, []).append(int(o["qty"]))
    want = sorted((r for r, q in by_region.items() if max(q) > min(q)), key=lambda r: (r is None, r))
    assert [r[0] for r in got.rows] == want


@pytest.mark.parametrize("side", ["column", "other"])
def test_having_compares_a_column_with_a_window_measure(shop, side):
    """Each region's largest orders, TPC-H Q2's way: a min/max window beside the rows, kept where
    the row's value is it. The measure on either side of the filter (it was a crash, INTERNAL,
    with the measure as `other`: the filter ran before the measure existed)."""
    compared = {"column": "qty", "op": "eq", "other": "most"}
    if side == "other":
        compared = {"column": "most", "op": "eq", "other": "qty"}
    got = shop.query(
        {
            "datasets": [ORDERS],
            "where": [{"column": "qty", "op": "not_null"}],
            "select": [{"column": "order_id"}, {"column": "region"}, {"column": "qty"}],
            "measures": [{"as": "most", "window": {"fn": "max", "of": "qty", "partition_by": ["region"]}}],
            "having": [compared],
            "limit": 1000,
        }
    )
    kept = [o for o in rows("orders.csv") if o["qty"]]
    most: dict[str, int] = {}
    for o in kept:
        most[o["region"]] = max(most.get(o["region"], int(o["qty"])), int(o["qty"]))
    want = sorted(int(o["order_id"]) for o in kept if int(o["qty"]) == most[o["region"]])
    assert sorted(r[0] for r in got.rows) == want and len(want) < len(kept)


def test_a_join_with_a_condition_beyond_equality(shop):
    """Orders of the same customer placed later than each order (eq on the customer, lt on the day)."""
    orders = [o for o in rows("orders.csv") if o["ordered_on"]]
    got = shop.query(
        {
            "datasets": [{**ORDERS, "alias": "a"}, {**ORDERS, "alias": "b"}],
            "joins": [
                {
                    "alias": "b",
                    "on": [
                        {"left": "a.customer_id", "right": "b.customer_id"},
                        {"left": "a.ordered_on", "right": "b.ordered_on", "op": "lt"},
                    ],
                    "kind": "anti",
                }
            ],
            "where": [{"column": "a.ordered_on", "op": "not_null"}],
            "select": [{"column": "a.order_id", "as": "order_id"}],
            "order_by": [{"column": "order_id"}],
            "limit": 1000,
        }
    )
    day = dt.date.fromisoformat
    last = [
        int(a["order_id"])
        for a in orders
        if not any(b["customer_id"] == a["customer_id"] and day(a["ordered_on"]) < day(b["ordered_on"]) for b in orders)
    ]
    assert [r[0] for r in got.rows] == sorted(last)


@pytest.mark.parametrize(
    "plan, path, words",
    [
        (
            {
                "datasets": [
                    {**ORDERS, "alias": "o"},
                    {"plan": mean_amount([{"column": "regon", "op": "eq", "value": "West"}]), "alias": "m"},
                ],
                "joins": [{"alias": "m", "on": []}],
            },
            "datasets[1].plan.where[0].column",
            "no column",
        ),
        (
            {"datasets": [{"plan": {"datasets": [ORDERS], "filters": []}, "alias": "m"}]},
            "datasets[0].plan.filters",
            "not a field",
        ),
        ({"datasets": [{"plan": {"datasets": [ORDERS]}}]}, "datasets[0].alias", "required"),
        (
            {
                "datasets": [
                    {**ORDERS, "alias": "o"},
                    {"plan": {"datasets": [ORDERS], "group_by": [{"column": "region"}]}, "alias": "g"},
                ],
                "joins": [{"alias": "g", "on": []}],
            },
            "joins[0].on",
            "one row",
        ),
        (
            {"datasets": [{**ORDERS, "alias": "a"}, {**ORDERS, "alias": "b"}], "joins": [{"alias": "b", "on": []}]},
            "joins[0].on",
            "one row",
        ),
        (
            {
                "datasets": [{**ORDERS, "alias": "a"}, {**ORDERS, "alias": "b"}],
                "joins": [{"alias": "b", "on": [{"left": "a.qty", "right": "b.qty", "op": "lt"}]}],
            },
            "joins[0].on",
            "equality",
        ),
        (
            {"datasets": [ORDERS], "where": [{"column": "region", "op": "eq", "other": "qty"}]},
            "where[0].other",
            "one type",
        ),
        (
            {"datasets": [ORDERS], "where": [{"column": "ordered_on", "op": "eq", "other": "region"}]},
            "where[0].other",
            "one type",
        ),
        (
            {"datasets": [ORDERS], "where": [{"column": "region", "op": "like", "other": "note"}]},
            "where[0].op",
            "another column",
        ),
        (
            {"datasets": [ORDERS], "where": [{"column": "qty", "op": "gt", "other": "qyt"}]},
            "where[0].other",
            "no column",
        ),
        (
            {"datasets": [{"plan": {"datasets": [ORDERS], "limit": 5}, "alias": "t"}]},
            "datasets[0].plan.limit",
            "order_by",
        ),
        (
            {"datasets": [{"plan": {"datasets": [ORDERS], "dry_run": True}, "alias": "t"}]},
            "datasets[0].plan.dry_run",
            "outer plan",
        ),
        (
            {
                "datasets": [{**ORDERS, "alias": "a"}, {"plan": mean_amount(), "alias": "m"}],
                "joins": [{"alias": "m", "on": [], "kind": "semi"}],
            },
            "joins[0].kind",
            "inner or left",
        ),
    ],
)
def test_mistaken_plans_are_refused_at_their_paths(shop, plan, path, words):
    with pytest.raises(tabular.ValidationFailed) as refused:
        shop.query(plan)
    at = {e.path: e for e in refused.value.errors}
    assert path in at, [e.path for e in refused.value.errors]
    assert words in at[path].message
    if "no column" in words:
        assert at[path].did_you_mean  # regon → region, qyt → qty


def test_plans_nest_three_deep_and_no_deeper(shop):
    def nest(depth: int) -> dict:
        plan: dict = {"datasets": [ORDERS], "aggregates": [{"fn": "count", "as": "n"}]}
        for k in range(depth):
            plan = {"datasets": [{"plan": plan, "alias": f"p{k}"}], "aggregates": [{"fn": "count", "as": "n"}]}
        return plan

    assert shop.query(nest(3)).rows == [[1]]
    with pytest.raises(tabular.TabularError) as deep:
        shop.query(nest(4))
    assert deep.value.status == 413
    assert [e.path for e in deep.value.errors] == [
        "datasets[0].plan.datasets[0].plan.datasets[0].plan.datasets[0].plan"
    ]


def test_a_nested_plans_open_questions_carry_out(tmp_path):
    """`complete` is false when a column read inside a nested plan has an open question, and
    the reason names the nested plan."""
    (tmp_path / "sales.csv").write_text("day,amount\n01/02/2024,10.50\n03/04/2024,4.25\n05/06/2024,1.00\n")
    with tabular.connect(str(tmp_path / "home")) as engine:
        ns = engine.namespace("acme", "shop")
        assert ns.ingest_file(tmp_path / "sales.csv", source_uri="sales.csv").state == "ready"
        earliest = {
            "datasets": [{"source_uri": "sales.csv"}],
            "aggregates": [{"fn": "min", "column": "day", "as": "first"}],
        }
        plain = ns.query(earliest)
        assert not plain.complete  # day/month or month/day: asked, not decided
        got = ns.query({"datasets": [{"plan": earliest, "alias": "t"}]})
        assert not got.complete and got.rows == plain.rows
        assert "datasets[0].plan" in got.incomplete[0] and "day" in got.incomplete[0]
        assert got.receipt.datasets[0].open_questions == ["day: date_order"]
        # A nested plan that reads only the amounts is complete.
        amounts = {
            "datasets": [{"source_uri": "sales.csv"}],
            "aggregates": [{"fn": "sum", "column": "amount", "as": "total"}],
        }
        assert ns.query({"datasets": [{"plan": amounts, "alias": "t"}]}).complete


def test_plan_hash_covers_the_nested_plan(shop):
    a = shop.query(above_average(dry_run=True)).receipt.plan_hash
    other = above_average(dry_run=True)
    other["datasets"][1]["plan"] = mean_amount([{"column": "region", "op": "eq", "value": "West"}])
    assert shop.query(other).receipt.plan_hash != a
    assert shop.query(above_average(dry_run=True)).receipt.plan_hash == a


def test_a_plan_asked_again_with_other_values_answers_with_them(shop):
    """The compiled statement is kept by the plan's shape: other values (nested ones too, a
    value beyond every amount, a pattern with an escape) must still give their own answers."""
    orders = rows("orders.csv")
    for region in ("West", "North", "Nowhere", "West"):
        plan = above_average()
        plan["datasets"][1]["plan"] = mean_amount([{"column": "region", "op": "eq", "value": region}])
        got = shop.query(plan)
        amounts = [Decimal(o["amount"]) for o in orders if o["amount"] and o["region"] == region]
        if not amounts:
            assert got.rows == []  # no mean: nothing is above it
            continue
        mean = sum(amounts) / len(amounts)
        assert [r[0] for r in got.rows] == [
            int(o["order_id"]) for o in orders if o["amount"] and Decimal(o["amount"]) > mean
        ]
    for low in ("100", "1e30", "-1e30", "250.5"):
        got = shop.query(
            {
                "datasets": [ORDERS],
                "where": [{"column": "amount", "op": "gt", "value": low}],
                "aggregates": [{"fn": "count", "as": "n"}],
            }
        )
        assert got.rows == [[sum(1 for o in orders if o["amount"] and Decimal(o["amount"]) > Decimal(low))]]
    for pattern, want in (
        ("%please", lambda n: n.endswith("please")),
        ("%\\%%", lambda n: "%" in n),
        ("gift%", lambda n: n.startswith("gift")),
    ):
        got = shop.query(
            {
                "datasets": [ORDERS],
                "where": [{"column": "note", "op": "like", "value": pattern}],
                "aggregates": [{"fn": "count", "as": "n"}],
            }
        )
        assert got.rows == [[sum(1 for o in orders if o["note"] and want(o["note"]))]], pattern


def test_a_whole_result_of_a_nested_plan_streams(shop):
    frame = shop.query(above_average()).to_polars(whole=True)
    assert frame.height == len(shop.query(above_average()).rows)


@pytest.mark.parametrize(
    "plan",
    [
        above_average(),
        {
            "datasets": [
                {
                    "plan": {
                        "datasets": [ORDERS],
                        "group_by": [{"column": "customer_id"}],
                        "aggregates": [{"fn": "sum", "column": "amount", "as": "total"}],
                    },
                    "alias": "t",
                }
            ],
            "where": [{"column": "total", "op": "gt", "value": 500}],
            "order_by": [{"column": "total", "desc": True}],
        },
        {
            "datasets": [{**ORDERS, "alias": "a"}, {**ORDERS, "alias": "b"}],
            "joins": [
                {
                    "alias": "b",
                    "on": [
                        {"left": "a.customer_id", "right": "b.customer_id"},
                        {"left": "a.order_id", "right": "b.order_id", "op": "ne"},
                    ],
                    "kind": "semi",
                }
            ],
            "where": [{"column": "a.qty", "op": "ge", "other": "a.order_id"}],
            "select": [{"column": "a.order_id"}],
        },
    ],
)
def test_clickhouse_answers_as_duckdb(shop, plan):
    check_parity(shop, plan)


def test_clickhouse_answers_them_rather_than_refusing(shop):
    """The parity above compares answers, not two alike refusals."""
    from test_parity import COMPARED

    before = dict(COMPARED)
    check_parity(shop, above_average())
    assert COMPARED["answered"] == before["answered"] + 1


def test_a_nested_order_without_a_limit_cuts_nothing(shop):
    """Only a limit the nested plan says makes it a top N: the default 100 of an answer would
    silently keep part of a nested result."""
    per_order = {
        "datasets": [ORDERS],
        "group_by": [{"column": "order_id"}],
        "aggregates": [{"fn": "count", "as": "n"}],
        "order_by": [{"column": "order_id"}],
    }
    got = shop.query({"datasets": [{"plan": per_order, "alias": "t"}], "aggregates": [{"fn": "count", "as": "orders"}]})
    assert got.rows == [[len({o["order_id"] for o in rows("orders.csv")})]] and got.rows[0][0] > 100
    offset = shop.query(
        {
            "datasets": [{"plan": {**per_order, "offset": 10, "limit": 5}, "alias": "t"}],
            "select": [{"column": "order_id"}],
        }
    )
    ids = sorted({int(o["order_id"]) for o in rows("orders.csv")})
    assert [r[0] for r in offset.rows] == ids[10:15]
