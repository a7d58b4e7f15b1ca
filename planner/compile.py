"""A resolved plan to SQL (DuckDB's, or a target's: targets.py), built with sqlglot only: quoted
names, values as parameters.

    SELECT <outputs> FROM (SELECT * FROM <snapshot> WHERE <its filters>) AS "a"
      JOIN (…) AS "b" ON …  WHERE <filters on computed columns of several datasets>
      GROUP BY … HAVING … ORDER BY … LIMIT limit + 1 OFFSET …

With measures, that statement (without its order and limit) is the first stage; the measures are
computed over its rows in a second, and filters on them, the order and the limit in a third.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from .builders import as_type, at_common
from .computed import computed_reads, written_size
from .operators import FILTERS, OPERATORS
from .resolved import (
    ROW_ID,
    AggregateOutput,
    CaseNode,
    ColumnNode,
    FilterGroup,
    GroupOutput,
    LiteralNode,
    MeasureOutput,
    NullNode,
    Output,
    OutputNode,
    PlanInvalid,
    Problem,
    Ref,
    Resolved,
    RExpr,
    RFilter,
    RowOutput,
)
from .targets import DUCKDB, Target
from .values import Beyond
from .windows import window

Place = tuple[str, int]  # a filter's value: the filter's path, the value's place among its values
Slot = tuple[str, str, int]  # the same within a plan: the nested plan's path ('' for the plan), then its place


@dataclass(frozen=True)
class Check:
    """A statement counting what a plan's casts could not read (the receipt's warnings)."""

    sql: str
    params: dict[str, Any]
    paths: list[str]  # per counted column, the cast's path in the plan
    slots: dict[Slot, str] = field(default_factory=dict)  # filter values' parameters: see _Params.add


@dataclass(frozen=True)
class Compiled:
    sql: str
    params: dict[str, Any]
    columns: list[Output]
    row_id_columns: int  # trailing columns holding each dataset's row id (rows without aggregates)
    check: Check | None = None
    nested_checks: tuple[Check, ...] = ()  # the same for each nested plan that casts
    slots: dict[Slot, str] = field(default_factory=dict)  # filter values' parameters: see _Params.add
    # What the SQL took from a slot's value besides binding it (see _Params.depends): another
    # value of the slot rebinds only where it gives the same.
    facts: dict[Slot, tuple[str, Any]] = field(default_factory=dict)


# Facts of a value the SQL is built from (not only bound): by name, what decides them.
FACTS: dict[str, Callable[[Any], Any]] = {
    "backslash": lambda v: isinstance(v, str) and "\\" in v,  # a like pattern's ESCAPE clause
}


class _Params:
    def __init__(self, target: Target = DUCKDB, budget: int = 0) -> None:
        self.values: dict[str, Any] = {}
        self.target = target
        # The nodes computed columns written out where they are read may still take (0: no bound).
        self.budget = budget
        self.sizes: dict[int, int] = {}
        self.ctes: list[tuple[str, exp.Select]] = []  # plans as datasets, innermost first
        self.slots: dict[Slot, str] = {}
        self.facts: dict[Slot, tuple[str, Any]] = {}
        self.within = ""  # the nested plan being compiled, by path ('' for the plan itself)
        self.plan_ties: dict[
            int, list[tuple[str, bool]]
        ] = {}  # per plan source (by id): (column, desc) ordering its rows

    def cte(self, select: exp.Select) -> str:
        """A nested plan's statement as a CTE of the statement being built: its name."""
        name = f"__plan_{len(self.ctes)}"
        self.ctes.append((name, select))
        return name

    def finish(self, select: exp.Select) -> str:
        """The statement with its CTEs, as the target's SQL."""
        for name, cte in self.ctes:
            select = select.with_(exp.to_identifier(name, quoted=True), as_=cte, copy=False)
        return self.target.finish(select).sql(dialect=self.target.dialect)

    def write_out(self, ref: Ref) -> None:
        """Count a computed column written out where it is read; past the plan's budget the plan
        is refused before more is built (one column read many times is written many times)."""
        if not self.budget:
            return
        key = id(ref)
        if key not in self.sizes:
            self.sizes[key] = written_size(_formula(ref), self.sizes)
        self.budget -= self.sizes[key]
        if self.budget <= 0:
            raise PlanInvalid(
                [
                    Problem(
                        "compute",
                        "the computed columns written out where they are read (those over several datasets, or over "
                        "one joined left) take too many expression nodes in all: read them fewer times, or make them smaller",
                        "fewer expression nodes in all (expression_nodes_max)",
                        ref.column.name,
                        over_limit=True,
                    )
                ]
            )

    def add(self, value: Any, physical: str, slot: Place | None = None) -> exp.Expression:
        """A placeholder bound to `value`, compared with (or used as) the DuckDB type `physical`.
        `slot`: a filter's value, (its path, its place among the values): named by it, so a plan
        of the same shape with other values compiles to the same SQL (rebind)."""
        if slot is None:
            name = f"p{len(self.values) + 1}"
        else:
            key = (self.within, *slot)
            name = self.slots.setdefault(key, f"v{len(self.slots) + 1}")
        self.values[name] = value
        return self.target.placeholder(name, physical)

    def depends(self, slot: Place | None, fact: str, value: Any) -> Any:
        """The SQL is built from FACTS[fact] of a slot's value: recorded, so rebind binds
        another value there only where the fact is the same. Answers the fact."""
        got = FACTS[fact](value)
        if slot is not None:
            self.facts[(self.within, *slot)] = (fact, got)
        return got

    def constant(self, name: str, value: Any, physical: str) -> exp.Expression:
        """A parameter a target needs whatever the plan (a table it computes with), bound once."""
        self.values[name] = value
        return self.target.placeholder(name, physical)


