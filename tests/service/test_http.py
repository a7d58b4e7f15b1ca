"""Every op over HTTP on a real server: answers, the SPEC §2 envelope per code, request ids,
ignored_args, streamed uploads (a 300 MiB one refused with flat memory), jobs, OpenAPI."""

from __future__ import annotations

import base64
import gzip

import pytest

from tabular.ops import REGISTRY

from .support import CSV, Server, envelope, ingest, start_ingest, status, upload, wait_for

PLAN = {"datasets": [{"source_uri": "files/currency.csv"}], "select": [{"column": "item"}], "limit": 2}


@pytest.fixture(scope="module")
def currency(http):
    got = ingest(http, CSV / "currency.csv", "files/currency.csv")
    assert got["state"] == "ready", got
    return got


def test_the_ingest_of_a_file_is_followed_to_ready(http, currency):
    assert currency["attempts"] == 1 and currency["stage"] == "" and currency["revision"] == 1
    assert currency["coverage"]["unit"] == "rows" and currency["coverage"]["extracted"] == 6
    assert currency["filename"] == "currency.csv" and currency["created_at"] <= currency["updated_at"]


def test_the_ingest_answers_at_once_with_a_pending_job(http):
    up = upload(http, CSV / "booleans.csv")
    r = http.post("/v1/knowledge.ingest", json={"upload_id": up["upload_id"], "source_uri": "files/booleans.csv"})
    assert r.status_code == 200
    assert r.json()["state"] == "pending" and r.json()["ingestion_id"].startswith("i_")
    assert wait_for(http, r.json()["ingestion_id"])["state"] == "ready"


def test_every_read_op_answers_over_http(http, currency):
    formats = http.post("/v1/knowledge.formats", json={}).json()
    assert {f["name"] for f in formats["formats"]} >= {"csv", "xlsx", "json", "parquet"}
    got = http.post("/v1/knowledge.dataset_get", json={"source_uri": "files/currency.csv", "sample_rows": 2}).json()
    assert got["found"] and [c["name"] for c in got["datasets"][0]["columns"]][:2] == ["item", "price_usd"]
    assert got["datasets"][0]["sample"][0]["item"] == "Desk lamp"
    answer = http.post("/v1/knowledge.query", json=PLAN).json()
    assert answer["rows"] == [["Desk lamp"], ["Office chair"]] and answer["receipt"]["sql"].startswith("SELECT")
    assert http.post("/v1/knowledge.get", json={"source_uri": "files/currency.csv"}).json()["found"] is True
    listed = http.post("/v1/knowledge.list", json={}).json()
    assert "files/currency.csv" in str(listed["rows"])


def test_delete_restore_and_synthesize_over_http(http):
    assert ingest(http, CSV / "booleans.csv", "files/flags.csv")["state"] == "ready"
    assert http.post("/v1/knowledge.delete", json={"source_uri": "files/flags.csv"}).json()["deleted"] is True
    assert http.post("/v1/knowledge.dataset_get", json={"source_uri": "files/flags.csv"}).json()["found"] is False
    assert http.post("/v1/knowledge.restore", json={"source_uri": "files/flags.csv"}).json()["restored"] is True
    assert http.post("/v1/knowledge.dataset_get", json={"source_uri": "files/flags.csv"}).json()["found"] is True
    r = http.post("/v1/knowledge.synthesize", json={"task": "how many rows are there", "datasets": ["files/flags.csv"]})
    assert r.status_code == 200, r.text
    assert "answer" in r.json() and "abstain" in r.json()


def test_an_approval_over_http(http, currency):
    got = http.post("/v1/knowledge.dataset_get", json={"source_uri": "files/currency.csv"}).json()["datasets"][0]
    r = http.post(
        "/v1/knowledge.dataset_approve",
        json={
            "source_uri": "files/currency.csv",
            "dataset_id": got["dataset_id"],
            "snapshot_id": got["snapshot_id"],
            "columns": {},
        },
    )
    assert r.status_code == 200, r.text
    assert r.json()["found"] is True and r.json()["dataset"]["approved"] is True


