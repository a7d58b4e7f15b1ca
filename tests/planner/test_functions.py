"""planner/functions.py: one definition per filter operator and aggregate, its types, its arity,
its SQL and its words."""

import pytest
from sqlglot import exp

from planner.functions import AGGREGATES, BUCKET_TYPES, FILTERS, decimal_median, decimal_shape
from planner.models import AggregateFn, FilterOp

COLUMN, VALUE = exp.column("x"), exp.Placeholder(this="p0")


def sql(e: exp.Expression) -> str:
    return e.sql("duckdb")


def test_every_operator_and_aggregate_of_the_plan_language_has_one_definition():
    assert set(FILTERS) == set(FilterOp.__args__)
    assert set(AGGREGATES) == set(AggregateFn.__args__)


@pytest.mark.parametrize(
    ("op", "values", "words"),
    [
        ("eq", "North", "region = North"),
        ("ne", "North", "region ≠ North"),
        ("between", [1, 5], "region between 1 and 5"),
        ("in", ["A", "B"], "region in (A, B)"),
        ("not_in", ["A"], "region not in (A)"),
        ("is_null", None, "region is empty"),
        ("not_like", "N%", "region is not like N%"),
    ],
)
def test_a_filter_is_said_in_words_with_its_values_as_written(op, values, words):
    f = FILTERS[op]
    said = f.said("region", values=values) if f.arity in ("two", "many") else f.said("region", values)
    assert said == words


def test_string_operators_read_strings_only_and_bool_is_not_ordered():
    assert FILTERS["contains"].types == {"string"} and FILTERS["like"].types == {"string"}
    assert "bool" in FILTERS["eq"].types and "bool" not in FILTERS["lt"].types
    assert AGGREGATES["sum"].types == {"number", "duration"}
    assert not AGGREGATES["count"].needs_column and AGGREGATES["count_distinct"].needs_column


def test_a_filter_builds_its_sql_on_a_bound_parameter():
    assert sql(FILTERS["eq"].build(COLUMN, [VALUE], False)) == "x = $p0"
    assert sql(FILTERS["eq"].build(COLUMN, [VALUE], True)) == "LOWER(x) = LOWER($p0)"
    assert sql(FILTERS["is_null"].build(COLUMN, [], False)) == "x IS NULL"
    # a backslash escapes % and _ in a pattern, on every engine alike
    assert sql(FILTERS["not_like"].build(COLUMN, [VALUE], False)) == "x NOT LIKE $p0 ESCAPE '\\'"


def test_aggregates_build_their_sql_and_say_their_result_type():
    assert sql(AGGREGATES["count"].build(None, None)) == "COUNT(*)"
    assert sql(AGGREGATES["count_distinct"].build(COLUMN, None)) == "COUNT(DISTINCT x)"
    assert AGGREGATES["count"].result("date") == "number"
    assert AGGREGATES["max"].result("date") == "date"


def test_a_decimals_median_is_one_place_wider_where_that_stays_exact():
    assert decimal_shape("DECIMAL(8, 2)") == (8, 2)
    assert decimal_median("DECIMAL(8, 2)") == "DECIMAL(9, 3)"
    assert decimal_median("DECIMAL(36, 2)") == "DECIMAL(37, 3)"
    assert decimal_median("DECIMAL(37, 2)") is None  # two values added would pass 38 digits
    assert decimal_median("BIGINT") is None


def test_dates_take_day_buckets_and_datetimes_hour_ones_too():
    assert "hour" not in BUCKET_TYPES["date"] and "hour" in BUCKET_TYPES["datetime"]
    assert "string" not in BUCKET_TYPES