def _formula(ref: Ref) -> RExpr:
    """A computed column's expression (only computed columns are placed or written out)."""
    if ref.expr is None:
        raise ValueError(f"{ref.column.name} is a dataset's column, not a computed one")
    return ref.expr


def _named_value(outputs: Mapping[str, exp.Expression] | None, name: str) -> exp.Expression:
    """What a result column's name stands for where measures and having read it."""
    if outputs is None or name not in outputs:
        raise ValueError(f"{name} is read where no result column is")
    return outputs[name].copy()


def _side(
    ref: Ref | None, output: Output | None, params: _Params, outputs: Mapping[str, exp.Expression] | None
) -> exp.Expression:
    """One side of a condition: a result column (having) or a column of the rows."""
    if output is not None:
        return _named_value(outputs, output.name)
    if ref is None:
        raise ValueError("a condition reads a column or a result column")
    return _ref(ref, params)


def _column(alias: str, name: str) -> exp.Column:
    return exp.column(name, table=alias, quoted=True)


def _ref(ref: Ref, params: _Params) -> exp.Expression:
    """A dataset column; a computed one by name where it is a column of its dataset's rows
    (placed: _computed), else its expression written out where it is read."""
    if ref.expr is not None and not ref.placed:
        params.write_out(ref)
        return expression(ref.expr, params)
    return _column(ref.alias, ref.column.name)


def _computed(inner: exp.Select, alias: str, refs: list[Ref], params: _Params) -> exp.Select:
    """The dataset's rows with its placed computed columns, one layer per level (a column reads
    only those of the layers below it, by name): SQL grows by one expression per column."""
    level: dict[str, int] = {}
    for ref in refs:  # in plan order: a computed column reads only earlier ones
        below = [level[name] for name in computed_reads(_formula(ref)) if name in level]
        level[ref.column.name] = 1 + max(below, default=-1)
    for depth in range(max(level.values(), default=-1) + 1):
        if depth:
            # A fence (OFFSET 0): DuckDB would otherwise copy each layer's expression into the
            # one above it, and run a chain of columns each reading the one before twice as one
            # expression that doubles per step (18 steps: 12 s and 2 GB) though the SQL does not.
            inner = inner.offset(exp.Literal.number(0), copy=False)
        columns = [
            exp.alias_(expression(_formula(ref), params), ref.column.name, quoted=True, copy=False)
            for ref in refs
            if level[ref.column.name] == depth
        ]
        inner = exp.select(exp.Star(), *columns, copy=False).from_(_named(inner, alias), copy=False)
    # The dataset's filters (WHERE) read the last layer's columns: a layer of their own.
    return exp.select(exp.Star(), copy=False).from_(_named(inner, alias), copy=False)


def _reads_placed(f: RFilter) -> bool:
    """Whether a filter reads a placed computed column (in a leaf's column or in its values' expressions)."""
    if isinstance(f, FilterGroup):
        return any(_reads_placed(c) for c in f.children)
    return any(ref is not None and ref.placed for ref in (f.ref, f.other))


