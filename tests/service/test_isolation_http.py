"""Isolation over HTTP and MCP: a source, snapshot, upload, job or whole result's receipt of
another org, or of another namespace of the same org, answers byte for byte as one that never
existed (the request id and the id itself apart), on every op that names one; and nothing
foreign is changed by trying.
The rows side (no plan returns or counts a foreign row) is tests/test_isolation.py."""

from __future__ import annotations

import re
import uuid

import pytest

from tabular.service.mcp import tool_name

from .support import CSV, TOKENS, ingest, upload

# A request id, also as MCP's text content quotes it (JSON inside a JSON string: \"request_id\").
REQUEST_ID = re.compile(r'\\?"request_id\\?":\s*\\?"[^"\\]*\\?"')


def token(name: str) -> str:
    return TOKENS[name][0]


@pytest.fixture(scope="module")
def foreign(authed):
    """What exists elsewhere: globex/finance (another org, the same namespace name) and
    acme/ops (another namespace of the caller's org), each a source, its snapshot, an upload
    and a job."""
    out = {}
    for key, tok, namespace in (("org", "globex-writer", "finance"), ("namespace", "acme-admin", "ops")):
        with authed.client(token(tok)) as c:
            scope = {"org": "globex" if key == "org" else "acme", "namespace": namespace}
            job = ingest(c, CSV / "dates_ambiguous.csv", "secret.csv", **scope)
            assert job["state"] == "ready", job
            snapshot = c.post("/v1/knowledge.dataset_get", json={"source_uri": "secret.csv", **scope}).json()[
                "datasets"
            ][0]["snapshot_id"]
            pending = upload(c, CSV / "currency.csv", **scope)
            # A whole result's receipt, kept for knowledge.receipt under the id its headers carry.
            export = c.post("/v1/knowledge.query_export", json={"datasets": [{"source_uri": "secret.csv"}], **scope})
            assert export.status_code == 200, export.text
            receipt_id = export.headers["x-tabular-receipt-id"]
            assert c.post("/v1/knowledge.receipt", json={"receipt_id": receipt_id, **scope}).json()["found"]
            out[key] = {
                "source_uri": "secret.csv",
                "snapshot_id": snapshot,
                "upload_id": pending["upload_id"],
                "ingestion_id": job["ingestion_id"],
                "receipt_id": receipt_id,
                "scope": scope,
            }
    return out


def missing_like(found: dict) -> dict:
    return {
        "source_uri": "never-was.csv",
        "snapshot_id": "s_" + uuid.uuid4().hex[:16],
        "upload_id": "u_" + uuid.uuid4().hex,
        "ingestion_id": "i_" + uuid.uuid4().hex,
        "receipt_id": "r_" + uuid.uuid4().hex,
    }


# (op, body from the names); the caller is acme-admin in acme/finance, which may use every op.
CALLS = [
    ("dataset_get", lambda n: {"source_uri": n["source_uri"], "sample_rows": 3}),
    ("get", lambda n: {"source_uri": n["source_uri"]}),
    ("query", lambda n: {"datasets": [{"source_uri": n["source_uri"]}], "aggregates": [{"fn": "count"}]}),
    (
        "query",
        lambda n: {
            "datasets": [{"source_uri": "mine.csv", "alias": "m"}, {"source_uri": n["source_uri"], "alias": "x"}],
            "joins": [{"alias": "x", "on": [{"left": "m.id", "right": "x.id"}]}],
        },
    ),
    ("query", lambda n: {"datasets": [{"source_uri": n["source_uri"], "snapshot_id": n["snapshot_id"]}]}),
    (
        "dataset_approve",
        lambda n: {
            "source_uri": n["source_uri"],
            "dataset_id": "",
            "snapshot_id": n["snapshot_id"],
            "formats": {"when": "MDY"},
        },
    ),
    ("ingest", lambda n: {"upload_id": n["upload_id"], "source_uri": "mine-too.csv"}),
    ("ingest_status", lambda n: {"ingestion_id": n["ingestion_id"]}),
    ("ingest_cancel", lambda n: {"ingestion_id": n["ingestion_id"]}),
    ("restore", lambda n: {"source_uri": n["source_uri"]}),
    ("delete", lambda n: {"source_uri": n["source_uri"]}),
    ("synthesize", lambda n: {"task": "How many rows?", "datasets": [{"source_uri": n["source_uri"]}]}),
    ("receipt", lambda n: {"receipt_id": n["receipt_id"]}),
]
IDS = ("snapshot_id", "upload_id", "ingestion_id", "receipt_id", "source_uri")


