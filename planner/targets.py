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

from .functions import AGGREGATES, FILTERS, decimal_median, decimal_shape
from .operators import RExpr, build, data_type
from .schema import ColumnInfo

# avg of DECIMAL(p, s) with p at most this sums exactly first: past 38 digits only beyond 10^10 rows.
AVG_EXACT_SUM_DIGITS = 28

OnlyWhere = Callable[[exp.Expression], exp.Expression]
Constant = Callable[[str, Any, str], exp.Expression]  # (name, value, physical) -> a bound parameter


def _fn(name: str, *args: exp.Expression) -> exp.Expression:
    return exp.Anonymous(this=name, expressions=list(args))


def _type(text: str, dialect: str) -> exp.DataType:
    return data_type(text, dialect)


class Target:
    """DuckDB SQL: `$pN` parameters, date_trunc buckets, exact decimal medians."""

    name = "duckdb"
    dialect = "duckdb"

    def placeholder(self, name: str, physical: str) -> exp.Expression:
        """The parameter `name`, bound with a value of the DuckDB type `physical`."""
        return exp.Placeholder(this=name)

    def filter(
        self, op: str, column: exp.Expression, values: list[exp.Expression], ignore_case: bool, constant: Constant
    ) -> exp.Expression:
        return FILTERS[op].build(column, values, ignore_case)

    def bucket(self, e: exp.Expression, bucket: str, type_: str) -> exp.Expression:
        truncated = exp.Anonymous(this="date_trunc", expressions=[exp.Literal.string(bucket), e])
        return exp.cast(truncated, _type("DATE", self.dialect)) if type_ == "date" else truncated

    def aggregate(
        self, fn: str, column: exp.Expression | None, q: exp.Expression | None, physical: str, only_where: OnlyWhere
    ) -> exp.Expression:
        if fn == "median" and decimal_median(physical):
            return self.exact_median(column, physical, only_where)
        if fn == "sum" and physical == "INTERVAL":
            # DuckDB has no sum of INTERVAL, and its epoch_us makes a month 30 days and a year 360:
            # months, days and microseconds are each summed exactly (HUGEINT) and made one
            # interval again, P1M + P2D is P1M2D (past INTEGER months or BIGINT microseconds a 422).
            def part(unit: str) -> exp.Expression:
                return exp.Anonymous(this="datepart", expressions=[exp.Literal.string(unit), column.copy()])

            def summed(e: exp.Expression, to: str) -> exp.Expression:
                return exp.cast(only_where(exp.Sum(this=e)), _type(to, self.dialect))

            months = exp.Add(
                this=exp.Mul(this=part("year"), expression=exp.Literal.number(12)), expression=part("month")
            )
            micros = exp.Add(
                this=exp.Add(
                    this=exp.Mul(this=part("hour"), expression=exp.Literal.number(3_600_000_000)),
                    expression=exp.Mul(this=part("minute"), expression=exp.Literal.number(60_000_000)),
                ),
                expression=part("microseconds"),
            )
            return exp.Add(
                this=exp.Add(
                    this=_fn("to_months", summed(months, "INTEGER")),
                    expression=_fn("to_days", summed(part("day"), "INTEGER")),
                ),
                expression=_fn("to_microseconds", summed(micros, "BIGINT")),
            )
        if physical.startswith("DECIMAL") and (
            fn in ("median", "quantile") or (fn == "avg" and decimal_shape(physical)[0] > AVG_EXACT_SUM_DIGITS)
        ):
            # Quantiles of decimals are DOUBLE (the README says so; DuckDB interpolates wide ones
            # through DOUBLE anyway). avg is DOUBLE too, but DuckDB sums the decimals first, and
            # fails when that sum passes 38 digits: wide ones are summed in DOUBLE instead.
            column = exp.cast(column, _type("DOUBLE", self.dialect))
        return only_where(AGGREGATES[fn].build(column, q))

    def exact_median(self, column: exp.Expression, physical: str, only_where: OnlyWhere) -> exp.Expression:
        """The mean of the two middle values, in decimal arithmetic: the lower middle is the 0.5
        discrete quantile, the upper one the same of the negated column. DuckDB's median would
        interpolate a decimal wider than 18 digits through DOUBLE."""
        p, s = decimal_shape(physical)

        def middle(e: exp.Expression) -> exp.Expression:
            return only_where(exp.Anonymous(this="quantile_disc", expressions=[e, exp.Literal.number("0.5")]))

        lower, upper = middle(column), exp.Neg(this=middle(exp.Neg(this=column.copy())))
        both = exp.cast(exp.paren(exp.Add(this=lower, expression=upper)), _type(f"DECIMAL({p + 1}, {s})", self.dialect))
        half = exp.Mul(this=both, expression=exp.Literal.number("0.5"))
        return exp.cast(half, _type(decimal_median(physical), self.dialect))

    def problem(self, column: ColumnInfo) -> str | None:
        """Why this engine cannot read the column exactly, or None when it can."""
        return None

    def cannot(self, operator: str, node: Any = None) -> str | None:
        """Why this engine cannot compute an expression operator (`node`: the typed RExpr) or a
        window ("window <fn>", `node`: the result column it reads) exactly as DuckDB does, or None."""
        return None

    def operator(self, node: RExpr, args: list[exp.Expression]) -> exp.Expression:
        """The SQL of an expression operator over its compiled arguments (operators.py's)."""
        return build(node, args)

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
    """ClickHouse SQL: `{pN:Type}` parameters, toStartOf… buckets, sums without overflow, nulls
    kept where ClickHouse would give 0, inf or a wrapped integer."""

    name = "clickhouse"
    dialect = "clickhouse"

    def placeholder(self, name: str, physical: str) -> exp.Expression:
        return exp.Placeholder(this=name, kind=_type(clickhouse_type(physical) or "String", self.dialect))

    def filter(
        self, op: str, column: exp.Expression, values: list[exp.Expression], ignore_case: bool, constant: Constant
    ) -> exp.Expression:
        # ClickHouse's lower() is ASCII-only, and its lowerUTF8 follows newer Unicode tables than
        # DuckDB's (İ becomes i̇, not i; 55 letters of Unicode 16 DuckDB leaves alone): lower()
        # then DuckDB's own table of every other letter (lowercase.json), bound once per statement.
        def low(e: exp.Expression) -> exp.Expression:
            if not ignore_case:
                return e
            table = _lowercase()
            uppers, lowers = (
                constant("case_from", table["from"], "VARCHAR"),
                constant("case_to", table["to"], "VARCHAR"),
            )
            return _fn("translateUTF8", _fn("lower", e), uppers, lowers)

        if op == "contains" or op == "not_contains":
            found = exp.GT(this=_fn("position", low(column), low(values[0])), expression=exp.Literal.number(0))
            return found if op == "contains" else exp.not_(found)
        if op in ("starts_with", "ends_with"):
            return _fn("startsWith" if op == "starts_with" else "endsWith", low(column), low(values[0]))
        if op in ("like", "not_like"):  # ClickHouse's LIKE escapes with a backslash already
            found = exp.Like(this=low(column), expression=low(values[0]))
            return found if op == "like" else exp.not_(found)
        if ignore_case:
            # The shared definitions lowercase with lower(): rebuild them on operands lowered here.
            return FILTERS[op].build(low(column), [low(v) for v in values], False)
        return FILTERS[op].build(column, values, ignore_case)

    def bucket(self, e: exp.Expression, bucket: str, type_: str) -> exp.Expression:
        if bucket == "day" and type_ == "date":
            return e
        start = _fn(_BUCKETS[bucket], e)
        if type_ == "datetime" and bucket in ("year", "quarter", "month", "week"):
            # These answer a Date32 for a datetime; DuckDB's date_trunc keeps the timestamp.
            return _fn("toDateTime64", start, exp.Literal.number(6), exp.Literal.string("UTC"))
        return start

    def aggregate(
        self, fn: str, column: exp.Expression | None, q: exp.Expression | None, physical: str, only_where: OnlyWhere
    ) -> exp.Expression:
        decimal = _DECIMAL.fullmatch(physical)
        if fn == "sum" and physical == "BIGINT":
            # ClickHouse sums Int64 into Int64 and wraps; Decimal(38, 0) holds DuckDB's HUGEINT sum.
            return only_where(exp.Sum(this=_fn("toDecimal128", column, exp.Literal.number(0))))
        if fn == "sum" and decimal:
            # Decimal128 sums wrap silently too: summed in Decimal256, then brought to DuckDB's
            # DECIMAL(38, s), which fails (is refused) past 38 digits exactly as DuckDB does.
            scale = int(decimal.group(2))
            total = only_where(exp.Sum(this=_fn("toDecimal256", column, exp.Literal.number(scale))))
            # CAST checks only Decimal128's binary range (past 10^38): the 38 digits are checked
            # here, adding 0 or failing (throwIf) as DuckDB's sum fails.
            largest = _fn(
                "toDecimal256",
                exp.Literal.string("9" * (38 - scale) + ("." + "9" * scale if scale else "")),
                exp.Literal.number(scale),
            )
            beyond = exp.GT(this=exp.Abs(this=total.copy()), expression=largest)
            checked = exp.Add(
                this=total, expression=_fn("throwIf", exp.Coalesce(this=beyond, expressions=[exp.false()]))
            )
            return exp.cast(checked, _type(f"Nullable(Decimal(38, {scale}))", self.dialect))
        if fn == "avg" and physical == "BIGINT":
            return only_where(exp.Avg(this=_fn("toInt128", column)))  # avg of Int64 wraps its sum
        if fn == "avg" and decimal and int(decimal.group(1)) > AVG_EXACT_SUM_DIGITS:
            return only_where(exp.Avg(this=_fn("toFloat64", column)))
        if fn == "median" and decimal_median(physical):
            return self.exact_median(column, physical, only_where)
        if fn in ("median", "quantile"):
            # DuckDB's quantile_cont: linear between the closest ranks, on DOUBLE.
            level = q if fn == "quantile" else exp.Literal.number("0.5")
            return only_where(_parametric("quantileExactInclusive", level, _fn("toFloat64", column)))
        if fn in ("stddev", "var"):
            # ClickHouse answers inf for fewer than two values; DuckDB (and the SPEC) NULL.
            spread = only_where(
                _fn("stddevSampStable" if fn == "stddev" else "varSampStable", _fn("toFloat64", column))
            )
            enough = exp.GT(this=only_where(exp.Count(this=column.copy())), expression=exp.Literal.number(1))
            return exp.If(this=enough, true=spread, false=exp.null())
        return super().aggregate(fn, column, q, physical, only_where)

    def exact_median(self, column: exp.Expression, physical: str, only_where: OnlyWhere) -> exp.Expression:
        """The two middle values (quantileExactLow of the column and of its negation), added and
        halved at one more decimal place: exact, as DuckDB's."""
        p, s = decimal_shape(physical)
        wide = _type(f"Nullable(Decimal(38, {s + 1}))", self.dialect)  # NULL: no value to halve

        def middle(e: exp.Expression) -> exp.Expression:
            return exp.cast(only_where(_parametric("quantileExactLow", exp.Literal.number("0.5"), e)), wide)

        lower, upper = middle(column), exp.Neg(this=middle(exp.Neg(this=column.copy())))
        half = exp.Div(this=exp.paren(exp.Add(this=lower, expression=upper)), expression=exp.Literal.number(2))
        return exp.cast(half, _type(f"Nullable(Decimal({p + 1}, {s + 1}))", self.dialect))

    def cannot(self, operator: str, node: Any = None) -> str | None:
        if operator in _NOT_EXACT:
            return _NOT_EXACT[operator]
        if operator == "round" and node is not None and node.args[0].physical == "DOUBLE" and len(node.args) > 1:
            if node.args[1].value:
                return (
                    "DuckDB rounds a double's exact value at a decimal place (0.35 is 0.34999…, so 0.3); "
                    "ClickHouse rounds its decimal text: round it to a whole number, or make it exact first"
                )
        if operator == "date_diff" and node is not None and node.word == "week":
            return "ClickHouse counts week boundaries from another day than DuckDB's Monday"
        if (
            operator == "concat"
            and node is not None
            and any(a.type in ("datetime", "time", "duration") for a in node.args)
        ):
            return "ClickHouse writes a datetime or time as other text than DuckDB (fractions of a second)"
        if (
            operator in ("window sum", "window running_sum", "window share", "window avg")
            and node is not None
            and (node.shape or (0, 0))[0] >= 38
        ):
            return "a sum that may reach 38 digits wraps around in ClickHouse's Decimal128 instead of failing"
        return None

    def operator(self, node: RExpr, args: list[exp.Expression]) -> exp.Expression:
        if node.op in ("add", "sub", "mul") and node.shape is not None:
            # ClickHouse's Decimal(4, 0) × Decimal(5, 0) is a Decimal32, checked against 9 digits:
            # each operand goes at the exact result's precision.
            return build(node, args, wide=True)
        if node.op == "round" and node.args[0].physical == "DOUBLE":  # to a whole number: see cannot()
            return _half_away_from_zero(args[0])
        if node.op == "weekday":
            return _fn("toDayOfWeek", args[0])  # mode 0: Monday 1 … Sunday 7, DuckDB's isodow
        if node.op == "length":
            return _fn("lengthUTF8", args[0])  # length counts bytes in ClickHouse
        if node.op == "substring":
            return _fn("substringUTF8", *args)
        if node.op == "concat":
            # A decimal as DuckDB writes it, every place of its scale kept (1.50, not 1.5).
            parts = [
                _fn("toDecimalString", a, exp.Literal.number(n.shape[1]))
                if n.shape and n.shape[1] and n.physical.startswith("DECIMAL")
                else a
                for a, n in zip(args, node.args)
            ]
            return build(node, parts)
        return build(node, args)

    def finish(self, tree: exp.Expression) -> exp.Expression:
        # Int128 arrives as raw bytes through chdb's Arrow; Decimal(38, 0) holds every HUGEINT
        # result the planner makes (at most 38 digits) and is read back as an integer.
        def decimal(node: exp.Expression) -> exp.Expression:
            if isinstance(node, exp.DataType) and node.this == exp.DataType.Type.INT128:
                return _type("Nullable(Decimal(38, 0))", self.dialect)
            return node

        return tree.transform(decimal, copy=False)

    def problem(self, column: ColumnInfo) -> str | None:
        if column.physical in _UNREADABLE:
            return _UNREADABLE[column.physical]
        if clickhouse_type(column.physical) is None:
            return f"its type {column.physical} has no ClickHouse equivalent here"
        return None