def _named(select: exp.Select, alias: str) -> exp.Subquery:
    return exp.Subquery(this=select, alias=exp.TableAlias(this=exp.to_identifier(alias, quoted=True)))


def expression(node: RExpr, params: _Params, outputs: Mapping[str, exp.Expression] | None = None) -> exp.Expression:
    """The SQL of a typed expression; `outputs`: what a result column's name stands for (measures)."""
    if isinstance(node, ColumnNode):
        return _ref(node.ref, params)
    if isinstance(node, OutputNode):
        return _named_value(outputs, node.name)
    if isinstance(node, LiteralNode):
        return as_type(params.add(node.value, node.physical), node.physical)
    if isinstance(node, NullNode):
        return as_type(exp.null(), node.physical)
    if isinstance(node, CaseNode):
        ifs = [
            exp.If(
                this=_condition(test, params, outputs), true=at_common(node, expression(then, params, outputs), then)
            )
            for test, then in node.whens
        ]
        otherwise = node.otherwise
        default = at_common(node, expression(otherwise, params, outputs), otherwise) if otherwise else None
        return exp.Case(ifs=ifs, default=default)
    words = OPERATORS[node.op].literal_args  # written into the SQL by the operator itself
    args = [exp.null() if k in words else expression(a, params, outputs) for k, a in enumerate(node.args)]
    return params.target.operator(node, args)


def _condition(f: RFilter, params: _Params, outputs: Mapping[str, exp.Expression] | None = None) -> exp.Expression:
    if isinstance(f, FilterGroup):
        parts = [_condition(c, params, outputs) for c in f.children]
        joined = exp.or_(*parts) if f.kind == "any" else exp.and_(*parts)
        return exp.paren(joined)
    target = _side(f.ref, f.output, params, outputs)
    if f.other is not None or f.other_output is not None:
        other = _side(f.other, f.other_output, params, outputs)
        return params.target.filter(f.op, target, [other], f.ignore_case, params.constant)
    op, values = f.op, f.values
    if any(isinstance(v, Beyond) for v in values):
        settled = _settle(op, values)
        if isinstance(settled, bool):
            # Comparisons never match an empty cell, so "every value matches" is "not empty".
            return exp.not_(exp.Is(this=target, expression=exp.null())) if settled else exp.false()
        op, values = settled
    column = f.output if f.output is not None else f.ref.column if f.ref is not None else None
    if column is None:
        raise ValueError(f"{f.path}: a condition reads a column or a result column")
    physical = column.physical
    # Values as they were given (no Beyond settled them) are named by their place in the plan.
    slots = [(f.path, k) if f.path and values is f.values else None for k in range(len(values))]
    computed = f.output is None and f.ref is not None and f.ref.expr is not None
    if physical == "HUGEINT" or (computed and physical.startswith("DECIMAL")):
        # A computed value's parameter at the value's own type: DuckDB would otherwise pick one
        # from the Python value and may widen past 38 digits.
        return params.target.filter(
            op,
            target,
            [as_type(params.add(v, physical, slot), physical) for v, slot in zip(values, slots)],
            f.ignore_case,
            params.constant,
        )
    built = params.target.filter(
        op, target, [params.add(v, physical, slot) for v, slot in zip(values, slots)], f.ignore_case, params.constant
    )
    if op in ("like", "not_like"):
        escapes = [params.depends(slot, "backslash", v) for v, slot in zip(values, slots)]
        if not any(escapes):
            # A pattern without a backslash reads the same without ESCAPE, which makes DuckDB's
            # LIKE take its generic matcher (a third slower on TPC-H Q13's comments).
            built = built.transform(lambda n: n.this if isinstance(n, exp.Escape) else n, copy=False)
    return built


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


def _settle(op: str, values: list[Any]) -> bool | tuple[str, list[Any]]:
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


def _value(o: GroupOutput | AggregateOutput | RowOutput, params: _Params) -> exp.Expression:
    if isinstance(o, RowOutput):
        return _ref(o.ref, params)
    if isinstance(o, GroupOutput):
        value = _ref(o.ref, params)
        return params.target.bucket(value, o.bucket, o.type) if o.bucket else value
    column = _ref(o.ref, params) if o.ref else None
    physical = o.ref.column.physical if o.ref else ""
    condition = exp.and_(*[_condition(f, params) for f in o.where]) if o.where else None

    def only_where(agg: exp.Expression) -> exp.Expression:
        return exp.Filter(this=agg, expression=exp.Where(this=condition.copy())) if condition else agg

    q = params.add(o.q, "DOUBLE") if o.q is not None else None
    return params.target.aggregate(o.fn, column, q, physical, only_where)


