"""The op registry: one typed function per op; HTTP, MCP, the CLI and the Python API are made
from this table. An op that `streams` (knowledge.query_export) answers a stream of rows rather
than a model: HTTP sends it as it is computed, the Python API reads it as Arrow batches
(Engine.stream), and MCP, whose tools answer JSON, does not list it (knowledge.query answers
there). `tabular export` (store/export: every live snapshot of every org written to a
destination on the server) is an operator's command, not an op: each op is served to a token's
holder over HTTP and MCP, and no token may name other orgs' data or the server's disk."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, Generic, NoReturn, TypeVar, overload

from pydantic import BaseModel

from ..errors import ErrorItem
from ..validation import validation_failed

Role = str  # viewer < writer < admin
T = TypeVar("T")


class _Named(Generic[T]):
    """A field of Op given as the name of what it holds in an op module (`"lifecycle.get"`,
    `"query.QueryOut"`), imported when first read: a command that runs one op loads that op's
    module, not every op's (the planner, the readers, the question vocabulary). Given the thing
    itself, it holds that."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name, self.slot = name, f"_{name}"

    @overload
    def __get__(self, op: None, owner: type | None = None) -> NoReturn: ...
    @overload
    def __get__(self, op: object, owner: type | None = None) -> T: ...
    def __get__(self, op: object, owner: type | None = None) -> T:
        if op is None:
            raise AttributeError(self.name)  # a field without a default
        held = op.__dict__[self.slot]
        if isinstance(held, str):
            module, _, name = held.rpartition(".")
            held = op.__dict__[self.slot] = getattr(import_module(f"{__name__}.{module}"), name)
        return held

    def __set__(self, op: object, value: T | str) -> None:
        op.__dict__[self.slot] = value


class _Described:
    """Op.description: the text given, else the op function's docstring (read when first asked,
    so naming an op does not import its module). Read on the class it is None, which dataclass
    takes for the field's default: none given, the docstring."""

    @overload
    def __get__(self, op: None, owner: type | None = None) -> None: ...
    @overload
    def __get__(self, op: Op, owner: type | None = None) -> str: ...
    def __get__(self, op: Op | None, owner: type | None = None) -> str | None:
        if op is None:
            return None
        if op.__dict__.get("_description") is None:
            op.__dict__["_description"] = (op.fn.__doc__ or "").strip()
        return op.__dict__["_description"]

    def __set__(self, op: Op, value: str | None) -> None:
        op.__dict__["_description"] = value


@dataclass(frozen=True)
class Op:
    # input, output and fn are given as the thing or as its name (see _Named), and have no
    # default: reading one on the class raises AttributeError, which dataclass takes for none. A
    # type checker sees a default there, so role and writes carry _op's own (a field without a
    # default may not follow one with).
    name: str
    input: _Named[type[BaseModel]] = _Named()
    output: _Named[type[BaseModel]] = _Named()
    fn: _Named[Callable[..., Any]] = _Named()
    role: Role = "viewer"
    writes: bool = False
    description: _Described = _Described()
    # Safe to send again after a lost answer (the client retries these on 5xx).
    idempotent: bool = True
    # Each call is written to the audit log: who, which op, which namespace, how it ended.
    audited: bool = False
    # Answers a stream (`fn` gives an ops/query.Whole; `output` is what comes with its rows).
    streams: bool = False
    # A body the op takes, over the README's sales.csv (fixtures/csv): /docs shows it, and a
    # test sends it through a validating MCP client.
    example: dict[str, Any] = field(default_factory=dict)

    @property
    def summary(self) -> str:
        """The description's first sentence, whole: a sentence ends at a dot before a space and a
        capital, so a dot inside a name (`knowledge.ingest`) or a number ends none."""
        return re.split(r"(?<=\.)\s+(?=[A-Z])", self.description, maxsplit=1)[0].rstrip(".")


def _op(
    name: str,
    fn: Callable[..., Any] | str,
    input_: type[BaseModel] | str,
    output: type[BaseModel] | str,
    role: Role = "viewer",
    writes: bool = False,
    idempotent: bool | None = None,
    audited: bool | None = None,
    streams: bool = False,
    example: dict[str, Any] | None = None,
) -> Op:
    """Reads are idempotent and unaudited; writes are audited and, unless said, not idempotent."""
    return Op(
        name,
        input_,
        output,
        fn,
        role,
        writes,
        idempotent=not writes if idempotent is None else idempotent,
        audited=writes if audited is None else audited,
        streams=streams,
        example=example or {},
    )


SALES = "files/sales.csv"
# One plan over sales.csv: the total per region, largest first.
_PLAN = {
    "datasets": [{"source_uri": SALES}],
    "group_by": [{"column": "region"}],
    "aggregates": [{"fn": "sum", "column": "amount", "as": "total"}],
    "order_by": [{"column": "total", "desc": True}],
    "limit": 10,
}
# What each op's example names but a home would not have: ids a call answers with.
EXAMPLE_IDS = {
    "upload_id": "u_0123456789abcdef",
    "ingestion_id": "i_0123456789abcdef",
    "link_id": "l_0123456789abcdef",
    "receipt_id": "r_0123456789abcdef0123456789abcdef",
}


