"""Where a compiled plan runs: what the SQL of each engine needs that the plan does not say.

`Target` writes DuckDB, the engine the planner was made for; `ClickHouse` overrides only what
differs there (ibis-style: one compiler, a backend per engine). The compiler asks a target for
parameter placeholders, filters, buckets and aggregates; the resolver asks it which columns it
can read at all (`problem`), so a plan it cannot answer exactly is refused up front, with a path.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlglot import exp

from .builders import Lower, OnlyWhere, clickhouse_fn, data_type
from .dialect import DIALECT
from .operators import AGGREGATES, FILTERS, OPERATORS, WINDOWS, kept
from .resolved import Operation, Output, RExpr
from .schema import ColumnInfo

Constant = Callable[[str, Any, str], exp.Expression]  # (name, value, physical) -> a bound parameter


class Target:
    """DuckDB SQL: `$pN` parameters, date_trunc buckets; every operator, filter and aggregate as
    the table (operators.py) writes it."""

    name = "duckdb"
    dialect = DIALECT

    def placeholder(self, name: str, physical: str) -> exp.Expression:
        """The parameter `name`, bound with a value of the DuckDB type `physical`."""
        return exp.Placeholder(this=name)

    def lower(self, constant: Constant) -> Lower:
        """How an operand is lowered for a filter that ignores case."""
        return lambda e: exp.Lower(this=e)

    def filter(
        self, op: str, column: exp.Expression, values: list[exp.Expression], ignore_case: bool, constant: Constant
    ) -> exp.Expression:
        return FILTERS[op].sql(column, values, self.lower(constant) if ignore_case else kept)

    def bucket(self, e: exp.Expression, bucket: str, type_: str) -> exp.Expression:
        truncated: exp.Expression = exp.TimestampTrunc(this=e, unit=exp.var(bucket))
        return exp.cast(truncated, data_type("DATE", self.dialect)) if type_ == "date" else truncated

    def aggregate(
        self, fn: str, column: exp.Expression | None, q: exp.Expression | None, physical: str, only_where: OnlyWhere
    ) -> exp.Expression:
        return AGGREGATES[fn].sql_on(self.name)(column, q, physical, only_where)

    def problem(self, column: ColumnInfo) -> str | None:
        """Why this engine cannot read the column exactly, or None when it can."""
        return None

    def cannot(self, node: RExpr) -> str | None:
        """Why this engine cannot compute an expression operator exactly as DuckDB does, or None."""
        if not isinstance(node, Operation):
            return None
        return OPERATORS[node.op].refused_on(self.name, node)

    def cannot_window(self, fn: str, of: Output | None) -> str | None:
        """Why this engine cannot compute the window `fn` over the result column `of` exactly, or None."""
        return WINDOWS[fn].refused_on(self.name, of)

    def operator(self, node: Operation, args: list[exp.Expression]) -> exp.Expression:
        """The SQL of an expression operator over its compiled arguments (the table's)."""
        return OPERATORS[node.op].sql_on(self.name)(node, args)

    def finish(self, tree: exp.Expression) -> exp.Expression:
        """The statement as this engine takes it (a last rewrite of types or names)."""
        return tree


DUCKDB = Target()


# ClickHouse types of the snapshot columns' DuckDB types (the Parquet export keeps them).
_CLICKHOUSE_TYPES = {
    "BIGINT": "Int64",
    "HUGEINT": "Int128",
    "UBIGINT": "UInt64",
    "DOUBLE": "Float64",
    "VARCHAR": "String",
    "BOOLEAN": "Bool",
    "DATE": "Date32",
    "TIMESTAMP": "DateTime64(6, 'UTC')",
    "TIMESTAMPTZ": "DateTime64(6, 'UTC')",
}
_DECIMAL = re.compile(r"DECIMAL\((\d+),\s*(\d+)\)")
# date_trunc's buckets, as ClickHouse names them (week: ISO, from Monday, as DuckDB's).
_BUCKETS = {
    "year": "toStartOfYear",
    "quarter": "toStartOfQuarter",
    "month": "toStartOfMonth",
    "week": "toMonday",
    "day": "toStartOfDay",
    "hour": "toStartOfHour",
    "minute": "toStartOfMinute",
}
# What the ClickHouse backend cannot give back exactly: refused by validation, never at run time.
_UNREADABLE = {
    "TIME": "a time of day has no ClickHouse column type it survives Parquet in (it reads back as a 1970 datetime)",
    "INTERVAL": "a duration has no ClickHouse column type it survives Parquet in (it reads back as raw bytes)",
}
# Settings every ClickHouse statement of a plan runs with, so its answers are DuckDB's: an empty
# aggregate is NULL, a left join's missing side is NULL (not 0 / ''), dates before 1970 and after
# 2149 keep their type through the bucket functions, and the session's clock is UTC.
CLICKHOUSE_SETTINGS = {
    "aggregate_functions_null_for_empty": 1,
    "join_use_nulls": 1,
    "enable_extended_results_for_datetime_functions": 1,
    "session_timezone": "UTC",
    "count_distinct_implementation": "uniqExact",
}


def clickhouse_type(physical: str) -> str | None:
    """The ClickHouse type of a DuckDB physical type, or None where there is none it survives in."""
    match = _DECIMAL.fullmatch(physical)
    if match:
        return f"Decimal({match.group(1)}, {match.group(2)})"
    return _CLICKHOUSE_TYPES.get(physical)


class ClickHouse(Target):
    """ClickHouse SQL: `{pN:Type}` parameters, toStartOf… buckets; the table's ClickHouse SQL where
    it differs (sums without overflow, nulls kept where ClickHouse would give 0, inf or a wrapped
    integer)."""

    name = "clickhouse"
    dialect = "clickhouse"

    def placeholder(self, name: str, physical: str) -> exp.Expression:
        return exp.Placeholder(this=name, kind=data_type(clickhouse_type(physical) or "String", self.dialect))

    def lower(self, constant: Constant) -> Lower:
        # ClickHouse's lower() is ASCII-only, and its lowerUTF8 follows newer Unicode tables than
        # DuckDB's (İ becomes i̇, not i; 55 letters of Unicode 16 DuckDB leaves alone): lower()
        # then DuckDB's own table of every other letter (lowercase.json), bound once per statement.
        table = lowercase()
        uppers = constant("case_from", table["from"], "VARCHAR")
        lowers = constant("case_to", table["to"], "VARCHAR")
        return lambda e: clickhouse_fn("translateUTF8", exp.Lower(this=e), uppers.copy(), lowers.copy())

    def bucket(self, e: exp.Expression, bucket: str, type_: str) -> exp.Expression:
        if bucket == "day" and type_ == "date":
            return e
        start = clickhouse_fn(_BUCKETS[bucket], e)
        if type_ == "datetime" and bucket in ("year", "quarter", "month", "week"):
            # These answer a Date32 for a datetime; DuckDB's date_trunc keeps the timestamp.
            return clickhouse_fn("toDateTime64", start, exp.Literal.number(6), exp.Literal.string("UTC"))
        return start

    def finish(self, tree: exp.Expression) -> exp.Expression:
        # Int128 arrives as raw bytes through chdb's Arrow; Decimal(38, 0) holds every HUGEINT
        # result the planner makes (at most 38 digits) and is read back as an integer.
        # ClickHouse's LIKE escapes with a backslash already, and has no ESCAPE clause.
        def rewrite(node: exp.Expression) -> exp.Expression:
            if isinstance(node, exp.DataType) and node.this == exp.DataType.Type.INT128:
                return data_type("Nullable(Decimal(38, 0))", self.dialect)
            if isinstance(node, exp.Escape):
                pattern: exp.Expression = node.this
                return pattern
            return node

        return tree.transform(rewrite, copy=False)

    def problem(self, column: ColumnInfo) -> str | None:
        if column.physical in _UNREADABLE:
            return _UNREADABLE[column.physical]
        if clickhouse_type(column.physical) is None:
            return f"its type {column.physical} has no ClickHouse equivalent here"
        return None


_LOWERCASE: dict[str, str] = {}


def lowercase() -> dict[str, str]:
    """DuckDB's lowercase of every non-ASCII letter it changes, one code point each (written
    from DuckDB's lower(); tests/planner/test_parity.py checks it against the DuckDB installed)."""
    if not _LOWERCASE:
        _LOWERCASE.update(json.loads((Path(__file__).parent / "lowercase.json").read_text(encoding="utf-8")))
    return _LOWERCASE


CLICKHOUSE = ClickHouse()
TARGETS = {t.name: t for t in (DUCKDB, CLICKHOUSE)}
