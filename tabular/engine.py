"""The Python API of SPEC §6: connect, call any op by name, bind a namespace."""

from __future__ import annotations

import mimetypes
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from .catalog import Catalog
from .errors import ErrorItem, NotFound, TabularError, ValidationFailed
from .models import DatasetGetOut, IngestStatusOut
from .ops import REGISTRY
from .ops.context import Context
from .ops.ingest import JobPool, store_upload
from .ops.query import QueryOut
from .settings import Settings


def connect(home: str | None = None, **settings: Any) -> "Engine":
    """An engine over the DuckDB file under `home` (TABULAR_HOME, else ./.tabular); ':memory:' for a throwaway."""
    config = Settings.from_env(**settings)
    return Engine(home or os.environ.get("TABULAR_HOME") or config.home, config)


def _path(loc: tuple) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def validation_error(err: ValidationError) -> ValidationFailed:
    items = [
        ErrorItem(_path(e["loc"]), e["msg"], expected=e.get("type"), received=e.get("input") if not isinstance(e.get("input"), dict) else None)
        for e in err.errors()
    ]
    return ValidationFailed(f"{len(items)} problem(s) with the input", items)


class Engine:
    def __init__(self, home: str, settings: Settings):
        self.settings = settings
        self.catalog = Catalog(home, settings.duckdb_memory)
        self.jobs = JobPool(self.catalog, settings)
        self.context = Context(self.catalog, settings, self.jobs)

    def call(self, op: str, body: dict | BaseModel | None = None) -> dict:
        """Run an op by name: a dict in (the HTTP body), a dict out (the HTTP answer)."""
        return self.run(op, body).model_dump(mode="json", by_alias=True)

    def run(self, op: str, body: dict | BaseModel | None = None, caller: str | None = None) -> BaseModel:
        """Run an op by name and answer its typed output model; `caller` is who asks (audits, approvals)."""
        spec = REGISTRY.get(op)
        if spec is None:
            from .errors import close_names

            raise NotFound(f"no op {op!r}", [ErrorItem("op", "unknown op", received=op, did_you_mean=close_names(op, list(REGISTRY)))])
        if isinstance(body, BaseModel):
            body = body.model_dump()
        try:
            model = spec.input.model_validate(body or {})
        except ValidationError as err:
            raise validation_error(err) from None
        ignored = sorted((model.model_extra or {}).keys())
        model = model.model_copy(update={
            "org": model.org or self.settings.default_org,
            "namespace": model.namespace or self.settings.default_namespace,
        })
        out = spec.fn(self.context if caller is None else replace(self.context, caller=caller), model)
        if ignored and hasattr(out, "ignored_args"):
            out.ignored_args = ignored
        return out

    def namespace(self, org: str, namespace: str) -> "Namespace":
        return Namespace(self, org, namespace)

    def close(self) -> None:
        self.jobs.close()
        self.catalog.db.close()

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Namespace:
    """An engine bound to one (org, namespace): the ops with typed answers."""

    def __init__(self, engine: Engine, org: str, namespace: str):
        self.engine, self.org, self.name = engine, org, namespace

    def _body(self, **fields: Any) -> dict:
        return {"org": self.org, "namespace": self.name, **fields}

    def upload_file(self, path: str | os.PathLike) -> dict:
        path = Path(path)
        if not path.is_file():
            raise NotFound(f"no file {str(path)!r}")
        content_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        with path.open("rb") as stream:
            return store_upload(self.engine.context, self.org, self.name, stream, path.name, content_type).model_dump()

    def ingest_file(self, path: str | os.PathLike, source_uri: str | None = None, wait: float | None = None, **fields: Any) -> IngestStatusOut:
        """Upload and ingest a local file, wait for the job, answer its ingest_status."""
        uploaded = self.upload_file(path)
        started = self.engine.run("knowledge.ingest", self._body(upload_id=uploaded["upload_id"], source_uri=source_uri or Path(path).name, **fields))
        self.engine.jobs.wait(started.ingestion_id, wait)
        return self.engine.run("knowledge.ingest_status", self._body(ingestion_id=started.ingestion_id))

    def dataset_get(self, source_uri: str, dataset_id: str = "", sample_rows: int = 0) -> DatasetGetOut:
        return self.engine.run("knowledge.dataset_get", self._body(source_uri=source_uri, dataset_id=dataset_id, sample_rows=sample_rows))

    def approve(self, source_uri: str, snapshot_id: str, columns: dict | None = None, formats: dict | None = None, dataset_id: str = ""):
        """knowledge.dataset_approve: retype `columns` (name -> type) and `formats`, settle the rest; 409 if `snapshot_id` no longer serves."""
        body = self._body(source_uri=source_uri, dataset_id=dataset_id, snapshot_id=snapshot_id, columns=columns or {}, formats=formats or {})
        return self.engine.run("knowledge.dataset_approve", body)

    def history(self, source_uri: str) -> list:
        """Every approval of the source's datasets, oldest first: who, when, columns before and after, old and new snapshot."""
        return self.engine.run("knowledge.get", self._body(source_uri=source_uri)).history

    def call(self, op: str, body: dict | None = None) -> dict:
        return self.engine.call(op, self._body(**(body or {})))

    def query(self, plan: "dict | BaseModel") -> "QueryOut":
        """Run a plan (a dict or planner.models.QueryPlan) in this namespace."""
        if isinstance(plan, BaseModel):
            plan = plan.model_dump(by_alias=True, exclude_defaults=True)
        return self.engine.run("knowledge.query", self._body(**plan))

    def synthesize(self, task: str, datasets: list, **fields: Any):
        """Answer a task in words over datasets (source_uris or {source_uri, dataset_id}): knowledge.synthesize."""
        return self.engine.run("knowledge.synthesize", self._body(task=task, datasets=datasets, **fields))