REGISTRY: dict[str, Op] = {
    op.name: op
    for op in (
        _op(
            "knowledge.upload",
            "ingest.upload",
            "ingest.UploadIn",
            "ingest.UploadOut",
            "writer",
            True,
            example={"filename": "sales.csv", "content_base64": "cmVnaW9uLGFtb3VudApub3J0aCwxMjAuNTAK"},
        ),
        _op(
            "knowledge.ingest",
            "ingest.ingest",
            "ingest.IngestIn",
            "ingest.IngestOut",
            "writer",
            True,
            example={"upload_id": EXAMPLE_IDS["upload_id"], "source_uri": SALES, "title": "Sales 2024"},
        ),
        _op(
            "knowledge.ingest_status",
            "ingest.ingest_status",
            "ingest.IngestStatusIn",
            "ingest.IngestStatusOut",
            example={"ingestion_id": EXAMPLE_IDS["ingestion_id"]},
        ),
        _op("knowledge.ingest_jobs", "ingest.ingest_jobs", "ingest.OpIn", "ingest.JobsOut"),
        _op(
            "knowledge.ingest_cancel",
            "ingest.ingest_cancel",
            "ingest.IngestStatusIn",
            "ingest.IngestCancelOut",
            "writer",
            True,
            idempotent=True,
            example={"ingestion_id": EXAMPLE_IDS["ingestion_id"]},
        ),
        _op("knowledge.formats", "ingest.formats", "ingest.OpIn", "ingest.FormatsOut"),
        _op(
            "knowledge.dataset_get",
            "datasets.dataset_get",
            "datasets.DatasetGetIn",
            "datasets.DatasetGetOut",
            example={"source_uri": SALES, "sample_rows": 5},
        ),
        _op(
            "knowledge.dataset_approve",
            "approve.dataset_approve",
            "approve.DatasetApproveIn",
            "approve.DatasetApproveOut",
            "writer",
            True,
            example={
                "source_uri": SALES,
                "snapshot_id": "s_0123456789abcdef",
                "columns": {"sold_on": "date"},
                "formats": {"sold_on": "%Y-%m-%d"},
                "dry_run": True,
            },
        ),
        _op("knowledge.get", "lifecycle.get", "lifecycle.SourceIn", "lifecycle.GetOut", example={"source_uri": SALES}),
        _op(
            "knowledge.delete",
            "lifecycle.delete",
            "lifecycle.DeleteIn",
            "lifecycle.DeleteOut",
            "admin",
            True,
            idempotent=True,
            example={"source_uri": SALES, "expected_revision": 1},
        ),
        _op(
            "knowledge.restore",
            "lifecycle.restore",
            "lifecycle.SourceIn",
            "lifecycle.RestoreOut",
            "writer",
            True,
            idempotent=True,
            example={"source_uri": SALES},
        ),
        _op(
            "knowledge.list",
            "lifecycle.list_sources",
            "lifecycle.ListIn",
            "lifecycle.ListOut",
            example={"prefix": "files/", "limit": 50},
        ),
        _op("knowledge.query", "query.query", "query.QueryIn", "query.QueryOut", example=_PLAN),
        _op(
            "knowledge.query_export",
            "query.query_export",
            "query.QueryExportIn",
            "query.QueryExportOut",
            streams=True,
            example={**_PLAN, "format": "csv"},
        ),
        _op(
            "knowledge.receipt",
            "receipt.receipt",
            "receipt.ReceiptIn",
            "receipt.ReceiptOut",
            example={"receipt_id": EXAMPLE_IDS["receipt_id"]},
        ),
        _op(
            "knowledge.synthesize",
            "synthesize.synthesize",
            "synthesize.SynthesizeIn",
            "synthesize.SynthesizeOut",
            example={"task": "What is the total amount sold in the north region?", "datasets": [{"source_uri": SALES}]},
        ),
        _op(
            "knowledge.link_dir",
            "links.link_dir",
            "links.LinkDirIn",
            "links.LinkOut",
            "writer",
            True,
            idempotent=True,
            example={"path": "/srv/data/finance", "prefix": "finance/", "patterns": ["*.csv", "*.xlsx"]},
        ),
        _op(
            "knowledge.unlink_dir",
            "links.unlink_dir",
            "links.UnlinkDirIn",
            "links.UnlinkDirOut",
            "writer",
            True,
            idempotent=True,
            example={"link_id": EXAMPLE_IDS["link_id"], "delete_sources": False},
        ),
        _op(
            "knowledge.retry_dir",
            "links.retry_dir",
            "links.LinkIn",
            "links.LinkOut",
            "writer",
            True,
            idempotent=True,
            example={"link_id": EXAMPLE_IDS["link_id"]},
        ),
        _op("knowledge.list_dirs", "links.list_dirs", "ingest.OpIn", "links.ListDirsOut"),
        _op(
            "knowledge.dir_files",
            "links.dir_files",
            "links.DirFilesIn",
            "links.DirFilesOut",
            example={"link_id": EXAMPLE_IDS["link_id"], "state": "failed"},
        ),
    )
}


def refuse_stream(name: str) -> None:
    """A call that answers JSON names no op that streams its rows (Engine.stream reads those)."""
    op = REGISTRY.get(name)
    if op is not None and op.streams:
        why = f"streams its rows (Engine.stream, or POST /v1/{name}); expected an op that answers JSON"
        raise validation_failed([ErrorItem("op", why, received=name)])
