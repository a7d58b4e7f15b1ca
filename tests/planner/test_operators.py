"""planner/operators.py: the operator table. Each expression operator, filter and aggregate of the
plan language has one entry, typed from its arguments (exact numbers to the digit, refused past
38), writing its SQL as sqlglot nodes that transpile to each engine, and saying itself in words."""

import pytest
from schemas import column_node, literal_node, operation
from sqlglot import exp

from planner.models import EXPR_OPERATORS, AggregateFn, FilterOp, WindowFn
from planner.operators import AGGREGATES, BUCKET_TYPES, FILTERS, OPERATORS, WINDOWS
from planner.rules import Refused

COLUMN, VALUE = exp.column("x"), exp.Placeholder(this="p0")


def number(physical: str):
    return column_node("number", physical)


def literal(value):
    return literal_node(value)


def sql(e: exp.Expression, dialect: str = "duckdb") -> str:
    return e.sql(dialect)


def same(e: exp.Expression) -> exp.Expression:
    return e


STRING = column_node("string", "VARCHAR")


def test_every_operator_filter_and_aggregate_of_the_plan_language_has_one_entry():
    assert set(OPERATORS) == set(EXPR_OPERATORS)
    assert set(FILTERS) == set(FilterOp.__args__)
    assert set(AGGREGATES) == set(AggregateFn.__args__)
    assert set(WINDOWS) == set(WindowFn.__args__)


def test_a_window_says_what_it_reads_and_how_it_orders():
    assert {w.fn for w in WINDOWS.values() if not w.reads} == {"rank", "dense_rank", "row_number"}
    assert {w.fn for w in WINDOWS.values() if w.order == "takes"} == {"row_number", "running_sum"}
    assert [w.fn for w in WINDOWS.values() if w.running] == ["running_sum"]
    assert WINDOWS["share"].words.format("total") == "total as a share of its sum over"


def test_every_entry_says_itself_in_words():
    assert all(o.words for o in OPERATORS.values())
    assert all("{column}" in f.words for f in FILTERS.values())
    assert all("{}" in a.words for a in AGGREGATES.values())
    assert AGGREGATES["sum"].words.format("amount") == "the total of amount"
    assert FILTERS["lt"].relation == "less than"


def test_arithmetic_is_typed_to_the_exact_result():
    # 999999.99 + 19 digits of BIGINT: the wider integer part, the wider scale, and a carry
    assert OPERATORS["add"].typed([number("DECIMAL(8, 2)"), number("BIGINT")]) == ("number", "DECIMAL(22, 2)", (22, 2))
    assert OPERATORS["mul"].typed([number("DECIMAL(8, 2)"), number("BIGINT")]) == ("number", "DECIMAL(27, 2)", (27, 2))
    assert OPERATORS["floor"].typed([number("DECIMAL(3, 1)")]) == ("number", "BIGINT", (3, 0))
    assert OPERATORS["div"].typed([number("BIGINT"), number("BIGINT")]) == ("number", "DOUBLE", None)
    assert OPERATORS["add"].typed([number("DOUBLE"), number("BIGINT")]) == ("number", "DOUBLE", None)


def test_an_exact_result_past_38_digits_is_refused_not_run_in_double():
    with pytest.raises(Refused, match="39 digits"):
        OPERATORS["mul"].typed([number("DECIMAL(20, 2)"), number("BIGINT")])


def test_round_keeps_a_place_for_the_carry_and_takes_only_literal_digits():
    # 99.99 to one place is 100.0
    assert OPERATORS["round"].typed([number("DECIMAL(4, 2)"), literal(1)]) == ("number", "DECIMAL(4, 1)", (4, 1))
    with pytest.raises(Refused) as err:
        OPERATORS["round"].typed([number("DECIMAL(4, 2)"), literal(40)])
    assert err.value.arg == 1


