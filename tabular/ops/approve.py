"""knowledge.dataset_approve: a person settles the typing of a live dataset.

The named columns are typed again from the stored extraction, the whole dataset is rebuilt
under a new snapshot in one transaction, and the approval is audited. The snapshot the person
read is the precondition: if it no longer serves, nothing happens (409).
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import uuid
from contextlib import suppress
from typing import TypedDict

from pydantic import Field
from sqlglot import exp

from planner.dialect import DIALECT

from .. import pause
from ..display import approve_html, approve_repr
from ..errors import ErrorItem, PreconditionFailed, ValidationFailed, close_names
from ..infer import columns as infer
from ..infer import retype
from ..infer.questions import Typing, settle_by_evidence
from ..models import DatasetGetIn, DatasetOut, OpIn, QuestionOut, SourceAnswer, TypeFormat
from ..read.extraction import Excluded
from ..readings import format_of
from ..store import retention, stored
from ..store.catalog import insert, insert_snapshot, live_datasets, now, rejected_table, snapshot_typings, update
from ..store.snapshot import build_snapshot, parquet_relation
from .addresses import addressed, name_one
from .change import Change
from .context import Context, close_sources
from .datasets import dataset_get


class DatasetApproveIn(OpIn):
    source_uri: str = Field(min_length=1)
    dataset_id: str = Field(default="", description="Which table of the source; '' when the source has only one.")
    snapshot_id: str = Field(
        min_length=1,
        description="The snapshot you read (dataset_get). If another one serves by now, the answer is 409: read again.",
    )
    columns: dict[str, str] = Field(
        default_factory=dict, description="Column name -> type (string, number, bool, date, datetime, time, duration)."
    )
    formats: dict[str, str] = Field(
        default_factory=dict,
        description="Column name -> format, for what a type alone cannot say: a strptime pattern ('%m/%d/%Y') or DMY/MDY/YMD for dates, "
        "'decimal_mark=,' (with optional ';group_mark=.', ';unit=€', ';negative=brackets' or ';negative=trailing') for numbers, '1/0' or 'true/false' for bools.",
    )
    settle_rest: bool = Field(
        default=False,
        description="Accept the rest as shown: settle every open question the approval does not answer as the column is "
        "held now (each listed in `settled`). Without it they stay open. An approval that names no column settles them all.",
    )
    allow_rejects: bool = Field(
        default=False,
        description="Apply a retyping that rejects more than half of a column's non-empty values (else 422 at the column, with the count and examples).",
    )
    dry_run: bool = Field(
        default=False,
        description="Answer what the approval would change and reject, and change nothing (no new snapshot).",
    )


class Settled(TypeFormat):
    """A question the approval settles, and the typing it settles it at."""

    column: str = Field(description="The column ('' for a question on the whole table: header_row).")


class DatasetApproveOut(SourceAnswer):
    found: bool
    dataset: DatasetOut | None = None
    retyped: bool = Field(
        default=False,
        description="A column's type or format changed, so the dataset was typed again under a new snapshot.",
    )
    changes: list[Change] = Field(default_factory=list, description="The columns whose type or format changed.")
    answered: list[Settled] = Field(
        default_factory=list,
        description="The open questions the approval answers (on the columns it names), each at the typing it gives.",
    )
    settled: list[Settled] = Field(
        default_factory=list,
        description="The open questions it settles as the columns are held now (settle_rest, or an approval naming nothing).",
    )
    left_open: list[QuestionOut] = Field(
        default_factory=list,
        description="The questions it leaves open (neither answered nor settled): the dataset stays unapproved while any is.",
    )
    dry_run: bool = Field(
        default=False,
        description="Nothing was changed: `changes`, `answered`, `settled` and `left_open` say what the approval would do.",
    )

    def _repr_html_(self) -> str:
        return approve_html(self)

    def __repr__(self) -> str:
        return approve_repr(self)


class _Said(TypedDict):
    """What an approval answers whether or not it is a dry run."""

    found: bool
    changes: list[Change]
    answered: list[Settled]
    settled: list[Settled]
    left_open: list[QuestionOut]


@dataclasses.dataclass(frozen=True)
class _Live:
    revision: int
    dataset_id: str
    extraction: str
    names: list[str]
    headers: list[str]
    rows: int
    options: dict
    snapshot_id: str
    questions: list[QuestionOut]


def _live(cur, body: DatasetApproveIn) -> _Live | None:
    rows = live_datasets(cur, body.org, body.namespace, body.source_uri)
    chosen = [r for r in rows if r["dataset_id"] == body.dataset_id or (not body.dataset_id and len(rows) == 1)]
    if not chosen:
        if not body.dataset_id and rows:
            raise name_one(body.source_uri, [r["dataset_id"] for r in rows])
        return None
    r = chosen[0]
    return _Live(
        r["revision"],
        r["dataset_id"],
        r["extraction"],
        json.loads(r["names"]),
        json.loads(r["headers"]),
        r["extracted"],
        json.loads(r["options"]),
        r["live_snapshot"],
        [QuestionOut.model_validate(q) for q in json.loads(r["questions"])],
    )


def _stale(snapshot_id: str, live: str) -> PreconditionFailed:
    return PreconditionFailed(
        f"snapshot {snapshot_id!r} no longer serves (the live one is {live!r}): read the dataset again",
        [ErrorItem("snapshot_id", "stale snapshot", expected=live, received=snapshot_id)],
    )


def _typings(ctx: Context, cur, live: _Live) -> dict[str, Typing]:
    """The live snapshot's typings as stored at publish (inferred again for a snapshot that has none)."""
    saved = snapshot_typings(ctx.catalog.conn(), live.snapshot_id)
    if saved:
        return retype.load(saved)
    cells = [f"c{i + 1}" for i in range(len(live.names))]
    found = infer.infer_columns(cur, parquet_relation(live.extraction), cells, live.rows, ctx.settings, live.options)
    return settle_by_evidence(found)


