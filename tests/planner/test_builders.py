"""planner/builders.py: the SQL of the operator table as sqlglot nodes: exact arithmetic at the
result's decimal type, exact sums and medians, and ClickHouse's own functions by name."""

from schemas import column_node, operation
from sqlglot import exp

from planner.builders import AVG_EXACT_SUM_DIGITS, as_type, at_common, average, clickhouse_fn, median, operand, total

X = exp.column("x")


def same(e: exp.Expression) -> exp.Expression:
    return e


def number(physical: str):
    return column_node("number", physical)


def test_an_operand_of_exact_arithmetic_is_at_its_decimal_type_and_wide_where_the_result_is():
    assert operand(number("DECIMAL(8, 2)"), X, (9, 2)).sql("duckdb") == "x"
    # a result past 18 digits: DuckDB would multiply two narrow decimals in 64 bits and fail
    assert operand(number("DECIMAL(8, 2)"), X, (27, 2)).sql("duckdb") == "CAST(x AS DECIMAL(19, 2))"
    assert operand(number("BIGINT"), X, None).sql("duckdb") == "CAST(x AS DOUBLE)"


def test_a_value_standing_for_others_takes_their_common_type():
    node = operation("coalesce", "number", "DECIMAL(21, 2)")
    assert at_common(node, X, number("BIGINT")).sql("duckdb") == "CAST(x AS DECIMAL(21, 2))"
    assert at_common(node, X, number("DECIMAL(21, 2)")).sql("duckdb") == "x"


def test_a_sum_of_durations_keeps_months_days_and_microseconds_apart():
    sql = total(X, None, "INTERVAL", same).sql("duckdb")
    assert "INTERVAL" in sql and "MONTH" in sql and "TO_DAYS" in sql and "EXTRACT(MICROSECOND" in sql


def test_a_decimals_median_is_the_exact_mean_of_the_two_middle_values():
    sql = median(X, None, "DECIMAL(8, 2)", same).sql("duckdb")
    assert sql.count("QUANTILE_DISC") == 2 and sql.endswith("AS DECIMAL(9, 3))")
    assert median(X, None, "DOUBLE", same).sql("duckdb") == "MEDIAN(x)"


def test_an_average_of_wide_decimals_is_summed_in_double():
    wide = f"DECIMAL({AVG_EXACT_SUM_DIGITS + 1}, 2)"
    assert average(X, None, wide, same).sql("duckdb") == "AVG(CAST(x AS DOUBLE))"
    assert average(X, None, "DECIMAL(8, 2)", same).sql("duckdb") == "AVG(x)"


def test_a_clickhouse_function_is_written_by_its_own_name():
    assert clickhouse_fn("toStartOfMonth", X).sql("clickhouse") == "toStartOfMonth(x)"
    assert as_type(X, "BIGINT").sql("duckdb") == "CAST(x AS BIGINT)"
