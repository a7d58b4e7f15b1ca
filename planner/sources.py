"""A plan's datasets resolved: each source found in the namespace (its dataset named where it has
several, close names offered where none matches), each alias checked, and each plan as a dataset
resolved as a plan of its own, its result columns the dataset's columns."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .models import QueryPlanDataset
from .resolved import ROW_ID, GroupOutput, PlanInvalid, Source, close
from .resolver import Resolver
from .schema import ColumnInfo, DatasetInfo


def sources(r: Resolver) -> None:
    """Each dataset of the plan found (a source and its dataset, or a plan as a dataset, resolved
    as a plan of its own) and named by its alias: `r.sources`, or the problems of those not found."""
    if len(r.plan.datasets) > r.limits.datasets:
        r.over(
            "datasets",
            f"at most {r.limits.datasets} datasets per plan",
            r.limits.datasets,
            len(r.plan.datasets),
        )
    aliases: set[str] = set()
    for i, (wanted, candidates) in enumerate(zip(r.plan.datasets, r.found)):
        path = f"datasets[{i}]"
        if isinstance(wanted, QueryPlanDataset):
            source = _nested(r, i, wanted, candidates)
            if source is not None and _alias_free(r, path, wanted.alias, aliases):
                r.sources.append(source)
            continue
        if not candidates:
            r.fail(
                f"{path}.source_uri",
                f"no source {wanted.source_uri!r} in this namespace",
                received=wanted.source_uri,
                did_you_mean=close(wanted.source_uri, r.known),
            )
            continue
        ids = [d.dataset_id for d in candidates]
        if wanted.dataset_id:
            info = next((d for d in candidates if d.dataset_id == wanted.dataset_id), None)
            if info is None:
                r.not_among(
                    f"{path}.dataset_id",
                    f"source {wanted.source_uri!r} has no dataset {wanted.dataset_id!r}",
                    wanted.dataset_id,
                    ids,
                )
                continue
        elif len(candidates) > 1:
            r.fail(
                f"{path}.dataset_id",
                f"source {wanted.source_uri!r} has {len(candidates)} datasets: name one",
                expected=" | ".join(ids),
            )
            continue
        else:
            info = candidates[0]
        alias = wanted.alias or info.dataset_id
        if _alias_free(r, path, alias, aliases, given=bool(wanted.alias)):
            r.sources.append(Source(i, alias, info, pinned=wanted.snapshot_id))


def _alias_free(r: Resolver, path: str, alias: str, aliases: set[str], given: bool = True) -> bool:
    """Whether `alias` may name a dataset of this plan (no dot, not taken); taken if so."""
    if given and "." in alias:
        # A column is named `alias.column`: an alias with a dot could never be read.
        r.fail(
            f"{path}.alias",
            f"alias {alias!r} has a dot; columns are named alias.column, so an alias holds none",
            expected="a name without '.'",
            received=alias,
        )
        return False
    if alias.lower() in aliases:
        # SQL names ignore case, so `a` and `A` would be one table to the engine.
        r.fail(
            f"{path}.alias",
            f"alias {alias!r} is used twice (aliases ignore case); give each dataset its own",
            received=alias,
        )
        return False
    aliases.add(alias.lower())
    return True


def _nested(r: Resolver, i: int, wanted: QueryPlanDataset, found: list[Any]) -> Source | None:
    """A plan as a dataset: resolved as a plan of its own (its problems at paths inside it),
    its result columns the dataset's columns, with their types and exact shapes."""
    path = f"datasets[{i}].plan"
    if r.depth + 1 > r.limits.nesting:
        r.over(path, f"plans nest at most {r.limits.nesting} deep", r.limits.nesting, r.depth + 1)
        return None
    inner = wanted.plan
    given = inner.model_fields_set
    for key in ("limit", "offset"):
        if key in given and not inner.order_by:
            r.fail(
                f"{path}.{key}",
                f"a nested plan's {key} applies only with its order_by (the top N); without one every row is read",
                expected="order_by beside it, or no limit",
                received=getattr(inner, key),
            )
    if inner.dry_run:
        r.fail(f"{path}.dry_run", "dry_run belongs to the outer plan", received=True)
    try:
        sub = r.resolve(inner, found, r.known, r.limits, r.target, depth=r.depth + 1)
    except PlanInvalid as invalid:
        r.problems.extend(replace(p, path=f"{path}.{p.path}" if p.path else path) for p in invalid.problems)
        return None
    for o in sub.outputs:
        if o.name.lower() == ROW_ID:
            r.fail(
                f"{path}.{o.path}" if o.path else path,
                f"{ROW_ID} names the row id of a plan's result: give this result column another name",
                received=o.name,
            )
            return None
    groups = [o for o in sub.outputs if isinstance(o, GroupOutput)]
    one_row = sub.aggregated and not groups
    columns = tuple(
        ColumnInfo(
            o.name,
            o.type,
            o.physical,
            unique=one_row or (len(groups) == 1 and o is groups[0]),
            digits=o.shape[0] if o.shape and o.physical in ("BIGINT", "HUGEINT") else None,
            shape=o.shape,
        )
        for o in sub.outputs
    )
    info = DatasetInfo("", wanted.alias, "", 0, (), sub.rows, 0, False, columns)
    return Source(i, wanted.alias, info, plan=sub)
