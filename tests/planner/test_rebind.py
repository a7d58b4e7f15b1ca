"""A compiled statement kept by plan shape (rebind.rebind): a plan that differs only in its
filters' values, bound into the statement of the first, is the statement a fresh compile of it
writes, parameter for parameter; where a value changes the SQL (one beyond its column), no
statement is reused. A kept resolution (rebind.read_slots) reads another plan's values as
resolving that plan reads them, or not at all where resolving would refuse or settle one."""

import copy
import json
from pathlib import Path

import pytest
from schemas import BY_SOURCE, found_for

from planner.compile import compile_plan
from planner.models import QueryPlan
from planner.rebind import read_slots, rebind, slot_values
from planner.resolve import resolve
from planner.resolved import PlanInvalid

CASES = json.loads((Path(__file__).parent / "golden_sql.json").read_text())


def _other_values(plan: dict) -> dict:
    """The plan with every filter value changed to another of its kind."""
    out = copy.deepcopy(plan)

    def change(v):
        if isinstance(v, bool):
            return not v
        if isinstance(v, (int, float)):
            return v + 1
        if isinstance(v, str) and v[:4].isdigit() and v[4:5] == "-":  # a date
            return ("2001" + v[4:]) if not v.startswith("2001") else ("2002" + v[4:])
        if isinstance(v, str):
            try:
                return str(float(v) + 1)
            except ValueError:
                return v + "x"
        return v

    def walk(node):
        if isinstance(node, list):
            for n in node:
                walk(n)
        elif isinstance(node, dict):
            if "column" in node and "op" in node:
                if "value" in node:
                    node["value"] = change(node["value"])
                if "values" in node:
                    node["values"] = [change(v) for v in node["values"]]
            for n in node.values():
                walk(n)

    walk(out)
    return out


def compiled(plan_json: dict):
    plan = QueryPlan.model_validate(plan_json)
    resolved = resolve(plan, found_for(plan), [])
    return resolved, compile_plan(resolved)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_other_values_bound_into_a_kept_statement_are_a_fresh_compile(case):
    _, first = compiled(case["plan"])
    other = _other_values(case["plan"])
    resolved, fresh = compiled(other)
    if slot_values(resolved) is None:  # a value the SQL depends on: compiled afresh (the caller's rule)
        assert rebind(first, resolved) is None
        return
    again = rebind(first, resolved)
    assert again is not None
    assert (again.sql, again.params) == (fresh.sql, fresh.params)


def test_values_beyond_their_column_are_never_rebound():
    plan = {"datasets": [{"source_uri": "files/orders.csv"}], "where": [{"column": "amount", "op": "gt", "value": 10}]}
    _, first = compiled(plan)
    beyond = copy.deepcopy(plan)
    beyond["where"][0]["value"] = "1e20"
    resolved, _ = compiled(beyond)
    assert rebind(first, resolved) is None


def _found(plan):
    """found_for, into plans nested as datasets."""
    return [_found(d.plan) if hasattr(d, "plan") else BY_SOURCE.get(d.source_uri, []) for d in plan.datasets]


def _compiled_nested(plan_json: dict):
    plan = QueryPlan.model_validate(plan_json)
    resolved = resolve(plan, _found(plan), [])
    return resolved, compile_plan(resolved)


def _casting(inner_value: str, outer_value: int) -> dict:
    """A nested plan that casts (its receipt counts the values that do not read) and filters at the
    path the outer plan filters at too: `where[0].value` in each."""
    inner = {
        "datasets": [{"source_uri": "files/orders.csv"}],
        "compute": [{"as": "n", "expr": {"cast": ["region", "integer"]}}],
        "where": [{"column": "region", "op": "eq", "value": inner_value}],
        "group_by": [{"column": "customer_id"}],
        "aggregates": [{"fn": "sum", "column": "n", "as": "total"}],
    }
    return {
        "datasets": [{"source_uri": "files/orders.csv", "alias": "o"}, {"plan": inner, "alias": "t"}],
        "joins": [{"alias": "t", "on": [{"left": "o.customer_id", "right": "t.customer_id"}]}],
        "where": [{"column": "o.amount", "op": "gt", "value": outer_value}],
        "aggregates": [{"fn": "count"}],
    }


def test_a_nested_plans_cast_check_is_rebound_with_the_nested_values_not_the_outer_ones():
    _, first = _compiled_nested(_casting("North", 10))
    resolved, fresh = _compiled_nested(_casting("South", 20))
    again = rebind(first, resolved)
    assert again is not None and fresh.nested_checks
    assert [c.params for c in again.nested_checks] == [c.params for c in fresh.nested_checks]
    assert "South" in fresh.nested_checks[0].params.values()


