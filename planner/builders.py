"""The SQL the operator table (operators.py) writes, as sqlglot nodes: each operator's, filter's and
aggregate's, and where an engine's differs, that engine's. Functions both engines have are built
as sqlglot's own nodes, so sqlglot writes each engine's name for them (ISODOW and toDayOfWeek,
LENGTH and CHAR_LENGTH); a function only ClickHouse has is written by name (clickhouse_fn)."""

from __future__ import annotations

import functools
from collections.abc import Callable

from sqlglot import exp

from .dialect import DIALECT
from .resolved import Operation, Output, RExpr, Shape
from .rules import common, decimal_median, decimal_shape, literal

Build = Callable[[Operation, list[exp.Expression]], exp.Expression]  # (node, its compiled arguments)
Lower = Callable[[exp.Expression], exp.Expression]  # an operand lowered for ignore_case (or kept)
OnlyWhere = Callable[[exp.Expression], exp.Expression]  # an aggregate with its `where` applied
# (column, q parameter, the column's DuckDB type, only_where) -> the aggregate's SQL
Aggregate = Callable[[exp.Expression | None, exp.Expression | None, str, OnlyWhere], exp.Expression]


def clickhouse_fn(name: str, *args: exp.Expression) -> exp.Expression:
    """A ClickHouse function sqlglot has no node for (toStartOfMonth, toDecimal256, throwIf,
    substringUTF8, translateUTF8, toDecimalString, stddevSampStable …): written by name, in
    ClickHouse's SQL only. Every function both engines have is built as sqlglot's own node, so
    it transpiles between them."""
    return exp.Anonymous(this=name, expressions=list(args))


@functools.lru_cache(maxsize=512)
def _data_type(physical: str, dialect: str) -> exp.DataType:
    return exp.DataType.build(physical, dialect=dialect)


def data_type(physical: str, dialect: str = DIALECT) -> exp.DataType:
    """A type node, parsed once per type (sqlglot parses the text each time otherwise)."""
    return _data_type(physical, dialect).copy()


def as_type(e: exp.Expression, physical: str) -> exp.Expression:
    return exp.Cast(this=e, to=data_type(physical))


def operand(node: RExpr, sql: exp.Expression, shape: Shape | None, wide: bool = False) -> exp.Expression:
    """An argument of exact arithmetic at its shape's DECIMAL type, or DOUBLE where the result
    (`shape`) is DOUBLE. Where the result is wider than 18 digits every argument is too: DuckDB
    multiplies two narrow decimals in 64 bits and fails, though the exact product fits."""
    if shape is None or node.shape is None:
        return sql if node.physical == "DOUBLE" else as_type(sql, "DOUBLE")
    p, s = node.shape
    if wide:
        p = max(p, shape[0])  # `wide`: at the result's precision (ClickHouse keeps the operands' width)
    elif shape[0] > 18:
        p = max(p, 19)
    wanted = f"DECIMAL({p}, {s})"
    return sql if node.physical.replace(" ", "") == wanted.replace(" ", "") else as_type(sql, wanted)


def at_common(node: RExpr, sql: exp.Expression, arg: RExpr) -> exp.Expression:
    """A value that stands for others (coalesce, case) at their common type."""
    if node.type == "number" and arg.physical != node.physical:
        return as_type(sql, node.physical)
    return sql


# Expression operators: their SQL -------------------------------------------------------------


def arith(cls: type[exp.Expression], wide: bool = False) -> Build:
    """add, sub, mul: exact at the result's shape (`wide`: every operand at the result's
    precision, for an engine whose result type is its operands')."""

    def sql(node: Operation, args: list[exp.Expression]) -> exp.Expression:
        parts = [operand(a, e, node.shape, wide and node.shape is not None) for a, e in zip(node.args, args)]
        out = parts[0]
        for more in parts[1:]:
            out = cls(this=out, expression=more)
        return as_type(out, node.physical)

    return sql


def quotient(node: Operation, args: list[exp.Expression]) -> exp.Expression:
    a, b = (operand(n, e, None) for n, e in zip(node.args, args))
    return exp.Div(this=a, expression=exp.Nullif(this=b, expression=exp.Literal.number(0)), typed=False, safe=False)


def exact(cls: type[exp.Expression]) -> Build:
    """neg, abs: at the result's exact type (-(-2^63) does not fit a BIGINT)."""

    def sql(node: Operation, args: list[exp.Expression]) -> exp.Expression:
        arg = operand(node.args[0], args[0], node.args[0].shape)
        return as_type(cls(this=as_type(arg, node.physical) if node.shape else arg), node.physical)

    return sql


