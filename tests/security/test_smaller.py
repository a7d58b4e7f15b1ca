"""The smaller openings of issue 16: cross-site requests in single-user mode, what /healthz tells
a stranger, unbounded text fields, and rejected values kept whole."""

from __future__ import annotations

import json
import threading
import time

import pytest
from service.support import CSV, Server, envelope, ingest

from .conftest import TOKENS, tokens_file, until


@pytest.fixture(scope="module")
def single_user(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("single") / "home").start()
    yield srv
    srv.stop()


def test_single_user_mode_refuses_a_cross_site_request_and_a_foreign_host(single_user):
    with single_user.client() as c:
        assert ingest(c, CSV / "crlf.csv", "keep")["state"] == "ready"
        # What a page on another site can send without a preflight: a text/plain POST.
        r = c.post(
            "/v1/knowledge.delete",
            content=b'{"source_uri": "keep"}',
            headers={"content-type": "text/plain", "origin": "https://evil.example"},
        )
        envelope(r, 403, "AUTH_INSUFFICIENT")
        r = c.post("/v1/knowledge.list", json={}, headers={"host": "evil.example"})  # DNS rebinding
        envelope(r, 403, "AUTH_INSUFFICIENT")
        assert c.post("/v1/knowledge.get", json={"source_uri": "keep"}).json()["revision"] == 1  # still there
        # The service's own origin, and clients that send none, are served.
        port = single_user.url.rsplit(":", 1)[1]
        assert c.post("/v1/knowledge.list", json={}, headers={"origin": f"http://127.0.0.1:{port}"}).status_code == 200


def test_healthz_tells_a_stranger_only_that_it_is_up(two_orgs):
    with two_orgs.client() as stranger:
        assert stranger.get("/healthz").json() == {"status": "ok"}
    with two_orgs.client(TOKENS["globex-viewer"][0]) as c:
        assert "jobs_waiting" in c.get("/healthz").json()


def test_healthz_counts_only_the_callers_own_orgs_waiting_jobs(tmp_path):
    """globex's queue is globex's: acme's token had been told every org's waiting jobs."""
    from fastapi.testclient import TestClient
    from service.support import start_ingest

    from tabular.engine import Engine
    from tabular.service.http import create_app
    from tabular.settings import Settings

    settings = Settings(tokens=str(tokens_file(tmp_path)), ingest_workers=1, ingest_workers_per_org=1)
    engine = Engine(str(tmp_path / "home"), settings)
    gate, run = threading.Event(), engine.jobs._run
    engine.jobs._run = lambda ingestion_id: (gate.wait(60), run(ingestion_id))  # the first job holds the worker
    try:
        app = create_app(engine, mcp=False)
        acme, globex = (
            TestClient(app, base_url="http://127.0.0.1", headers={"Authorization": f"Bearer {TOKENS[name][0]}"})
            for name in ("acme-viewer", "globex-writer")
        )
        for k in range(3):
            start_ingest(globex, CSV / "crlf.csv", f"queued-{k}.csv")
        until(lambda: len(engine.jobs.waiting) == 2)
        assert globex.get("/healthz").json()["jobs_waiting"] == 2
        assert acme.get("/healthz").json()["jobs_waiting"] == 0
    finally:
        gate.set()
        engine.close()


@pytest.mark.parametrize(
    "field, value",
    [
        ("title", "t" * 1001),
        ("description", "d" * 10_001),
        ("source_uri", "s" * 1025),
        ("tags", ["x"] * 101),
        ("tags", ["x" * 201]),
        ("metadata", {"notes": "n" * 70_000}),
    ],
)
def test_free_text_fields_have_limits(acme, field, value):
    body = {"upload_id": "u_nothing", "source_uri": "limits", field: value}
    detail = envelope(acme.post("/v1/knowledge.ingest", json=body), 422, "VALIDATION_FAILED")
    assert detail["errors"][0]["path"].startswith(field)
    assert len(json.dumps(detail["errors"][0].get("received"))) <= 210  # what came is echoed shortened


def test_a_rejected_value_is_kept_as_a_bounded_prefix(acme, tmp_path):
    path = tmp_path / "long.csv"
    # A line with one cell too many, 5,000 characters long: the line is rejected, its text kept in part.
    path.write_text("id,amount\n" + "".join(f"{k},{k}.50\n" for k in range(30)) + "31,5.50," + "9" * 5000 + "\n")
    got = ingest(acme, path, "long.csv")
    assert got["state"] == "ready"
    rejected = acme.post("/v1/knowledge.dataset_get", json={"source_uri": "long.csv"}).json()["datasets"][0]["rejected"]
    assert len(rejected) == 1 and len(rejected[0]["value"]) == 1000 and rejected[0]["value"].startswith("31,5.50,999")


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    """Two orgs whose uploads are refused past 1,500 bytes each and past 2,000 bytes stored per org."""
    folder = tmp_path_factory.mktemp("limited")
    srv = Server(folder / "home", tokens=tokens_file(folder), max_upload_bytes=1500, org_storage_bytes=2000).start()
    yield srv
    srv.stop()