def _as(t: Typing) -> TypeFormat:
    return TypeFormat(type=t.reading.type, format=format_of(t.reading, t.physical))


def dataset_approve(ctx: Context, body: DatasetApproveIn) -> DatasetApproveOut:
    """Approve a dataset's typing: retype the named columns (types, and formats such as a date order or a decimal mark) from the stored extraction under a new snapshot. The questions on the named columns are answered; the others stay open unless `settle_rest` (or nothing is named), which settles them as held. A source_uri `source#dataset` names one dataset, as dataset_get takes it."""
    body = addressed(ctx, body)
    cur = ctx.catalog.cursor()
    live = _live(ctx.catalog.conn(), body)
    if live is None:
        ids = [r["dataset_id"] for r in live_datasets(ctx.catalog.conn(), body.org, body.namespace, body.source_uri)]
        meant = (
            close_names(body.dataset_id, ids)
            if ids
            else close_sources(ctx, body.org, body.namespace, body.source_uri, live=True)
        )
        return DatasetApproveOut(found=False, did_you_mean=meant)
    if body.snapshot_id != live.snapshot_id:
        raise _stale(body.snapshot_id, live.snapshot_id)
    path = stored.extraction(
        ctx.catalog,
        ctx.settings,
        ctx.catalog.conn(),
        body.org,
        body.namespace,
        body.source_uri,
        live.revision,
        live.dataset_id,
    )
    live = dataclasses.replace(live, extraction=path)
    markers = ctx.settings.nulls(live.options)
    current = _typings(ctx, cur, live)
    cells = dict(zip(live.names, current))
    errors = retype.check_request(cur, live.names, current, cells, body.columns, body.formats)
    if errors:
        raise ValidationFailed(f"{len(errors)} problem(s) with the approval: {errors[0].message}", errors)
    named = set(body.columns) | set(body.formats)
    rest = body.settle_rest or not named  # naming nothing approves the dataset as shown (SPEC §4)
    typings, changes = _retyped(cur, body, live, current, cells, markers, rest)
    answered = [
        Settled(column=q.column, **_as(typings[cells[q.column]]).model_dump())
        for q in live.questions
        if q.column in named
    ]
    unnamed = [q for q in live.questions if q.column not in named]
    settled = [Settled(column=q.column, **q.current.model_dump()) for q in unnamed] if rest else []
    left_open = [] if rest else unnamed
    said = _Said(found=True, changes=changes, answered=answered, settled=settled, left_open=left_open)
    if body.dry_run:
        return DatasetApproveOut(**said, retyped=False, dry_run=True)
    wiping = [_wipes(c, body) for c in changes if c.rows_rejected * 2 > c.values]
    if wiping and not body.allow_rejects:
        raise ValidationFailed(f"{len(wiping)} problem(s) with the approval: {wiping[0].message}", wiping)
    closed = [q.id for q in unnamed] if rest else []
    snapshot_id = _commit(ctx, body, live, typings, changes, closed, left_open, markers)
    got = dataset_get(
        ctx,
        DatasetGetIn(org=body.org, namespace=body.namespace, source_uri=body.source_uri, dataset_id=live.dataset_id),
    )
    dataset = next((d for d in got.datasets if d.snapshot_id == snapshot_id), None)
    return DatasetApproveOut(**said, dataset=dataset, retyped=bool(changes))


