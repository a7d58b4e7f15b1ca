"""planner/models.py: the plan language's shapes, refused at the field that breaks them."""

import pytest
from pydantic import ValidationError

from planner.models import (
    ExprValue,
    QueryAggregate,
    QueryDataset,
    QueryExpr,
    QueryFilter,
    QueryMeasure,
    QueryPlan,
    QueryPlanDataset,
)

SOURCE = {"source_uri": "orders.csv"}


def errors(model, data) -> list[tuple[tuple, str]]:
    with pytest.raises(ValidationError) as err:
        model.model_validate(data)
    return [(e["loc"], e["msg"]) for e in err.value.errors()]


def test_a_filter_is_one_condition_or_one_group():
    assert "needs both column and op" in errors(QueryFilter, {"column": "a"})[0][1]
    assert "either {column, op, value}" in errors(QueryFilter, {"column": "a", "op": "eq", "any": []})[0][1]
    assert "one of them" in errors(QueryFilter, {"column": "a", "op": "eq", "value": 1, "other": "b"})[0][1]
    assert errors(QueryFilter, {"column": "a", "op": "approx"})[0][0] == ("op",)
    assert QueryFilter.model_validate({"any": [{"column": "a", "op": "is_null"}]}).any[0].op == "is_null"


def test_an_expression_has_exactly_one_operator():
    assert "this one has 2: add, mul" in errors(QueryExpr, {"add": [1, 2], "mul": [1, 2]})[0][1]
    assert "this one has none" in errors(QueryExpr, {})[0][1]
    assert "else belongs to case" in errors(QueryExpr, {"add": [1, 2], "else": 1})[0][1]


def test_an_expression_names_its_operator_and_its_arguments_as_a_list():
    one = QueryExpr.model_validate({"year": "ordered_on"})
    assert (one.operator, one.args) == ("year", ["ordered_on"])
    case = QueryExpr.model_validate(
        {"case": [{"when": {"column": "a", "op": "eq", "value": 1}, "then": "b"}], "else": "c"}
    )
    assert case.operator == "case" and case.else_ == "c"


def test_each_kind_of_expression_is_told_apart():
    plan = QueryPlan.model_validate(
        {
            "datasets": [SOURCE],
            "compute": [
                {"as": "c", "expr": "amount"},
                {"as": "n", "expr": 12.5},
                {"as": "d", "expr": {"value": "2024-01-01", "type": "date"}},
                {"as": "o", "expr": {"neg": "amount"}},
            ],
        }
    )
    kinds = [c.expr for c in plan.compute]
    assert kinds[0] == "amount" and kinds[1] == 12.5
    assert isinstance(kinds[2], ExprValue) and kinds[2].type == "date"
    assert isinstance(kinds[3], QueryExpr)


def test_a_bool_or_an_infinite_number_is_no_number_literal():
    got = errors(QueryPlan, {"datasets": [SOURCE], "compute": [{"as": "x", "expr": True}]})
    assert got[0][0] == ("compute", 0, "expr", "expr:number") and '{"value": …}' in got[0][1]
    got = errors(QueryPlan, {"datasets": [SOURCE], "compute": [{"as": "x", "expr": float("inf")}]})
    assert "finite" in got[0][1]


def test_a_dataset_is_a_source_or_a_plan():
    plan = QueryPlan.model_validate({"datasets": [SOURCE, {"plan": {"datasets": [SOURCE]}, "alias": "t"}]})
    assert [type(d) for d in plan.datasets] == [QueryDataset, QueryPlanDataset]
    assert plan.datasets[1].plan.datasets[0].source_uri == "orders.csv"
    assert errors(QueryPlan, {"datasets": []})[0][0] == ("datasets",)


def test_an_unknown_field_is_refused_where_it_is():
    assert errors(QueryPlan, {"datasets": [SOURCE], "limt": 3}) == [(("limt",), "Extra inputs are not permitted")]
    assert errors(QueryPlan, {"datasets": [SOURCE], "limit": -1})[0][0] == ("limit",)


def test_an_aggregate_reads_a_column_or_an_expr_and_a_measure_an_expr_or_a_window():
    assert "not both" in errors(QueryAggregate, {"fn": "sum", "column": "a", "expr": "a"})[0][1]
    assert "either {as, expr} or {as, window}" in errors(QueryMeasure, {"as": "m"})[0][1]
    assert QueryAggregate.model_validate({"fn": "count", "as": "n"}).as_ == "n"


def test_a_plan_has_its_documented_defaults():
    plan = QueryPlan.model_validate({"datasets": [SOURCE]})
    assert (plan.limit, plan.offset, plan.dry_run, plan.where, plan.joins) == (100, 0, False, [], [])