def integral(cls: type[exp.Expression]) -> Build:
    def sql(node: Operation, args: list[exp.Expression]) -> exp.Expression:
        return as_type(cls(this=operand(node.args[0], args[0], node.args[0].shape)), node.physical)

    return sql


def rounded(node: Operation, args: list[exp.Expression]) -> exp.Expression:
    arg = operand(node.args[0], args[0], node.args[0].shape)
    digits = literal(node.args[1]) if len(node.args) > 1 else 0
    return as_type(exp.Round(this=arg, decimals=exp.Literal.number(digits)), node.physical)


def rounded_clickhouse(node: Operation, args: list[exp.Expression]) -> exp.Expression:
    """round(x) of a DOUBLE as DuckDB computes it, halves away from zero (ClickHouse's round takes
    a float's halves to even: -0.5 to -0). The whole part and the rest (x - trunc(x), exact in a
    double) decide it, no addition of 0.5 that would round 0.49999999999999994 up; a value that
    stays keeps its sign (-0.4 is -0). At a decimal place the two differ otherwise: refused."""
    if node.args[0].physical != "DOUBLE":
        return rounded(node, args)
    x = args[0]
    integer = exp.Trunc(this=x.copy())
    rest = exp.Abs(this=exp.Sub(this=x.copy(), expression=integer.copy()))
    return exp.If(
        this=exp.GTE(this=rest, expression=exp.Literal.number("0.5")),
        true=exp.Add(this=integer.copy(), expression=exp.Sign(this=x.copy())),
        false=integer,
    )


def coalesced(node: Operation, args: list[exp.Expression]) -> exp.Expression:
    return exp.Coalesce(
        this=at_common(node, args[0], node.args[0]),
        expressions=[at_common(node, a, n) for a, n in zip(args[1:], node.args[1:])],
    )


def nullif(node: Operation, args: list[exp.Expression]) -> exp.Expression:
    # Compared at a type that holds both exactly (ClickHouse would bring the second to the
    # first's type and fail where it does not fit), then given the first's type back. The value
    # given back is the first one itself, never the compared copy (a DOUBLE there would round it).
    if node.type != "number":
        return exp.Nullif(this=args[0], expression=args[1])
    _, both, _ = common(node.args, "nullif")
    a, b = (e.copy() if n.physical == both else as_type(e.copy(), both) for n, e in zip(node.args, args))
    return exp.Case(
        ifs=[exp.If(this=exp.EQ(this=a, expression=b), true=as_type(exp.null(), node.physical))], default=args[0]
    )


def written_by_compiler(node: Operation, args: list[exp.Expression]) -> exp.Expression:
    raise ValueError("case is written by the compiler: its `when`s are filters")


def unary(cls: type[exp.Expression]) -> Build:
    def sql(node: Operation, args: list[exp.Expression]) -> exp.Expression:
        return cls(this=args[0])

    return sql


def _timestamp(node: RExpr, sql: exp.Expression, other: RExpr) -> exp.Expression:
    """date_diff between a date and a datetime: the date as a timestamp at midnight."""
    return as_type(sql, "TIMESTAMP") if node.type == "date" and other.type == "datetime" else sql


def date_diff(node: Operation, args: list[exp.Expression]) -> exp.Expression:
    _, start, end = node.args
    return exp.DateDiff(
        this=_timestamp(end, args[2], start),
        expression=_timestamp(start, args[1], end),
        unit=exp.Literal.string(str(literal(node.args[0]))),
    )


def date_add(node: Operation, args: list[exp.Expression]) -> exp.Expression:
    return as_type(exp.Add(this=args[0], expression=args[1]), node.physical)


def concatenated(node: Operation, args: list[exp.Expression]) -> exp.Expression:
    parts = [a if n.type == "string" else as_type(a, "VARCHAR") for a, n in zip(args, node.args)]
    out = parts[0]
    for more in parts[1:]:
        out = exp.DPipe(this=out, expression=more, safe=True)
    return out


def concatenated_clickhouse(node: Operation, args: list[exp.Expression]) -> exp.Expression:
    # A decimal as DuckDB writes it, every place of its scale kept (1.50, not 1.5).
    parts = [
        clickhouse_fn("toDecimalString", a, exp.Literal.number(n.shape[1]))
        if n.shape and n.shape[1] and n.physical.startswith("DECIMAL")
        else a
        for a, n in zip(args, node.args)
    ]
    return concatenated(node, parts)


