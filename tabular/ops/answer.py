"""What comes with a plan's rows: its result columns, its receipt (what was read and how), why
it is not complete, and the warnings of the casts that met values they could not read. Every
part is built from what resolving and compiling gave, never from the rows."""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel

from planner.receipt import ComputedColumn, Elapsed, QueryReceipt, ReceiptDataset, Resolution
from planner.resolved import MeasureOutput, Resolved

from ..backends.base import home_backend
from ..jsonval import to_json
from .context import Context


class ResultColumn(BaseModel):
    name: str
    type: str


def result_columns(compiled) -> list[ResultColumn]:
    return [ResultColumn(name=o.name, type=o.type) for o in compiled.columns]


def elapsed(validate: float, compile: float, execute: float, total: float) -> Elapsed:
    """The receipt's elapsed_ms, each in milliseconds to the microsecond, from seconds."""
    ms = [round(s * 1000, 3) for s in (validate, compile, execute, total)]
    return Elapsed(validate=ms[0], compile=ms[1], execute=ms[2], total=ms[3])


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