def scrub(text: str, names: dict) -> str:
    text = REQUEST_ID.sub("<request_id>", text)
    for key in IDS:
        text = text.replace(names[key], f"<{key}>")
    return text


@pytest.mark.parametrize("kind", ["org", "namespace"])
@pytest.mark.parametrize(("op", "body"), CALLS, ids=[f"{op}-{k}" for k, (op, _) in enumerate(CALLS)])
def test_a_foreign_thing_answers_as_a_missing_one_byte_for_byte(authed, foreign, kind, op, body):
    there = foreign[kind]
    with authed.client(token("acme-admin")) as c:
        mine = {"org": "acme", "namespace": "finance"}
        if not c.post("/v1/knowledge.get", json={"source_uri": "mine.csv", **mine}).json()["found"]:
            assert ingest(c, CSV / "dates_dmy.csv", "mine.csv", **mine)["state"] == "ready"
        absent = missing_like(there)
        seen = c.post(f"/v1/knowledge.{op}", json={**body(there), **mine})
        unseen = c.post(f"/v1/knowledge.{op}", json={**body(absent), **mine})
        assert seen.status_code == unseen.status_code
        assert scrub(seen.text, there) == scrub(unseen.text, absent)
    with authed.client(token("acme-admin" if kind == "namespace" else "globex-writer")) as c:
        # Still there, untouched: the delete, cancel or approval above did not reach it.
        got = c.post("/v1/knowledge.dataset_get", json={"source_uri": there["source_uri"], **there["scope"]}).json()
        assert got["found"] and got["datasets"][0]["snapshot_id"] == there["snapshot_id"]
        kept = c.post("/v1/knowledge.receipt", json={"receipt_id": there["receipt_id"], **there["scope"]}).json()
        assert kept["found"] and kept["receipt"]["datasets"][0]["snapshot_id"] == there["snapshot_id"]


MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def mcp_call(c, op: str, arguments: dict) -> str:
    """A tools/call posted to /mcp (stateless, JSON answers), its JSON-RPC reply's text."""
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool_name(op), "arguments": arguments},
    }
    reply = c.post("/mcp", json=message, headers=MCP_HEADERS)
    assert reply.status_code == 200, reply.text
    return reply.text


# Over MCP: the ops that name one of another tenant's things by an id and change nothing.
MCP_CALLS = [
    (op, body) for op, body in CALLS if op in ("dataset_get", "get", "query", "ingest_status", "synthesize", "receipt")
]


@pytest.mark.parametrize("kind", ["org", "namespace"])
@pytest.mark.parametrize(("op", "body"), MCP_CALLS, ids=[f"{op}-{k}" for k, (op, _) in enumerate(MCP_CALLS)])
def test_over_mcp_a_foreign_thing_answers_as_a_missing_one_byte_for_byte(authed, foreign, kind, op, body):
    there = foreign[kind]
    mine = {"org": "acme", "namespace": "finance"}
    with authed.client(token("acme-admin")) as c:
        absent = missing_like(there)
        seen = mcp_call(c, f"knowledge.{op}", {**body(there), **mine})
        unseen = mcp_call(c, f"knowledge.{op}", {**body(absent), **mine})
    assert scrub(seen, there) == scrub(unseen, absent)
