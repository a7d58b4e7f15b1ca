"""A resolved plan to DuckDB SQL, built with sqlglot only: quoted names, values as parameters.

    SELECT <outputs> FROM (SELECT * FROM <snapshot> WHERE <its filters>) AS "a"
      JOIN (…) AS "b" ON …  GROUP BY … HAVING … ORDER BY … LIMIT limit + 1 OFFSET …
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from .functions import AGGREGATES, FILTERS
from .resolve import Output, Resolved, RFilter

DIALECT = "duckdb"
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
    return FILTERS[f.op].build(target, [params.add(v) for v in f.values], f.ignore_case)


def _bucket(e: exp.Expression, bucket: str, type_: str) -> exp.Expression:
    truncated = exp.Anonymous(this="date_trunc", expressions=[exp.Literal.string(bucket), e])
    return exp.cast(truncated, "DATE") if type_ == "date" else truncated


def _value(o: Output, params: _Params) -> exp.Expression:
    if o.kind == "aggregate":
        column = _column(o.ref.alias, o.ref.column.name) if o.ref else None
        if o.fn in ("median", "quantile") and o.ref.column.physical.startswith("DECIMAL"):
            # DuckDB interpolates a DECIMAL at its own scale, rounding. The middle of two decimals
            # needs one more place (1.01, 1.02 -> 1.015), so a median stays exact; any other
            # quantile is a fraction of the gap and is computed in DOUBLE.
            p, s = (int(x) for x in o.ref.column.physical[8:-1].split(","))
            wider = f"DECIMAL({p + 1}, {s + 1})" if o.fn == "median" and p < 38 else "DOUBLE"
            column = exp.cast(column, exp.DataType.build(wider, dialect=DIALECT))
        agg = AGGREGATES[o.fn].build(column, params.add(o.q) if o.q is not None else None)
        if o.where:
            condition = exp.and_(*[_condition(f, params) for f in o.where])
            agg = exp.Filter(this=agg, expression=exp.Where(this=condition))
        return agg
    value = _column(o.ref.alias, o.ref.column.name)
    return _bucket(value, o.bucket, o.type) if o.bucket else value


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
    order = [exp.Ordered(this=exp.column(name, quoted=True), desc=desc, nulls_first=False) for name, desc in r.order]
    if not order:
        if r.aggregated:
            order = [exp.Ordered(this=exp.column(o.name, quoted=True), desc=False, nulls_first=False) for o in r.outputs if o.kind == "group"]
        else:
            order = [exp.Ordered(this=exp.column(hidden[s.index], quoted=True), desc=False, nulls_first=False) for s in r.sources]
    if order:
        select = select.order_by(*order, copy=False)
    # One row past the limit tells whether more rows matched (truncated).
    select = select.limit(params.add(r.limit + 1), copy=False)
    if r.offset:
        select = select.offset(params.add(r.offset), copy=False)
    return Compiled(select.sql(dialect=DIALECT), params.values, r.outputs, row_ids)
