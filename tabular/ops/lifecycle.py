"""knowledge.get, delete, restore and list: a source's lifecycle (SPEC §4).

`delete` makes nothing live and remembers which revision it took down; `restore` makes that
revision live again, with the snapshots it served (retention never drops them meanwhile).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from typing import Any

from pydantic import BaseModel, Field

from ..display import (
    delete_html,
    delete_repr,
    get_html,
    get_repr,
    restore_html,
    restore_repr,
    sources_html,
    sources_repr,
)
from ..errors import ErrorItem, PreconditionFailed, ValidationFailed
from ..models import Coverage, OpIn, OpOut, SourceAnswer
from ..store.catalog import (
    Con,
    approvals,
    dumps,
    insert,
    now,
    restorable_revision,
    revision_datasets,
    revision_row,
    source_page,
    source_row,
    update,
)
from .addresses import MARK, resolve
from .change import Change
from .context import Context, close_sources


class SourceIn(OpIn):
    source_uri: str = Field(min_length=1)


class HistoryEntry(BaseModel):
    """One approval: who, when, which columns changed, the snapshot it replaced and the one it made."""

    dataset_id: str
    revision: int
    approved_by: str | None
    approved_at: str
    old_snapshot_id: str
    new_snapshot_id: str
    retyped: bool
    changes: list[Change]
    settled: list[str] = Field(description="Ids of the questions this approval settled as they were held.")


class GetOut(SourceAnswer):
    found: bool
    source_uri: str = ""
    doc_id: str = Field(default="", description="A stable id of the source in its namespace.")
    title: str = ""
    description: str = ""
    tags: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    revision: int | None = Field(default=None, description="The live revision; null when the source is deleted.")
    deleted: bool = False
    deleted_revision: int | None = Field(
        default=None, description="When deleted: the revision knowledge.restore brings back."
    )
    last_revision: int | None = None
    ingested_at: str | None = Field(
        default=None, description="When the live (or, if deleted, the restorable) revision was published."
    )
    format: str | None = None
    parser: str | None = None
    coverage: Coverage | None = None
    datasets: list[str] = Field(
        default_factory=list, description="The dataset ids of that revision, in the file's table order."
    )
    history: list[HistoryEntry] = Field(
        default_factory=list, description="Every approval of the source's datasets, oldest first."
    )

    def _repr_html_(self) -> str:
        return get_html(self)

    def __repr__(self) -> str:
        return get_repr(self)


class DeleteIn(SourceIn):
    expected_revision: int | None = Field(
        default=None, ge=0, description="Delete only if this revision is live (409 otherwise)."
    )


class DeleteOut(SourceAnswer):
    found: bool
    deleted: bool = False
    revision: int | None = Field(default=None, description="The revision that was taken down.")

    def _repr_html_(self) -> str:
        return delete_html(self)

    def __repr__(self) -> str:
        return delete_repr(self)


class RestoreOut(SourceAnswer):
    found: bool
    restored: bool = False
    reason: str = ""
    revision: int | None = None

    def _repr_html_(self) -> str:
        return restore_html(self)

    def __repr__(self) -> str:
        return restore_repr(self)


class ListIn(OpIn):
    cursor: str = Field(default="", description="next_cursor of the previous page; '' for the first.")
    limit: int = Field(
        default=100, ge=1, description="Sources per page (at most the list_limit_max setting, 1,000 by default)."
    )
    prefix: str = Field(default="", description="Only sources whose source_uri starts with this.")


class SourceRow(BaseModel):
    source_uri: str
    title: str
    tags: list[str]
    revision: int | None
    deleted: bool
    ingested_at: str | None


class ListOut(OpOut):
    rows: list[SourceRow]
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page; null on the last.")

    def _repr_html_(self) -> str:
        return sources_html(self)

    def __repr__(self) -> str:
        return sources_repr(self)


def doc_id(org: str, namespace: str, source_uri: str) -> str:
    return "d_" + hashlib.sha256("\0".join((org, namespace, source_uri)).encode()).hexdigest()[:16]


def history(cur: Con, key: tuple[str, str, str]) -> list[HistoryEntry]:
    rows = approvals(cur, *key)
    return [
        HistoryEntry(
            dataset_id=r[0],
            revision=r[1],
            approved_by=r[2],
            approved_at=r[3].isoformat(),
            old_snapshot_id=r[4],
            new_snapshot_id=r[5],
            retyped=r[6],
            changes=json.loads(r[7]),
            settled=json.loads(r[8]),
        )
        for r in rows
    ]


def get(ctx: Context, body: SourceIn) -> GetOut:
    """A source: its title, tags and metadata, the live revision (format, parser, coverage, datasets), and the history of approvals. An address (`source#dataset`) answers its source."""
    cur = ctx.catalog.conn()
    if MARK in body.source_uri:
        address = resolve(ctx, body.org, body.namespace, body.source_uri)
        if address.addressed and address.found:
            body = body.model_copy(update={"source_uri": address.source_uri})
    key = (body.org, body.namespace, body.source_uri)
    row = source_row(cur, *key)
    if row is None:
        return GetOut(found=False, source_uri=body.source_uri, did_you_mean=close_sources(ctx, *key))
    live, last, title, description, tags, metadata = row
    restorable = None if live is not None else restorable_revision(cur, *key)
    shown = live if live is not None else restorable
    out = GetOut(
        found=True,
        source_uri=body.source_uri,
        doc_id=doc_id(*key),
        title=title or "",
        description=description or "",
        tags=json.loads(tags or "[]"),
        metadata=json.loads(metadata or "{}"),
        revision=live,
        deleted=live is None,
        deleted_revision=restorable,
        last_revision=last,
        history=history(cur, key),
    )
    if shown is not None:
        shown_revision = revision_row(cur, *key, shown)
        out.ingested_at, out.format, out.parser = (
            shown_revision["ingested_at"].isoformat(),
            shown_revision["format"],
            shown_revision["parser"],
        )
        out.coverage = Coverage(**json.loads(shown_revision["coverage"]))
        out.datasets = [d["dataset_id"] for d in revision_datasets(cur, *key, shown)]
    return out


def delete(ctx: Context, body: DeleteIn) -> DeleteOut:
    """Take a source down: nothing of it is live (dataset_get answers found: false, plans naming it are refused) until knowledge.restore."""
    key = (body.org, body.namespace, body.source_uri)
    with ctx.catalog.change() as cur:
        row = source_row(cur, *key)
        if row is None:
            return DeleteOut(found=False, did_you_mean=close_sources(ctx, *key))
        live = row[0]
        if body.expected_revision is not None and body.expected_revision != (live or 0):
            raise PreconditionFailed(
                f"expected revision {body.expected_revision} to be live, but {live or 'none'} is",
                [
                    ErrorItem(
                        "expected_revision", "stale revision", expected=str(live or 0), received=body.expected_revision
                    )
                ],
            )
        if live is None:
            return DeleteOut(found=True)
        where = dict(org=body.org, namespace=body.namespace, source_uri=body.source_uri)
        stamp = now()
        update(cur, "sources", where, live_revision=None, updated_at=stamp)
        insert(cur, "deletions", **where, revision=live, deleted_at=stamp, deleted_by=ctx.caller)
    return DeleteOut(found=True, deleted=True, revision=live)


def restore(ctx: Context, body: SourceIn) -> RestoreOut:
    """Make a deleted source's revision live again, with its snapshots and approvals."""
    key = (body.org, body.namespace, body.source_uri)
    with ctx.catalog.change() as cur:
        row = source_row(cur, *key)
        if row is None:
            return RestoreOut(found=False, reason="no such source", did_you_mean=close_sources(ctx, *key, live=False))
        if row[0] is not None:
            return RestoreOut(found=True, reason=f"revision {row[0]} is live: nothing to restore", revision=row[0])
        number = restorable_revision(cur, *key)
        if number is None:
            return RestoreOut(found=True, reason="nothing was deleted")
        where = dict(org=body.org, namespace=body.namespace, source_uri=body.source_uri)
        stamp = now()
        update(cur, "sources", where, live_revision=number, updated_at=stamp)
        update(cur, "deletions", {**where, "restored_at": None}, restored_at=stamp)
    return RestoreOut(found=True, restored=True, reason=f"revision {number} is live again", revision=number)


