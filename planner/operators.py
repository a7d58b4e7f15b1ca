"""THE operator table: every expression operator, filter, aggregate and window of the plan language
(SPEC §4), each defined once, as ibis's operations and datasette's filters are: its name, how many
arguments it takes, the types it reads and the type of its result (a rule of rules.py), the
sqlglot node that writes it, where an engine's SQL differs (by engine name) or an engine cannot
compute it as DuckDB does (refused up front, with why), and its words (receipts, readings,
errors). The resolver types plans with this table, the compiler writes SQL from it and the
answers say a plan's filters from it, so none of them can drift apart.

A new operator is one entry here and its tests; where it types in a new way it names a new rule
(rules.py), where it writes new SQL a new builder (builders.py); its field in the plan language
(models.py) is the SPEC's, and a test fails while the two disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from . import builders as sql
from . import rules
from .builders import Aggregate, Build, Lower, Windowed
from .resolved import Operation, Output
from .rules import ANY, DATES, NUMBER, ORDERED, STRING, Rule

Refusal = Callable[[Operation], str | None]  # why an engine cannot compute this node as DuckDB does


# Why ClickHouse cannot compute an operator as DuckDB does, where it depends on the node.


def _round_refused(node: Operation) -> str | None:
    if node.args[0].physical == "DOUBLE" and len(node.args) > 1 and rules.literal(node.args[1]):
        return (
            "DuckDB rounds a double's exact value at a decimal place (0.35 is 0.34999…, so 0.3); "
            "ClickHouse rounds its decimal text: round it to a whole number, or make it exact first"
        )
    return None


def _concat_refused(node: Operation) -> str | None:
    if any(a.type in ("datetime", "time", "duration") for a in node.args):
        return "ClickHouse writes a datetime or time as other text than DuckDB (fractions of a second)"
    return None


def _always(why: str) -> Refusal:
    return lambda node: why


_CASE_TABLES = _always("ClickHouse's case tables differ from DuckDB's for some letters")


@dataclass(frozen=True)
class OperatorDef:
    """An expression operator: `{"<name>": [args]}`."""

    name: str
    least: int
    most: int | None  # None: any number
    typed: Rule  # (logical type, DuckDB type, shape), or Refused
    words: str  # in a receipt and an error: what it does
    sql: Build  # its SQL, as sqlglot nodes (DuckDB's, and every engine's unless `engines` says)
    literal_args: tuple[int, ...] = ()  # arguments that are words, not columns (date_diff's unit, cast's type)
    engines: Mapping[str, Build] = field(default_factory=dict)  # by engine: SQL where it differs
    refused: Mapping[str, Refusal] = field(default_factory=dict)  # by engine: why it cannot, or None

    def sql_on(self, engine: str) -> Build:
        return self.engines.get(engine, self.sql)

    def refused_on(self, engine: str, node: Operation) -> str | None:
        why = self.refused.get(engine)
        return why(node) if why is not None else None


_TIME_PART = frozenset({"datetime", "time"})

OPERATORS: dict[str, OperatorDef] = {
    o.name: o
    for o in (
        OperatorDef(
            "add",
            2,
            None,
            rules.arith("add", rules.sum_shape),
            "the sum",
            sql.arith(exp.Add),
            # ClickHouse's Decimal(4, 0) × Decimal(5, 0) is a Decimal32, checked against 9
            # digits: each operand goes at the exact result's precision.
            engines={"clickhouse": sql.arith(exp.Add, wide=True)},
        ),
        OperatorDef(
            "sub",
            2,
            2,
            rules.arith("sub", rules.sum_shape),
            "the difference",
            sql.arith(exp.Sub),
            engines={"clickhouse": sql.arith(exp.Sub, wide=True)},
        ),
        OperatorDef(
            "mul",
            2,
            None,
            rules.arith("mul", rules.product_shape),
            "the product",
            sql.arith(exp.Mul),
            engines={"clickhouse": sql.arith(exp.Mul, wide=True)},
        ),
        OperatorDef(
            "div", 2, 2, rules.double("div"), "the quotient (DOUBLE; null where the divisor is 0)", sql.quotient
        ),
        OperatorDef("neg", 1, 1, rules.one_number("neg", rules.same), "the negation", sql.exact(exp.Neg)),
        OperatorDef("abs", 1, 1, rules.one_number("abs", rules.same), "the absolute value", sql.exact(exp.Abs)),
        OperatorDef(
            "round",
            1,
            2,
            rules.rounded,
            "rounded half away from zero",
            sql.rounded,
            literal_args=(1,),
            engines={"clickhouse": sql.rounded_clickhouse},
            refused={"clickhouse": _round_refused},
        ),
        OperatorDef("floor", 1, 1, rules.one_number("floor", rules.whole), "rounded down", sql.integral(exp.Floor)),
        OperatorDef("ceil", 1, 1, rules.one_number("ceil", rules.whole), "rounded up", sql.integral(exp.Ceil)),
        OperatorDef("coalesce", 1, None, rules.alike("coalesce"), "the first value that is not null", sql.coalesced),
        OperatorDef("nullif", 2, 2, rules.first_of_alike("nullif"), "null where the two are equal", sql.nullif),
        OperatorDef("case", 0, 0, rules.untyped, "the first `then` whose `when` holds", sql.written_by_compiler),
        OperatorDef("year", 1, 1, rules.part("year", DATES, 6), "the year", sql.unary(exp.Year)),
        OperatorDef("quarter", 1, 1, rules.part("quarter", DATES, 1), "the quarter", sql.unary(exp.Quarter)),
        OperatorDef("month", 1, 1, rules.part("month", DATES, 2), "the month", sql.unary(exp.Month)),
        OperatorDef("day", 1, 1, rules.part("day", DATES, 2), "the day of the month", sql.unary(exp.Day)),
        # Monday 1 … Sunday 7: DuckDB's isodow, ClickHouse's toDayOfWeek (sqlglot writes each).
        OperatorDef("weekday", 1, 1, rules.part("weekday", DATES, 1), "the ISO weekday", sql.unary(exp.DayOfWeekIso)),
        OperatorDef("hour", 1, 1, rules.part("hour", _TIME_PART, 2), "the hour", sql.unary(exp.Hour)),
        OperatorDef(
            "date_diff",
            3,
            3,
            rules.date_diff,
            "the unit boundaries between",
            sql.date_diff,
            literal_args=(0,),
            refused={
                "clickhouse": lambda node: (
                    "ClickHouse counts week boundaries from another day than DuckDB's Monday"
                    if node.word == "week"
                    else None
                )
            },
        ),
        OperatorDef(
            "date_add",
            2,
            2,
            rules.date_add,
            "moved on by",
            sql.date_add,
            refused={"clickhouse": _always("a duration has no ClickHouse type it survives in here")},
        ),
        OperatorDef(
            "concat",
            1,
            None,
            rules.text,
            "joined",
            sql.concatenated,
            engines={"clickhouse": sql.concatenated_clickhouse},
            refused={"clickhouse": _concat_refused},
        ),
        OperatorDef(
            "lower",
            1,
            1,
            rules.of_string("lower", ("string", "VARCHAR", None)),
            "in lower case",
            sql.unary(exp.Lower),
            refused={"clickhouse": _CASE_TABLES},
        ),
        OperatorDef(
            "upper",
            1,
            1,
            rules.of_string("upper", ("string", "VARCHAR", None)),
            "in upper case",
            sql.unary(exp.Upper),
            refused={"clickhouse": _CASE_TABLES},
        ),
        # Characters, not bytes: sqlglot writes CHAR_LENGTH for ClickHouse.
        OperatorDef(
            "length",
            1,
            1,
            rules.of_string("length", ("number", "BIGINT", (10, 0))),
            "the length",
            sql.unary(exp.Length),
        ),
        OperatorDef(
            "substring",
            2,
            3,
            rules.substring,
            "part of",
            sql.substring,
            engines={"clickhouse": sql.substring_clickhouse},
        ),
        OperatorDef(
            "cast",
            2,
            2,
            rules.cast,
            "read as",
            sql.try_cast,
            literal_args=(1,),
            refused={
                "clickhouse": _always(
                    "ClickHouse reads text as numbers, dates and booleans by other rules than DuckDB's"
                )
            },
        ),
    )
}


# Filters ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FilterDef:
    """A filter operator: `{"column", "op", "value" | "values"}` (or `other`, a column)."""

    op: str
    types: frozenset[str]
    arity: str  # "none", "one", "two" (between) or "many" (in, not_in)
    sql: Callable[[exp.Expression, list[exp.Expression], Lower], exp.Expression]  # (column, values, lower)
    words: str  # the condition in words: {column}, and {value} as `said` writes the values
    relation: str = ""  # a comparison of two columns in words ("less than"), for those `other` takes

    def build(self, column: exp.Expression, values: list[exp.Expression], ignore_case: bool = False) -> exp.Expression:
        """The filter's SQL, each operand lowered by lower() where it ignores case."""
        return self.sql(column, values, _lowered if ignore_case else kept)

    def said(self, column: str, value: Any = None, values: list[Any] | None = None) -> str:
        """The condition in words, with the values as the plan wrote them: `region = North`,
        `qty between 1 and 5`, `code in (A, B)`, `note is empty`."""
        if self.arity == "one":
            shown = str(value)
        elif self.arity == "two" and values is not None and len(values) == 2:
            shown = f"{values[0]} and {values[1]}"
        else:
            shown = f"({', '.join(map(str, values or ()))})"
        return self.words.format(column=column, value=shown)