_JOIN_KINDS = {"inner": {"kind": "INNER"}, "left": {"side": "LEFT"}, "semi": {"kind": "SEMI"}, "anti": {"kind": "ANTI"}}


def _source_rows(r: Resolved, params: _Params) -> exp.Select:
    """SELECT … FROM the datasets, each filtered, joined, and filtered again after the joins
    (computed columns over several datasets); the projections are the caller's."""
    sources = []
    for s in r.sources:
        if s.plan is not None:
            # A plan as a dataset: its statement a CTE, with the columns that order its rows (its
            # groups, or its own rows' ids) for a plan that lists rows to break its ties by.
            outer, params.within = (
                params.within,
                f"{params.within}{'.' if params.within else ''}datasets[{s.index}].plan",
            )
            nested, params.plan_ties[id(s)] = _nested(s.plan, params)
            name = params.cte(nested)
            params.within = outer
            table = exp.table_(name, quoted=True, alias=exp.to_identifier(s.alias, quoted=True))
        else:
            *where, name = s.info.table
            table = exp.table_(
                name,
                db=where[-1],
                catalog=where[0] if len(where) > 1 else None,
                quoted=True,
                alias=exp.to_identifier(s.alias, quoted=True),
            )
        inner = exp.select(exp.Star(), copy=False).from_(table, copy=False)
        placed = [ref for ref in r.computed if ref.placed and ref.alias == s.alias]
        filters = r.where.get(s.alias, [])
        # Filters on the dataset's own columns on its scan (where DuckDB reads only the row
        # groups they can match); those on its computed columns over the layers computing them.
        plain = [f for f in filters if not _reads_placed(f)] if placed else filters
        if plain:
            inner = inner.where(exp.and_(*[_condition(f, params) for f in plain], copy=False), copy=False)
        if placed:
            inner = _computed(inner, s.alias, placed, params)
            later = [f for f in filters if _reads_placed(f)]
            if later:
                inner = inner.where(exp.and_(*[_condition(f, params) for f in later], copy=False), copy=False)
        sources.append(exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier(s.alias, quoted=True))))
    # copy=False throughout: the builders would otherwise copy the growing tree at every step.
    select = exp.select(copy=False).from_(sources[0], copy=False)
    joins = []
    for j, source in zip(r.joins, sources[1:]):
        conditions = [
            exp.EQ(this=_column(a.alias, a.column.name), expression=_column(b.alias, b.column.name)) for a, b in j.pairs
        ] + [
            FILTERS[op].build(_column(a.alias, a.column.name), [_column(b.alias, b.column.name)], False)
            for a, op, b in j.conditions
        ]
        if not conditions:  # a one-row plan beside every row
            joins.append(
                exp.Join(this=source, kind="CROSS")
                if j.kind == "inner"
                else exp.Join(this=source, on=exp.true(), **_JOIN_KINDS[j.kind])
            )
            continue
        # SEMI / ANTI JOIN: DuckDB's and ClickHouse's own (each row before it once, or none).
        # Built as nodes: Select.join would parse its join type as SQL text, each time.
        joins.append(exp.Join(this=source, on=exp.and_(*conditions, copy=False), **_JOIN_KINDS[j.kind]))
    if joins:
        select.set("joins", joins)
    if r.after:
        select = select.where(exp.and_(*[_condition(f, params) for f in r.after], copy=False), copy=False)
    return select


@dataclass
class _Body:
    select: exp.Select
    row_ids: int  # hidden row id columns after the result columns
    ties: list[tuple[str, bool]]  # (name, desc): the default order that breaks the plan's ties: groups, or rows as read