def test_an_argument_of_the_wrong_type_is_named_by_its_position():
    with pytest.raises(Refused, match="argument 2 is string") as err:
        OPERATORS["add"].typed([number("BIGINT"), STRING])
    assert err.value.arg == 1
    with pytest.raises(Refused, match="year reads a date or datetime"):
        OPERATORS["year"].typed([STRING])


def test_division_never_divides_by_zero_in_sql():
    node = operation("div", "number", "DOUBLE", number("BIGINT"), number("BIGINT"))
    assert sql(OPERATORS["div"].sql(node, [exp.column("a"), exp.column("b")])) == (
        "CAST(a AS DOUBLE) / NULLIF(CAST(b AS DOUBLE), 0)"
    )


@pytest.mark.parametrize(
    ("op", "arg", "duckdb", "clickhouse"),
    [
        ("weekday", "DATE", "ISODOW(x)", "toDayOfWeek(x)"),
        ("length", "VARCHAR", "LENGTH(x)", "CHAR_LENGTH(x)"),  # characters, not bytes
        ("year", "DATE", "YEAR(x)", "YEAR(x)"),
        ("substring", "VARCHAR", "SUBSTRING(x, y)", "substringUTF8(x, y)"),
    ],
)
def test_an_operator_is_one_node_each_engine_writes_its_own_way(op, arg, duckdb, clickhouse):
    type_ = "string" if arg == "VARCHAR" else "date"
    args = [column_node(type_, arg)] + ([number("BIGINT")] if op == "substring" else [])
    node = operation(op, "number", "BIGINT", *args)
    built = [exp.column("x"), exp.column("y")][: len(args)]
    assert sql(OPERATORS[op].sql_on("duckdb")(node, built)) == duckdb
    assert sql(OPERATORS[op].sql_on("clickhouse")(node, built), "clickhouse") == clickhouse


def test_an_engine_that_cannot_compute_an_operator_says_why():
    lowered = operation("lower", "string", "VARCHAR", STRING)
    assert OPERATORS["lower"].refused_on("duckdb", lowered) is None
    assert "case tables" in (OPERATORS["lower"].refused_on("clickhouse", lowered) or "")
    added = operation("add", "number", "BIGINT", number("BIGINT"), number("BIGINT"))
    assert OPERATORS["add"].refused_on("clickhouse", added) is None


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


def test_dates_take_day_buckets_and_datetimes_hour_ones_too():
    assert "hour" not in BUCKET_TYPES["date"] and "hour" in BUCKET_TYPES["datetime"]
    assert "string" not in BUCKET_TYPES


def test_aggregates_build_their_sql_and_say_their_result_type():
    assert sql(AGGREGATES["count"].sql(None, None, "", same)) == "COUNT(*)"
    assert sql(AGGREGATES["count_distinct"].sql(COLUMN, None, "BIGINT", same)) == "COUNT(DISTINCT x)"
    assert sql(AGGREGATES["stddev"].sql(COLUMN, None, "DOUBLE", same)) == "STDDEV_SAMP(x)"
    assert sql(AGGREGATES["quantile"].sql(COLUMN, VALUE, "DOUBLE", same)) == "QUANTILE_CONT(x, $p0)"
    assert AGGREGATES["count"].result("date") == "number"
    assert AGGREGATES["max"].result("date") == "date"


def test_clickhouse_aggregates_stay_exact_and_null_where_duckdbs_are():
    on_clickhouse = AGGREGATES["sum"].sql_on("clickhouse")
    assert sql(on_clickhouse(COLUMN, None, "BIGINT", same), "clickhouse") == "SUM(toDecimal128(x, 0))"
    spread = sql(AGGREGATES["var"].sql_on("clickhouse")(COLUMN, None, "DOUBLE", same), "clickhouse")
    assert spread == "CASE WHEN COUNT(x) > 1 THEN varSampStable(toFloat64(x)) ELSE NULL END"
    # min and max are alike everywhere: no ClickHouse entry
    assert AGGREGATES["max"].sql_on("clickhouse") is AGGREGATES["max"].sql
