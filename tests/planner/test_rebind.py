"""A compiled statement kept by plan shape (rebind.rebind): a plan that differs only in its
filters' values, bound into the statement of the first, is the statement a fresh compile of it
writes, parameter for parameter; where a value changes the SQL (one beyond its column), no
statement is reused."""

import copy
import json
from pathlib import Path

import pytest
from schemas import BY_SOURCE, found_for

from planner.compile import compile_plan
from planner.models import QueryPlan
from planner.rebind import rebind, slot_values
from planner.resolve import resolve

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