def _lowered(e: exp.Expression) -> exp.Expression:
    return exp.Lower(this=e)


def kept(e: exp.Expression) -> exp.Expression:
    """An operand as it is (no lowering for ignore_case)."""
    return e


FILTERS: dict[str, FilterDef] = {
    f.op: f
    for f in (
        FilterDef("eq", ANY, "one", sql.compare(exp.EQ), "{column} = {value}", "equal to"),
        FilterDef("ne", ANY, "one", sql.compare(exp.NEQ), "{column} ≠ {value}", "differing from"),
        FilterDef("lt", ORDERED, "one", sql.compare(exp.LT), "{column} < {value}", "less than"),
        FilterDef("le", ORDERED, "one", sql.compare(exp.LTE), "{column} ≤ {value}", "at most"),
        FilterDef("gt", ORDERED, "one", sql.compare(exp.GT), "{column} > {value}", "more than"),
        FilterDef("ge", ORDERED, "one", sql.compare(exp.GTE), "{column} ≥ {value}", "at least"),
        FilterDef(
            "between",
            ORDERED,
            "two",
            lambda c, v, low: exp.Between(this=low(c), low=low(v[0]), high=low(v[1])),
            "{column} between {value}",
        ),
        FilterDef(
            "in",
            ANY,
            "many",
            lambda c, v, low: exp.In(this=low(c), expressions=[low(x) for x in v]),
            "{column} in {value}",
        ),
        FilterDef(
            "not_in",
            ANY,
            "many",
            lambda c, v, low: exp.not_(exp.In(this=low(c), expressions=[low(x) for x in v])),
            "{column} not in {value}",
        ),
        FilterDef("is_null", ANY, "none", lambda c, v, low: exp.Is(this=c, expression=exp.null()), "{column} is empty"),
        FilterDef(
            "not_null",
            ANY,
            "none",
            lambda c, v, low: exp.not_(exp.Is(this=c, expression=exp.null())),
            "{column} is not empty",
        ),
        # sqlglot writes these as each engine has them (ClickHouse: position(…) > 0, startsWith).
        FilterDef(
            "contains",
            STRING,
            "one",
            lambda c, v, low: exp.Contains(this=low(c), expression=low(v[0])),
            "{column} contains {value}",
        ),
        FilterDef(
            "not_contains",
            STRING,
            "one",
            lambda c, v, low: exp.not_(exp.Contains(this=low(c), expression=low(v[0]))),
            "{column} does not contain {value}",
        ),
        FilterDef(
            "starts_with",
            STRING,
            "one",
            lambda c, v, low: exp.StartsWith(this=low(c), expression=low(v[0])),
            "{column} starts with {value}",
        ),
        FilterDef(
            "ends_with",
            STRING,
            "one",
            lambda c, v, low: exp.EndsWith(this=low(c), expression=low(v[0])),
            "{column} ends with {value}",
        ),
        FilterDef("like", STRING, "one", sql.like(False), "{column} is like {value}"),
        FilterDef("not_like", STRING, "one", sql.like(True), "{column} is not like {value}"),
    )
}