def substring(node: Operation, args: list[exp.Expression]) -> exp.Expression:
    return exp.Substring(this=args[0], start=args[1], length=args[2] if len(args) > 2 else None)


def substring_clickhouse(node: Operation, args: list[exp.Expression]) -> exp.Expression:
    """ClickHouse's substring counts bytes; substringUTF8 characters, as DuckDB's does."""
    return clickhouse_fn("substringUTF8", *args)


def try_cast(node: Operation, args: list[exp.Expression]) -> exp.Expression:
    return exp.TryCast(this=args[0], to=data_type(node.physical))


# Filters ---------------------------------------------------------------------------------------


def compare(cls: type[exp.Expression]) -> Callable[[exp.Expression, list[exp.Expression], Lower], exp.Expression]:
    def sql(c: exp.Expression, v: list[exp.Expression], low: Lower) -> exp.Expression:
        return cls(this=low(c), expression=low(v[0]))

    return sql


def like(negated: bool) -> Callable[[exp.Expression, list[exp.Expression], Lower], exp.Expression]:
    # SQL patterns: % any run of characters, _ one character, a backslash makes the next one
    # plain (\% is a percent sign), as ClickHouse's LIKE reads them by default. negated: `a NOT
    # LIKE b`, DuckDB's own operator, where NOT (a LIKE b) is a third slower once the filter
    # meets a join (TPC-H Q13: 367 → 243 ms).
    return lambda c, v, low: exp.Escape(
        this=exp.Like(this=low(c), expression=low(v[0]), negate=negated or None),
        expression=exp.Literal.string("\\"),
    )


# Aggregates ------------------------------------------------------------------------------------

# avg of DECIMAL(p, s) with p at most this sums exactly first: past 38 digits only beyond 10^10 rows.
AVG_EXACT_SUM_DIGITS = 28


def simple(cls: type[exp.Expression]) -> Aggregate:
    def sql(c: exp.Expression | None, q: exp.Expression | None, physical: str, only_where: OnlyWhere) -> exp.Expression:
        return only_where(cls(this=c))

    return sql


def _as_double(c: exp.Expression | None) -> exp.Expression:
    return exp.cast(c, data_type("DOUBLE")) if c is not None else exp.null()


def count_rows(
    c: exp.Expression | None, q: exp.Expression | None, physical: str, only_where: OnlyWhere
) -> exp.Expression:
    return only_where(exp.Count(this=c if c is not None else exp.Star()))


def count_distinct(
    c: exp.Expression | None, q: exp.Expression | None, physical: str, only_where: OnlyWhere
) -> exp.Expression:
    return only_where(exp.Count(this=exp.Distinct(expressions=[c])))


def total(c: exp.Expression | None, q: exp.Expression | None, physical: str, only_where: OnlyWhere) -> exp.Expression:
    # DuckDB sums BIGINT into HUGEINT and DECIMAL(p, s) into DECIMAL(38, s): exact.
    if physical != "INTERVAL" or c is None:
        return only_where(exp.Sum(this=c))
    # DuckDB has no sum of INTERVAL, and its epoch_us makes a month 30 days and a year 360:
    # months, days and microseconds are each summed exactly (HUGEINT) and made one interval
    # again, P1M + P2D is P1M2D (past INTEGER months or BIGINT microseconds a 422).
    column = c

    def part(unit: str) -> exp.Expression:
        return exp.Extract(this=exp.var(unit), expression=column.copy())

    def summed(e: exp.Expression, to: str) -> exp.Expression:
        return exp.cast(only_where(exp.Sum(this=e)), data_type(to))

    def times(e: exp.Expression, n: int) -> exp.Expression:
        return exp.Mul(this=e, expression=exp.Literal.number(n))

    months = exp.Add(this=times(part("year"), 12), expression=part("month"))
    micros = exp.Add(
        this=exp.Add(this=times(part("hour"), 3_600_000_000), expression=times(part("minute"), 60_000_000)),
        expression=part("microseconds"),
    )
    return exp.Add(
        this=exp.Add(
            this=exp.Interval(this=summed(months, "INTEGER"), unit=exp.var("MONTH")),
            expression=exp.ToDays(this=summed(part("day"), "INTEGER")),
        ),
        expression=exp.Interval(this=summed(micros, "BIGINT"), unit=exp.var("MICROSECOND")),
    )


