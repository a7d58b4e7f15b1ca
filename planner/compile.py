"""A resolved plan to SQL (DuckDB's, or a target's: targets.py), built with sqlglot only: quoted
names, values as parameters.

    SELECT <outputs> FROM (SELECT * FROM <snapshot> WHERE <its filters>) AS "a"
      JOIN (…) AS "b" ON …  GROUP BY … HAVING … ORDER BY … LIMIT limit + 1 OFFSET …
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from .resolve import Output, Resolved, RFilter
from .targets import AVG_EXACT_SUM_DIGITS, DUCKDB, Target  # noqa: F401 - AVG_EXACT_SUM_DIGITS: re-exported
from .values import Beyond

DIALECT = DUCKDB.dialect
ROW_ID = "__row_id"


@dataclass(frozen=True)
class Compiled:
    sql: str
    params: dict[str, Any]
    columns: list[Output]
    row_id_columns: int  # trailing columns holding each dataset's row id (rows without aggregates)


class _Params:
    def __init__(self, target: Target = DUCKDB) -> None:
        self.values: dict[str, Any] = {}
        self.target = target

    def add(self, value: Any, physical: str) -> exp.Expression:
        """A placeholder bound to `value`, compared with (or used as) the DuckDB type `physical`."""
        name = f"p{len(self.values) + 1}"
        self.values[name] = value
        return self.target.placeholder(name, physical)

    def constant(self, name: str, value: Any, physical: str) -> exp.Expression:
        """A parameter a target needs whatever the plan (a table it computes with), bound once."""
        self.values[name] = value
        return self.target.placeholder(name, physical)


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
    physical = f.output.physical if f.output is not None else f.ref.column.physical
    return params.target.filter(op, target, [params.add(v, physical) for v in values], f.ignore_case, params.constant)


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


def _value(o: Output, params: _Params) -> exp.Expression:
    if o.kind != "aggregate":
        value = _column(o.ref.alias, o.ref.column.name)
        return params.target.bucket(value, o.bucket, o.type) if o.bucket else value
    column = _column(o.ref.alias, o.ref.column.name) if o.ref else None
    physical = o.ref.column.physical if o.ref else ""
    condition = exp.and_(*[_condition(f, params) for f in o.where]) if o.where else None

    def only_where(agg: exp.Expression) -> exp.Expression:
        return exp.Filter(this=agg, expression=exp.Where(this=condition.copy())) if condition else agg

    q = params.add(o.q, "DOUBLE") if o.q is not None else None
    return params.target.aggregate(o.fn, column, q, physical, only_where)


def compile_plan(r: Resolved, target: Target = DUCKDB, whole: bool = False) -> Compiled:
    """The plan as one statement of `target`'s SQL (DuckDB by default) and its parameters;
    `whole`: every row it matches, without the answer's limit and offset (streamed results)."""
    params = _Params(target)
    sources = []
    for s in r.sources:
        *where, name = s.info.table
        table = exp.table_(name, db=where[-1], catalog=where[0] if len(where) > 1 else None, quoted=True, alias=exp.to_identifier(s.alias, quoted=True))
        inner = exp.select("*", copy=False).from_(table, copy=False)
        filters = r.where.get(s.alias, [])
        if filters:
            inner = inner.where(exp.and_(*[_condition(f, params) for f in filters], copy=False), copy=False)
        sources.append(exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier(s.alias, quoted=True))))
    # copy=False throughout: the builders would otherwise copy the growing tree at every step.
    select = exp.select(copy=False).from_(sources[0], copy=False)
    deciders = {j.source.alias for j in r.joins if j.kind in ("semi", "anti")}
    for j, source in zip(r.joins, sources[1:]):
        on = exp.and_(*[exp.EQ(this=_column(a.alias, a.column.name), expression=_column(b.alias, b.column.name)) for a, b in j.pairs], copy=False)
        # SEMI / ANTI JOIN: DuckDB's and ClickHouse's own (each row before it once, or none).
        select = select.join(source, on=on, join_type=j.kind, copy=False)
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
            # A dataset joined semi or anti gives no row of its own: its row id is null.
            row_id = exp.null() if s.alias in deciders else _column(s.alias, ROW_ID)
            projections.append(exp.alias_(row_id, name, quoted=True))
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
    if whole and not ordered and not r.aggregated and not r.joins:
        # One dataset's rows as stored: a snapshot is written in row id order and DuckDB keeps
        # insertion order, so a sort would only hold the whole result in memory first.
        return Compiled(select.sql(dialect=target.dialect), params.values, r.outputs, row_ids)
    named = {name for name, _ in ordered}
    ties = [o.name for o in r.outputs if o.kind == "group"] if r.aggregated else [hidden[s.index] for s in r.sources if s.alias not in deciders]
    ordered += [(name, False) for name in ties if name not in named]
    order = [exp.Ordered(this=exp.column(name, quoted=True), desc=desc, nulls_first=False) for name, desc in ordered]
    if order:
        select = select.order_by(*order, copy=False)
    if whole:
        return Compiled(select.sql(dialect=target.dialect), params.values, r.outputs, row_ids)
    # One row past the limit tells whether more rows matched (truncated).
    select = select.limit(params.add(r.limit + 1, "UBIGINT"), copy=False)
    if r.offset:
        select = select.offset(params.add(r.offset, "UBIGINT"), copy=False)
    return Compiled(select.sql(dialect=target.dialect), params.values, r.outputs, row_ids)
