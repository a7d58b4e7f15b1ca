"""tabular/ops/ingest.py: knowledge.upload, ingest, ingest_status, ingest_cancel and formats, each
refusal with its stable code and path."""

import base64

import pytest

from tabular.errors import ValidationFailed
from tabular.models import IngestIn, IngestStatusIn, OpIn, UploadIn
from tabular.ops.ingest import formats, ingest, ingest_cancel, ingest_status, upload

NS = {"org": "acme", "namespace": "finance"}
CSV = b"a,b\n1,2\n3,4\n"


@pytest.fixture
def ctx(engine):
    return engine.context


@pytest.fixture
def uploaded(ctx):
    return upload(ctx, UploadIn(**NS, filename="ab.csv", content_base64=base64.b64encode(CSV).decode()))


def refused(fn) -> list:
    with pytest.raises(ValidationFailed) as err:
        fn()
    assert err.value.code == "VALIDATION_FAILED" and err.value.status == 422
    return [(e.path, e.message, e.did_you_mean) for e in err.value.errors]


def test_an_upload_answers_its_size_and_sha256(uploaded):
    import hashlib

    assert uploaded.upload_id.startswith("u_") and uploaded.filename == "ab.csv"
    assert (uploaded.bytes, uploaded.sha256) == (len(CSV), hashlib.sha256(CSV).hexdigest())


def test_content_that_is_not_base64_is_refused_at_its_field(ctx):
    got = refused(lambda: upload(ctx, UploadIn(**NS, filename="x.csv", content_base64="!!not base64")))
    assert got == [("content_base64", "not base64", None)]


def test_an_unknown_format_is_refused_with_the_closest(ctx, uploaded):
    body = IngestIn(**NS, upload_id=uploaded.upload_id, source_uri="ab.csv", options={"format": "tsvv"})
    [(path, message, close)] = refused(lambda: ingest(ctx, body))
    assert (path, close) == ("options.format", ["tsv"])
    assert message.startswith("'tsvv' is not a format; expected one of: ") and "xlsx" in message


def test_an_upload_of_another_namespace_is_unknown(ctx, uploaded):
    body = IngestIn(org="acme", namespace="sales", upload_id=uploaded.upload_id, source_uri="ab.csv")
    assert refused(lambda: ingest(ctx, body))[0][:2] == ("upload_id", "unknown upload")


def test_an_ingest_runs_to_ready_and_its_status_says_so(ns, ctx, uploaded):
    started = ingest(ctx, IngestIn(**NS, upload_id=uploaded.upload_id, source_uri="ab.csv"))
    assert started.state == "pending" and started.ingestion_id.startswith("i_")
    ctx.jobs.done[started.ingestion_id].wait(60)
    status = ingest_status(ctx, IngestStatusIn(**NS, ingestion_id=started.ingestion_id))
    assert (status.found, status.state, status.source_uri, status.revision) == (True, "ready", "ab.csv", 1)
    assert status.coverage.extracted == 2
    other = ingest_status(ctx, IngestStatusIn(org="acme", namespace="sales", ingestion_id=started.ingestion_id))
    assert other.found is False


def test_an_idempotency_key_answers_the_same_job_and_refuses_another_request(ctx, uploaded):
    body = {**NS, "upload_id": uploaded.upload_id, "source_uri": "ab.csv", "idempotency_key": "k1"}
    first = ingest(ctx, IngestIn(**body))
    again = ingest(ctx, IngestIn(**body))
    assert again.ingestion_id == first.ingestion_id
    got = refused(lambda: ingest(ctx, IngestIn(**{**body, "source_uri": "other.csv"})))
    assert got[0][0] == "idempotency_key"
    ctx.jobs.done[first.ingestion_id].wait(60)


def test_an_unknown_job_is_not_found_for_its_status_or_its_cancel(ctx):
    assert ingest_status(ctx, IngestStatusIn(**NS, ingestion_id="i_nope")).found is False
    cancelled = ingest_cancel(ctx, IngestStatusIn(**NS, ingestion_id="i_nope"))
    assert (cancelled.found, cancelled.cancelled) == (False, False)


def test_formats_lists_what_ingest_reads_and_refuses(ctx):
    out = formats(ctx, OpIn())
    names = [f.name for f in out.formats]
    assert {"csv", "tsv", "xlsx", "parquet"} <= set(names) and out.default_format == "csv"
    assert ".csv" in next(f for f in out.formats if f.name == "csv").extensions
    assert ".doc" in out.refused_extensions
    assert out.max_upload_bytes == ctx.settings.max_upload_bytes
