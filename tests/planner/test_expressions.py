"""Expressions and computed columns typed before anything runs (SPEC §4, issue 17): the exact
precision and scale of every integer and decimal result, and 422 with the path inside `expr`,
over the planner's fixed schemas (tests/plans/test_expressions.py runs them on the engine)."""

from __future__ import annotations

import pytest
from schemas import found_for

from planner.compile import compile_plan
from planner.models import QueryPlan
from planner.resolve import resolve
from planner.resolved import PlanInvalid

O = {"source_uri": "files/orders.csv", "alias": "o"}


def typed(expr, **extra) -> dict:
    """The computed column's receipt entry for `expr` over the planner's fixed schemas."""
    plan = QueryPlan.model_validate({"datasets": [O], "compute": [{"as": "x", "expr": expr}], **extra})
    resolved = resolve(plan, found_for(plan), [])
    ref = resolved.computed[0]
    return {"type": ref.column.type, "physical": ref.column.physical}


def problems(plan_json) -> dict:
    plan = QueryPlan.model_validate(plan_json)
    with pytest.raises(PlanInvalid) as err:
        resolve(plan, found_for(plan), [])
    return {p.path: p for p in err.value.problems}


# amount is DECIMAL(8, 2), order_id and customer_id BIGINT (19 digits at most).
@pytest.mark.parametrize(
    "expr, physical",
    [
        ({"add": ["amount", "amount"]}, "DECIMAL(9, 2)"),
        ({"add": ["amount", 0.005]}, "DECIMAL(10, 3)"),
        ({"sub": [1, "amount"]}, "DECIMAL(9, 2)"),
        ({"mul": ["amount", "amount"]}, "DECIMAL(16, 4)"),
        ({"mul": ["amount", "order_id"]}, "DECIMAL(27, 2)"),
        ({"add": ["order_id", 1]}, "HUGEINT"),
        ({"mul": [3, 4]}, "BIGINT"),
        ({"neg": "order_id"}, "HUGEINT"),  # -(-2^63) is no BIGINT
        ({"round": ["amount", 1]}, "DECIMAL(8, 1)"),  # 999999.99 rounds to 1000000.0
        ({"round": ["amount"]}, "BIGINT"),  # 7 digits, no scale: an integer
        ({"round": ["amount", 5]}, "DECIMAL(8, 2)"),
        ({"floor": "amount"}, "BIGINT"),
        ({"div": ["amount", 3]}, "DOUBLE"),
        ({"coalesce": ["amount", 0.125]}, "DECIMAL(9, 3)"),
        ({"year": "ordered_on"}, "BIGINT"),
        ({"date_diff": ["day", "ordered_on", {"value": "2024-01-01", "type": "date"}]}, "BIGINT"),
        ({"date_add": ["ordered_on", {"value": "P30D", "type": "duration"}]}, "DATE"),
        ({"date_add": ["ordered_on", {"value": "PT1H", "type": "duration"}]}, "TIMESTAMP"),
        ({"concat": ["region", {"value": "-"}, "amount"]}, "VARCHAR"),
        ({"cast": ["region", "decimal(10,2)"]}, "DECIMAL(10, 2)"),
        (
            {"case": [{"when": {"column": "amount", "op": "gt", "value": 10}, "then": "amount"}], "else": 0},
            "DECIMAL(8, 2)",
        ),
    ],
)
def test_every_result_has_the_exact_type_of_its_value(expr, physical):
    assert typed(expr)["physical"] == physical


def test_an_exact_result_past_38_digits_is_refused_before_anything_runs():
    got = problems(
        {
            "datasets": [O],
            "compute": [
                {"as": "x", "expr": {"mul": ["amount", "amount", "order_id"]}},
                {"as": "y", "expr": {"mul": ["order_id", "order_id", "order_id"]}},
            ],
        }
    )
    assert not any(path.startswith("compute[0]") for path in got)  # the first fits (16 + 19 = 35 digits)
    assert "38" in got["compute[1].expr.mul"].message and "digits" in got["compute[1].expr.mul"].message


def test_problems_point_inside_the_expression_with_close_names():
    got = problems(
        {
            "datasets": [O],
            "compute": [
                {"as": "a", "expr": {"mul": ["amount", {"sub": [1, "discont"]}]}},
                {"as": "b", "expr": {"add": ["amount", "region"]}},
                {"as": "c", "expr": {"sub": ["amount"]}},
                {"as": "d", "expr": {"year": "amount"}},
                {"as": "e", "expr": {"cast": ["amount", "money"]}},
                {"as": "region", "expr": 1},
            ],
        }
    )
    assert got["compute[0].expr.mul[1].sub[1]"].message == "no column 'discont'"
    assert got["compute[1].expr.add[1]"].expected == "a number"
    assert "takes 2" in got["compute[2].expr.sub"].message
    assert "date or datetime" in got["compute[3].expr.year"].message
    assert "decimal(p,s)" in got["compute[4].expr.cast[1]"].expected
    assert "already the name of a column" in got["compute[5].as"].message


def test_computed_filters_apply_in_their_dataset_or_after_the_joins():
    one = ok_sql(
        {
            "datasets": [O],
            "compute": [{"as": "net", "expr": {"mul": ["amount", 0.9]}}],
            "where": [{"column": "net", "op": "gt", "value": 5}],
        }
    )
    # inside the dataset's own subquery (the last to close), over the layer computing `net`
    assert one.index('AS "net"') < one.index("WHERE") < one.rindex(') AS "o"')
    C = {"source_uri": "files/customers.csv", "alias": "c"}
    two = ok_sql(
        {
            "datasets": [O, C],
            "joins": [{"alias": "c", "on": [{"left": "o.customer_id", "right": "c.customer_id"}]}],
            "compute": [{"as": "tag", "expr": {"concat": ["c.name", "o.region"]}}],
            "where": [{"column": "tag", "op": "eq", "value": "x"}],
        }
    )
    assert two.index("WHERE") > two.index(" ON ")  # after the join


def ok_sql(plan_json) -> str:

    plan = QueryPlan.model_validate(plan_json)
    return compile_plan(resolve(plan, found_for(plan), [])).sql
