"""Every JSON-RPC request MCP receives over HTTP is answered once (tabular/service/jsonrpc.py):
bodies posted to `/mcp` of the real server, which answered an input the op route refuses 422
with a bare JSON-RPC -32700. The lines they are made of are stdio's too (test_stdio.py)."""

from __future__ import annotations

import json

import httpx
import pytest

HANG_GUARD = 60  # seconds a reply may take before the test calls it missing (no timing is asserted)


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def call(request_id, arguments: str, tool: str = "loom_knowledge_list") -> str:
    """A tools/call line whose arguments are `arguments`, as written (it may be no JSON at all)."""
    return (
        f'{{"jsonrpc":"2.0","id":{json.dumps(request_id)},"method":"tools/call",'
        f'"params":{{"name":"{tool}","arguments":{arguments}}}}}'
    )


def detail(reply: dict) -> dict:
    """The SPEC §2 envelope of a tool's error result, checked to be one."""
    result = reply["result"]
    assert result["isError"] is True
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    return result["structuredContent"]["detail"]


LINES = {
    # id: (line, what answers it)
    "deep-70": (call("deep-70", f'{{"x":{deep(70)}}}'), "VALIDATION_FAILED"),
    "deep-200": (call("deep-200", f'{{"x":{deep(200)}}}'), "VALIDATION_FAILED"),
    "deep-5000": (call("deep-5000", f'{{"x":{deep(5000)}}}'), "VALIDATION_FAILED"),  # past what a parser recurses
    "surrogate": (call("surrogate", '{"namespace":"\\ud800"}'), "VALIDATION_FAILED"),
    "surrogate-key": (call("surrogate-key", '{"\\udc00":1}'), "VALIDATION_FAILED"),
    "too-large": (call("too-large", '{"namespace":"' + "x" * 40_000 + '"}'), "TOO_LARGE"),
    "cut-short": ('{"jsonrpc":"2.0","id":"cut-short","method":"tools/call","params":{"name":', -32700),
    "no-method": ('{"jsonrpc":"2.0","id":"no-method","params":{}}', -32600),
    7: ('{"jsonrpc":"2.0","id":7,"method":"tools/list"', -32700),  # a number id, recovered from a cut line
}


HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.mark.parametrize("request_id", ["deep-200", "deep-5000", "surrogate", "surrogate-key"])
def test_mcp_over_http_answers_an_input_past_a_limit_with_the_envelope(server, request_id):
    # The op route answered these 422; /mcp answered a bare JSON-RPC -32700 without the envelope.
    line, code = LINES[request_id]
    got = httpx.post(server.url + "/mcp", content=line.encode(), headers=HEADERS, timeout=HANG_GUARD)
    assert got.status_code == 200, got.text
    assert got.json()["id"] == request_id
    assert detail(got.json())["code"] == code


@pytest.mark.parametrize("request_id", ["cut-short", "no-method", 7])
def test_mcp_over_http_answers_a_malformed_message_with_its_id(server, request_id):
    line, code = LINES[request_id]
    got = httpx.post(server.url + "/mcp", content=line.encode(), headers=HEADERS, timeout=HANG_GUARD)
    assert got.status_code == 400
    assert got.json()["id"] == request_id and got.json()["error"]["code"] == code


def test_mcp_over_http_answers_a_refused_notification_with_the_envelope(server):
    # HTTP answers every request: a notification no JSON-RPC reply answers gets the SPEC's envelope.
    line = '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"\\ud800"}}'
    got = httpx.post(server.url + "/mcp", content=line.encode(), headers=HEADERS, timeout=HANG_GUARD)
    assert got.status_code == 422 and got.json()["detail"]["errors"][0]["path"] == "params.reason"
