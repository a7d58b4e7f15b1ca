"""knowledge.link_dir, unlink_dir, retry_dir, list_dirs and dir_files: linked folders (issue 20).

The folder work is `tabular/links.py`; these are the ops over it, each answering the link (or its
files) as the catalog holds it after the work. A link belongs to one org and namespace: another
namespace's link_id is answered as not found, never shown.
"""

from __future__ import annotations

import json
from typing import BinaryIO, Literal

from pydantic import Field

from ..display import (
    dir_files_html,
    dir_files_repr,
    link_html,
    link_repr,
    links_html,
    links_repr,
    unlink_html,
    unlink_repr,
)
from ..errors import NotFound
from ..ingest.links import STATES, Linker
from ..ingest.uploads import discard_upload, store_upload
from ..models import Model, OpIn, OpOut
from ..store.catalog import live_datasets
from ..store.links import link_files, link_row, links_of
from .context import Context
from .ingest import IngestIn, ingest


class LinkDirIn(OpIn):
    path: str = Field(
        min_length=1,
        max_length=4096,
        description="The folder, as the server sees it; it must lie inside an allowed root (link_roots).",
    )
    label: str = Field(default="", max_length=200, description="A name for the link (default: the folder's name).")
    prefix: str | None = Field(
        default=None,
        max_length=1024,
        description="What each file's source_uri starts with (default '<label>/'); then its path in the folder.",
    )
    patterns: list[str] | None = Field(
        default=None, max_length=100, description="Globs of file names to read (default: every readable format)."
    )
    recursive: bool = Field(default=True, description="Read the folders inside it too.")


class LinkIn(OpIn):
    link_id: str = Field(min_length=1, max_length=100)


class UnlinkDirIn(LinkIn):
    delete_sources: bool = Field(default=False, description="Also delete the sources its files made (restorable).")


class DirFilesIn(LinkIn):
    state: Literal["learned", "pending", "no_table", "failed", "skipped"] | None = Field(
        default=None, description="Only files in this state."
    )


class Paused(Model):
    reason: Literal["too_many_files", "folder_too_large"]
    count: int
    limit: int


class LinkOut(OpOut):
    link_id: str
    path: str
    label: str
    prefix: str
    watching: bool = Field(
        description="Followed now: the folder is there, learning is not paused, and a process of the home follows "
        "its changes (the one that linked it, while open, or `tabular serve`)."
    )
    missing: bool = Field(
        default=False, description="The folder was not there at the last look; retry_dir looks again."
    )
    last_scanned_at: str | None
    files: int = Field(description="Files of the folder the link reads.")
    states: dict[str, int] = Field(description="How many files are in each state.")
    learning_paused: Paused | None = Field(
        default=None, description="Over a limit: nothing more is learned until the folder fits again."
    )

    def _repr_html_(self) -> str:
        return link_html(self)

    def __repr__(self) -> str:
        return link_repr(self)


class UnlinkDirOut(OpOut):
    found: bool
    sources_deleted: int = 0

    def _repr_html_(self) -> str:
        return unlink_html(self)

    def __repr__(self) -> str:
        return unlink_repr(self)


class ListDirsOut(OpOut):
    links: list[LinkOut]

    def _repr_html_(self) -> str:
        return links_html(self)

    def __repr__(self) -> str:
        return links_repr(self)


class DirFile(Model):
    path: str = Field(description="The file's path inside the folder.")
    source_uri: str
    size: int | None
    state: Literal["learned", "pending", "no_table", "failed", "skipped"] = Field(
        description="skipped: never read (no regular file, e.g. a FIFO, or a hard link on the home's filesystem); error_message says why."
    )
    error_code: str | None = None
    error_message: str | None = None
    revision: int | None = Field(default=None, description="The revision its latest content became.")
    last_ingested_at: str | None = None
    open_questions: int = Field(
        default=0,
        description="Questions its live datasets ask (knowledge.dataset_get shows them; dataset_approve answers them).",
    )


class DirFilesOut(OpOut):
    link_id: str
    files: list[DirFile]

    def _repr_html_(self) -> str:
        return dir_files_html(self)

    def __repr__(self) -> str:
        return dir_files_repr(self)