def _nested(r: Resolved, params: _Params) -> tuple[exp.Select, list[tuple[str, bool]]]:
    """A plan as a dataset: its result columns (and the columns that order its rows: its
    groups, or its rows' ids), in its order only when it has one (a top N: its limit applies
    then); with the names of those ordering columns. No row number: a window over it would keep
    the joins reading it from filtering it first (TPC-H Q2: 4×)."""
    body = _statement(r, params)
    select = body.select
    ordered = [(name, desc) for name, desc in r.order]
    named = {name for name, _ in ordered}
    ordered += [(name, desc) for name, desc in body.ties if name not in named]
    order = [exp.Ordered(this=exp.column(name, quoted=True), desc=desc, nulls_first=False) for name, desc in ordered]
    if r.top or r.offset:  # a nested offset comes with an order_by (resolve refuses one without)
        select = select.order_by(*order, copy=False)
    if r.top:
        select = select.limit(params.add(r.limit, "UBIGINT"), copy=False)
    if r.offset:
        select = select.offset(params.add(r.offset, "UBIGINT"), copy=False)
    return select, ordered


def compile_plan(r: Resolved, target: Target = DUCKDB, whole: bool = False, stable: bool = False) -> Compiled:
    """The plan as one statement of `target`'s SQL (DuckDB by default) and its parameters;
    `whole`: every row it matches, without the answer's limit and offset (streamed results), in
    the engine's order unless the plan has `order_by` or `stable` (the plan's `whole_order`) asks
    for the answer's default order, which sorts the whole result before its first row."""
    params = _Params(target, r.written_budget)
    body = _statement(r, params)
    select, row_ids, ties = body.select, body.row_ids, body.ties
    ordered = [(name, desc) for name, desc in r.order]
    checks = tuple(_check(p, target, at) for at, p in r.nested() if p.casts)
    check = _check(r, target) if r.casts else None

    def finished(select: exp.Select) -> Compiled:
        return Compiled(
            params.finish(select), params.values, r.outputs, row_ids, check, checks, params.slots, params.facts
        )

    if whole and not ordered and not stable:
        # Streamed as DuckDB makes the rows: a sort over row ids (or groups) would hold the whole
        # result before its first byte (SPEC §4: memory flat in the result). One dataset's rows
        # still come in row id order: a snapshot is written so and DuckDB keeps insertion order.
        return finished(select)
    named = {name for name, _ in ordered}
    ordered += [(name, desc) for name, desc in ties if name not in named]
    order = [exp.Ordered(this=exp.column(name, quoted=True), desc=desc, nulls_first=False) for name, desc in ordered]
    if order:
        select = select.order_by(*order, copy=False)
    if whole:
        return finished(select)
    # One row past the limit tells whether more rows matched (truncated).
    select = select.limit(params.add(r.limit + 1, "UBIGINT"), copy=False)
    if r.offset:
        select = select.offset(params.add(r.offset, "UBIGINT"), copy=False)
    return finished(select)


def _statement(r: Resolved, params: _Params) -> _Body:
    """The plan's rows: sources, joins, groups, having and measures, not yet ordered or limited."""
    select = _source_rows(r, params)
    deciders = {j.source.alias for j in r.joins if j.kind in ("semi", "anti")}
    rows_of = [o for o in r.outputs if not isinstance(o, MeasureOutput)]
    values = {o.name: _value(o, params) for o in rows_of}
    # The values themselves in the projections; copies where they are used again (groups, having).
    projections = [exp.alias_(values[o.name], o.name, quoted=True, copy=False) for o in rows_of]
    row_ids = 0
    hidden: dict[int, str] = {}
    tied: dict[int, list[str]] = {}  # a plan source's ordering columns, by their hidden names
    if not r.aggregated:
        taken = {o.name.lower() for o in r.outputs}

        def free(name: str) -> str:
            while name.lower() in taken:  # a result may be named like it: the hidden one gives way
                name += "_"
            taken.add(name.lower())
            return name

        for s in r.sources:
            hidden[s.index] = free(f"{ROW_ID}_{s.index}")
            # A dataset joined semi or anti gives no row of its own, nor a plan's result: null.
            decided = s.alias in deciders or s.plan is not None
            row_id = as_type(exp.null(), "BIGINT") if decided else _column(s.alias, ROW_ID)
            projections.append(exp.alias_(row_id, hidden[s.index], quoted=True))
            row_ids += 1
        for s in r.sources:  # after the row ids (the answer reads those, then stops)
            if s.plan is not None and s.alias not in deciders:
                tied[s.index] = [free(f"__tie_{s.index}_{k}") for k in range(len(params.plan_ties[id(s)]))]
                projections += [
                    exp.alias_(_column(s.alias, column), name, quoted=True)
                    for (column, _), name in zip(params.plan_ties[id(s)], tied[s.index])
                ]
    select = select.select(*projections, append=True, copy=False)
    groups = [values[o.name].copy() for o in rows_of if isinstance(o, GroupOutput)]
    if groups:
        select = select.group_by(*groups, copy=False)
    if r.having:
        condition = exp.and_(*[_condition(f, params, values) for f in r.having], copy=False)
        # Rows without groups: having is the same filter on the result rows, after the joins.
        select = select.having(condition, copy=False) if r.aggregated else select.where(condition, copy=False)
    # The default order (groups, or rows as read) breaks the plan's ties: which rows fall at
    # the limit is the same on every run.
    ties = (
        [(o.name, False) for o in r.outputs if isinstance(o, GroupOutput)]
        if r.aggregated
        else [
            tie
            for s in r.sources
            if s.alias not in deciders
            for tie in (
                [(name, desc) for name, (_, desc) in zip(tied[s.index], params.plan_ties[id(s)])]
                if s.index in tied
                else [(hidden[s.index], False)]
            )
        ]
    )
    if r.measured:
        carried = [hidden[s.index] for s in r.sources] if not r.aggregated else []
        select = _measured(r, select, params, ties, carried, [t for names in tied.values() for t in names])
    return _Body(select, row_ids, ties)


