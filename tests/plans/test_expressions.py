"""Expressions, computed columns and measures (SPEC §4, issue 17): typed before anything runs (the
exact precision and scale of every integer and decimal result, 422 with the path inside `expr`),
then run on the query fixtures and checked against the CSV files read with the csv module and
Python's decimal arithmetic."""

from __future__ import annotations

import csv
import datetime as dt
import decimal
from decimal import ROUND_HALF_UP, Decimal

import pytest
from conftest import ROOT
from schemas import found_for

import tabular
from planner.models import QueryPlan
from planner.resolve import resolve

QUERY = ROOT / "fixtures" / "query"
decimal.getcontext().prec = 100  # the oracle's arithmetic is exact: 38-digit values and their products
O = {"source_uri": "files/orders.csv", "alias": "o"}


def rows(name: str) -> list[dict]:
    with (QUERY / name).open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_a_pydantic_problem_inside_an_expression_has_a_json_path(tmp_path):
    with tabular.connect(str(tmp_path / "home")) as engine:
        ns = engine.namespace("acme", "shop")
        with pytest.raises(tabular.ValidationFailed) as err:
            ns.query(
                {
                    "datasets": [{"source_uri": "x.csv"}],
                    "compute": [{"as": "a", "expr": {"add": [1, True]}}, {"as": "b", "expr": {"mull": [1, 2]}}],
                }
            )
    paths = {e.path for e in err.value.errors}
    assert "compute[0].expr.add[1]" in paths and "compute[1].expr.mull" in paths


# Against the engine ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    with tabular.connect(str(tmp_path_factory.mktemp("expr") / "home")) as engine:
        ns = engine.namespace("acme", "shop")
        for name in ("customers.csv", "orders.csv", "items.csv", "extremes.csv"):
            assert ns.ingest_file(QUERY / name, source_uri=name).state == "ready"
        yield ns


def test_revenue_per_region_is_exact_to_the_digit(shop):
    expected: dict[str, Decimal] = {}
    for o in rows("orders.csv"):
        if o["amount"] and o["qty"]:
            value = Decimal(o["amount"]) * int(o["qty"]) * (1 - Decimal("0.05"))
            expected[o["region"] or None] = expected.get(o["region"] or None, Decimal(0)) + value
    got = shop.query(
        {
            "datasets": [{"source_uri": "orders.csv"}],
            "compute": [{"as": "revenue", "expr": {"mul": ["amount", "qty", {"sub": [1, 0.05]}]}}],
            "group_by": [{"column": "region"}],
            "aggregates": [{"fn": "sum", "column": "revenue"}],
        }
    )
    assert {r[0]: Decimal(r[1]) for r in got.rows} == expected
    assert all(isinstance(r[1], str) for r in got.rows)  # decimals as text: never a float on the way
    (computed,) = got.receipt.computed
    assert computed.name == "revenue" and computed.physical.startswith("DECIMAL(") and computed.stage == "row"


def test_an_aggregate_reads_an_expression(shop):
    expected = sum(Decimal(o["amount"]) * int(o["qty"]) for o in rows("orders.csv") if o["amount"] and o["qty"])
    got = shop.query(
        {
            "datasets": [{"source_uri": "orders.csv"}],
            "aggregates": [{"fn": "sum", "expr": {"mul": ["amount", "qty"]}, "as": "gross"}],
        }
    )
    assert got.columns[0].name == "gross" and Decimal(got.rows[0][0]) == expected