def linker(ctx: Context) -> Linker:
    """The home's Linker, reading files through the same upload and ingest as every other file."""

    def ingest_stream(
        org: str, namespace: str, stream: BinaryIO, filename: str, source_uri: str, metadata: dict
    ) -> tuple[str, str]:
        ctx.jobs.check_room(org)  # a full queue refuses before a byte is stored
        uploaded = store_upload(
            ctx.catalog, ctx.settings, org, namespace, stream, filename, "application/octet-stream", local=True
        )
        try:
            started = ingest(
                ctx,
                IngestIn(
                    org=org, namespace=namespace, upload_id=uploaded.upload_id, source_uri=source_uri, metadata=metadata
                ),
            )
        except BaseException:
            discard_upload(ctx.catalog, uploaded.upload_id)  # refused after all (the queue filled meanwhile)
            raise
        return started.ingestion_id, uploaded.sha256

    def delete_source(org: str, namespace: str, source_uri: str) -> bool:
        from .lifecycle import DeleteIn, delete  # heavy: lifecycle's ops, for a folder's file that went away

        return delete(ctx, DeleteIn(org=org, namespace=namespace, source_uri=source_uri)).deleted

    return Linker(ctx, ingest_stream, delete_source)


def _owned(ctx: Context, body: LinkIn):
    row = link_row(ctx.catalog.conn(), body.link_id)
    if row is None or (row["org"], row["namespace"]) != (body.org, body.namespace):
        raise NotFound(f"no linked folder {body.link_id!r} in this namespace; knowledge.list_dirs shows them")
    return row


def _link_out(ctx: Context, row) -> LinkOut:
    files = link_files(ctx.catalog.conn(), row["link_id"])
    states = dict.fromkeys(STATES, 0)
    for f in files:
        states[f["state"]] += 1
    paused = json.loads(row["paused"]) if row["paused"] else None
    scanned = row["last_scanned_at"]
    return LinkOut(
        link_id=row["link_id"],
        path=row["path"],
        label=row["label"],
        prefix=row["prefix"],
        missing=bool(row["missing"]),
        watching=not row["missing"] and paused is None and ctx.links.followed(),
        last_scanned_at=scanned.isoformat() if scanned else None,
        files=len(files),
        states=states,
        learning_paused=Paused(**paused) if paused else None,
    )


def link_dir(ctx: Context, body: LinkDirIn) -> LinkOut:
    """Link a folder: its readable files become sources and follow its changes (new, changed, removed, renamed)."""
    link_id = ctx.links.link(
        body.org, body.namespace, body.path, body.label, body.prefix, body.patterns, body.recursive
    )
    return _link_out(ctx, link_row(ctx.catalog.conn(), link_id))


def unlink_dir(ctx: Context, body: UnlinkDirIn) -> UnlinkDirOut:
    """Stop following a linked folder; the folder is untouched, and its sources stay unless delete_sources."""
    _owned(ctx, body)
    return UnlinkDirOut(found=True, sources_deleted=ctx.links.unlink(body.link_id, body.delete_sources))


def retry_dir(ctx: Context, body: LinkIn) -> LinkOut:
    """Look again at a linked folder (one that was missing resumes) and bring its sources up to it."""
    _owned(ctx, body)
    ctx.links.retry(body.link_id)
    return _link_out(ctx, link_row(ctx.catalog.conn(), body.link_id))


def list_dirs(ctx: Context, body: OpIn) -> ListDirsOut:
    """The linked folders of the namespace, with how many of their files are in each state."""
    rows = links_of(ctx.catalog.conn(), body.org, body.namespace)
    for row in rows:
        ctx.links.refresh(row["link_id"])
    return ListDirsOut(links=[_link_out(ctx, r) for r in links_of(ctx.catalog.conn(), body.org, body.namespace)])


def dir_files(ctx: Context, body: DirFilesIn) -> DirFilesOut:
    """A linked folder's files, each with its state (learned, pending, no_table, failed, skipped), why it failed or was skipped, and its revision."""
    _owned(ctx, body)
    ctx.links.refresh(body.link_id)
    con = ctx.catalog.conn()
    files = link_files(con, body.link_id, body.state)

    def asked(source_uri: str) -> int:
        return sum(
            len(json.loads(d["questions"] or "[]")) for d in live_datasets(con, body.org, body.namespace, source_uri)
        )

    return DirFilesOut(
        link_id=body.link_id,
        files=[
            DirFile(
                path=f["rel_path"],
                source_uri=f["source_uri"],
                size=f["size"] if f["size"] is not None and f["size"] >= 0 else None,
                state=f["state"],
                error_code=f["error_code"],
                error_message=f["error_message"],
                revision=f["revision"],
                last_ingested_at=f["last_ingested_at"].isoformat() if f["last_ingested_at"] else None,
                open_questions=asked(f["source_uri"]) if f["state"] == "learned" else 0,
            )
            for f in files
        ],
    )
