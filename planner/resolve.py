"""A plan checked against the datasets' schemas: every name resolved, every value read as its
column's type, every rule of SPEC §4 applied; all errors gathered at once, each with its path."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .computed import compute
from .conditions import condition, single_source
from .joins import joins_of
from .models import QueryFilter, QueryPlan, QueryPlanDataset
from .outputs import measures, outputs
from .resolved import (
    AggregateOutput,
    FilterLeaf,
    Join,
    Limits,
    MeasureOutput,
    Operation,
    Output,
    PlanInvalid,
    Resolved,
    RFilter,
)
from .resolver import Resolver, row_bound
from .sources import sources
from .targets import DUCKDB, Target


def _count_filters(items: list[QueryFilter]) -> int:
    return sum(
        _count_filters((i.any or []) + (i.all or [])) if (i.any is not None or i.all is not None) else 1 for i in items
    )


def nested_plans(plan: QueryPlan) -> Iterator[QueryPlan]:
    """The plan and every plan nested in it as a dataset, outermost first."""
    yield plan
    for d in plan.datasets:
        if isinstance(d, QueryPlanDataset):
            yield from nested_plans(d.plan)


def _tree_limits(r: Resolver, plan: QueryPlan) -> None:
    """The plan limits, counting every nested plan's parts with the plan's own."""
    plans = list(nested_plans(plan))
    datasets = sum(1 for p in plans for d in p.datasets if not isinstance(d, QueryPlanDataset))
    if datasets > r.limits.datasets:
        r.over(
            "datasets",
            f"at most {r.limits.datasets} datasets per plan (nested plans' datasets count)",
            r.limits.datasets,
            datasets,
        )
    total = sum(
        _count_filters(p.where) + _count_filters(p.having) + sum(_count_filters(a.where) for a in p.aggregates)
        for p in plans
    )
    if total > r.limits.filters:
        r.over("where", f"at most {r.limits.filters} filters per plan", r.limits.filters, total)
    computed = sum(len(p.compute) for p in plans)
    if computed > r.limits.computed and len(plans) > 1:  # one plan's own: checked where its columns are read
        r.over(
            "compute",
            f"at most {r.limits.computed} computed columns per plan (nested plans' count)",
            r.limits.computed,
            computed,
        )


def resolve(
    plan: QueryPlan,
    found: list[Any],
    sources_known: list[str],
    limits: Limits = Limits(),
    target: Target = DUCKDB,
    depth: int = 0,
) -> Resolved:
    """Check `plan` against the datasets each of its entries names (`found[i]`: the live
    datasets of datasets[i].source_uri, or none; for a plan as a dataset, its own `found`), for
    the engine `target`. Raises PlanInvalid with every problem. `depth`: how deep a nested plan
    this is (the limits over the whole tree are checked at 0)."""
    r = Resolver(plan, found, sources_known, limits, target, depth, resolve)
    if depth == 0:
        if plan.limit > limits.rows:
            r.over("limit", f"at most {limits.rows} rows per answer", limits.rows, plan.limit)
        _tree_limits(r, plan)
        if len(r.problems) > (plan.limit > limits.rows):
            raise PlanInvalid(r.problems)  # nothing is resolved past the tree's limits
    sources(r)
    if len(r.sources) != len(plan.datasets):
        raise PlanInvalid(r.problems)

    joins = joins_of(r, plan)
    compute(r, plan, joins)

    # where: each filter (and each any/all group) stays inside one dataset; one on a computed
    # column that reads several datasets applies after the joins. It may read a dataset joined
    # semi or anti (which rows of it count as a match).
    deciders, r.deciders = r.deciders, {}
    where: dict[str, list[RFilter]] = {s.alias: [] for s in r.sources}
    after: list[RFilter] = []
    for i, item in enumerate(plan.where):
        f = condition(r, item, f"where[{i}]")
        if f is None:
            continue
        aliases = single_source(f)
        if "" in aliases or (isinstance(f, FilterLeaf) and len(aliases) > 1):
            # A computed column over several datasets, or two columns of two datasets compared.
            decided = sorted(aliases & deciders.keys())
            if decided:
                r.fail(
                    f"where[{i}]",
                    f"{decided[0]!r} is joined {deciders[decided[0]]}: a filter may read it only with its own columns",
                    received=sorted(aliases - {""}),
                )
                continue
            after.append(f)
        elif len(aliases) > 1:
            r.fail(
                f"where[{i}]",
                "an any/all group must stay inside one dataset (where applies before joins)",
                received=sorted(aliases),
            )
        else:
            where[next(iter(aliases), r.sources[0].alias)].append(f)
    r.deciders = deciders

    outs = outputs(r, plan)
    measures(r, plan, outs)
    names = [o.name for o in outs]
    folded = [n.lower() for n in names]
    for k, name in enumerate(names):
        first = folded.index(name.lower())
        if first != k:
            r.fail(
                outs[k].path,
                f"result column {name!r} is already the name of {outs[first].path} (result names ignore case): give one an `as`",
                received=name,
            )
    by_name = {o.name: o for o in outs}
    having: list[RFilter] = []
    qualify: list[RFilter] = []
    for i, item in enumerate(plan.having):
        f = condition(r, item, f"having[{i}]", None, by_name)
        if f is not None:
            # SQL's order: having before the measures (a share is of the groups kept), and a
            # filter on a measure after them ("rank le 3").
            (qualify if _names_measure(f) else having).append(f)
    order = []
    for i, o in enumerate(plan.order_by):
        if o.column not in by_name:
            r.not_among(f"order_by[{i}].column", f"{o.column!r} is not a result column", o.column, names)
        order.append((o.column, o.desc))
    if r.problems:
        raise PlanInvalid(r.problems)
    aggregated = bool(plan.aggregates or plan.group_by)
    warnings = _join_warnings(joins) + _month_warnings(outs)
    exprs = [ref.expr for ref in [*r.computed.values(), *r.aggregated_exprs] if ref.expr is not None]
    casts = [n for e in exprs for n in e.walk() if isinstance(n, Operation) and n.op == "cast"]
    if aggregated and not plan.group_by:
        rows = 1
    else:
        rows = row_bound(r)
        if depth and plan.order_by and "limit" in plan.model_fields_set:
            rows = min(rows, plan.limit)
    return Resolved(
        r.sources,
        where,
        joins,
        outs,
        having,
        order,
        plan.limit,
        plan.offset,
        aggregated,
        r.resolved_log,
        warnings,
        r.read,
        after=after,
        qualify=qualify,
        computed=list(r.computed.values()),
        casts=casts,
        written_budget=limits.expression_nodes,
        rows=rows,
        top=bool(depth and plan.order_by and "limit" in plan.model_fields_set),
    )


def _names_measure(f: RFilter) -> bool:
    if isinstance(f, FilterLeaf):
        return any(isinstance(o, MeasureOutput) for o in (f.output, f.other_output))
    return any(_names_measure(c) for c in f.children)


def _month_warnings(outs: list[Output]) -> list[str]:
    """A mean, median or quantile of durations that hold months counts a month as 30 days (a
    month has no fixed length, so no exact answer exists): said, never silent."""
    return [
        f"{o.path}: {o.fn} over durations counts a month as 30 days and a year as 360 where the values hold months or years"
        for o in outs
        if isinstance(o, AggregateOutput) and o.fn in ("avg", "median", "quantile") and o.type == "duration"
    ]


def _join_warnings(joins: list[Join]) -> list[str]:
    out = []
    for j in joins:
        if j.kind in ("semi", "anti") or not j.pairs:
            continue  # each row before it is kept once or not at all (or meets one row): nothing counts twice
        if not any(left.column.unique or right.column.unique for left, right in j.pairs):
            keys = ", ".join(
                f"{left.alias}.{left.column.name} = {right.alias}.{right.column.name}" for left, right in j.pairs
            )
            out.append(f"join {keys}: the key is unique on neither side, so rows may count more than once")
    return out