def test_an_approval_that_would_wipe_a_column_is_422_and_a_dry_run_changes_nothing_over_http(http, currency):
    got = http.post("/v1/knowledge.dataset_get", json={"source_uri": "files/currency.csv"}).json()["datasets"][0]
    body = {"source_uri": "files/currency.csv", "snapshot_id": got["snapshot_id"], "columns": {"price_usd": "date"}}
    r = http.post("/v1/knowledge.dataset_approve", json=body)
    (problem,) = envelope(r, 422, "VALIDATION_FAILED")["errors"]
    assert problem["path"] == "columns.price_usd" and "would reject 6 of the column's 6" in problem["message"]
    dry = http.post("/v1/knowledge.dataset_approve", json={**body, "dry_run": True}).json()
    assert dry["dry_run"] and [(c["column"], c["rows_rejected"], c["values"]) for c in dry["changes"]] == [
        ("price_usd", 6, 6)
    ]
    again = http.post("/v1/knowledge.dataset_get", json={"source_uri": "files/currency.csv"}).json()["datasets"][0]
    assert again["snapshot_id"] == got["snapshot_id"]


def test_every_op_of_the_registry_is_routed_and_never_answers_500_to_an_empty_body(http):
    for name in REGISTRY:
        r = http.post(f"/v1/{name}", json={})
        assert r.status_code in (200, 422), (name, r.text)
        if r.status_code == 422:
            detail = envelope(r, 422, "VALIDATION_FAILED")
            assert detail["errors"] and all("path" in e and e["message"] for e in detail["errors"])


def test_unknown_fields_are_named_in_ignored_args(http, currency):
    r = http.post("/v1/knowledge.query", json={**PLAN, "session_id": "s1", "user_id": "u1"})
    assert r.status_code == 200 and r.json()["ignored_args"] == ["session_id", "user_id"]
    # a plan is closed (SPEC §2): a key that is no clause is 422 at its path, with the clauses expected
    r = http.post("/v1/knowledge.query", json={**PLAN, "colour": "red"})
    (error,) = r.json()["detail"]["errors"]
    assert r.status_code == 422 and error["path"] == "colour" and "aggregates" in error["expected"]
    r = http.post("/v1/knowledge.dataset_get", json={"source_uri": "files/currency.csv", "extra": 1})
    assert r.json()["ignored_args"] == ["extra"]


def test_a_request_id_is_echoed_or_made(http):
    r = http.post("/v1/knowledge.formats", json={}, headers={"X-Request-Id": "trace-42"})
    assert r.headers["x-request-id"] == "trace-42"
    made = http.post("/v1/knowledge.formats", json={}).headers["x-request-id"]
    assert made.startswith("req_") and made != http.post("/v1/knowledge.formats", json={}).headers["x-request-id"]
    r = http.post("/v1/knowledge.query", json={"datasets": []}, headers={"X-Request-Id": "trace-43"})
    assert r.json()["detail"]["request_id"] == "trace-43"


# The envelope, code by code (tokens: test_auth.py; OVERLOADED and jobs: test_jobs.py).


def test_validation_failed_names_the_path_and_close_names(http, currency):
    r = http.post("/v1/knowledge.query", json={**PLAN, "select": [{"column": "itme"}]})
    detail = envelope(r, 422, "VALIDATION_FAILED")
    assert detail["errors"][0]["path"] == "select[0].column" and "item" in detail["errors"][0]["did_you_mean"]
    r = http.post("/v1/knowledge.query", json={**PLAN, "limit": "many"})
    assert envelope(r, 422, "VALIDATION_FAILED")["errors"][0]["path"] == "limit"


def test_a_json_body_past_max_body_bytes_is_413(http):
    r = http.post(
        "/v1/knowledge.query",
        content=b'{"x": "' + b"a" * (17 << 20) + b'"}',
        headers={"Content-Type": "application/json"},
    )
    assert "max_body_bytes" in envelope(r, 413, "TOO_LARGE")["message"]


def test_a_body_that_is_not_json_is_400(http):
    r = http.post("/v1/knowledge.query", content=b"{not json", headers={"Content-Type": "application/json"})
    envelope(r, 400, "VALIDATION_FAILED")
    r = http.post("/v1/knowledge.query", json=[1, 2])
    envelope(r, 422, "VALIDATION_FAILED")


def test_fastapis_own_422_is_reshaped_into_the_envelope(http):
    r = http.post("/v1/knowledge.upload", params={"filename": ""}, content=b"a,b\n1,2\n")
    detail = envelope(r, 422, "VALIDATION_FAILED")
    assert detail["errors"][0]["path"] == "filename"


