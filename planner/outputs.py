"""A plan's result columns resolved: its selects or groups and aggregates (each with its exact
storage type), its measures and windows."""

from __future__ import annotations

from dataclasses import replace

from .computed import computed_ref
from .conditions import condition, conditions, row_condition
from .expressions import output_node
from .models import QueryAggregate, QueryFilter, QueryPlan, QueryWindow
from .operators import AGGREGATES, BUCKET_TYPES, WINDOWS
from .resolved import AggregateOutput, GroupOutput, MeasureOutput, Output, Ref, RExpr, RFilter, RowOutput, Shape, Window
from .resolver import Resolver, column_shape, row_bound, row_term, supported
from .rules import decimal_median, digits_bound, shape_of


def outputs(r: Resolver, plan: QueryPlan) -> list[Output]:
    """The result's columns: the groups, then the aggregates, else the rows' columns (those
    selected, or every column of every source and every computed column)."""
    several = len(r.sources) > 1
    rows = row_bound(r)
    out = _groups(r, plan, several)
    for i, a in enumerate(plan.aggregates):
        made = _aggregate(r, a, i, rows)
        if made is not None:
            out.append(made)
    return out + _row_columns(r, plan, several)


def _name(ref: Ref, several: bool) -> str:
    """A column's name in the result: alias.column where several sources could both have it."""
    return f"{ref.alias}.{ref.column.name}" if several and ref.expr is None else ref.column.name


def _shape(ref: Ref) -> Shape | None:
    return ref.expr.shape if ref.expr is not None else column_shape(ref.column)


def _groups(r: Resolver, plan: QueryPlan, several: bool) -> list[Output]:
    out: list[Output] = []
    for i, g in enumerate(plan.group_by):
        ref = r.ref(g.column, f"group_by[{i}].column")
        if ref is None:
            continue
        if g.bucket and g.bucket not in BUCKET_TYPES.get(ref.column.type, ()):
            r.fail(
                f"group_by[{i}].bucket",
                f"bucket {g.bucket} needs a date or datetime column; {ref.column.name} is {ref.column.type}",
                received=g.bucket,
            )
            continue
        name = g.as_ or (_name(ref, several) + (f"_{g.bucket}" if g.bucket else ""))
        out.append(
            GroupOutput(
                name=name,
                type=ref.column.type,
                ref=ref,
                bucket=g.bucket,
                physical=ref.column.physical,
                path=f"group_by[{i}]",
                shape=None if g.bucket else _shape(ref),
            )
        )
    return out


def _aggregated(r: Resolver, a: QueryAggregate, i: int) -> tuple[bool, Ref | None]:
    """(usable, what the aggregate reads: its expression, its column, or nothing for a count)."""
    spec = AGGREGATES[a.fn]
    ref = None
    if a.expr is not None:
        node = r.expr(a.expr, f"aggregates[{i}].expr", row_term(r), row_condition(r))
        if node is None or not supported(r, node, f"aggregates[{i}].expr"):
            return False, None
        ref = replace(computed_ref(r, "expr", node), placed=False)  # written where it is aggregated
        r.aggregated_exprs.append(ref)
    elif a.column is not None:
        ref = r.ref(a.column, f"aggregates[{i}].column")
        if ref is None:
            return False, None
    if ref is not None:
        if ref.column.type not in spec.types:
            r.fail(
                f"aggregates[{i}].fn",
                f"{a.fn} does not apply to a {ref.column.type} {'expression' if a.expr is not None else 'column'}",
                expected=" | ".join(f for f, s in AGGREGATES.items() if ref.column.type in s.types),
                received=a.fn,
            )
            return False, None
    elif spec.needs_column:
        r.fail(f"aggregates[{i}].column", f"{a.fn} needs a column")
        return False, None
    if (a.fn == "quantile") != (a.q is not None):
        r.fail(
            f"aggregates[{i}].q",
            "quantile needs q in [0, 1]" if a.q is None else f"q is quantile's; {a.fn} takes none",
            received=a.q,
        )
        return False, None
    return True, ref


def _aggregate(r: Resolver, a: QueryAggregate, i: int, rows: int) -> Output | None:
    """One aggregate's result column, with the digits its value can take; None where it is refused."""
    usable, ref = _aggregated(r, a, i)
    if not usable:
        return None
    where = conditions(r, a.where, f"aggregates[{i}].where") if a.where else []
    name = a.as_ or (f"{a.fn}_{ref.column.name}" if ref else "count")
    type_ = AGGREGATES[a.fn].result(ref.column.type) if ref else "number"
    physical = aggregate_physical(a.fn, ref)
    exact = _shape(ref) if ref is not None and a.fn in ("sum", "min", "max") else None
    bound = digits_bound(rows, exact) if a.fn == "sum" else exact
    if a.fn in ("count", "count_distinct"):
        bound = (19, 0)
    elif physical.startswith("DECIMAL") and a.fn == "median":
        bound = shape_of(physical)
    return AggregateOutput(
        name=name,
        type=type_,
        ref=ref,
        fn=a.fn,
        q=a.q,
        where=where,
        physical=physical,
        path=f"aggregates[{i}]",
        shape=bound,
    )