def average(c: exp.Expression | None, q: exp.Expression | None, physical: str, only_where: OnlyWhere) -> exp.Expression:
    # avg is DOUBLE, but DuckDB sums the decimals first and fails when that sum passes 38
    # digits: wide ones are summed in DOUBLE instead.
    if physical.startswith("DECIMAL") and decimal_shape(physical)[0] > AVG_EXACT_SUM_DIGITS:
        c = _as_double(c)
    return only_where(exp.Avg(this=c))


def median(c: exp.Expression | None, q: exp.Expression | None, physical: str, only_where: OnlyWhere) -> exp.Expression:
    if c is not None and decimal_median(physical):
        return _exact_median(c, physical, only_where)
    # Quantiles of decimals are DOUBLE (the README says so; DuckDB interpolates wide ones
    # through DOUBLE anyway).
    return only_where(exp.Median(this=_as_double(c) if physical.startswith("DECIMAL") else c))


def quantile(
    c: exp.Expression | None, q: exp.Expression | None, physical: str, only_where: OnlyWhere
) -> exp.Expression:
    value = _as_double(c) if physical.startswith("DECIMAL") else c
    return only_where(exp.PercentileCont(this=value, expression=q))


def _exact_median(column: exp.Expression, physical: str, only_where: OnlyWhere) -> exp.Expression:
    """The mean of the two middle values, in decimal arithmetic: the lower middle is the 0.5
    discrete quantile, the upper one the same of the negated column. DuckDB's median would
    interpolate a decimal wider than 18 digits through DOUBLE."""
    p, s = decimal_shape(physical)

    def middle(e: exp.Expression) -> exp.Expression:
        return only_where(exp.PercentileDisc(this=e, expression=exp.Literal.number("0.5")))

    lower, upper = middle(column), exp.Neg(this=middle(exp.Neg(this=column.copy())))
    both = exp.cast(exp.paren(exp.Add(this=lower, expression=upper)), data_type(f"DECIMAL({p + 1}, {s})"))
    half = exp.Mul(this=both, expression=exp.Literal.number("0.5"))
    return exp.cast(half, data_type(decimal_median(physical) or "DOUBLE"))


# ClickHouse's aggregates, where its own would wrap, round or answer inf where DuckDB does not.


def _clickhouse_type(text: str) -> exp.DataType:
    return data_type(text, "clickhouse")


def _parametric(name: str, level: exp.Expression, column: exp.Expression) -> exp.Expression:
    """A ClickHouse parametric aggregate, `name(level)(column)`."""
    # sqlglot writes ParameterizedAgg as this(expressions)(params): the level goes first.
    return exp.ParameterizedAgg(this=name, expressions=[level], params=[column])


def _to_float(c: exp.Expression | None) -> exp.Expression:
    return clickhouse_fn("toFloat64", c if c is not None else exp.null())


def total_clickhouse(
    c: exp.Expression | None, q: exp.Expression | None, physical: str, only_where: OnlyWhere
) -> exp.Expression:
    column = c if c is not None else exp.null()
    if physical == "BIGINT":
        # ClickHouse sums Int64 into Int64 and wraps; Decimal(38, 0) holds DuckDB's HUGEINT sum.
        return only_where(exp.Sum(this=clickhouse_fn("toDecimal128", column, exp.Literal.number(0))))
    if not physical.startswith("DECIMAL"):
        return total(c, q, physical, only_where)
    # Decimal128 sums wrap silently too: summed in Decimal256, then brought to DuckDB's
    # DECIMAL(38, s), which fails (is refused) past 38 digits exactly as DuckDB does.
    scale = decimal_shape(physical)[1]
    summed = only_where(exp.Sum(this=clickhouse_fn("toDecimal256", column, exp.Literal.number(scale))))
    # CAST checks only Decimal128's binary range (past 10^38): the 38 digits are checked here,
    # adding 0 or failing (throwIf) as DuckDB's sum fails.
    largest = clickhouse_fn(
        "toDecimal256",
        exp.Literal.string("9" * (38 - scale) + ("." + "9" * scale if scale else "")),
        exp.Literal.number(scale),
    )
    beyond = exp.GT(this=exp.Abs(this=summed.copy()), expression=largest)
    checked = exp.Add(
        this=summed, expression=clickhouse_fn("throwIf", exp.Coalesce(this=beyond, expressions=[exp.false()]))
    )
    return exp.cast(checked, _clickhouse_type(f"Nullable(Decimal(38, {scale}))"))


