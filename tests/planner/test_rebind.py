"""A compiled statement kept by plan shape (compile.rebind): a plan that differs only in its
filters' values, bound into the statement of the first, is the statement a fresh compile of it
writes, parameter for parameter; where a value changes the SQL (one beyond its column), no
statement is reused."""

import copy
import json
from pathlib import Path

import pytest
from schemas import found_for

from planner.compile import compile_plan, rebind, slot_values
from planner.models import QueryPlan
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