def _row_columns(r: Resolver, plan: QueryPlan, several: bool) -> list[Output]:
    """Without aggregates or groups: the columns selected, else every readable column and every computed one."""
    out: list[Output] = []
    if plan.select and (plan.aggregates or plan.group_by):
        r.fail(
            "select",
            "select lists rows; with aggregates or groups, group_by names the columns",
            received=len(plan.select),
        )
    elif plan.select:
        for i, c in enumerate(plan.select):
            ref = r.ref(c.column, f"select[{i}].column")
            if ref is not None:
                out.append(
                    RowOutput(
                        name=c.as_ or _name(ref, several),
                        type=ref.column.type,
                        ref=ref,
                        physical=ref.column.physical,
                        path=f"select[{i}]",
                        shape=_shape(ref),
                    )
                )
    elif not (plan.aggregates or plan.group_by):
        for s in r.sources:
            if s.alias in r.deciders:
                continue
            for info in s.info.columns:
                ref = Ref(s.alias, info)
                if not r.readable(ref, f"datasets[{s.index}]"):
                    continue
                r.read.setdefault(s.alias, set()).add(info.name)
                out.append(
                    RowOutput(
                        name=_name(ref, several),
                        type=info.type,
                        ref=ref,
                        physical=info.physical,
                        path="datasets",
                        shape=_shape(ref),
                    )
                )
        for name, ref in r.computed.items():
            out.append(
                RowOutput(
                    name=name,
                    type=ref.column.type,
                    ref=ref,
                    physical=ref.column.physical,
                    path="compute",
                    shape=_shape(ref),
                )
            )
    return out


def measures(r: Resolver, plan: QueryPlan, outputs: list[Output]) -> None:
    """Measures: expressions and windows over the result rows, each able to read those before it."""
    by_name: dict[str, Output] = {o.name: o for o in outputs}

    def term(text: str, path: str) -> RExpr | None:
        o = by_name.get(text)
        if o is None:
            folded = [v for k, v in by_name.items() if k.lower() == text.lower()]
            o = folded[0] if len(folded) == 1 else None
        if o is None:
            r.not_among(path, f"a measure reads result columns; {text!r} is not one", text, list(by_name))
            return None
        return output_node(o.name, o.type, o.physical, o.shape)

    def when(item: QueryFilter, path: str) -> RFilter | None:
        return condition(r, item, path, None, by_name)

    for i, m in enumerate(plan.measures):
        path = f"measures[{i}]"
        if m.expr is not None:
            node = r.expr(m.expr, f"{path}.expr", term, when)
            if node is None or not supported(r, node, f"{path}.expr"):
                continue
            o = MeasureOutput(
                name=m.as_, type=node.type, physical=node.physical, path=path, shape=node.shape, expr=node
            )
        elif m.window is not None:
            window = _window(r, m.window, f"{path}.window", by_name)
            if window is None:
                continue
            o = replace(window, name=m.as_)
        else:
            continue  # QueryMeasure takes an expr or a window (models.py)
        outputs.append(o)
        by_name[o.name] = o


def _window(r: Resolver, w: QueryWindow, path: str, by_name: dict[str, Output]) -> MeasureOutput | None:
    spec = WINDOWS[w.fn]
    names = list(by_name)

    def named(text: str, at: str) -> Output | None:
        o = by_name.get(text)
        if o is None:
            r.not_among(at, f"{text!r} is not a result column", text, names)
        return o

    of = None
    if not spec.reads:
        if w.of is not None:
            r.fail(f"{path}.of", f"{w.fn} ranks by order_by; it reads no `of`", received=w.of)
            return None
    else:
        if w.of is None:
            r.fail(f"{path}.of", f"{w.fn} needs `of`: the result column it reads", expected=" | ".join(names))
            return None
        of = named(w.of, f"{path}.of")
        if of is None:
            return None
        if (spec.reads == "numbers" and of.type != "number") or (spec.reads == "ordered values" and of.type == "bool"):
            r.fail(f"{path}.of", f"{w.fn} reads {spec.reads}; {of.name} is {of.type}", received=w.of)
            return None
    why = r.target.cannot_window(w.fn, of)
    if why:
        r.fail(f"{path}.fn", f"the {r.target.name} engine cannot compute the window {w.fn}: {why}", received=w.fn)
        return None
    partition = [p for k, p in enumerate(w.partition_by) if named(p, f"{path}.partition_by[{k}]") is not None]
    order = [
        (o.column, o.desc)
        for k, o in enumerate(w.order_by)
        if named(o.column, f"{path}.order_by[{k}].column") is not None
    ]
    if len(partition) != len(w.partition_by) or len(order) != len(w.order_by):
        return None
    if spec.order == "needs" and not order:
        # row_number and running_sum without order_by follow the result's default order (the
        # groups, or the rows as listed: "the row after X", "the first listed"); a rank needs one.
        r.fail(
            f"{path}.order_by",
            f"{w.fn} needs order_by: the result columns that rank the rows",
            expected="[{column, desc?}]",
        )
        return None
    if spec.order == "none" and order:
        r.fail(
            f"{path}.order_by",
            f"{w.fn} covers its whole partition and takes no order_by (running_sum is the ordered total)",
            received=len(order),
        )
        return None
    type_, physical, shape = spec.typed(of, row_bound(r))
    return MeasureOutput(
        name="", type=type_, physical=physical, path=path, shape=shape, window=Window(w.fn, of, partition, order)
    )


def aggregate_physical(fn: str, ref: Ref | None) -> str:
    """The storage type DuckDB gives an aggregate (exact ones matter for having's values)."""
    if fn in ("count", "count_distinct"):
        return "BIGINT"
    physical = ref.column.physical if ref else "DOUBLE"
    if fn == "sum" and physical in ("BIGINT", "HUGEINT"):
        return "HUGEINT"
    if fn == "sum" and physical.startswith("DECIMAL"):
        return f"DECIMAL(38, {physical.split(',')[1].strip(' )')})"
    if fn in ("min", "max"):
        return physical
    if fn == "median" and decimal_median(physical):
        return decimal_median(physical) or "DOUBLE"
    return "DOUBLE"