def _measured(
    r: Resolved,
    first: exp.Select,
    params: _Params,
    ties: list[tuple[str, bool]],
    row_ids: list[str],
    kept: Sequence[str] = (),
) -> exp.Select:
    """The measures over the first stage's rows, one layer each (a measure reads those before it
    by name, so a window over a window's result never nests), then the filters that name them:
    SELECT * FROM (SELECT <columns>, <measure 2> FROM (SELECT <columns>, <measure 1> FROM (<first>) AS "m0") AS "m1") AS "measured" WHERE …"""
    current: exp.Select = first
    available = [o.name for o in r.outputs if not isinstance(o, MeasureOutput)]
    for k, o in enumerate(o for o in r.outputs if isinstance(o, MeasureOutput)):
        below = exp.Subquery(this=current, alias=exp.TableAlias(this=exp.to_identifier(f"m{k}", quoted=True)))
        sql: dict[str, exp.Expression] = {name: exp.column(name, quoted=True) for name in available}
        value = exp.paren(expression(o.expr, params, sql)) if o.expr is not None else window(o, sql, ties)
        projections = [exp.column(name, quoted=True) for name in available] + [
            exp.alias_(value, o.name, quoted=True, copy=False)
        ]
        projections += [exp.column(name, quoted=True) for name in [*row_ids, *kept]]
        current = exp.select(*projections, copy=False).from_(below, copy=False)
        available.append(o.name)
    # The result's columns in the plan's order (measures after the columns they read), row ids last.
    ordered = [exp.column(o.name, quoted=True) for o in r.outputs] + [exp.column(name, quoted=True) for name in row_ids]
    measured = exp.Subquery(this=current, alias=exp.TableAlias(this=exp.to_identifier("measured", quoted=True)))
    third = exp.select(*ordered, copy=False).from_(measured, copy=False)
    if r.qualify:
        names: dict[str, exp.Expression] = {o.name: exp.column(o.name, quoted=True) for o in r.outputs}
        third = third.where(exp.and_(*[_condition(f, params, names) for f in r.qualify], copy=False), copy=False)
    return third


def _check(r: Resolved, target: Target, within: str = "") -> Check:
    """count(*) FILTER (WHERE v IS NOT NULL AND TRY_CAST(v) IS NULL) per cast, over the rows the plan reads."""
    params = _Params(target, r.written_budget)
    params.within = within  # its values are named as the nested plan's own (rebind binds them by it)
    select = _source_rows(r, params)
    counts = []
    for k, node in enumerate(r.casts):
        value = expression(node.args[0], params)
        failed = exp.and_(
            exp.not_(exp.Is(this=value, expression=exp.null())),
            exp.Is(this=expression(node, params), expression=exp.null()),
        )
        counts.append(
            exp.alias_(
                exp.Filter(this=exp.Count(this=exp.Star()), expression=exp.Where(this=failed)), f"c{k}", quoted=True
            )
        )
    select = select.select(*counts, append=True, copy=False)
    return Check(
        params.finish(select),
        params.values,
        [f"{within}.{n.path}" if within else n.path for n in r.casts],
        params.slots,
    )
