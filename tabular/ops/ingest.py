"""knowledge.upload, ingest, ingest_status, ingest_jobs, ingest_cancel and formats (the uploads and the jobs
themselves are ingest/uploads and ingest/jobs)."""

from __future__ import annotations

import base64
import io
import json
import uuid

from ..errors import ErrorItem, ValidationFailed
from ..ingest.uploads import store_upload
from ..models import (
    UNCHANGED,
    FormatOut,
    FormatsOut,
    IngestCancelOut,
    IngestIn,
    IngestOut,
    IngestStatusIn,
    IngestStatusOut,
    JobsOut,
    OpIn,
    UploadIn,
    UploadOut,
)
from ..read.formats import BY_NAME, DEFAULT, FORMATS, REFUSED
from ..store.catalog import (
    insert,
    job_by_key,
    job_status,
    now,
    open_job_ids,
    upload_row,
)
from ..validation import not_one_of
from .context import Context


def upload(ctx: Context, body: UploadIn) -> UploadOut:
    """Store a file for a later knowledge.ingest; answers its upload_id, size and sha256."""
    try:
        data = base64.b64decode(body.content_base64, validate=True)
    except ValueError:
        raise ValidationFailed(
            "content_base64 is not base64", [ErrorItem("content_base64", "not base64", expected="base64 text")]
        ) from None
    return store_upload(
        ctx.catalog, ctx.settings, body.org, body.namespace, io.BytesIO(data), body.filename, body.content_type
    )


def ingest(ctx: Context, body: IngestIn) -> IngestOut:
    """Start reading an uploaded file into typed datasets; answers at once with the job's id."""
    forced = body.options.format
    if forced is not None and forced.lower() not in BY_NAME:
        raise ValidationFailed(
            f"no format {forced!r}", [not_one_of("options.format", forced, "a format", list(BY_NAME), forced)]
        )
    row = upload_row(ctx.catalog.conn(), body.upload_id, body.org, body.namespace)
    if row is None:
        raise ValidationFailed(
            f"no upload {body.upload_id!r} in this namespace",
            [
                ErrorItem(
                    "upload_id",
                    "unknown upload",
                    expected="an upload_id from knowledge.upload",
                    received=body.upload_id,
                )
            ],
        )
    request = body.model_dump(mode="json", exclude={"idempotency_key"})
    with ctx.jobs.lock:
        if body.idempotency_key:
            found = job_by_key(ctx.catalog.conn(), body.org, body.namespace, body.idempotency_key)
            if found is not None:
                if json.loads(found[2]) != request:
                    raise ValidationFailed(
                        "this idempotency key was used for a different ingest",
                        [
                            ErrorItem(
                                "idempotency_key",
                                "already used with another request",
                                expected="a new key for a new request",
                                received=body.idempotency_key,
                            )
                        ],
                    )
                if found[1] == "pending" and found[0] not in ctx.jobs.done and ctx.jobs.take(found[0]):
                    # Left pending by a process that closed: the retried request runs it here.
                    ctx.jobs.submit(found[0], body.org)
                return IngestOut(
                    ingestion_id=found[0], state=found[1], source_uri=body.source_uri, namespace=body.namespace
                )
        ctx.jobs.check_room(body.org)
        ingestion_id = "i_" + uuid.uuid4().hex
        stamp = now()
        insert(
            ctx.catalog.conn(),
            "jobs",
            ingestion_id=ingestion_id,
            org=body.org,
            namespace=body.namespace,
            source_uri=body.source_uri,
            upload_id=body.upload_id,
            state="pending",
            stage="",
            attempts=0,
            warnings=[],
            expected_revision=body.expected_revision,
            filename=row[1],
            cancel_requested=False,
            request=request,
            created_at=stamp,
            updated_at=stamp,
            idempotency_key=body.idempotency_key or None,
            owner=ctx.catalog.owner,
        )
        ctx.jobs.submit(ingestion_id, body.org)
    return IngestOut(ingestion_id=ingestion_id, state="pending", source_uri=body.source_uri, namespace=body.namespace)


def ingest_status(ctx: Context, body: IngestStatusIn) -> IngestStatusOut:
    """The job's state, stage, progress, coverage, warnings and errors."""
    values = job_status(ctx.catalog.conn(), body.ingestion_id, body.org, body.namespace)
    if values is None:
        return IngestStatusOut(found=False, ingestion_id=body.ingestion_id)
    for key in ("coverage", "warnings", "progress"):
        values[key] = json.loads(values[key]) if values[key] else None
        if values[key] is None:
            values.pop(key)
    values["created_at"] = values["created_at"].isoformat()
    values["updated_at"] = values["updated_at"].isoformat()
    warnings = values.get("warnings") or []
    values["unchanged"] = bool(warnings) and warnings[0].startswith(f"{UNCHANGED}:")
    return IngestStatusOut(**values)


def ingest_jobs(ctx: Context, body: OpIn) -> JobsOut:
    """The namespace's ingest jobs that have not ended (pending or processing), oldest first, each
    as knowledge.ingest_status answers it: what `tabular jobs` lists, and what a caller cancels."""
    ids = open_job_ids(ctx.catalog.conn(), body.org, body.namespace)
    jobs = [ingest_status(ctx, IngestStatusIn(org=body.org, namespace=body.namespace, ingestion_id=i)) for i in ids]
    return JobsOut(jobs=[j for j in jobs if j.found])


def ingest_cancel(ctx: Context, body: IngestStatusIn) -> IngestCancelOut:
    """Cancel a job: a pending one at once, a running one before it publishes."""
    return ctx.jobs.cancel(body.ingestion_id, body.org, body.namespace)


def formats(ctx: Context, body: OpIn) -> FormatsOut:
    """The formats ingest reads and the ones it refuses by name."""
    return FormatsOut(
        formats=[
            FormatOut(name=f.name, extensions=list(f.extensions), media_types=list(f.media_types)) for f in FORMATS
        ],
        max_upload_bytes=ctx.settings.max_upload_bytes,
        refused_extensions=list(REFUSED),
        default_format=DEFAULT,
    )