@dataclass(frozen=True)
class AggregateDef:
    """An aggregate: `{"fn", "column" | "expr", "q"?, "where"?}`."""

    fn: str
    types: frozenset[str]
    needs_column: bool
    result: Callable[[str], str]  # the result's logical type from the column's
    words: str  # the result in words, {} the column ("the total of {}")
    sql: Aggregate  # DuckDB's, and every engine's unless `engines` says
    engines: Mapping[str, Aggregate] = field(default_factory=dict)

    def sql_on(self, engine: str) -> Aggregate:
        return self.engines.get(engine, self.sql)


AGGREGATES: dict[str, AggregateDef] = {
    a.fn: a
    for a in (
        AggregateDef("count", ANY, False, rules.a_number, "the number of filled {} cells", sql.count_rows),
        AggregateDef(
            "count_distinct", ANY, True, rules.a_number, "the number of different {} values", sql.count_distinct
        ),
        AggregateDef(
            "sum",
            NUMBER | {"duration"},
            True,
            rules.same_type,
            "the total of {}",
            sql.total,
            {"clickhouse": sql.total_clickhouse},
        ),
        AggregateDef(
            "avg",
            NUMBER | {"duration"},
            True,
            rules.same_type,
            "the average of {}",
            sql.average,
            {"clickhouse": sql.average_clickhouse},
        ),
        AggregateDef("min", ORDERED, True, rules.same_type, "the minimum of {}", sql.simple(exp.Min)),
        AggregateDef("max", ORDERED, True, rules.same_type, "the maximum of {}", sql.simple(exp.Max)),
        AggregateDef(
            "median",
            NUMBER,
            True,
            rules.same_type,
            "the median of {}",
            sql.median,
            {"clickhouse": sql.quantile_clickhouse},
        ),
        AggregateDef(
            "stddev",
            NUMBER,
            True,
            rules.same_type,
            "the standard deviation of {}",
            sql.simple(exp.StddevSamp),
            {"clickhouse": sql.spread_clickhouse("stddevSampStable")},
        ),
        AggregateDef(
            "var",
            NUMBER,
            True,
            rules.same_type,
            "the variance of {}",
            sql.simple(exp.Variance),
            {"clickhouse": sql.spread_clickhouse("varSampStable")},
        ),
        AggregateDef(
            "quantile",
            NUMBER,
            True,
            rules.same_type,
            "a quantile of {}",
            sql.quantile,
            {"clickhouse": sql.quantile_clickhouse},
        ),
    )
}

