"""The op registry: one typed function per op; HTTP, MCP, the CLI and the Python API are made
from this table. An op that `streams` (knowledge.query_export) answers a stream of rows rather
than a model: HTTP sends it as it is computed, the Python API reads it as Arrow batches
(Engine.stream), and MCP, whose tools answer JSON, does not list it (knowledge.query answers
there). `tabular export` (store/export: every live snapshot of every org written to a
destination on the server) is an operator's command, not an op: each op is served to a token's
holder over HTTP and MCP, and no token may name other orgs' data or the server's disk."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pydantic import BaseModel

from ..errors import ErrorItem
from ..validation import validation_failed
from . import approve, datasets, ingest, lifecycle, links, query, synthesize

Role = str  # viewer < writer < admin


@dataclass(frozen=True)
class Op:
    name: str
    input: type[BaseModel]
    output: type[BaseModel]
    fn: Callable
    role: Role
    writes: bool
    description: str
    # Safe to send again after a lost answer (the client retries these on 5xx).
    idempotent: bool = True
    # Each call is written to the audit log: who, which op, which namespace, how it ended.
    audited: bool = False
    # Answers a stream (`fn` gives an ops/query.Whole; `output` is what comes with its rows).
    streams: bool = False


def _op(
    name: str,
    fn: Callable,
    input_: type[BaseModel],
    output: type[BaseModel],
    role: Role = "viewer",
    writes: bool = False,
    idempotent: bool | None = None,
    audited: bool | None = None,
    streams: bool = False,
) -> Op:
    """Reads are idempotent and unaudited; writes are audited and, unless said, not idempotent."""
    return Op(
        name,
        input_,
        output,
        fn,
        role,
        writes,
        (fn.__doc__ or "").strip(),
        idempotent=not writes if idempotent is None else idempotent,
        audited=writes if audited is None else audited,
        streams=streams,
    )


REGISTRY: dict[str, Op] = {
    op.name: op
    for op in (
        _op("knowledge.upload", ingest.upload, ingest.UploadIn, ingest.UploadOut, "writer", True),
        _op("knowledge.ingest", ingest.ingest, ingest.IngestIn, ingest.IngestOut, "writer", True),
        _op("knowledge.ingest_status", ingest.ingest_status, ingest.IngestStatusIn, ingest.IngestStatusOut),
        _op(
            "knowledge.ingest_cancel",
            ingest.ingest_cancel,
            ingest.IngestStatusIn,
            ingest.IngestCancelOut,
            "writer",
            True,
            idempotent=True,
        ),
        _op("knowledge.formats", ingest.formats, ingest.OpIn, ingest.FormatsOut),
        _op("knowledge.dataset_get", datasets.dataset_get, datasets.DatasetGetIn, datasets.DatasetGetOut),
        _op(
            "knowledge.dataset_approve",
            approve.dataset_approve,
            approve.DatasetApproveIn,
            approve.DatasetApproveOut,
            "writer",
            True,
        ),
        _op("knowledge.get", lifecycle.get, lifecycle.SourceIn, lifecycle.GetOut),
        _op(
            "knowledge.delete",
            lifecycle.delete,
            lifecycle.DeleteIn,
            lifecycle.DeleteOut,
            "admin",
            True,
            idempotent=True,
        ),
        _op(
            "knowledge.restore",
            lifecycle.restore,
            lifecycle.SourceIn,
            lifecycle.RestoreOut,
            "writer",
            True,
            idempotent=True,
        ),
        _op("knowledge.list", lifecycle.list_sources, lifecycle.ListIn, lifecycle.ListOut),
        _op("knowledge.query", query.query, query.QueryIn, query.QueryOut),
        _op("knowledge.query_export", query.query_export, query.QueryExportIn, query.QueryExportOut, streams=True),
        _op("knowledge.synthesize", synthesize.synthesize, synthesize.SynthesizeIn, synthesize.SynthesizeOut),
        _op("knowledge.link_dir", links.link_dir, links.LinkDirIn, links.LinkOut, "writer", True, idempotent=True),
        _op(
            "knowledge.unlink_dir",
            links.unlink_dir,
            links.UnlinkDirIn,
            links.UnlinkDirOut,
            "writer",
            True,
            idempotent=True,
        ),
        _op("knowledge.retry_dir", links.retry_dir, links.LinkIn, links.LinkOut, "writer", True, idempotent=True),
        _op("knowledge.list_dirs", links.list_dirs, ingest.OpIn, links.ListDirsOut),
        _op("knowledge.dir_files", links.dir_files, links.DirFilesIn, links.DirFilesOut),
    )
}


def refuse_stream(name: str) -> None:
    """A call that answers JSON names no op that streams its rows (Engine.stream reads those)."""
    op = REGISTRY.get(name)
    if op is not None and op.streams:
        why = f"streams its rows (Engine.stream, or POST /v1/{name}); expected an op that answers JSON"
        raise validation_failed([ErrorItem("op", why, received=name)])
