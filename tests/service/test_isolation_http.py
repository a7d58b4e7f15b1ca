"""Isolation over HTTP: a source, snapshot, upload or job of another org, or of another
namespace of the same org, answers byte for byte as one that never existed (the request id and
the id itself apart), on every op that names one; and nothing foreign is changed by trying.
The rows side (no plan returns or counts a foreign row) is tests/test_isolation.py."""

from __future__ import annotations

import re
import uuid

import pytest

from .support import CSV, TOKENS, ingest, upload

REQUEST_ID = re.compile(r'"request_id":\s*"[^"]*"')


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
            out[key] = {
                "source_uri": "secret.csv",
                "snapshot_id": snapshot,
                "upload_id": pending["upload_id"],
                "ingestion_id": job["ingestion_id"],
                "scope": scope,
            }
    return out


def missing_like(found: dict) -> dict:
    return {
        "source_uri": "never-was.csv",
        "snapshot_id": "s_" + uuid.uuid4().hex[:16],
        "upload_id": "u_" + uuid.uuid4().hex,
        "ingestion_id": "i_" + uuid.uuid4().hex,
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
]


def scrub(text: str, names: dict) -> str:
    text = REQUEST_ID.sub('"request_id": ""', text)
    for key in ("snapshot_id", "upload_id", "ingestion_id", "source_uri"):
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