def _cursor(text: str) -> str:
    """The source_uri a page starts after, from an opaque cursor."""
    try:
        after = json.loads(base64.urlsafe_b64decode(text.encode()))["after"]
        if not isinstance(after, str):  # a forged {"after": 5} would reach the SQL as a number
            raise TypeError
        return after
    except (binascii.Error, ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise ValidationFailed(
            "cursor is not a next_cursor this op gave",
            [ErrorItem("cursor", "unreadable cursor", expected="a next_cursor", received=text)],
        ) from None


def list_sources(ctx: Context, body: ListIn) -> ListOut:
    """Page through the sources of a namespace, in source_uri order; deleted ones are listed with `deleted: true`."""
    ceiling = ctx.settings.list_limit_max
    if body.limit > ceiling and "limit" in body.model_fields_set:
        raise ValidationFailed(
            f"limit is over {ceiling}",
            [ErrorItem("limit", f"at most {ceiling}", expected=f"1..{ceiling}", received=body.limit)],
        )
    limit = min(body.limit, ceiling)
    after = _cursor(body.cursor) if body.cursor else ""
    rows = source_page(ctx.catalog.conn(), body.org, body.namespace, after, body.prefix, limit + 1)
    page = [
        SourceRow(
            source_uri=r[0],
            title=r[1] or "",
            tags=json.loads(r[2] or "[]"),
            revision=r[3],
            deleted=r[3] is None,
            ingested_at=r[4].isoformat() if r[4] else None,
        )
        for r in rows[:limit]
    ]
    more = len(rows) > limit
    next_cursor = base64.urlsafe_b64encode(dumps({"after": page[-1].source_uri}).encode()).decode() if more else None
    return ListOut(rows=page, next_cursor=next_cursor)