def test_unknown_ops_and_routes_are_404_with_close_names(http):
    detail = envelope(http.post("/v1/knowledge.qurey", json={}), 404, "RESOURCE_NOT_FOUND")
    assert detail["errors"][0]["did_you_mean"] == ["knowledge.query"]
    envelope(http.get("/nowhere"), 404, "RESOURCE_NOT_FOUND")
    envelope(http.get("/v1/knowledge.formats"), 405, "METHOD_NOT_ALLOWED")


def test_a_stale_snapshot_is_409(http, currency):
    plan = {**PLAN, "datasets": [{"source_uri": "files/currency.csv", "snapshot_id": "s_gone"}]}
    detail = envelope(http.post("/v1/knowledge.query", json=plan), 409, "PRECONDITION_FAILED")
    assert detail["errors"][0]["path"] == "datasets[0].snapshot_id"


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    """A server with tiny limits: 1,000-byte uploads, 50 ms queries."""
    srv = Server(tmp_path_factory.mktemp("limited") / "home", max_upload_bytes=1000, query_seconds=0.05).start()
    yield srv
    srv.stop()


def test_a_query_over_its_time_limit_is_504(limited, tmp_path):
    # 20,000 rows of one key, gzipped under the 1,000-byte limit; joined to itself: 400 M pairs,
    # a second or more of DuckDB's time against the 50 ms limit.
    (tmp_path / "same_key.csv.gz").write_bytes(gzip.compress(b"k,v\n" + b"1,1\n" * 20_000))
    with limited.client() as c:
        assert ingest(c, tmp_path / "same_key.csv.gz", "same_key.csv")["state"] == "ready"
        plan = {
            "datasets": [{"source_uri": "same_key.csv", "alias": "a"}, {"source_uri": "same_key.csv", "alias": "b"}],
            "joins": [{"alias": "b", "on": [{"left": "a.k", "right": "b.k"}]}],
            "aggregates": [{"fn": "sum", "column": "b.v"}],
        }
        envelope(c.post("/v1/knowledge.query", json=plan), 504, "BACKEND_TIMEOUT")
        assert c.post("/v1/knowledge.formats", json={}).status_code == 200  # the service goes on


# Uploads


def test_upload_raw_multipart_and_base64_store_the_same_bytes(http):
    data = (CSV / "currency.csv").read_bytes()
    raw = http.post(
        "/v1/knowledge.upload", params={"filename": "c.csv"}, content=data, headers={"Content-Type": "text/csv"}
    ).json()
    multi = http.post("/v1/knowledge.upload", files={"file": ("c.csv", data, "text/csv")}).json()
    b64 = http.post(
        "/v1/knowledge.upload", json={"filename": "c.csv", "content_base64": base64.b64encode(data).decode()}
    ).json()
    assert raw["sha256"] == multi["sha256"] == b64["sha256"] and raw["bytes"] == len(data)
    assert (
        raw["filename"] == multi["filename"] == "c.csv" and raw["content_type"] == multi["content_type"] == "text/csv"
    )
    envelope(http.post("/v1/knowledge.upload", files={"other": ("c.csv", data)}), 422, "VALIDATION_FAILED")
    broken = b"--xyz\r\nContent-Disposition: form-data; name=file\r\n\r\nabc\r\n--xyz" + b"\x00" * 100
    r = http.post("/v1/knowledge.upload", content=broken, headers={"Content-Type": "multipart/form-data; boundary=xyz"})
    envelope(r, 422, "VALIDATION_FAILED")


def test_an_upload_over_the_limit_is_413_and_keeps_nothing(limited):
    with limited.client() as c:
        before = {p.name for p in (limited.home / "uploads").iterdir()}
        detail = envelope(
            c.post("/v1/knowledge.upload", params={"filename": "x.csv"}, content=b"x" * 5000), 413, "TOO_LARGE"
        )
        assert "max_upload_bytes" in detail["message"]
        chunked = envelope(
            c.post("/v1/knowledge.upload", params={"filename": "x.csv"}, content=iter([b"x" * 600] * 3)),
            413,
            "TOO_LARGE",
        )
        assert chunked["code"] == "TOO_LARGE"
        envelope(c.post("/v1/knowledge.upload", files={"file": ("x.csv", b"x" * 5000)}), 413, "TOO_LARGE")
        assert {p.name for p in (limited.home / "uploads").iterdir()} == before
        assert c.post("/v1/knowledge.upload", params={"filename": "x.csv"}, content=b"x" * 900).status_code == 200


