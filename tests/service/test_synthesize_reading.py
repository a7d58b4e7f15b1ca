"""knowledge.synthesize's reading and confidence (SPEC §4, issue 55) on every transport of the
service: the op route over HTTP, MCP's tools/call at /mcp, and the web page's Ask view, from one
app in process, so a test can give the confidence model a score of its own (monkeypatch) and see
the low_confidence question reach each of them."""

from __future__ import annotations

import html
import json

import pytest
from fastapi.testclient import TestClient

from tabular.engine import Engine
from tabular.ops import synthesize_reading
from tabular.service.http import create_app
from tabular.settings import Settings
from tabular.synthesize.confidence import Confidence

from .support import CSV

BASE = "http://127.0.0.1:8000"
TASK = "What is the total amount sold in the north region?"
BODY = {"task": TASK, "datasets": ["files/sales.csv"]}
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    settings = Settings()
    engine = Engine(str(tmp_path_factory.mktemp("reading") / "home"), settings)
    ns = engine.namespace(settings.default_org, settings.default_namespace)
    assert ns.ingest_file(CSV / "sales.csv", source_uri="files/sales.csv").state == "ready"
    with TestClient(create_app(engine), base_url=BASE) as c:
        yield c
    engine.close()


@pytest.fixture
def unsure(monkeypatch):
    """The confidence model scores every reading 0.41 against a threshold of 0.9."""

    def judge(features, max_wrong):
        return Confidence(score=0.41, wrong_bound=0.02, calibrated_on="calibrate (900 questions)", threshold=0.9)

    monkeypatch.setattr(synthesize_reading, "judge", judge)


def over_http(client) -> dict:
    r = client.post("/v1/knowledge.synthesize", json=BODY)
    assert r.status_code == 200, r.text
    return r.json()


def over_mcp(client) -> dict:
    line = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "loom_knowledge_synthesize", "arguments": BODY},
    }
    r = client.post("/mcp", content=json.dumps(line), headers=MCP_HEADERS)
    assert r.status_code == 200, r.text
    result = r.json()["result"]
    assert not result.get("isError"), result
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    return result["structuredContent"]


READING = "the total of amount in files/sales.csv where region is north, any case"


@pytest.mark.parametrize("transport", [over_http, over_mcp], ids=["http", "mcp"])
def test_an_answer_carries_its_reading_and_confidence(client, transport):
    out = transport(client)
    assert not out["abstain"], out
    [calc] = out["calculations"]
    assert calc["reading"] == READING
    assert set(calc["confidence"]) == {"score", "wrong_bound", "calibrated_on"}
    assert 0 <= calc["confidence"]["score"] <= 1 and calc["confidence"]["calibrated_on"]
    assert "features" not in calc


@pytest.mark.parametrize("transport", [over_http, over_mcp], ids=["http", "mcp"])
def test_a_reading_under_the_threshold_asks_to_confirm_it(client, unsure, transport):
    out = transport(client)
    assert out["abstain"] and out["abstain_reason"] == "low_confidence" and out["answer"] == ""
    assert out["clarification"] == (
        f"I read this as: {READING} (confidence 0.41, below the 0.90 this answer needs): is that what you mean?"
    )
    [calc] = out["calculations"]
    assert calc["reading"] == READING and calc["confidence"]["score"] == 0.41 and calc["rows"]


def test_the_ask_page_shows_the_reading_and_the_score(client):
    page = client.get("/ui/ask", params={"task": TASK, "sources": "files/sales.csv"}).text
    answered = html.unescape(page.split('id="synthesized"', 1)[1])
    assert f"Read as: {READING}" in answered
    assert "Confidence 0." in answered and "of answers this sure are wrong (measured on " in answered


def test_the_ask_page_asks_to_confirm_a_reading_under_the_threshold(client, unsure):
    page = client.get("/ui/ask", params={"task": TASK, "sources": "files/sales.csv"}).text
    asked = html.unescape(page.split('id="confirm-reading"', 1)[1].split("</p>", 1)[0])
    assert "low_confidence" in asked and f"I read this as: {READING} (confidence 0.41, below the 0.90" in asked
    answered = html.unescape(page.split('id="synthesized"', 1)[1])
    assert f"Read as: {READING}" in answered and "Confidence 0.41: at most 2.0% of answers" in answered