def audited(srv: Server) -> list[tuple]:
    """(op, status, code, caller) of each call the server's audit log names so far."""
    lines = [
        json.loads(line.split("tabular.audit ", 1)[1])
        for line in srv.log.read_text().splitlines()
        if "tabular.audit " in line
    ]
    return [(a["op"], a["status"], a["code"], a["caller"]) for a in lines]


def test_every_upload_refusal_is_audited(limited):
    srv = limited
    with (
        srv.client(TOKENS["acme-viewer"][0]) as viewer,
        srv.client(TOKENS["acme-writer"][0]) as writer,
        srv.client() as stranger,
    ):
        envelope(
            viewer.post("/v1/knowledge.upload", params={"filename": "a.csv"}, content=b"a\n1\n"),
            403,
            "AUTH_INSUFFICIENT",
        )
        detail = envelope(
            writer.post("/v1/knowledge.upload", params={"filename": "a.csv"}, content=b"a\n" * 1000),
            413,
            "TOO_LARGE",
        )
        assert "max_upload_bytes" in detail["message"]
        envelope(writer.post("/v1/knowledge.upload", files={"other": ("a.csv", b"a\n1\n")}), 422, "VALIDATION_FAILED")
        envelope(
            stranger.post("/v1/knowledge.upload", params={"filename": "a.csv"}, content=b"a\n1\n"),
            401,
            "AUTH_INVALID",
        )
    refusals = {
        ("knowledge.upload", 403, "AUTH_INSUFFICIENT", "acme-viewer"),
        ("knowledge.upload", 413, "TOO_LARGE", "acme-writer"),
        ("knowledge.upload", 422, "VALIDATION_FAILED", "acme-writer"),
        ("knowledge.upload", 401, "AUTH_INVALID", None),
    }
    until(lambda: refusals <= set(audited(srv)))  # the server writes its log as it goes
    assert refusals <= set(audited(srv))


def test_a_token_removed_or_expired_stops_working_without_a_restart(tmp_path):
    from tabular.service.auth import token_hash

    path = tmp_path / "tokens.json"
    entries = {
        token_hash("tok-a"): {"org": "acme", "namespaces": ["*"], "role": "viewer"},
        token_hash("tok-b"): {"org": "acme", "namespaces": ["*"], "role": "viewer"},
        token_hash("tok-old"): {
            "org": "acme",
            "namespaces": ["*"],
            "role": "viewer",
            "expires_at": "2020-01-01T00:00:00+00:00",
        },
    }
    path.write_text(json.dumps(entries))
    srv = Server(tmp_path / "home", tokens=path, tokens_check_seconds=0.2).start()
    try:
        with srv.client("tok-a") as a, srv.client("tok-b") as b, srv.client("tok-old") as old:
            assert a.post("/v1/knowledge.list", json={}).status_code == 200
            assert "expired" in envelope(old.post("/v1/knowledge.list", json={}), 401, "AUTH_INVALID")["message"]
            del entries[token_hash("tok-a")]
            path.write_text(json.dumps(entries))
            until(lambda: a.post("/v1/knowledge.list", json={}).status_code != 200)
            envelope(a.post("/v1/knowledge.list", json={}), 401, "AUTH_INVALID")
            path.write_text("{ not json")  # a broken file keeps the tokens read before
            time.sleep(0.5)
            assert b.post("/v1/knowledge.list", json={}).status_code == 200
    finally:
        srv.stop()


def test_an_org_past_its_storage_quota_gets_413_and_another_org_does_not(limited):
    with limited.client(TOKENS["acme-writer"][0]) as acme, limited.client(TOKENS["globex-writer"][0]) as globex:
        body = b"id,amount\n" + b"1,2.50\n" * 200  # 1,410 bytes
        assert acme.post("/v1/knowledge.upload", params={"filename": "a.csv"}, content=body).status_code == 200
        detail = envelope(
            acme.post("/v1/knowledge.upload", params={"filename": "b.csv"}, content=body), 413, "TOO_LARGE"
        )
        assert "org_storage_bytes" in detail["message"]
        assert globex.post("/v1/knowledge.upload", params={"filename": "a.csv"}, content=body).status_code == 200


def test_uploads_no_ingest_names_expire(tmp_path):
    import tabular

    with tabular.connect(str(tmp_path / "home"), upload_keep_seconds=0.5, job_watch_seconds=0.05) as engine:
        ns = engine.namespace("acme", "finance")
        kept = ns.ingest_file(CSV / "crlf.csv", source_uri="kept")
        unused = ns.upload_file(CSV / "crlf.csv")
        until(lambda: not (engine.catalog.uploads_dir / unused["upload_id"]).exists())
        assert not (engine.catalog.uploads_dir / unused["upload_id"]).exists(), "the unused upload was kept"
        with pytest.raises(tabular.ValidationFailed):  # gone from the catalog too
            ns.call("knowledge.ingest", {"upload_id": unused["upload_id"], "source_uri": "late"})
        assert kept.state == "ready" and ns.dataset_get("kept").found
        assert len(list(engine.catalog.uploads_dir.iterdir())) == 1  # the ingested one stays