def test_a_300_mib_upload_is_refused_413_while_the_server_memory_stays_flat(server, http):
    http.post("/v1/knowledge.formats", json={})
    before = server.rss_peak_kib()
    chunk = b"a,b,c\n" * (1 << 17)  # 768 KiB

    def body():  # streamed, chunked: neither side holds the 300 MiB
        for _ in range(400):  # 300 MiB
            yield chunk

    r = http.post("/v1/knowledge.upload", params={"filename": "huge.csv"}, content=body())
    envelope(r, 413, "TOO_LARGE")
    grown_mib = (server.rss_peak_kib() - before) / 1024
    assert grown_mib < 64, f"the server's peak memory grew {grown_mib:.0f} MiB on a refused 300 MiB upload"
    assert not any(p.suffix == ".part" or p.stat().st_size > 200 << 20 for p in (server.home / "uploads").iterdir())


# Jobs


def test_the_same_idempotency_key_answers_the_same_job(http):
    up = upload(http, CSV / "nulls.csv")
    body = {"upload_id": up["upload_id"], "source_uri": "files/nulls.csv"}
    first = http.post("/v1/knowledge.ingest", json=body, headers={"Idempotency-Key": "k-1"}).json()
    again = http.post("/v1/knowledge.ingest", json=body, headers={"Idempotency-Key": "k-1"}).json()
    assert first["ingestion_id"] == again["ingestion_id"]
    other = http.post("/v1/knowledge.ingest", json=body, headers={"Idempotency-Key": "k-2"}).json()
    assert other["ingestion_id"] != first["ingestion_id"]
    misuse = http.post(
        "/v1/knowledge.ingest", json={**body, "source_uri": "files/other.csv"}, headers={"Idempotency-Key": "k-1"}
    )
    assert envelope(misuse, 422, "VALIDATION_FAILED")["errors"][0]["path"] == "idempotency_key"
    assert wait_for(http, first["ingestion_id"])["state"] == "ready"
    assert wait_for(http, other["ingestion_id"])["state"] == "ready"


def test_an_unknown_job_is_not_found(http):
    assert status(http, "i_nothing")["found"] is False
    assert http.post("/v1/knowledge.ingest_cancel", json={"ingestion_id": "i_nothing"}).json()["found"] is False


def test_a_finished_job_stays_as_it_ended_when_cancelled(http, currency):
    ingestion_id = start_ingest(http, CSV / "percent.csv", "files/percent.csv")
    assert wait_for(http, ingestion_id)["state"] == "ready"
    r = http.post("/v1/knowledge.ingest_cancel", json={"ingestion_id": ingestion_id}).json()
    assert r == {**r, "found": True, "state": "ready", "cancelled": False}


# OpenAPI


def test_openapi_and_docs_describe_every_op(http):
    schema = http.get("/openapi.json").json()
    for name, op in REGISTRY.items():
        post = schema["paths"][f"/v1/{name}"]["post"]
        assert post["description"] == op.description
        assert post["requestBody"]["content"]["application/json"]["schema"]["$ref"].startswith("#/components/schemas/")
        if op.streams:
            assert {"text/csv", "application/vnd.apache.parquet"} <= set(post["responses"]["200"]["content"])
            assert "X-Tabular-Receipt-Id" in post["responses"]["200"]["headers"]
            continue
        assert post["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].startswith(
            "#/components/schemas/"
        )
        assert "default" in post["responses"]
    assert "IngestIn" in schema["components"]["schemas"]
    # Single-user: the bearer scheme is there for "Authorize", and no call needs it.
    assert schema["components"]["securitySchemes"]["bearer"] == {
        **schema["components"]["securitySchemes"]["bearer"],
        "type": "http",
        "scheme": "bearer",
    }
    assert {} in schema["security"]
    assert http.get("/docs").status_code == 200
    assert http.get("/healthz").json()["status"] == "ok"


