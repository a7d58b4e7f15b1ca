"""Golden SQL: each plan of golden_sql.json compiles to exactly the SQL and parameters stored beside it."""

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

import pytest
from schemas import found_for

from planner.compile import compile_plan
from planner.models import QueryPlan
from planner.operators import AGGREGATES, FILTERS, OPERATORS
from planner.resolve import resolve


def as_json(value):
    """A bound value as golden_sql.json writes it: decimals, dates and big integers as text."""
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return str(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**53 - 1:
        return str(value)
    return value


CASES = json.loads((Path(__file__).parent / "golden_sql.json").read_text())


def compiled(plan_json: dict):
    plan = QueryPlan.model_validate(plan_json)
    return compile_plan(resolve(plan, found_for(plan), []))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_golden_sql(case):
    result = compiled(case["plan"])
    assert result.sql == case["sql"]
    assert {k: as_json(v) for k, v in result.params.items()} == case["params"]


def test_no_plan_value_is_spliced_into_the_sql():
    for case in CASES:
        result = compiled(case["plan"])
        for value in result.params.values():
            if isinstance(value, str):
                assert value not in result.sql


def test_hostile_names_and_values_stay_names_and_values():
    """A value carrying quotes, a semicolon, a comment and SQL is a parameter; a column name
    that is not in the schema is refused, never written into SQL."""
    evil = "x'); DROP TABLE catalog.sources; --"
    result = compiled(
        {
            "datasets": [{"source_uri": "files/customers.csv", "alias": 'c"; DELETE'}],
            "where": [
                {"column": "name", "op": "eq", "value": evil},
                {"column": "code", "op": "contains", "value": "/* */ OR 1=1"},
            ],
        }
    )
    assert evil not in result.sql and "DROP" not in result.sql and "1=1" not in result.sql
    assert list(result.params.values())[:2] == [evil, "/* */ OR 1=1"]
    # The alias is an identifier, quoted with its quote doubled.
    assert '"c""; DELETE"' in result.sql


JOIN = {
    "datasets": [{"source_uri": "files/orders.csv", "alias": "o"}, {"source_uri": "files/customers.csv", "alias": "c"}],
    "joins": [{"alias": "c", "on": [{"left": "o.customer_id", "right": "c.customer_id"}]}],
}
GROUPED = {
    "datasets": [{"source_uri": "files/orders.csv"}],
    "group_by": [{"column": "region"}],
    "aggregates": [{"fn": "sum", "column": "amount"}],
}


def whole(plan_json: dict):
    """The statement of the plan's whole result (query_export), with its whole_order."""
    plan = QueryPlan.model_validate(plan_json)
    return compile_plan(resolve(plan, found_for(plan), []), whole=True, stable=plan.whole_order == "stable")


@pytest.mark.parametrize("plan", [JOIN, GROUPED], ids=["join", "groups"])
def test_a_whole_result_without_order_by_streams_in_the_engines_order(plan):
    """SPEC §4: an unordered whole result is not sorted (a sort over the row ids of a join held
    every row before the first was sent); the answer's rows keep their default order; an
    order_by, or whole_order 'stable', sorts the whole result as asked."""
    assert "ORDER BY" not in whole(plan).sql
    assert "ORDER BY" in compiled(plan).sql  # an answer's rows: the default order
    ordered = whole({**plan, "order_by": [{"column": "region" if plan is GROUPED else "o.amount", "desc": True}]})
    assert "ORDER BY" in ordered.sql and "DESC" in ordered.sql
    assert "ORDER BY" in whole({**plan, "whole_order": "stable"}).sql


def test_whole_order_is_a_closed_choice():
    with pytest.raises(ValueError, match="whole_order"):
        QueryPlan.model_validate({**GROUPED, "whole_order": "sorted"})


def _used(node, out: set[str], within: str = "") -> set[str]:
    """Every operator, filter op, aggregate fn and window fn a golden plan names."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in OPERATORS:
                out.add(f"expr {key}")
            if key == "op" and isinstance(value, str):
                out.add(f"filter {value}")
            if key == "fn" and isinstance(value, str):
                out.add(f"{'window' if within == 'window' else 'aggregate'} {value}")
            _used(value, out, key)
    elif isinstance(node, list):
        for item in node:
            _used(item, out, within)
    return out


def test_the_golden_plans_write_every_entry_of_the_operator_table():
    """A change to any operator, filter, aggregate or window changes some golden SQL (DuckDB's here,
    ClickHouse's in tests/plans/test_parity.py), so it cannot pass unseen."""
    used: set[str] = set()
    for case in CASES:
        _used(case["plan"], used)
    wanted = (
        {f"expr {o}" for o in OPERATORS} | {f"filter {f}" for f in FILTERS} | {f"aggregate {a}" for a in AGGREGATES}
    )
    assert wanted - used == set()
    assert len(CASES) >= 40