def _half_away_from_zero(x: exp.Expression) -> exp.Expression:
    """round(x) of a DOUBLE as DuckDB computes it, halves away from zero (ClickHouse's round takes
    a float's halves to even: -0.5 to -0). The whole part and the rest (x - trunc(x), exact in a
    double) decide it, no addition of 0.5 that would round 0.49999999999999994 up; a value that
    stays keeps its sign (-0.4 is -0). At a decimal place the two differ otherwise: refused."""
    whole = _fn("trunc", x.copy())
    rest = _fn("abs", exp.Sub(this=x.copy(), expression=whole.copy()))
    return exp.If(
        this=exp.GTE(this=rest, expression=exp.Literal.number("0.5")),
        true=exp.Add(this=whole.copy(), expression=_fn("sign", x.copy())),
        false=whole,
    )


# Expression operators ClickHouse does not compute as DuckDB does: refused by validation, with why.
# Every other operator and window is checked against DuckDB in tests/planner/test_parity.py.
_NOT_EXACT = {
    "lower": "ClickHouse's case tables differ from DuckDB's for some letters",
    "upper": "ClickHouse's case tables differ from DuckDB's for some letters",
    "cast": "ClickHouse reads text as numbers, dates and booleans by other rules than DuckDB's",
    "date_add": "a duration has no ClickHouse type it survives in here",
}

_LOWERCASE: dict[str, str] = {}


def _lowercase() -> dict[str, str]:
    """DuckDB's lowercase of every non-ASCII letter it changes, one code point each (written
    from DuckDB's lower(); tests/planner/test_parity.py checks it against the DuckDB installed)."""
    if not _LOWERCASE:
        _LOWERCASE.update(json.loads((Path(__file__).parent / "lowercase.json").read_text(encoding="utf-8")))
    return _LOWERCASE


def _parametric(name: str, level: exp.Expression, column: exp.Expression) -> exp.Expression:
    """A parametric aggregate, `name(level)(column)`."""
    # sqlglot writes ParameterizedAgg as this(expressions)(params): the level goes first.
    return exp.ParameterizedAgg(this=name, expressions=[level], params=[column])


CLICKHOUSE = ClickHouse()
TARGETS = {t.name: t for t in (DUCKDB, CLICKHOUSE)}
