"""tabular/client.py: the HTTP client, its typed errors from the SPEC §2 envelope, which calls it
sends again and which never, and the namespace methods over HTTP."""

import json

import httpx
import pytest
from fastapi.testclient import TestClient

import tabular
from tabular.client import Client, error_from
from tabular.errors import BackendTimeout, Internal, NotFound, Overloaded, TabularError
from tabular.service.http import create_app


def envelope(status: int, code: str, headers=None, **detail) -> httpx.Response:
    body = {"detail": {"code": code, "message": f"{code} said", "request_id": "req_1", **detail}}
    return httpx.Response(status, json=body, headers=headers)


class Replies:
    """A transport answering from a list, one reply per request, and remembering the requests."""

    def __init__(self, *replies: httpx.Response):
        self.replies, self.requests = list(replies), []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.replies.pop(0)


def client(replies: Replies, **kw) -> Client:
    return Client("http://tabular.test/", token="t0k", backoff=0, transport=httpx.MockTransport(replies), **kw)


def test_an_error_answer_raises_its_typed_error_with_the_request_id():
    err = error_from(
        envelope(
            404,
            "RESOURCE_NOT_FOUND",
            errors=[{"path": "source_uri", "message": "no source", "did_you_mean": ["a.csv"]}],
        )
    )
    assert isinstance(err, NotFound) and (err.code, err.status, err.request_id) == ("RESOURCE_NOT_FOUND", 404, "req_1")
    assert [(e.path, e.did_you_mean) for e in err.errors] == [("source_uri", ["a.csv"])]


def test_an_answer_that_is_no_envelope_is_internal():
    err = error_from(httpx.Response(502, text="<html>bad gateway</html>"))
    assert err.code == "INTERNAL" and err.status == 502 and "HTTP 502" in err.message
    assert isinstance(err, TabularError)


def test_the_token_is_sent_as_a_bearer_and_the_body_as_json():
    replies = Replies(httpx.Response(200, json={"found": False}))
    assert client(replies).call("knowledge.get", {"source_uri": "a.csv"}) == {"found": False}
    [request] = replies.requests
    assert request.headers["authorization"] == "Bearer t0k" and request.url.path == "/v1/knowledge.get"
    assert json.loads(request.content) == {"source_uri": "a.csv"}


def test_back_pressure_is_waited_out_for_any_op():
    replies = Replies(envelope(503, "OVERLOADED", headers={"retry-after": "0"}), httpx.Response(200, json={"ok": 1}))
    assert client(replies).call("knowledge.delete", {"source_uri": "a.csv"}) == {"ok": 1}
    assert len(replies.requests) == 2


def test_a_5xx_is_retried_only_for_an_op_safe_to_repeat():
    replies = Replies(envelope(500, "INTERNAL"), httpx.Response(200, json={"found": False}))
    assert client(replies).call("knowledge.get", {"source_uri": "a.csv"}) == {"found": False}
    replies = Replies(envelope(500, "INTERNAL"))
    with pytest.raises(TabularError) as err:
        client(replies).call("knowledge.upload", {"filename": "a.csv", "content_base64": ""})
    assert (err.value.code, err.value.status) == ("INTERNAL", 500)
    assert len(replies.requests) == 1


def test_an_internal_error_is_the_engines_internal_class():
    assert isinstance(error_from(envelope(500, "INTERNAL")), Internal)


def test_a_backend_timeout_is_not_sent_again():
    replies = Replies(envelope(504, "BACKEND_TIMEOUT"))
    with pytest.raises(BackendTimeout):
        client(replies).call("knowledge.query", {"datasets": [{"source_uri": "a.csv"}]})
    assert len(replies.requests) == 1


def test_retries_end_with_the_last_error():
    replies = Replies(*[envelope(503, "OVERLOADED", headers={"retry-after": "0"}) for _ in range(3)])
    with pytest.raises(Overloaded):
        client(replies, retries=2).call("knowledge.get", {"source_uri": "a.csv"})
    assert len(replies.requests) == 3


def test_an_ingest_carries_an_idempotency_key_so_it_may_be_sent_again():
    replies = Replies(envelope(500, "INTERNAL"), httpx.Response(200, json={"ingestion_id": "i_1"}))
    client(replies).call("knowledge.ingest", {"upload_id": "u_1", "source_uri": "a.csv"})
    first, second = (json.loads(r.content) for r in replies.requests)
    assert first["idempotency_key"].startswith("c_") and second["idempotency_key"] == first["idempotency_key"]


def test_a_remote_namespace_ingests_and_queries_as_the_embedded_one(tmp_path):
    path = tmp_path / "prices.csv"
    path.write_text("item,amount\npen,1.50\nink,2.25\n")
    with tabular.connect(str(tmp_path / "home")) as engine, Client("http://127.0.0.1") as remote:
        remote.http = TestClient(create_app(engine, mcp=False), base_url="http://127.0.0.1")
        ns = remote.namespace("acme", "finance")
        assert ns.ingest_file(path, source_uri="prices.csv", progress=False).state == "ready"
        got = ns.query({"datasets": [{"source_uri": "prices.csv"}], "aggregates": [{"fn": "sum", "column": "amount"}]})
        assert got.rows == [["3.75"]]
        assert engine.namespace("acme", "finance").dataset_get("prices.csv").found
        assert not engine.namespace("acme", "other").dataset_get("prices.csv").found