def _retyped(
    cur, body: DatasetApproveIn, live: _Live, current: dict, cells: dict, markers, rest: bool
) -> tuple[dict[str, Typing], list[Change]]:
    """Each column's typing after the approval, and the changes: a named column typed as named
    (its question answered), another one held as it is (its question settled so when `rest`,
    else left open)."""
    relation = parquet_relation(live.extraction)
    typings, changes = {}, []
    for name, cell in cells.items():
        old = current[cell]
        if name not in body.columns and name not in body.formats:
            # Not named: held as it is; an open question on it is settled that way only when `rest`.
            held = dataclasses.replace(old, question=None, forced=old.forced or old.question is not None)
            typings[cell] = held if rest else old
            continue
        type_, fmt = body.columns.get(name, old.reading.type), body.formats.get(name, "")
        same = type_ == old.reading.type and not fmt
        new = (
            dataclasses.replace(old, question=None, forced=True)
            if same
            else retype.typing_for(cur, relation, cell, type_, fmt, markers)
        )
        if (new.reading, new.physical) != (old.reading, old.physical):
            values, examples = retype.refused_values(cur, relation, cell, new, markers)
            changes.append(
                Change(
                    column=name,
                    before=_as(old),
                    after=_as(new),
                    rows_rejected=new.rejected,
                    values=values,
                    examples=examples,
                )
            )
        typings[cell] = new
    return typings, changes


def _wipes(change: Change, body: DatasetApproveIn) -> ErrorItem:
    """A retyping that would reject most of a column: refused unless allow_rejects (SPEC §4)."""
    where = "formats" if change.column in body.formats else "columns"
    said = ", ".join(repr(v) for v in change.examples)
    return ErrorItem(
        f"{where}.{change.column}",
        f"{change.after.type} {change.after.format} would reject {change.rows_rejected:,} of the column's "
        f"{change.values:,} non-empty values (e.g. {said}); try another format (dry_run: true shows the counts), "
        "or send allow_rejects: true",
        expected="a type and format that read most of the values, or allow_rejects: true",
        received=body.formats.get(change.column) or body.columns.get(change.column),
    )


def _commit(
    ctx: Context,
    body: DatasetApproveIn,
    live: _Live,
    typings: dict,
    changes: list[Change],
    settled: list[str],
    left_open: list[QuestionOut],
    markers,
) -> str:
    """The new snapshot (its rows, rejected rows and stats) written to its own file, then one
    catalog transaction: the switch and the audit row. A failure leaves the live one serving."""
    catalog = ctx.catalog
    snapshot_id = f"s_{uuid.uuid4().hex[:16]}"
    cur = catalog.cursor()
    catalog.attach([live.snapshot_id])
    excluded = [
        Excluded(*r)
        for r in cur.execute(
            exp.select("row_id", "line", "value", "reason")
            .from_(rejected_table(live.snapshot_id))
            .where(exp.column("column_name").is_(exp.null()))
            .order_by("row_id", dialect=DIALECT)
            .sql(dialect=DIALECT)
        ).fetchall()
    ]
    catalog.new_snapshot(snapshot_id, live.rows * len(live.names))
    try:
        built = build_snapshot(
            cur,
            parquet_relation(live.extraction),
            snapshot_id,
            list(typings),
            live.names,
            typings,
            markers,
            excluded,
            ctx.settings.exact_distinct_values,
        )
        catalog.seal(snapshot_id)
        for column, header in zip(built.columns, live.headers):
            column["header"] = header
        with catalog.change() as con:
            _switch(ctx, con, body, live, snapshot_id, built, typings, changes, settled, left_open)
    except BaseException:
        catalog.discard(snapshot_id)
        raise
    catalog.settled([snapshot_id])
    with suppress(sqlite3.Error, OSError):  # upkeep only: the next sweep does it otherwise
        catalog.collect()
    return snapshot_id


def _switch(
    ctx: Context,
    cur,
    body: DatasetApproveIn,
    live: _Live,
    snapshot_id: str,
    built,
    typings: dict,
    changes: list[Change],
    settled: list[str],
    left_open: list[QuestionOut],
) -> None:
    """The catalog rows of an approval, inside the caller's transaction: the new snapshot keeps
    the questions left open, and is the caller's approval of the dataset only when none is."""
    key = (body.org, body.namespace, body.source_uri)
    serving = next((d["live_snapshot"] for d in live_datasets(cur, *key) if d["dataset_id"] == live.dataset_id), None)
    if serving != body.snapshot_id:
        raise _stale(body.snapshot_id, serving or "none")
    stamp = now()
    ident = dict(
        org=body.org,
        namespace=body.namespace,
        source_uri=body.source_uri,
        revision=live.revision,
        dataset_id=live.dataset_id,
    )
    questions = [q.model_dump(mode="json") for q in left_open]
    approved_by = None if left_open else ctx.caller
    insert_snapshot(cur, snapshot_id, ident, built, questions, retype.dump(typings), stamp, approved_by=approved_by)
    update(cur, "datasets", ident, live_snapshot=snapshot_id)
    insert(
        cur,
        "approvals",
        **ident,
        old_snapshot=live.snapshot_id,
        new_snapshot=snapshot_id,
        approved_by=ctx.caller,
        approved_at=stamp,
        retyped=bool(changes),
        changes=[c.model_dump() for c in changes],
        settled=settled,
    )
    retention.prune(cur, *key, ctx.settings.snapshots_kept)
    pause.at("approve.commit")
