"""What comes with a plan's rows: its result columns, its receipt (what was read and how), why
it is not complete, and the warnings of the casts that met values they could not read. Every
part is built from what resolving and compiling gave, never from the rows."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, TypeAdapter

from planner.receipt import ComputedColumn, Elapsed, QueryReceipt, ReceiptDataset, Resolution
from planner.resolved import MeasureOutput, Resolved

from ..backends.base import home_backend
from ..jsonval import to_json
from ..synthesize.answer import conditions as plan_conditions
from .context import Context
from .plancache import PlanText, hash_of


class ResultColumn(BaseModel):
    name: str
    type: str


def result_columns(compiled) -> list[ResultColumn]:
    return [ResultColumn(name=o.name, type=o.type) for o in compiled.columns]


def elapsed(validate: float, compile: float, execute: float, total: float) -> Elapsed:
    """The receipt's elapsed_ms, each in milliseconds to the microsecond, from seconds."""
    ms = [round(s * 1000, 3) for s in (validate, compile, execute, total)]
    return Elapsed(validate=ms[0], compile=ms[1], execute=ms[2], total=ms[3])


_COLUMNS = TypeAdapter(list[ResultColumn])


@dataclass(frozen=True)
class Kept:
    """What every answer of one plan (its exact text) over the catalog as it stands holds alike,
    built once (ops/plancache.py keeps it with the plan's statement): its receipt but for the rows
    returned, the times and the call's own warnings; its result columns; why it is not complete.
    Kept as the values the models validated to, for each answer to make models of its own from
    (fresh_receipt, fresh_columns): an answer is its caller's to change. Validating those values
    again, in one call of pydantic's core, costs less than copying the models."""

    receipt: dict[str, Any]
    columns: list[dict[str, Any]]
    incomplete: tuple[str, ...]


def kept(plan_hash: str, resolved: Resolved, compiled, engine: str, conditions: list[str] | tuple) -> Kept:
    started = receipt(plan_hash, resolved, compiled, engine, 0, elapsed(0, 0, 0, 0), (), conditions)
    columns = [c.model_dump() for c in result_columns(compiled)]
    return Kept(started.model_dump(exclude={"elapsed_ms"}), columns, tuple(incomplete(resolved)))


def shared_parts(ctx: Context, body, text: PlanText, resolved: Resolved, compiled, engine: str, shared: dict) -> Kept:
    """What every answer of this plan shares (Kept), built once where the plan cache keeps it:
    `shared` is what plancache.prepared gave for the plan (a dict of this call's own else). Its
    hash and its conditions in words are the plan's; the rest, its resolution's and statement's."""
    parts = shared.get("answer")
    if parts is None:
        parts = shared["answer"] = kept(hash_of(ctx, body, text), resolved, compiled, engine, plan_conditions(body))
    return parts


def fresh_receipt(
    kept: Kept, rows_returned: int, elapsed_ms: Elapsed, warnings: list[str] | tuple = ()
) -> QueryReceipt:
    """kept's receipt for one answer, every list and model of it its own, with this call's rows
    returned, times and warnings (after resolution's), computed now."""
    r = kept.receipt
    return QueryReceipt.model_validate(
        {
            **r,
            "warnings": [*r["warnings"], *warnings],
            "rows_returned": rows_returned,
            "elapsed_ms": elapsed_ms,
            "computed_at": dt.datetime.now(dt.UTC).isoformat(),
        }
    )


def fresh_columns(kept: Kept) -> list[ResultColumn]:
    return _COLUMNS.validate_python(kept.columns)


def receipt(
    plan_hash: str,
    resolved: Resolved,
    compiled,
    engine: str,
    rows_returned: int,
    elapsed_ms: Elapsed,
    warnings: list[str] | tuple = (),
    conditions: list[str] | tuple = (),
) -> QueryReceipt:
    """The receipt of SPEC §4; `warnings`, this call's own after resolution's (casts that met
    values they could not read). Each part is validated as it is made, from the planner's values
    (not from dicts, and not by checking the plan again: its hash is computed once per plan).
    Its lists are its own (a resolution may serve other calls, ops/plancache.py): a whole result
    extends its warnings."""
    datasets = [
        ReceiptDataset(
            alias=s.alias,
            within=within,
            source_uri=s.info.source_uri,
            dataset_id=s.info.dataset_id,
            snapshot_id=s.info.snapshot_id,
            revision=s.info.revision,
            rows=s.info.rows,
            rows_rejected=s.info.rows_rejected,
            open_questions=[
                f"{c.name}: {', '.join(c.open_questions)}"
                for c in s.info.columns
                if c.open_questions and c.name in owner.read.get(s.alias, set())
            ],
            columns_read=sorted(owner.read.get(s.alias, set())),
        )
        for within, s, owner in resolved.read_sources()
    ]
    computed = [
        ComputedColumn(name=ref.column.name, type=ref.column.type, physical=ref.column.physical, stage="row")
        for ref in resolved.computed
    ] + [
        ComputedColumn(name=o.name, type=o.type, physical=o.physical, stage="result")
        for o in resolved.outputs
        if isinstance(o, MeasureOutput)
    ]
    return QueryReceipt(
        plan_hash=plan_hash,
        sql=compiled.sql,
        params={k: to_json(v) for k, v in compiled.params.items()},
        engine=engine,
        datasets=datasets,
        resolved=[Resolution(**r) for r in resolved.resolved],
        warnings=[*resolved.warnings, *warnings],
        conditions=list(conditions),
        computed=computed,
        rows_returned=rows_returned,
        elapsed_ms=elapsed_ms,
        computed_at=dt.datetime.now(dt.UTC).isoformat(),
    )


def incomplete(resolved: Resolved) -> list[str]:
    """Why the answer is not complete, one reason per dataset: rows rejected at ingest, a source
    read in part, open questions on the columns the plan reads."""
    out = []
    for within, s, owner in resolved.read_sources():
        reasons = []
        if s.info.rows_rejected:
            n = s.info.rows_rejected
            reasons.append(
                f"{n:,} row{' was' if n == 1 else 's were'} rejected at ingest and {'is' if n == 1 else 'are'} not counted"
            )
        if s.info.partial:
            reasons.append("the source was read only in part")
        asked = [
            f"{c.name} ({', '.join(c.open_questions)})"
            for c in s.info.columns
            if c.open_questions and c.name in owner.read.get(s.alias, set())
        ]
        if asked:
            reasons.append("open questions on " + ", ".join(asked) + ": answer them with knowledge.dataset_approve")
        if reasons:
            out.append(f"{s.alias}{f' (in {within})' if within else ''}: " + "; ".join(reasons))
    return out


def dated(body, resolved: Resolved) -> list[tuple[str, str]]:
    """The plan's computed dates and timestamps, as (path, name): where a value past the engine's
    range (date_add past 5881580 AD) can come from, for the error that says so."""
    typed = {ref.column.name: ref.column.type for ref in resolved.computed}
    return [(f"compute[{k}]", c.as_) for k, c in enumerate(body.compute) if typed.get(c.as_) in ("date", "datetime")]


def checks(compiled) -> list:
    """The statements counting what the plan's casts (and its nested plans') could not read."""
    return [*compiled.nested_checks, *([compiled.check] if compiled.check is not None else [])]


def unread(ctx: Context, check, seconds: float) -> list[str]:
    """One warning per cast that met values it could not read (they are null in the answer)."""
    counts = home_backend(ctx.catalog, ctx.settings).counts(check, ctx.settings, seconds)
    return [f"{path}: {n} value(s) could not be read by cast and are null" for path, n in zip(check.paths, counts) if n]
