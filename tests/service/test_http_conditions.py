"""Issue 56: the words of a result say every condition as it ran, over HTTP and MCP. The plan of
"how many orders were paid" matched `paid` and `PAID` (case ignored): the answer says so, where
it said "status = PAID"; a negation says the empty rows it leaves out."""

from __future__ import annotations

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from .support import ingest

URI = "conditions/orders.csv"
ROWS = "id,status,region,amount\n1,paid,north,10\n2,PAID,south,20\n3,open,north,5\n4,paid,south,7\n5,,north,1\n"
TASK = {"task": "how many orders were paid", "datasets": [URI]}


@pytest.fixture(scope="module")
def orders(http, tmp_path_factory):
    path = tmp_path_factory.mktemp("conditions") / "orders.csv"
    path.write_text(ROWS)
    got = ingest(http, path, URI)
    assert got["state"] == "ready", got
    return got


def test_the_answer_says_the_case_was_ignored_over_http(http, orders):
    answer = http.post("/v1/knowledge.synthesize", json=TASK).json()
    [calc] = answer["calculations"]
    assert calc["plan"]["where"][0]["ignore_case"] is True and calc["rows"] == [[3]]  # paid 2 + PAID 1
    assert "status is paid, any case" in answer["answer"].lower()


def test_the_answer_says_the_case_was_ignored_over_mcp(server, orders):
    async def session_run() -> None:
        async with streamable_http_client(server.url + "/mcp") as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                got = await session.call_tool("loom_knowledge_synthesize", TASK)
                assert not got.is_error, got.content
                assert "status is paid, any case" in got.structured_content["answer"].lower()

    anyio.run(session_run)


# The note heads its table with describe's words; the receipt carries answer.conditions.
def test_the_note_heads_its_table_with_every_condition_over_http(http, orders):
    answer = http.post("/v1/knowledge.synthesize", json=TASK).json()
    first = answer["calculations"][0]["note"].splitlines()[0]
    assert first.lower() == f"over {URI} where status is paid, any case:"


def test_the_receipt_says_every_condition_over_http(http, orders):
    plan = {
        "datasets": [{"source_uri": URI}],
        "where": [{"column": "status", "op": "ne", "value": "paid", "ignore_case": True}],
        "aggregates": [{"fn": "count"}],
    }
    got = http.post("/v1/knowledge.query", json=plan).json()
    assert got["rows"] == [[1]]  # open: the empty status is left out too
    assert got["receipt"]["conditions"] == ["where status is not paid, any case (rows with no status left out)"]
