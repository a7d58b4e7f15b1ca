"""A plan checked against the live snapshots it names, for knowledge.query and its whole result:
the schemas handed to the planner (planner/resolve.py), its problems turned into the SPEC's
errors (422, 413 over a plan limit, 409 for a snapshot that no longer serves), and the time a
checked plan has left to run."""

from __future__ import annotations

from planner.models import QueryPlan, QueryPlanDataset
from planner.resolve import resolve
from planner.resolved import Limits, PlanInvalid, Resolved

from ..errors import BackendTimeout, ErrorItem, PreconditionFailed, TooLarge, ValidationFailed
from ..settings import Settings
from ..store.schemas import known_sources
from .addresses import found
from .context import Context


def refused(invalid: PlanInvalid) -> TooLarge | ValidationFailed:
    """The planner's problems as the answer's error: 413 when every one is over a plan limit (SPEC §2), else 422."""
    items = [ErrorItem(p.path, p.message, p.expected, p.received, p.did_you_mean) for p in invalid.problems]
    if all(p.over_limit for p in invalid.problems):
        return TooLarge(f"the plan is over a limit: {invalid.problems[0].message}", items)
    return ValidationFailed(f"the plan does not fit the datasets: {invalid.problems[0].message}", items)


def limits(settings: Settings) -> Limits:
    """The plan limits of SPEC §5 as the settings say them."""
    return Limits(
        settings.datasets_per_plan,
        settings.filters_per_plan,
        settings.in_values_max,
        settings.result_limit_max,
        settings.computed_per_plan,
        settings.computed_depth_max,
        settings.expression_nodes_max,
        settings.plan_nesting_max,
    )


def _all_found(plan: QueryPlan, found: list) -> bool:
    """Whether every dataset the plan names (nested plans' too: found's shape) was found."""
    return all(
        _all_found(d.plan, f) if isinstance(d, QueryPlanDataset) else bool(f) for d, f in zip(plan.datasets, found)
    )


def check_pinned(resolved: Resolved) -> None:
    """409 where the plan names a snapshot of a source that no longer serves (read it again)."""
    for within, source, _ in resolved.read_sources():
        if source.pinned and source.pinned != source.info.snapshot_id:
            raise PreconditionFailed(
                f"snapshot {source.pinned!r} of {source.info.source_uri!r} no longer serves (the live one is {source.info.snapshot_id!r}): read again",
                [
                    ErrorItem(
                        f"{within}{'.' if within else ''}datasets[{source.index}].snapshot_id",
                        "stale snapshot",
                        expected=source.info.snapshot_id,
                        received=source.pinned,
                    )
                ],
            )


def resolve_plan(ctx: Context, body, target, schemas: list | None = None) -> Resolved:
    """The plan (a QueryIn: org and namespace filled) checked against the live datasets it names
    (422 / 413 / 409 otherwise); `schemas`: what `found` gives for it, when the caller has them."""
    schemas = found(ctx, body.org, body.namespace, body) if schemas is None else schemas
    try:
        resolved = resolve(
            body,
            schemas,
            known_sources(ctx.catalog, body.org, body.namespace) if not _all_found(body, schemas) else [],
            limits(ctx.settings),
            target,
        )
    except PlanInvalid as invalid:
        raise refused(invalid) from None
    check_pinned(resolved)
    return resolved


def time_left(spent: float, seconds: float) -> float:
    """The seconds a compiled plan has left to run: resolving and compiling count inside
    `query_seconds` (504 past it)."""
    if spent >= seconds:
        raise BackendTimeout(
            f"checking and compiling the plan took {spent:.1f} s, past query_seconds ({seconds:g} s); nothing ran"
        )
    return seconds - spent
