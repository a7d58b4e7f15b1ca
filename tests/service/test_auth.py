"""Tokens, roles and tenants on a real server with a tokens file: 401 without a good token, 403
past a role or a namespace, and another org's data answering exactly as nothing would."""

from __future__ import annotations

import json

import pytest

from tabular.ops import REGISTRY
from tabular.service.auth import Tokens, token_hash
from tabular.settings import Settings

from .support import CSV, TOKENS, envelope, ingest, upload

URI = "files/currency.csv"


def token(name: str) -> str:
    return TOKENS[name][0]


@pytest.fixture(scope="module")
def acme(authed):
    """acme/finance holds currency.csv, ingested by its writer."""
    with authed.client(token("acme-writer")) as c:
        got = ingest(c, CSV / "currency.csv", URI)
        assert got["state"] == "ready", got
    return authed


def test_no_token_or_a_bad_token_is_401(acme):
    with acme.client() as c:
        envelope(c.post("/v1/knowledge.formats", json={}), 401, "AUTH_INVALID")
    with acme.client("not-a-token") as c:
        envelope(c.post("/v1/knowledge.dataset_get", json={"source_uri": URI}), 401, "AUTH_INVALID")
    with acme.client(headers={"Authorization": "Basic abc"}) as c:
        envelope(c.post("/v1/knowledge.formats", json={}), 401, "AUTH_INVALID")
    with acme.client() as c:  # MCP is behind the same check
        envelope(c.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}), 401, "AUTH_INVALID")


def test_a_token_fills_org_and_namespace(acme):
    with acme.client(token("acme-viewer")) as c:
        got = c.post("/v1/knowledge.dataset_get", json={"source_uri": URI}).json()
        assert got["found"] is True
        same = c.post(
            "/v1/knowledge.dataset_get", json={"source_uri": URI, "org": "acme", "namespace": "finance"}
        ).json()
        assert same == got


def test_a_viewer_reads_but_cannot_upload_ingest_or_approve(acme):
    with acme.client(token("acme-viewer")) as c:
        got = c.post("/v1/knowledge.dataset_get", json={"source_uri": URI}).json()["datasets"][0]
        plan = {"datasets": [{"source_uri": URI}], "aggregates": [{"fn": "count"}]}
        assert c.post("/v1/knowledge.query", json=plan).json()["rows"] == [[6]]
        detail = envelope(
            c.post("/v1/knowledge.upload", params={"filename": "a.csv"}, content=b"a\n1\n"), 403, "AUTH_INSUFFICIENT"
        )
        assert "writer" in detail["message"]
        envelope(
            c.post("/v1/knowledge.ingest", json={"upload_id": "u_x", "source_uri": "x.csv"}), 403, "AUTH_INSUFFICIENT"
        )
        approve = {"source_uri": URI, "dataset_id": got["dataset_id"], "snapshot_id": got["snapshot_id"], "columns": {}}
        envelope(c.post("/v1/knowledge.dataset_approve", json=approve), 403, "AUTH_INSUFFICIENT")
        envelope(c.post("/v1/knowledge.ingest_cancel", json={"ingestion_id": "i_x"}), 403, "AUTH_INSUFFICIENT")


def test_an_approval_records_the_tokens_name(acme):
    with acme.client(token("acme-writer")) as c:
        got = c.post("/v1/knowledge.dataset_get", json={"source_uri": URI}).json()["datasets"][0]
        approve = {"source_uri": URI, "dataset_id": got["dataset_id"], "snapshot_id": got["snapshot_id"], "columns": {}}
        r = c.post("/v1/knowledge.dataset_approve", json=approve)
        assert r.status_code == 200, r.text
        assert r.json()["dataset"]["approved_by"] == "acme-writer"


def test_a_token_is_held_to_its_namespaces(acme):
    with acme.client(token("acme-writer")) as c:
        detail = envelope(
            c.post("/v1/knowledge.dataset_get", json={"source_uri": URI, "namespace": "hr"}), 403, "AUTH_INSUFFICIENT"
        )
        assert detail["errors"][0]["path"] == "namespace" and detail["errors"][0]["expected"] == "finance"
        envelope(
            c.post("/v1/knowledge.upload", params={"filename": "a.csv", "namespace": "hr"}, content=b"a\n1\n"),
            403,
            "AUTH_INSUFFICIENT",
        )
    with acme.client(token("acme-admin")) as c:  # "*": any namespace of its org
        assert c.post("/v1/knowledge.dataset_get", json={"source_uri": URI, "namespace": "hr"}).json()["found"] is False
        assert (
            c.post("/v1/knowledge.dataset_get", json={"source_uri": URI, "namespace": "finance"}).json()["found"]
            is True
        )