@pytest.mark.parametrize("first, then", [("a%", "a\\%"), ("a\\%", "a%")])
def test_a_pattern_with_a_backslash_is_never_bound_where_one_without_was_compiled(first, then):
    def plan(pattern: str) -> dict:
        return {
            "datasets": [{"source_uri": "files/orders.csv"}],
            "where": [{"column": "region", "op": "like", "value": pattern}],
            "aggregates": [{"fn": "count"}],
        }

    _, compiled_first = compiled(plan(first))
    resolved, fresh = compiled(plan(then))
    assert rebind(compiled_first, resolved) is None and ("ESCAPE" in fresh.sql) == ("\\" in then)
    same, _ = compiled(plan(first + "x"))
    assert rebind(compiled_first, same) is not None


# Plans whose filters sit everywhere a filter can: a case's when inside a computed column, an
# aggregate's own where, having, an any group, a nested plan's where, a like pattern, dates.
RICH = [
    {
        "datasets": [{"source_uri": "files/orders.csv"}],
        "compute": [
            {
                "as": "band",
                "expr": {
                    "case": [
                        {"when": {"column": "amount", "op": "ge", "value": "100.00"}, "then": {"value": "big"}},
                        {"when": {"column": "region", "op": "like", "value": "N%"}, "then": {"value": "north"}},
                    ],
                    "else": {"value": "other"},
                },
            }
        ],
        "where": [
            {"column": "ordered_on", "op": "between", "values": ["2024-01-01", "2024-06-30"]},
            {
                "any": [
                    {"column": "region", "op": "in", "values": ["North", "East"]},
                    {"column": "amount", "op": "lt", "value": 5},
                ]
            },
        ],
        "group_by": [{"column": "band"}],
        "aggregates": [
            {
                "fn": "sum",
                "column": "amount",
                "as": "total",
                "where": [{"column": "customer_id", "op": "ne", "value": 7}],
            },
            {"fn": "count", "as": "n"},
        ],
        "having": [{"column": "n", "op": "gt", "value": 2}],
    },
    {
        "datasets": [
            {"source_uri": "files/customers.csv", "alias": "c"},
            {
                "plan": {
                    "datasets": [{"source_uri": "files/orders.csv"}],
                    "where": [{"column": "amount", "op": "gt", "value": 10}],
                    "group_by": [{"column": "customer_id"}],
                    "aggregates": [{"fn": "sum", "column": "amount", "as": "spent"}],
                },
                "alias": "o",
            },
        ],
        "joins": [{"alias": "o", "on": [{"left": "c.customer_id", "right": "o.customer_id"}]}],
        "where": [{"column": "c.segment", "op": "eq", "value": "retail", "ignore_case": True}],
        "aggregates": [{"fn": "count"}],
    },
]


def _read_again(plan_json: dict):
    plan = QueryPlan.model_validate(plan_json)
    return plan, _found(plan)


@pytest.mark.parametrize("plan_json", [c["plan"] for c in CASES] + RICH)
def test_values_read_into_a_kept_resolution_are_what_resolving_the_plan_reads(plan_json):
    first, found = _read_again(plan_json)
    kept = resolve(first, found, [])
    assert read_slots(kept, first) == slot_values(kept)
    other, _ = _read_again(_other_values(plan_json))
    try:
        fresh = slot_values(resolve(other, found, []))
    except PlanInvalid:  # a value the column cannot read: resolving says why, so no values are read
        fresh = None
    assert read_slots(kept, other) == fresh


@pytest.mark.parametrize(
    "change, value",
    [
        ("unreadable", "not a date"),
        ("beyond its column", "1e30"),
        ("a lone backslash", "N\\"),
    ],
)
def test_a_value_resolving_would_refuse_or_settle_is_never_read_into_a_kept_resolution(change, value):
    first, found = _read_again(RICH[0])
    kept = resolve(first, found, [])
    other = copy.deepcopy(RICH[0])
    if change == "unreadable":
        other["where"][0]["values"][1] = value
    elif change == "beyond its column":
        other["where"][1]["any"][1]["value"] = value
    else:
        other["compute"][0]["expr"]["case"][1]["when"]["value"] = value
    plan, _ = _read_again(other)
    assert read_slots(kept, plan) is None


@pytest.mark.parametrize("value", ["4.999", "100.005", 3])
def test_a_number_finer_than_its_column_is_read_into_a_kept_resolution_as_resolving_rounds_it(value):
    first, found = _read_again(RICH[0])
    kept = resolve(first, found, [])
    other = copy.deepcopy(RICH[0])
    other["where"][1]["any"][1]["value"] = value  # amount (DECIMAL(8, 2)) lt value
    plan, _ = _read_again(other)
    read, fresh = read_slots(kept, plan), slot_values(resolve(plan, found, []))
    assert read == fresh
    slot = ("", "where[1].any[1]", 0)
    assert str(read[slot]) == str(fresh[slot])  # the same digits, not only the same number