def average_clickhouse(
    c: exp.Expression | None, q: exp.Expression | None, physical: str, only_where: OnlyWhere
) -> exp.Expression:
    column = c if c is not None else exp.null()
    if physical == "BIGINT":
        return only_where(exp.Avg(this=clickhouse_fn("toInt128", column)))  # avg of Int64 wraps its sum
    if physical.startswith("DECIMAL") and decimal_shape(physical)[0] > AVG_EXACT_SUM_DIGITS:
        return only_where(exp.Avg(this=_to_float(column)))
    return average(c, q, physical, only_where)


def quantile_clickhouse(
    c: exp.Expression | None, q: exp.Expression | None, physical: str, only_where: OnlyWhere
) -> exp.Expression:
    if q is None and c is not None and decimal_median(physical):
        return _exact_median_clickhouse(c, physical, only_where)
    # DuckDB's quantile_cont: linear between the closest ranks, on DOUBLE.
    level = q if q is not None else exp.Literal.number("0.5")
    return only_where(_parametric("quantileExactInclusive", level, _to_float(c)))


def _exact_median_clickhouse(column: exp.Expression, physical: str, only_where: OnlyWhere) -> exp.Expression:
    """The two middle values (quantileExactLow of the column and of its negation), added and
    halved at one more decimal place: exact, as DuckDB's."""
    p, s = decimal_shape(physical)
    wide = _clickhouse_type(f"Nullable(Decimal(38, {s + 1}))")  # NULL: no value to halve

    def middle(e: exp.Expression) -> exp.Expression:
        return exp.cast(only_where(_parametric("quantileExactLow", exp.Literal.number("0.5"), e)), wide)

    lower, upper = middle(column), exp.Neg(this=middle(exp.Neg(this=column.copy())))
    half = exp.Div(this=exp.paren(exp.Add(this=lower, expression=upper)), expression=exp.Literal.number(2))
    return exp.cast(half, _clickhouse_type(f"Nullable(Decimal({p + 1}, {s + 1}))"))


def spread_clickhouse(name: str) -> Aggregate:
    """stddev, var: ClickHouse's numerically stable ones, NULL for fewer than two values (ClickHouse
    answers inf; DuckDB and the SPEC NULL)."""

    def sql(c: exp.Expression | None, q: exp.Expression | None, physical: str, only_where: OnlyWhere) -> exp.Expression:
        column = c if c is not None else exp.null()
        spread = only_where(clickhouse_fn(name, _to_float(column)))
        enough = exp.GT(this=only_where(exp.Count(this=column.copy())), expression=exp.Literal.number(1))
        return exp.If(this=enough, true=spread, false=exp.null())

    return sql


# Windows -----------------------------------------------------------------------------------------

Over = Callable[[exp.Expression], exp.Expression]  # a window function over the measure's partition and order
# (the result column read as SQL, the column itself (None for a ranking), over) -> the window's SQL
Windowed = Callable[[exp.Expression, Output | None, Over], exp.Expression]


def ranked(cls: type[exp.Expression]) -> Windowed:
    """rank, dense_rank, row_number: by the window's order."""
    return lambda of_sql, of, over: over(cls())


def over_of(cls: type[exp.Expression]) -> Windowed:
    """An aggregate of the result column over the partition (sum, count, min, max)."""
    return lambda of_sql, of, over: over(cls(this=of_sql))


def window_average(of_sql: exp.Expression, of: Output | None, over: Over) -> exp.Expression:
    # DuckDB sums the decimals first, and fails past 38 digits: wide or inexact ones in DOUBLE.
    shape = of.shape if of is not None else None
    return over(exp.Avg(this=as_type(of_sql, "DOUBLE") if shape is None or shape[0] > AVG_EXACT_SUM_DIGITS else of_sql))


def share(of_sql: exp.Expression, of: Output | None, over: Over) -> exp.Expression:
    """The value over its partition's sum, as a DOUBLE; null where that sum is 0."""
    total = exp.Nullif(this=as_type(over(exp.Sum(this=of_sql)), "DOUBLE"), expression=exp.Literal.number(0))
    return exp.Div(this=as_type(of_sql.copy(), "DOUBLE"), expression=total, typed=False, safe=False)
