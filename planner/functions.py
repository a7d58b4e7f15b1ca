"""One definition per filter operator and per aggregate: which types it reads, how many values it
takes, the SQL it builds (sqlglot), and, for a filter, the words an answer says it in. The
resolver checks plans against this table, the compiler builds from it and synthesize's answers
say a plan's filters from it, so none of them can drift apart."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

ANY = frozenset({"string", "number", "bool", "date", "datetime", "time", "duration"})
ORDERED = ANY - {"bool"}
STRING = frozenset({"string"})
NUMBER = frozenset({"number"})


def _lower(e: exp.Expression, ignore_case: bool) -> exp.Expression:
    return exp.func("lower", e) if ignore_case else e


def _fn(name: str, *args: exp.Expression) -> exp.Expression:
    return exp.Anonymous(this=name, expressions=list(args))


@dataclass(frozen=True)
class FilterDef:
    op: str
    types: frozenset[str]
    arity: str  # "none", "one", "two" (between) or "many" (in, not_in)
    build: Callable[[exp.Expression, list[exp.Expression], bool], exp.Expression]
    words: str  # the condition in words: {column}, and {value} as `said` writes the values

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


def _cmp(cls) -> Callable:
    return lambda c, v, ic: cls(this=_lower(c, ic), expression=_lower(v[0], ic))


FILTERS: dict[str, FilterDef] = {
    f.op: f
    for f in (
        FilterDef("eq", ANY, "one", _cmp(exp.EQ), "{column} = {value}"),
        FilterDef("ne", ANY, "one", _cmp(exp.NEQ), "{column} ≠ {value}"),
        FilterDef("lt", ORDERED, "one", _cmp(exp.LT), "{column} < {value}"),
        FilterDef("le", ORDERED, "one", _cmp(exp.LTE), "{column} ≤ {value}"),
        FilterDef("gt", ORDERED, "one", _cmp(exp.GT), "{column} > {value}"),
        FilterDef("ge", ORDERED, "one", _cmp(exp.GTE), "{column} ≥ {value}"),
        FilterDef(
            "between",
            ORDERED,
            "two",
            lambda c, v, ic: exp.Between(this=_lower(c, ic), low=_lower(v[0], ic), high=_lower(v[1], ic)),
            "{column} between {value}",
        ),
        FilterDef(
            "in",
            ANY,
            "many",
            lambda c, v, ic: exp.In(this=_lower(c, ic), expressions=[_lower(x, ic) for x in v]),
            "{column} in {value}",
        ),
        FilterDef(
            "not_in",
            ANY,
            "many",
            lambda c, v, ic: exp.not_(exp.In(this=_lower(c, ic), expressions=[_lower(x, ic) for x in v])),
            "{column} not in {value}",
        ),
        FilterDef("is_null", ANY, "none", lambda c, v, ic: exp.Is(this=c, expression=exp.null()), "{column} is empty"),
        FilterDef(
            "not_null",
            ANY,
            "none",
            lambda c, v, ic: exp.not_(exp.Is(this=c, expression=exp.null())),
            "{column} is not empty",
        ),
        FilterDef(
            "contains",
            STRING,
            "one",
            lambda c, v, ic: _fn("contains", _lower(c, ic), _lower(v[0], ic)),
            "{column} contains {value}",
        ),
        FilterDef(
            "not_contains",
            STRING,
            "one",
            lambda c, v, ic: exp.not_(_fn("contains", _lower(c, ic), _lower(v[0], ic))),
            "{column} does not contain {value}",
        ),
        FilterDef(
            "starts_with",
            STRING,
            "one",
            lambda c, v, ic: _fn("starts_with", _lower(c, ic), _lower(v[0], ic)),
            "{column} starts with {value}",
        ),
        FilterDef(
            "ends_with",
            STRING,
            "one",
            lambda c, v, ic: _fn("ends_with", _lower(c, ic), _lower(v[0], ic)),
            "{column} ends with {value}",
        ),
        # SQL patterns: % any run of characters, _ one character, a backslash makes the next one
        # plain (\% is a percent sign), as ClickHouse's LIKE reads them by default.
        FilterDef("like", STRING, "one", lambda c, v, ic: _like(c, v[0], ic), "{column} is like {value}"),
        FilterDef(
            "not_like", STRING, "one", lambda c, v, ic: _like(c, v[0], ic, negated=True), "{column} is not like {value}"
        ),
    )
}


def _like(column: exp.Expression, pattern: exp.Expression, ignore_case: bool, negated: bool = False) -> exp.Expression:
    # negated: `a NOT LIKE b`, DuckDB's own operator, where NOT (a LIKE b) is a third slower once
    # the filter meets a join (TPC-H Q13: 367 → 243 ms).
    return exp.Escape(
        this=exp.Like(
            this=_lower(column, ignore_case), expression=_lower(pattern, ignore_case), negate=negated or None
        ),
        expression=exp.Literal.string("\\"),
    )


@dataclass(frozen=True)
class AggregateDef:
    fn: str
    types: frozenset[str]
    needs_column: bool
    build: Callable[[exp.Expression | None, exp.Expression | None], exp.Expression]  # (column, q parameter)
    result: Callable[[str], str]  # the result's logical type from the column's


def _same(t: str) -> str:
    return t


AGGREGATES: dict[str, AggregateDef] = {
    a.fn: a
    for a in (
        AggregateDef(
            "count", ANY, False, lambda c, q: exp.Count(this=c if c is not None else exp.Star()), lambda t: "number"
        ),
        AggregateDef(
            "count_distinct", ANY, True, lambda c, q: exp.Count(this=exp.Distinct(expressions=[c])), lambda t: "number"
        ),
        # DuckDB sums BIGINT into HUGEINT and DECIMAL(p, s) into DECIMAL(38, s): exact.
        AggregateDef("sum", NUMBER | {"duration"}, True, lambda c, q: exp.Sum(this=c), _same),
        AggregateDef("avg", NUMBER | {"duration"}, True, lambda c, q: exp.Avg(this=c), _same),
        AggregateDef("min", ORDERED, True, lambda c, q: exp.Min(this=c), _same),
        AggregateDef("max", ORDERED, True, lambda c, q: exp.Max(this=c), _same),
        AggregateDef("median", NUMBER, True, lambda c, q: _fn("median", c), _same),
        AggregateDef("stddev", NUMBER, True, lambda c, q: _fn("stddev_samp", c), _same),
        AggregateDef("var", NUMBER, True, lambda c, q: _fn("var_samp", c), _same),
        AggregateDef("quantile", NUMBER, True, lambda c, q: _fn("quantile_cont", c, q), _same),
    )
}


def decimal_shape(physical: str) -> tuple[int, int]:
    """(precision, scale) of 'DECIMAL(p, s)'."""
    p, s = physical[len("DECIMAL(") : -1].split(",")
    return int(p), int(s)


def decimal_median(physical: str) -> str | None:
    """The exact type of a decimal column's median, one place wider (the middle of 1.01 and 1.02
    is 1.015); None where that cannot be exact: not a decimal, or too wide to add two values
    and halve them within DECIMAL(38)."""
    if not physical.startswith("DECIMAL"):
        return None
    p, s = decimal_shape(physical)
    return f"DECIMAL({p + 1}, {s + 1})" if p + 2 <= 38 else None


BUCKETS = {"year", "quarter", "month", "week", "day", "hour", "minute"}
BUCKET_TYPES = {"date": {"year", "quarter", "month", "week", "day"}, "datetime": BUCKETS}