def test_rounding_division_and_nulls(shop):
    got = shop.query(
        {
            "datasets": [{"source_uri": "orders.csv"}],
            "compute": [
                {"as": "r", "expr": {"round": [{"mul": ["amount", 0.5]}, 1]}},
                {"as": "d", "expr": {"div": ["amount", {"sub": ["qty", "qty"]}]}},
                {"as": "n", "expr": {"coalesce": ["note", {"value": "-"}]}},
            ],
            "select": [{"column": "amount"}, {"column": "r"}, {"column": "d"}, {"column": "n"}],
            "limit": 1000,
        }
    )
    for row, o in zip(got.rows, rows("orders.csv")):
        if o["amount"]:
            assert Decimal(row[1]) == (Decimal(o["amount"]) * Decimal("0.5")).quantize(Decimal("0.1"), ROUND_HALF_UP)
        else:
            assert row[1] is None
        assert row[2] is None  # a zero divisor is null, never infinity
        assert row[3] == (o["note"] or "-")


def test_date_parts_and_differences(shop):
    got = shop.query(
        {
            "datasets": [{"source_uri": "orders.csv"}],
            "compute": [
                {"as": "q", "expr": {"quarter": "ordered_on"}},
                {"as": "wd", "expr": {"weekday": "ordered_on"}},
                {"as": "age", "expr": {"date_diff": ["day", "ordered_on", {"value": "2024-01-01", "type": "date"}]}},
            ],
            "select": [{"column": "ordered_on"}, {"column": "q"}, {"column": "wd"}, {"column": "age"}],
            "limit": 1000,
        }
    )
    for ordered_on, q, wd, age in got.rows:
        if ordered_on is None:
            continue
        d = dt.date.fromisoformat(ordered_on)
        assert (q, wd, age) == ((d.month - 1) // 3 + 1, d.isoweekday(), (dt.date(2024, 1, 1) - d).days)


def test_a_cast_that_cannot_read_a_value_makes_it_null_and_says_how_many(shop):
    notes = [o["note"] for o in rows("orders.csv")]
    got = shop.query(
        {
            "datasets": [{"source_uri": "orders.csv"}],
            "compute": [{"as": "n", "expr": {"cast": ["note", "integer"]}}],
            "aggregates": [{"fn": "count", "column": "n"}],
        }
    )
    unread = sum(1 for n in notes if n and not n.strip().lstrip("-").isdigit())
    assert got.rows == [[sum(1 for n in notes if n and n.strip().lstrip("-").isdigit())]]
    assert got.receipt.warnings == [f"compute[0].expr.cast: {unread} value(s) could not be read by cast and are null"]


def test_wide_decimals_stay_exact_or_are_refused(shop):
    # mid is DECIMAL(30, 2): mid + mid fits 31 digits; mid * mid would need 60.
    got = shop.query(
        {
            "datasets": [{"source_uri": "extremes.csv"}],
            "compute": [{"as": "twice", "expr": {"add": ["mid", "mid"]}}],
            "select": [{"column": "mid"}, {"column": "twice"}],
            "limit": 100,
        }
    )
    for mid, twice in got.rows:
        assert (mid is None and twice is None) or Decimal(twice) == 2 * Decimal(mid)
    with pytest.raises(tabular.ValidationFailed) as err:
        shop.query(
            {
                "datasets": [{"source_uri": "extremes.csv"}],
                "compute": [{"as": "sq", "expr": {"mul": ["mid", "mid"]}}],
                "dry_run": True,
            }
        )
    assert err.value.errors[0].path == "compute[0].expr.mul"


def test_top_three_products_per_region_by_rank(shop):
    # items joined to orders: revenue per (region, sku), ranked within each region.
    regions = {o["order_id"]: o["region"] or None for o in rows("orders.csv")}
    totals: dict[tuple, Decimal] = {}
    for i in rows("items.csv"):
        key = (regions.get(i["order_id"]), i["sku"])
        if i["order_id"] in regions and i["price"]:
            totals[key] = totals.get(key, Decimal(0)) + Decimal(i["price"])
    expected = set()
    for region in {k[0] for k in totals}:
        ranked = sorted((v for k, v in totals.items() if k[0] == region), reverse=True)
        expected |= {
            (k[0], k[1], 1 + sum(1 for x in ranked if x > v))
            for k, v in totals.items()
            if k[0] == region and sum(1 for x in ranked if x > v) < 3
        }
    got = shop.query(
        {
            "datasets": [{"source_uri": "items.csv", "alias": "i"}, {"source_uri": "orders.csv", "alias": "o"}],
            "joins": [{"alias": "o", "on": [{"left": "i.order_id", "right": "o.order_id"}]}],
            "group_by": [{"column": "o.region", "as": "region"}, {"column": "i.sku", "as": "sku"}],
            "aggregates": [{"fn": "sum", "column": "i.price", "as": "revenue"}],
            "measures": [
                {
                    "as": "rank",
                    "window": {
                        "fn": "rank",
                        "partition_by": ["region"],
                        "order_by": [{"column": "revenue", "desc": True}],
                    },
                }
            ],
            "having": [{"column": "rank", "op": "le", "value": 3}],
            "order_by": [{"column": "region"}, {"column": "rank"}],
            "limit": 1000,
        }
    )
    assert {(r[0], r[1], r[3]) for r in got.rows} == expected
    assert [c.name for c in got.receipt.computed] == ["rank"]


def test_shares_running_sums_and_measure_expressions(shop):
    totals: dict[str, Decimal] = {}
    for o in rows("orders.csv"):
        if o["amount"]:
            totals[o["region"] or None] = totals.get(o["region"] or None, Decimal(0)) + Decimal(o["amount"])
    got = shop.query(
        {
            "datasets": [{"source_uri": "orders.csv"}],
            "group_by": [{"column": "region"}],
            "aggregates": [{"fn": "sum", "column": "amount", "as": "total"}],
            "measures": [
                {"as": "share", "window": {"fn": "share", "of": "total"}},
                {"as": "running", "window": {"fn": "running_sum", "of": "total", "order_by": [{"column": "total"}]}},
                {"as": "above_avg", "expr": {"sub": ["total", {"value": "80000", "type": "number"}]}},
                {"as": "grand", "window": {"fn": "sum", "of": "total"}},
            ],
        }
    )
    grand = sum(totals.values())
    running = Decimal(0)
    by_total = sorted(totals.items(), key=lambda kv: kv[1])
    expected_running = {}
    for region, total in by_total:
        running += total
        expected_running[region] = running
    for region, total, share, run, above, whole in got.rows:
        assert Decimal(total) == totals[region]
        assert share == pytest.approx(float(totals[region] / grand), rel=1e-12)
        assert Decimal(run) == expected_running[region]
        assert Decimal(above) == totals[region] - 80000
        assert Decimal(whole) == grand
    # A having that names no measure applies before them: the share is of the groups kept.
    kept = shop.query(
        {
            "datasets": [{"source_uri": "orders.csv"}],
            "group_by": [{"column": "region"}],
            "aggregates": [{"fn": "sum", "column": "amount", "as": "total"}],
            "measures": [{"as": "share", "window": {"fn": "share", "of": "total"}}],
            "having": [{"column": "region", "op": "in", "values": ["East", "West"]}],
        }
    )
    assert sum(r[2] for r in kept.rows) == pytest.approx(1.0)


def test_window_mistakes_are_named(shop):
    base = {
        "datasets": [{"source_uri": "orders.csv"}],
        "group_by": [{"column": "region"}],
        "aggregates": [{"fn": "sum", "column": "amount", "as": "total"}],
    }
    for window, path, words in [
        ({"fn": "rank"}, "measures[0].window.order_by", "needs order_by"),
        ({"fn": "dense_rank"}, "measures[0].window.order_by", "needs order_by"),
        ({"fn": "share", "of": "totl"}, "measures[0].window.of", "not a result column"),
        ({"fn": "sum", "of": "region"}, "measures[0].window.of", "numbers"),
        ({"fn": "sum", "of": "total", "order_by": [{"column": "total"}]}, "measures[0].window.order_by", "running_sum"),
    ]:
        with pytest.raises(tabular.ValidationFailed) as err:
            shop.query({**base, "measures": [{"as": "m", "window": window}]})
        assert err.value.errors[0].path == path and words in err.value.errors[0].message
        if "totl" in str(window):
            assert err.value.errors[0].did_you_mean == ["total"]


def test_the_plan_hash_covers_computed_columns(shop):
    one = shop.query(
        {
            "datasets": [{"source_uri": "orders.csv"}],
            "compute": [{"as": "x", "expr": {"mul": ["amount", 2]}}],
            "dry_run": True,
        }
    )
    two = shop.query(
        {
            "datasets": [{"source_uri": "orders.csv"}],
            "compute": [{"as": "x", "expr": {"mul": ["amount", 3]}}],
            "dry_run": True,
        }
    )
    assert one.receipt.plan_hash != two.receipt.plan_hash


def test_a_json_number_is_read_from_its_own_digits():
    from tabular.service.calls import parse_body

    body = parse_body(b'{"compute": [{"as": "x", "expr": {"add": ["a", 0.12345678901234567890123]}}]}')
    literal = body["compute"][0]["expr"]["add"][1]
    assert literal == 0.12345678901234568 and literal.text == "0.12345678901234567890123"
    plan = QueryPlan.model_validate(
        {"datasets": [O], **body, "compute": [{"as": "x", "expr": {"add": ["amount", literal]}}]}
    )
    node = resolve(plan, found_for(plan), []).computed[0].expr.args[1]
    assert node.value == Decimal("0.12345678901234567890123") and node.shape == (24, 23)


def test_nullif_gives_back_its_first_value_exactly(shop):
    # Compared with a DOUBLE, the value given back is still the exact one, not its DOUBLE copy.
    got = shop.query(
        {
            "datasets": [{"source_uri": "extremes.csv"}],
            "compute": [{"as": "e", "expr": {"nullif": [{"add": ["big", 0.5]}, {"div": [1, 3]}]}}],
            "select": [{"column": "big"}, {"column": "e"}],
            "limit": 100,
        }
    )
    for big, e in got.rows:
        assert (big is None and e is None) or Decimal(e) == Decimal(big) + Decimal("0.5")


def test_a_window_may_read_another_windows_result(shop):
    # Each measure is its own stage over the ones before it: a window over a rank never nests.
    totals: dict = {}
    for o in rows("orders.csv"):
        if o["amount"]:
            totals[o["region"] or None] = totals.get(o["region"] or None, Decimal(0)) + Decimal(o["amount"])
    got = shop.query(
        {
            "datasets": [{"source_uri": "orders.csv"}],
            "group_by": [{"column": "region"}],
            "aggregates": [{"fn": "sum", "column": "amount", "as": "s"}],
            "measures": [
                {"as": "r", "window": {"fn": "rank", "order_by": [{"column": "s", "desc": True}]}},
                {"as": "twice", "expr": {"mul": ["r", 2]}},
                {"as": "most", "window": {"fn": "max", "of": "twice"}},
                {"as": "ranks", "window": {"fn": "sum", "of": "r"}},
            ],
            "having": [{"column": "r", "op": "le", "value": 2}],
        }
    )
    n = len(totals)
    assert [row[2] for row in got.rows] == [1, 2] and all(row[3] == 2 * row[2] for row in got.rows)
    assert all(row[4] == 2 * n and row[5] == n * (n + 1) // 2 for row in got.rows)


def test_row_number_without_an_order_numbers_the_rows_as_listed(shop):
    got = shop.query(
        {
            "datasets": [{"source_uri": "orders.csv"}],
            "select": [{"column": "order_id"}],
            "measures": [{"as": "n", "window": {"fn": "row_number"}}],
            "limit": 1000,
        }
    )
    assert [row[0] for row in got.rows] == [int(o["order_id"]) for o in rows("orders.csv")]
    assert [row[1] for row in got.rows] == list(range(1, len(got.rows) + 1))
