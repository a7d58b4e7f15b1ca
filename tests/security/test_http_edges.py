"""The edges of the HTTP layer a hostile caller reaches first (issue 30): a URL past what the
server reads, bytes that are no HTTP, a call that runs out of memory. Each is answered with the
SPEC §2 envelope and the server goes on serving."""

from __future__ import annotations

import dataclasses
import json
import socket

import pytest
from fastapi.testclient import TestClient

import tabular
from tabular.errors import TooLarge
from tabular.ops import REGISTRY
from tabular.service.http import create_app


def _envelope(answer, status: int, code: str) -> dict:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/json"), answer.headers
    detail = answer.json()["detail"]
    assert detail["code"] == code and detail["request_id"], detail
    return detail


def test_a_url_past_max_url_bytes_is_413_in_the_envelope(acme):
    detail = _envelope(acme.get("/v1/knowledge.list?" + "a" * 20_000), 413, "TOO_LARGE")
    assert "max_url_bytes" in detail["message"]
    assert acme.post("/v1/knowledge.list", json={}).status_code == 200


def _raw(server, request: bytes) -> tuple[bytes, dict]:
    """Send bytes as they are (httpx refuses a URL past 64 KiB) and read the whole answer."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(request)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400"), answer[:300]
    assert b"content-type: application/json" in head.lower(), head
    return head, json.loads(body)["detail"]


@pytest.mark.parametrize("size", [70_000, 100_000, 400_000])
def test_a_url_past_what_the_parser_reads_is_400_in_the_envelope(two_orgs, acme, size):
    # uvicorn answered these with a plain-text "Invalid HTTP request received."
    request = b"GET /v1/knowledge.list?" + b"a" * size + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    _, detail = _raw(two_orgs, request)
    assert detail["code"] == "VALIDATION_FAILED" and detail["request_id"], detail
    assert "max_url_bytes" in detail["message"]
    assert acme.post("/v1/knowledge.list", json={}).status_code == 200


@pytest.mark.parametrize(
    "raw",
    [b"GARBAGE\r\n\r\n", b"GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n", b"\x00\x01\x02\xff\r\n\r\n"],
)
def test_bytes_that_are_no_http_get_the_envelope(two_orgs, acme, raw):
    _, detail = _raw(two_orgs, raw)
    assert detail["code"] == "VALIDATION_FAILED", detail
    assert acme.post("/v1/knowledge.list", json={}).status_code == 200


@pytest.fixture
def out_of_memory(monkeypatch):
    """knowledge.list whose work asks for more memory than there is."""

    def boom(ctx, body):
        raise MemoryError

    monkeypatch.setitem(REGISTRY, "knowledge.list", dataclasses.replace(REGISTRY["knowledge.list"], fn=boom))


def test_running_out_of_memory_in_an_op_is_413_and_the_engine_serves_on(tmp_path, monkeypatch):
    with tabular.connect(str(tmp_path / "home")) as engine:
        real = REGISTRY["knowledge.list"]

        def boom(ctx, body):
            raise MemoryError

        monkeypatch.setitem(REGISTRY, "knowledge.list", dataclasses.replace(real, fn=boom))
        with pytest.raises(TooLarge, match="more memory"):
            engine.run("knowledge.list", {})
        monkeypatch.setitem(REGISTRY, "knowledge.list", real)
        assert engine.run("knowledge.list", {}).rows == []


def test_running_out_of_memory_over_http_is_413_not_a_dead_request(tmp_path, out_of_memory):
    with (
        tabular.connect(str(tmp_path / "home")) as engine,
        TestClient(create_app(engine, mcp=False), base_url="http://127.0.0.1") as client,
    ):
        detail = _envelope(client.post("/v1/knowledge.list", json={}), 413, "TOO_LARGE")
        assert "memory" in detail["message"]
        assert client.get("/healthz").status_code == 200
