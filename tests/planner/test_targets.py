"""planner/targets.py: what each engine's SQL needs that the plan does not say (parameters,
buckets, aggregates), and which columns and operators an engine cannot answer exactly."""

import pytest
from schemas import column_node, operation
from sqlglot import exp

from planner.schema import ColumnInfo
from planner.targets import CLICKHOUSE, DUCKDB, TARGETS, clickhouse_type


def same(e: exp.Expression) -> exp.Expression:
    return e


def test_targets_are_found_by_name():
    assert TARGETS == {"duckdb": DUCKDB, "clickhouse": CLICKHOUSE}


@pytest.mark.parametrize(
    ("physical", "clickhouse"),
    [("BIGINT", "Int64"), ("DECIMAL(8, 2)", "Decimal(8, 2)"), ("DATE", "Date32"), ("TIME", None), ("UUID", None)],
)
def test_clickhouse_types_of_duckdb_types(physical, clickhouse):
    assert clickhouse_type(physical) == clickhouse


def test_parameters_are_written_as_each_engine_binds_them():
    assert DUCKDB.placeholder("p0", "BIGINT").sql("duckdb") == "$p0"
    assert CLICKHOUSE.placeholder("p0", "BIGINT").sql("clickhouse") == "{p0: Int64}"


def test_a_column_clickhouse_cannot_read_exactly_is_refused_with_why():
    time = ColumnInfo("t", "time", "TIME")
    assert DUCKDB.problem(time) is None
    assert "time of day" in CLICKHOUSE.problem(time)
    assert "UUID" in CLICKHOUSE.problem(ColumnInfo("u", "string", "UUID"))
    assert CLICKHOUSE.problem(ColumnInfo("n", "number", "DECIMAL(8, 2)")) is None


def test_operators_clickhouse_computes_otherwise_are_refused():
    lowered = operation("lower", "string", "VARCHAR", column_node("string", "VARCHAR"))
    assert DUCKDB.cannot(lowered) is None
    assert "case tables" in CLICKHOUSE.cannot(lowered)
    assert CLICKHOUSE.cannot(operation("add", "number", "BIGINT")) is None
    assert CLICKHOUSE.cannot(column_node("number", "BIGINT")) is None


def test_a_date_bucket_stays_a_date():
    column = exp.column("d")
    assert DUCKDB.bucket(column, "month", "date").sql("duckdb") == "CAST(DATE_TRUNC('MONTH', d) AS DATE)"
    assert DUCKDB.bucket(column, "month", "datetime").sql("duckdb") == "DATE_TRUNC('MONTH', d)"
    assert CLICKHOUSE.bucket(column, "day", "date").sql("clickhouse") == "d"
    assert (
        CLICKHOUSE.bucket(column, "month", "datetime").sql("clickhouse") == "toDateTime64(toStartOfMonth(d), 6, 'UTC')"
    )


def test_sums_and_medians_stay_exact():
    column = exp.column("x")
    assert DUCKDB.aggregate("sum", column, None, "BIGINT", same).sql("duckdb") == "SUM(x)"
    # ClickHouse sums Int64 into Int64 and wraps: summed as Decimal(38, 0) instead
    assert CLICKHOUSE.aggregate("sum", column, None, "BIGINT", same).sql("clickhouse") == "SUM(toDecimal128(x, 0))"
    median = DUCKDB.aggregate("median", column, None, "DECIMAL(8, 2)", same).sql("duckdb")
    assert "QUANTILE_DISC" in median and median.endswith("AS DECIMAL(9, 3))")
    # avg of a wide decimal is summed in DOUBLE: an exact sum could pass 38 digits
    assert DUCKDB.aggregate("avg", column, None, "DECIMAL(30, 2)", same).sql("duckdb") == "AVG(CAST(x AS DOUBLE))"


def test_an_aggregates_filter_is_applied_through_only_where():
    def only_where(e):
        return exp.Filter(this=e, expression=exp.Where(this=exp.column("keep")))

    assert DUCKDB.aggregate("max", exp.column("x"), None, "BIGINT", only_where).sql("duckdb") == (
        "MAX(x) FILTER(WHERE keep)"
    )
