"""The namespace methods: each one op with typed answers, shared by the embedded engine
(`Engine.namespace`) and the remote client (`Client.namespace`), so the two cannot drift apart."""

from __future__ import annotations

import mimetypes
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pydantic import BaseModel

from .display import History
from .errors import NotFound
from .models import DatasetGetOut, IngestCancelOut, IngestOut, IngestStatusOut
from .progress import follow

if TYPE_CHECKING:  # named in annotations only: the planner loads when a query runs
    import pyarrow as pa

    from .ops.lifecycle import GetOut
    from .ops.query import QueryOut


def local_file(path: str | os.PathLike) -> tuple[Path, str]:
    """A local file to upload: its path and media type (by its name), or NotFound."""
    path = Path(path)
    if not path.is_file():
        raise NotFound(f"no file {str(path)!r}")
    return path, mimetypes.guess_type(path.name)[0] or "application/octet-stream"


def _upload_said(removed: bool) -> str:
    return "; its upload was removed" if removed else "; its upload expires after upload_keep_seconds"


class NamespaceOps:
    """Bound to one (org, namespace); a transport supplies `run` (typed) and `call` (dicts).
    `_run` answers the op's registered output model (ops.REGISTRY[op].output), which the
    methods below name in a cast: the registry is keyed by a plain string."""

    org: str
    name: str

    def _run(self, op: str, body: dict) -> BaseModel:
        raise NotImplementedError

    def _call(self, op: str, body: dict) -> dict:
        raise NotImplementedError

    def _body(self, **fields: Any) -> dict:
        return {"org": self.org, "namespace": self.name, **fields}

    def upload_file(self, path: str | os.PathLike) -> dict:
        """knowledge.upload of a local file: the op's answer as a dict (its upload_id among it)."""
        raise NotImplementedError

    def _pause(self, ingestion_id: str) -> Callable[[float], bool]:
        """How to wait between two looks at a job's status (progress.follow's `pause`)."""
        raise NotImplementedError

    def _discard_upload(self, upload_id: str) -> bool:
        """Remove an upload no ingest will read; False where this transport cannot (a server
        expires it after upload_keep_seconds)."""
        return False

    def ingest_file(
        self,
        path: str | os.PathLike,
        source_uri: str | None = None,
        wait: float | None = None,
        progress: bool | None = None,
        **fields: Any,
    ) -> IngestStatusOut:
        """Upload and ingest a local file, follow the job to its end (or `wait` seconds), answer its
        ingest_status. `progress`: a bar with the job's phase and counts while it runs; by default
        shown when interactive (a terminal, a notebook), never with False."""
        uploaded = self.upload_file(path)  # interrupted, it keeps nothing (uploads.UploadWriter)
        try:
            started = cast(
                IngestOut,
                self._run(
                    "knowledge.ingest",
                    self._body(upload_id=uploaded["upload_id"], source_uri=source_uri or Path(path).name, **fields),
                ),
            )
        except KeyboardInterrupt:
            removed = self._discard_upload(uploaded["upload_id"])
            raise KeyboardInterrupt(
                f"interrupted before the ingest of {Path(path).name} started{_upload_said(removed)}"
            ) from None
        except BaseException:
            self._discard_upload(uploaded["upload_id"])
            raise
        status = self._body(ingestion_id=started.ingestion_id)
        try:
            return follow(
                lambda: self._run("knowledge.ingest_status", status),
                self._pause(started.ingestion_id),
                wait,
                progress,
                Path(path).name,
            )
        except KeyboardInterrupt:
            raise KeyboardInterrupt(
                self._interrupted(started.ingestion_id, uploaded["upload_id"], Path(path).name)
            ) from None

    def jobs(self):
        """The namespace's ingest jobs that have not ended (pending or processing), oldest first,
        each as knowledge.ingest_status answers it (knowledge.ingest_jobs)."""
        return self._run("knowledge.ingest_jobs", self._body())

    def _interrupted(self, ingestion_id: str, upload_id: str, name: str) -> str:
        """Ctrl-C while following the job this call started: cancel it, and remove its upload
        once nothing will read it; answers what was done, in words."""
        cancel = cast(IngestCancelOut, self._run("knowledge.ingest_cancel", self._body(ingestion_id=ingestion_id)))
        if cancel.state in ("cancelled", "failed"):
            removed = self._discard_upload(upload_id)
            return f"interrupted: the ingest {ingestion_id} of {name} was cancelled{_upload_said(removed)}"
        if cancel.state in ("ready", "partial"):
            return f"interrupted: the ingest {ingestion_id} of {name} had already published (state {cancel.state})"
        return (
            f"interrupted: the ingest {ingestion_id} of {name} was asked to cancel and is still {cancel.state}; "
            "`tabular jobs` shows it"
        )

    def call(self, op: str, body: dict | None = None) -> dict:
        """Any op by name in this namespace: a dict in, a dict out."""
        return self._call(op, self._body(**(body or {})))

    def run(self, op: str, body: dict | None = None) -> BaseModel:
        """Any op by name in this namespace: a dict in, its typed answer out (which draws itself
        in a notebook: ns.run("knowledge.list"), ns.run("knowledge.list_dirs"))."""
        return self._run(op, self._body(**(body or {})))

    def dataset_get(self, source_uri: str, dataset_id: str = "", sample_rows: int = 0) -> DatasetGetOut:
        body = self._body(source_uri=source_uri, dataset_id=dataset_id, sample_rows=sample_rows)
        got = cast(DatasetGetOut, self._run("knowledge.dataset_get", body))
        got._asked = (source_uri, dataset_id)  # its views write them in the calls that answer its questions
        return got

    def approve(
        self,
        source_uri: str,
        snapshot_id: str,
        columns: dict | None = None,
        formats: dict | None = None,
        dataset_id: str = "",
        allow_rejects: bool = False,
        dry_run: bool = False,
        settle_rest: bool = False,
    ):
        """knowledge.dataset_approve: retype `columns` (name -> type) and `formats`, answering their questions; 409 if
        `snapshot_id` no longer serves. The other open questions stay open unless `settle_rest` (accept the rest as
        shown; an approval naming nothing does so too), each then listed in `settled`. A retyping that rejects most of
        a column is 422 unless `allow_rejects`; `dry_run` answers what would change and changes nothing."""
        body = self._body(
            source_uri=source_uri,
            dataset_id=dataset_id,
            snapshot_id=snapshot_id,
            columns=columns or {},
            formats=formats or {},
            allow_rejects=allow_rejects,
            dry_run=dry_run,
            settle_rest=settle_rest,
        )
        return self._run("knowledge.dataset_approve", body)

    def history(self, source_uri: str) -> list:
        """Every approval of the source's datasets, oldest first: who, when, columns before and after, old and new snapshot."""
        got = cast("GetOut", self._run("knowledge.get", self._body(source_uri=source_uri)))
        return History(got.history)

    def _stream(self, body: dict) -> pa.RecordBatchReader:
        raise NotImplementedError

    def query(self, plan: dict | BaseModel) -> QueryOut:
        """Run a plan (a dict or planner.models.QueryPlan) in this namespace; the answer's
        `to_polars(whole=True)` / `to_arrow(whole=True)` stream every row it matches."""
        body = self._plan(plan)
        out = cast("QueryOut", self._run("knowledge.query", body))
        # to_polars streams as a Parquet export does: durations as ISO text, of any length.
        out._stream_whole = lambda fmt="arrow": self._stream({**body, "format": fmt})
        return out

    def export(self, plan: dict | BaseModel, path: str, format: str | None = None) -> int:
        """Write every row a plan matches to `path` (.parquet, .csv, .arrow, .ndjson, or `format`),
        streamed, memory flat in the result's size; answers the rows written."""
        from . import results  # heavy: Arrow's writers and compute functions, for rows written or framed

        fmt = format or results.format_of(str(path))
        if fmt not in results.FORMATS:
            raise ValueError(
                f"say the format of {str(path)!r}: one of {', '.join(results.FORMATS)} (by its extension or format=)"
            )
        return results.write(self._stream({**self._plan(plan), "format": fmt}), str(path), fmt)

    def read(self, source_uri: str, dataset_id: str = ""):
        """A dataset's whole live snapshot as a Polars frame (every row, every column)."""
        import polars as pl

        from . import results  # heavy: Arrow's writers and compute functions, for rows written or framed

        # Streamed as a Parquet export is: durations as ISO text, of any length (as to_polars).
        whole = self._stream(
            {**self._plan({"datasets": [{"source_uri": source_uri, "dataset_id": dataset_id}]}), "format": "parquet"}
        ).read_all()
        return pl.from_arrow(results.polars_ready(whole))

    def _plan(self, plan: dict | BaseModel) -> dict:
        if isinstance(plan, BaseModel):
            plan = plan.model_dump(by_alias=True, exclude_defaults=True)
        return self._body(**plan)

    def synthesize(self, task: str, datasets: list, **fields: Any):
        """Answer a task in words over datasets (source_uris or {source_uri, dataset_id}): knowledge.synthesize."""
        return self._run("knowledge.synthesize", self._body(task=task, datasets=datasets, **fields))
