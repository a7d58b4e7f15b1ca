"""Issue 56 through the transports a person meets: over HTTP and MCP an approval answers only
its question, `settle_rest` accepts the rest as shown and lists each in `settled`; the same file
ingested twice over HTTP is one revision that says `unchanged`, with no new question."""

from __future__ import annotations

import anyio
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from .support import ingest

LEDGER = (
    "Date,Amount,VAT\n03/04/2024,1.234,2.468\n01/02/2024,2.500,5.000\n12/11/2023,12.750,25.500\n"
    "05/06/2024,7.125,14.250\n07/08/2024,3.333,6.666\n"
)


def _ledger(tmp_path, name: str):
    path = tmp_path / name
    path.write_text(LEDGER, encoding="utf-8")
    return path


def _dataset(http, uri: str) -> dict:
    return http.post("/v1/knowledge.dataset_get", json={"source_uri": uri}).json()["datasets"][0]


def test_over_http_an_answer_leaves_the_rest_open_and_settle_rest_settles_it(http, tmp_path):
    uri = "issue56/http-ledger.csv"
    assert ingest(http, _ledger(tmp_path, "ledger.csv"), uri)["state"] == "ready"
    d = _dataset(http, uri)
    one = http.post(
        "/v1/knowledge.dataset_approve",
        json={"source_uri": uri, "snapshot_id": d["snapshot_id"], "formats": {"Date": "MDY"}},
    )
    assert one.status_code == 200, one.text
    assert [q["column"] for q in one.json()["left_open"]] == ["Amount", "VAT"] and one.json()["settled"] == []
    after = _dataset(http, uri)
    assert [q["column"] for q in after["questions"]] == ["Amount", "VAT"] and not after["approved"]
    rest = http.post(
        "/v1/knowledge.dataset_approve",
        json={"source_uri": uri, "snapshot_id": after["snapshot_id"], "formats": {}, "settle_rest": True},
    ).json()
    assert [(s["column"], s["type"], s["format"]) for s in rest["settled"]] == [
        ("Amount", "number", "decimal_mark=."),
        ("VAT", "number", "decimal_mark=."),
    ]
    assert (
        rest["dataset"]["approved"] and rest["dataset"]["questions"] == [] and "settle_rest" not in rest["ignored_args"]
    )


def test_over_http_the_same_file_twice_is_one_revision_that_says_unchanged(http, tmp_path):
    uri = "issue56/http-twice.csv"
    path = _ledger(tmp_path, "twice.csv")
    first = ingest(http, path, uri)
    second = ingest(http, path, uri)
    assert (first["revision"], second["revision"], second["state"]) == (1, 1, "ready")
    assert second["warnings"][0].startswith("unchanged: the same bytes") and "revision 1" in second["warnings"][0]
    got = http.post("/v1/knowledge.get", json={"source_uri": uri}).json()
    assert got["revision"] == 1
    assert len(_dataset(http, uri)["questions"]) == 3  # the first revision's, no carried_approval beside them


def test_over_mcp_settle_rest_answers_one_question_and_accepts_the_rest(server, http, tmp_path):
    uri = "issue56/mcp-ledger.csv"
    assert ingest(http, _ledger(tmp_path, "mcp.csv"), uri)["state"] == "ready"
    snapshot = _dataset(http, uri)["snapshot_id"]

    async def session_run() -> dict:
        async with streamable_http_client(server.url + "/mcp") as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                body = {"source_uri": uri, "snapshot_id": snapshot, "formats": {"Date": "MDY"}, "settle_rest": True}
                preview = await session.call_tool("loom_knowledge_dataset_approve", {**body, "dry_run": True})
                assert not preview.is_error, preview.content
                assert [s["column"] for s in preview.structured_content["settled"]] == ["Amount", "VAT"]
                assert [a["column"] for a in preview.structured_content["answered"]] == ["Date"]
                done = await session.call_tool("loom_knowledge_dataset_approve", body)
                assert not done.is_error, done.content
                return done.structured_content

    done = anyio.run(session_run)
    assert [s["column"] for s in done["settled"]] == ["Amount", "VAT"] and done["dataset"]["approved"]
    assert {c["name"]: c["format"] for c in _dataset(http, uri)["columns"]}["Date"] == "%m/%d/%Y"