def test_another_org_sees_nothing_and_cannot_name_acme(acme):
    plan = {"datasets": [{"source_uri": URI}], "aggregates": [{"fn": "count"}]}
    with acme.client(token("globex-writer")) as c:
        # acme's source answers exactly as a source nobody ever made.
        for namespace in ("finance", "default"):
            theirs = c.post("/v1/knowledge.dataset_get", json={"source_uri": URI, "namespace": namespace}).json()
            nothing = c.post(
                "/v1/knowledge.dataset_get", json={"source_uri": "files/never.csv", "namespace": namespace}
            ).json()
            assert theirs == nothing == {**nothing, "found": False}
            q1 = c.post("/v1/knowledge.query", json={**plan, "namespace": namespace})
            q2 = c.post(
                "/v1/knowledge.query",
                json={**plan, "datasets": [{"source_uri": "files/never.csv"}], "namespace": namespace},
            )
            assert q1.status_code == q2.status_code == 422
            d1, d2 = q1.json()["detail"], q2.json()["detail"]
            assert d1["code"] == d2["code"] and d1["errors"][0]["path"] == d2["errors"][0]["path"]
            assert d1["message"].replace(URI, "X") == d2["message"].replace("files/never.csv", "X")
        # Naming acme is refused before anything is looked up.
        envelope(
            c.post("/v1/knowledge.dataset_get", json={"source_uri": URI, "org": "acme", "namespace": "finance"}),
            403,
            "AUTH_INSUFFICIENT",
        )
        envelope(c.post("/v1/knowledge.query", json={**plan, "org": "acme"}), 403, "AUTH_INSUFFICIENT")
    with acme.client(token("acme-writer")) as c:
        job = c.post("/v1/knowledge.list", json={}).json()
        assert URI in str(job)
    with acme.client(token("globex-writer")) as c:
        assert URI not in str(c.post("/v1/knowledge.list", json={}).json())


def test_another_orgs_upload_and_job_are_unknown(acme):
    with acme.client(token("acme-writer")) as c:
        up = upload(c, CSV / "nulls.csv")
        job = c.post(
            "/v1/knowledge.ingest", json={"upload_id": up["upload_id"], "source_uri": "files/nulls.csv"}
        ).json()
    with acme.client(token("globex-writer")) as c:
        r = c.post("/v1/knowledge.ingest", json={"upload_id": up["upload_id"], "source_uri": "stolen.csv"})
        assert envelope(r, 422, "VALIDATION_FAILED")["errors"][0]["path"] == "upload_id"
        assert (
            c.post("/v1/knowledge.ingest_status", json={"ingestion_id": job["ingestion_id"]}).json()["found"] is False
        )
        assert (
            c.post("/v1/knowledge.ingest_cancel", json={"ingestion_id": job["ingestion_id"]}).json()["found"] is False
        )


def test_the_tokens_file_format(tmp_path):
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({token_hash("s3cret"): {"org": "acme", "namespaces": ["a", "b"], "role": "writer"}}))
    tokens = Tokens.load(Settings(tokens=str(path)))
    grant = tokens.identify("Bearer s3cret")
    assert (grant.org, grant.namespaces, grant.role, grant.name) == (
        "acme",
        ("a", "b"),
        "writer",
        f"token:{token_hash('s3cret')[:8]}",
    )
    assert tokens.authorize(grant, REGISTRY["knowledge.ingest"], {})["namespace"] == "a"
    for bad in (
        {"not-a-hash": {"org": "a", "namespaces": ["x"], "role": "viewer"}},
        {token_hash("x"): {"org": "a", "namespaces": ["x"], "role": "owner"}},
        {token_hash("x"): {"org": "a", "namespaces": [], "role": "viewer"}},
    ):
        path.write_text(json.dumps(bad))
        with pytest.raises(SystemExit):
            Tokens.load(Settings(tokens=str(path)))
    assert Tokens.load(Settings()).single_user


def test_an_orgs_link_roots_are_its_entries_roots_together(tmp_path):
    path = tmp_path / "tokens.json"
    entry = {"org": "acme", "namespaces": ["*"], "role": "writer"}
    path.write_text(
        json.dumps(
            {
                token_hash("a1"): {**entry, "link_roots": ["/srv/acme/a", "/srv/acme/b"]},
                token_hash("a2"): {**entry, "link_roots": ["/srv/acme/b", "/srv/acme/c"]},
                token_hash("a3"): entry,
                token_hash("g1"): {**entry, "org": "globex"},
            }
        )
    )
    tokens = Tokens.load(Settings(tokens=str(path)))
    assert tokens.link_roots("acme") == ("/srv/acme/a", "/srv/acme/b", "/srv/acme/c")
    assert tokens.link_roots("globex") is None  # none said: the deployment's link_roots
    assert Tokens.load(Settings()).link_roots("default") is None
    for bad in ("/srv/acme", [""], [1]):
        path.write_text(json.dumps({token_hash("x"): {**entry, "link_roots": bad}}))
        with pytest.raises(SystemExit, match="link_roots"):
            Tokens.load(Settings(tokens=str(path)))


def test_mcp_over_http_holds_a_token_to_its_role_and_org(acme):
    import anyio
    import httpx2
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def as_(name: str):
        headers = {"Authorization": f"Bearer {token(name)}"}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as client:
            async with streamable_http_client(acme.url + "/mcp", http_client=client) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    got = await session.call_tool("loom_knowledge_dataset_get", {"source_uri": URI})
                    denied = await session.call_tool(
                        "loom_knowledge_ingest", {"upload_id": "u_x", "source_uri": "x.csv"}
                    )
                    return got.structured_content, denied

    got, denied = anyio.run(as_, "acme-viewer")
    assert got["found"] is True
    assert denied.is_error and denied.structured_content["detail"]["code"] == "AUTH_INSUFFICIENT"
    got, _ = anyio.run(as_, "globex-writer")
    assert got["found"] is False


def test_with_tokens_docs_ask_for_the_bearer_token(acme):
    # "Try it out" in /docs could not authorise: the document named no security scheme.
    with acme.client() as c:
        schema = c.get("/openapi.json").json()
    assert schema["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    assert schema["security"] == [{"bearer": []}]