def test_each_ops_summary_in_docs_is_a_whole_sentence_and_its_example_fits_its_schema(http):
    # Summaries were cut at the first dot: "Store a file for a later knowledge".
    import jsonschema

    schema = http.get("/openapi.json").json()
    for name, op in REGISTRY.items():
        post = schema["paths"][f"/v1/{name}"]["post"]
        summary, description = post["summary"], post["description"]
        assert description.startswith(summary), name
        rest = description[len(summary) :]
        assert rest == "" or rest == "." or rest.startswith(". "), (name, summary)
        assert not summary.endswith(("knowledge", " e.g", " i.e")), (name, summary)
        body = post["requestBody"]["content"]["application/json"]
        ref = body["schema"]["$ref"].split("/")[-1]
        model = {**schema["components"]["schemas"][ref], "components": schema["components"]}
        resolver = jsonschema.validators.Draft202012Validator(model, registry=_components_registry(schema))
        assert body["example"] == op.example and list(resolver.iter_errors(op.example)) == [], name


def _components_registry(schema: dict):
    """The OpenAPI document as the resource its `#/components/schemas/...` refs resolve in."""
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    return Registry().with_resource("", Resource.from_contents(schema, default_specification=DRAFT202012))


def test_query_export_streams_every_row_with_the_receipt_id_in_a_header(http, tmp_path):
    import io
    import json as _json

    import pyarrow as pa

    from .support import ROOT

    assert ingest(http, ROOT / "fixtures" / "query" / "orders.csv", "export-orders.csv")["state"] == "ready"
    plan = {"datasets": [{"source_uri": "export-orders.csv"}], "limit": 1}
    with http.stream("POST", "/v1/knowledge.query_export", json={**plan, "format": "arrow"}) as r:
        assert r.status_code == 200 and r.headers["content-type"] == "application/vnd.apache.arrow.stream"
        receipt_id = r.headers["x-tabular-receipt-id"]
        table = pa.ipc.open_stream(io.BytesIO(r.read())).read_all()
    receipt = http.post("/v1/knowledge.receipt", json={"receipt_id": receipt_id}).json()["receipt"]
    assert table.num_rows == 300 and receipt["datasets"][0]["source_uri"] == "export-orders.csv"
    assert receipt["rows_returned"] == 300  # kept again when the stream ended
    answered = http.post("/v1/knowledge.query_export", json={**plan, "format": "csv", "agent": "a1"})
    assert len(answered.text.strip().splitlines()) == 301
    # A transport field is served and named, as knowledge.query's ignored_args names it.
    assert _json.loads(answered.headers["x-tabular-ignored-args"]) == ["agent"]
    # a plan is closed: a key that is no clause is refused, as knowledge.query refuses it
    envelope(
        http.post("/v1/knowledge.query_export", json={**plan, "format": "csv", "colour": "red"}),
        422,
        "VALIDATION_FAILED",
    )
    assert _json.loads(r.headers["x-tabular-ignored-args"]) == []
    for wrong in ("xlsx", {}, ["csv"]):
        detail = envelope(
            http.post("/v1/knowledge.query_export", json={**plan, "format": wrong}), 422, "VALIDATION_FAILED"
        )
        assert detail["errors"][0]["path"] == "format"
    envelope(
        http.post("/v1/knowledge.query_export", json={"datasets": [{"source_uri": "nothing"}], "format": "csv"}),
        422,
        "VALIDATION_FAILED",
    )


# A served app in its own process: whether the MCP SDK is loaded after an HTTP op, then after an
# MCP call over /mcp (its answer's tools counted).
LAZY_MCP = """
import json, sys, tempfile
from fastapi.testclient import TestClient
import tabular
from tabular.service.http import create_app

with tabular.connect(tempfile.mkdtemp() + "/home") as engine, TestClient(create_app(engine), base_url="http://127.0.0.1:8765") as client:
    assert client.get("/healthz").json()["status"] == "ok"
    listed = client.post("/v1/knowledge.list", json={})
    print("after http", listed.status_code, "mcp" in sys.modules)
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    answer = client.post("/mcp", json=call, headers=headers)
    print("after mcp", answer.status_code, len(answer.json()["result"]["tools"]))
"""


def test_a_server_loads_the_mcp_sdk_at_its_first_mcp_call_and_answers_it():
    """The MCP SDK is 0.4 s of CPU at every start; a server whose callers speak HTTP starts
    without it, and the first /mcp call loads it and is answered like any later one."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", LAZY_MCP], capture_output=True, text=True, timeout=120)
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stderr
    assert lines[0] == "after http 200 False"
    assert (
        lines[1] == f"after mcp 200 {sum(not op.streams for op in REGISTRY.values())}"
    )  # a tool per op that answers at once
