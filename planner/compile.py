"""A resolved plan to DuckDB SQL, built with sqlglot only: quoted names, values as parameters.

    SELECT <outputs> FROM (SELECT * FROM <snapshot> WHERE <its filters>) AS "a"
      JOIN (…) AS "b" ON …  GROUP BY … HAVING … ORDER BY … LIMIT limit + 1 OFFSET …
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from .functions import AGGREGATES, FILTERS, decimal_median, decimal_shape
from .resolve import Output, Resolved, RFilter
from .values import Beyond

DIALECT = "duckdb"
# avg of DECIMAL(p, s) with p at most this sums exactly first: past 38 digits only beyond 10^10 rows.
AVG_EXACT_SUM_DIGITS = 28
ROW_ID = "__row_id"


@dataclass(frozen=True)
class Compiled:
    sql: str
    params: dict[str, Any]
    columns: list[Output]
    row_id_columns: int  # trailing columns holding each dataset's row id (rows without aggregates)


class _Params:
    def __init__(self) -> None:
        self.values: dict[str, Any] = {}

    def add(self, value: Any) -> exp.Expression:
        name = f"p{len(self.values) + 1}"
        self.values[name] = value
        return exp.Placeholder(this=name)


def _column(alias: str, name: str) -> exp.Column:
    return exp.column(name, table=alias, quoted=True)


def _condition(f: RFilter, params: _Params, outputs: dict[str, exp.Expression] | None = None) -> exp.Expression:
    if f.kind != "leaf":
        parts = [_condition(c, params, outputs) for c in f.children]
        joined = exp.or_(*parts) if f.kind == "any" else exp.and_(*parts)
        return exp.paren(joined)
    target = outputs[f.output.name] if f.output is not None else _column(f.ref.alias, f.ref.column.name)
    op, values = f.op, f.values
    if any(isinstance(v, Beyond) for v in values):
        settled = _settle(op, values)
        if isinstance(settled, bool):
            # Comparisons never match an empty cell, so "every value matches" is "not empty".
            return exp.Not(this=exp.Is(this=target, expression=exp.null())) if settled else exp.false()
        op, values = settled
    return FILTERS[op].build(target, [params.add(v) for v in values], f.ignore_case)


# A comparison with a number beyond every value of its column: True (every value matches),
# False (none does). ABOVE and BELOW come from every operator, BETWEEN from equality only.
_BEYOND = {
    "eq": {Beyond.ABOVE: False, Beyond.BELOW: False, Beyond.BETWEEN: False},
    "ne": {Beyond.ABOVE: True, Beyond.BELOW: True, Beyond.BETWEEN: True},
    "lt": {Beyond.ABOVE: True, Beyond.BELOW: False},
    "le": {Beyond.ABOVE: True, Beyond.BELOW: False},
    "gt": {Beyond.ABOVE: False, Beyond.BELOW: True},
    "ge": {Beyond.ABOVE: False, Beyond.BELOW: True},
}


def _settle(op: str, values: list) -> bool | tuple[str, list]:
    """The comparison decided, or rewritten without the values no column value can equal."""
    if op in _BEYOND:
        return _BEYOND[op][values[0]]
    if op in ("in", "not_in"):
        kept = [v for v in values if not isinstance(v, Beyond)]
        return (op, kept) if kept else op == "not_in"
    low, high = values  # between: each side on its own
    low_ok = _BEYOND["ge"][low] if isinstance(low, Beyond) else None
    high_ok = _BEYOND["le"][high] if isinstance(high, Beyond) else None
    if low_ok is False or high_ok is False:
        return False
    if low_ok and high_ok:
        return True
    return ("le", [high]) if low_ok else ("ge", [low])


def _bucket(e: exp.Expression, bucket: str, type_: str) -> exp.Expression:
    truncated = exp.Anonymous(this="date_trunc", expressions=[exp.Literal.string(bucket), e])
    return exp.cast(truncated, "DATE") if type_ == "date" else truncated


def _value(o: Output, params: _Params) -> exp.Expression:
    if o.kind != "aggregate":
        value = _column(o.ref.alias, o.ref.column.name)
        return _bucket(value, o.bucket, o.type) if o.bucket else value
    column = _column(o.ref.alias, o.ref.column.name) if o.ref else None
    physical = o.ref.column.physical if o.ref else ""
    condition = exp.and_(*[_condition(f, params) for f in o.where]) if o.where else None

    def only_where(agg: exp.Expression) -> exp.Expression:
        return exp.Filter(this=agg, expression=exp.Where(this=condition.copy())) if condition else agg

    if o.fn == "median" and decimal_median(physical):
        return _exact_median(column, physical, only_where)
    if physical.startswith("DECIMAL") and (o.fn in ("median", "quantile") or (o.fn == "avg" and decimal_shape(physical)[0] > AVG_EXACT_SUM_DIGITS)):
        # Quantiles of decimals are DOUBLE (the README says so; DuckDB interpolates wide ones
        # through DOUBLE anyway). avg is DOUBLE too, but DuckDB sums the decimals first, and
        # fails when that sum passes 38 digits: wide ones are summed in DOUBLE instead.
        column = exp.cast(column, exp.DataType.build("DOUBLE"))
    return only_where(AGGREGATES[o.fn].build(column, params.add(o.q) if o.q is not None else None))


def _exact_median(column: exp.Expression, physical: str, only_where) -> exp.Expression:
    """The mean of the two middle values, in decimal arithmetic: the lower middle is the 0.5
    discrete quantile, the upper one the same of the negated column. DuckDB's median would
    interpolate a decimal wider than 18 digits through DOUBLE."""
    p, s = decimal_shape(physical)
    def middle(e: exp.Expression) -> exp.Expression:
        return only_where(exp.Anonymous(this="quantile_disc", expressions=[e, exp.Literal.number("0.5")]))

    lower, upper = middle(column), exp.Neg(this=middle(exp.Neg(this=column.copy())))
    both = exp.cast(exp.paren(exp.Add(this=lower, expression=upper)), exp.DataType.build(f"DECIMAL({p + 1}, {s})", dialect=DIALECT))
    half = exp.Mul(this=both, expression=exp.Literal.number("0.5"))
    return exp.cast(half, exp.DataType.build(decimal_median(physical), dialect=DIALECT))


def compile_plan(r: Resolved) -> Compiled:
    params = _Params()
    sources = []
    for s in r.sources:
        table = exp.table_(s.info.table[1], db=s.info.table[0], quoted=True, alias=exp.to_identifier(s.alias, quoted=True))
        inner = exp.select("*", copy=False).from_(table, copy=False)
        filters = r.where.get(s.alias, [])
        if filters:
            inner = inner.where(exp.and_(*[_condition(f, params) for f in filters], copy=False), copy=False)
        sources.append(exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier(s.alias, quoted=True))))
    # copy=False throughout: the builders would otherwise copy the growing tree at every step.
    select = exp.select(copy=False).from_(sources[0], copy=False)
    for j, source in zip(r.joins, sources[1:]):
        on = exp.and_(*[exp.EQ(this=_column(a.alias, a.column.name), expression=_column(b.alias, b.column.name)) for a, b in j.pairs], copy=False)
        select = select.join(source, on=on, join_type="left" if j.kind == "left" else "inner", copy=False)
    values = {o.name: _value(o, params) for o in r.outputs}
    projections = [exp.alias_(values[o.name].copy(), o.name, quoted=True) for o in r.outputs]
    row_ids = 0
    hidden: dict[int, str] = {}
    if not r.aggregated:
        taken = {o.name.lower() for o in r.outputs}
        for s in r.sources:
            name = f"{ROW_ID}_{s.index}"
            while name.lower() in taken:  # a result may be named like it: the hidden one gives way
                name += "_"
            hidden[s.index] = name
            projections.append(exp.alias_(_column(s.alias, ROW_ID), name, quoted=True))
            row_ids += 1
    select = select.select(*projections, append=True, copy=False)
    groups = [values[o.name].copy() for o in r.outputs if o.kind == "group"]
    if groups:
        select = select.group_by(*groups, copy=False)
    if r.having:
        condition = exp.and_(*[_condition(f, params, values) for f in r.having], copy=False)
        # Rows without groups: having is the same filter on the result rows, after the joins.
        select = select.having(condition, copy=False) if r.aggregated else select.where(condition, copy=False)
    # The plan's order, then the default one (groups, or rows as read) to break its ties: which
    # rows fall at the limit is the same on every run.
    ordered = [(name, desc) for name, desc in r.order]
    named = {name for name, _ in ordered}
    ties = [o.name for o in r.outputs if o.kind == "group"] if r.aggregated else [hidden[s.index] for s in r.sources]
    ordered += [(name, False) for name in ties if name not in named]
    order = [exp.Ordered(this=exp.column(name, quoted=True), desc=desc, nulls_first=False) for name, desc in ordered]
    if order:
        select = select.order_by(*order, copy=False)
    # One row past the limit tells whether more rows matched (truncated).
    select = select.limit(params.add(r.limit + 1), copy=False)
    if r.offset:
        select = select.offset(params.add(r.offset), copy=False)
    return Compiled(select.sql(dialect=DIALECT), params.values, r.outputs, row_ids)