BUCKETS = {"year", "quarter", "month", "week", "day", "hour", "minute"}
BUCKET_TYPES = {"date": {"year", "quarter", "month", "week", "day"}, "datetime": BUCKETS}


# Windows -----------------------------------------------------------------------------------------


def _wide_sum(of: Output | None) -> str | None:
    if of is not None and (of.shape or (0, 0))[0] >= 38:
        return "a sum that may reach 38 digits wraps around in ClickHouse's Decimal128 instead of failing"
    return None


@dataclass(frozen=True)
class WindowDef:
    """A measure's window: `{"fn", "of"?, "partition_by", "order_by"}` over the result rows."""

    fn: str
    reads: str  # its `of`: "" (it ranks by order_by and reads none), "numbers", "ordered values" or "values"
    order: str  # "needs" (order_by ranks the rows), "takes" (in order: the result's default without one), "none" (its whole partition)
    typed: rules.WindowRule  # the result's type from `of`'s and the most rows
    words: str  # in a reading: {} the column read
    sql: Windowed
    running: bool = False  # summed up to each row in order (a ROWS frame)
    refused: Mapping[str, Callable[[Output | None], str | None]] = field(default_factory=dict)

    def refused_on(self, engine: str, of: Output | None) -> str | None:
        why = self.refused.get(engine)
        return why(of) if why is not None else None


WINDOWS: dict[str, WindowDef] = {
    w.fn: w
    for w in (
        WindowDef("rank", "", "needs", rules.a_count, "the rank by", sql.ranked(exp.Rank)),
        WindowDef("dense_rank", "", "needs", rules.a_count, "the dense rank by", sql.ranked(exp.DenseRank)),
        WindowDef("row_number", "", "takes", rules.a_count, "the row number", sql.ranked(exp.RowNumber)),
        WindowDef(
            "sum",
            "numbers",
            "none",
            rules.window_total,
            "the total of {} over",
            sql.over_of(exp.Sum),
            refused={"clickhouse": _wide_sum},
        ),
        WindowDef(
            "running_sum",
            "numbers",
            "takes",
            rules.window_total,
            "the running total of {}",
            sql.over_of(exp.Sum),
            running=True,
            refused={"clickhouse": _wide_sum},
        ),
        WindowDef(
            "avg",
            "numbers",
            "none",
            rules.a_double,
            "the average of {} over",
            sql.window_average,
            refused={"clickhouse": _wide_sum},
        ),
        WindowDef(
            "share",
            "numbers",
            "none",
            rules.a_double,
            "{} as a share of its sum over",
            sql.share,
            refused={"clickhouse": _wide_sum},
        ),
        WindowDef("min", "ordered values", "none", rules.as_read, "the minimum of {} over", sql.over_of(exp.Min)),
        WindowDef("max", "ordered values", "none", rules.as_read, "the maximum of {} over", sql.over_of(exp.Max)),
        WindowDef(
            "count",
            "ordered values",
            "none",
            rules.a_count,
            "the number of filled {} cells over",
            sql.over_of(exp.Count),
        ),
    )
}
