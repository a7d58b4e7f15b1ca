"""tabular/service/calls.py: a request's JSON body read, an op run for a caller (its role, the
in-flight limits, the audit line), and a failure's envelope."""

import asyncio
import json
import logging

import pytest

import tabular
from tabular.errors import AuthInsufficient, Overloaded, RateLimited, TooLarge, ValidationFailed
from tabular.ops import REGISTRY
from tabular.service.auth import Grant, Tokens
from tabular.service.calls import JsonNumber, Service, audit, error_response, parse_body


def test_an_empty_body_is_an_empty_object():
    assert parse_body(b"") == {} and parse_body(b"  \n") == {}


def test_a_number_keeps_the_digits_it_was_written_with():
    body = parse_body(b'{"x": 0.10, "n": 3}')
    assert isinstance(body["x"], JsonNumber) and body["x"] == 0.1 and body["x"].text == "0.10"
    assert body["n"] == 3 and type(body["n"]) is int


@pytest.mark.parametrize("raw", [b"{not json", b'{"x": NaN}', b'{"x": Infinity}'])
def test_a_body_that_is_not_json_is_400(raw):
    with pytest.raises(ValidationFailed) as err:
        parse_body(raw)
    assert err.value.status == 400 and err.value.errors[0].expected == "a JSON object"


def test_a_body_that_is_no_object_is_refused_saying_what_it_is():
    with pytest.raises(ValidationFailed) as err:
        parse_body(b"[1, 2]")
    assert err.value.status == 422 and err.value.errors[0].received == "list"


def test_a_failure_is_the_envelope_with_its_status_and_retry_after():
    answer = error_response(RateLimited("slow down", retry_after=7), "req_1")
    assert answer.status_code == 429 and answer.headers["retry-after"] == "7"
    detail = json.loads(answer.body)["detail"]
    assert (detail["code"], detail["message"], detail["request_id"]) == ("RATE_LIMITED", "slow down", "req_1")
    assert "retry-after" not in error_response(TooLarge("big"), "req_2").headers


def test_a_write_is_audited_and_a_read_is_not(caplog):
    grant = Grant("alice", "acme", ("*",), "writer")
    body = {"org": "acme", "namespace": "fin"}
    with caplog.at_level(logging.INFO, logger="tabular.audit"):
        audit(REGISTRY["knowledge.ingest"], grant, body, "req_1", 422, "VALIDATION_FAILED")
        audit(REGISTRY["knowledge.query"], grant, body, "req_2", 200, None)
    [line] = [json.loads(r.getMessage()) for r in caplog.records if r.name == "tabular.audit"]
    assert line == {
        "op": "knowledge.ingest",
        "caller": "alice",
        "org": "acme",
        "namespace": "fin",
        "request_id": "req_1",
        "status": 422,
        "code": "VALIDATION_FAILED",
    }


@pytest.fixture
def service(tmp_path):
    with tabular.connect(str(tmp_path / "home"), max_inflight=1, overload_wait_seconds=0) as engine:
        yield Service(engine, Tokens(engine.settings))


def test_an_op_runs_for_the_caller_through_the_engine(service):
    out = asyncio.run(service.run(REGISTRY["knowledge.formats"], {}, service.tokens.local, "req_1"))
    assert "csv" in [f.name for f in out.formats]


def test_a_role_below_the_ops_is_refused_and_audited(service, caplog):
    viewer = Grant("vic", "acme", ("*",), "viewer")
    with caplog.at_level(logging.INFO, logger="tabular.audit"), pytest.raises(AuthInsufficient):
        asyncio.run(service.run(REGISTRY["knowledge.delete"], {"source_uri": "x"}, viewer, "req_1"))
    [line] = [json.loads(r.getMessage()) for r in caplog.records if r.name == "tabular.audit"]
    assert (line["caller"], line["code"], line["status"]) == ("vic", "AUTH_INSUFFICIENT", 403)


def test_a_call_past_the_in_flight_limit_is_503_with_retry_after(service):
    async def two_calls():
        release = await service.hold("acme")  # the one slot is taken
        try:
            await service.run(REGISTRY["knowledge.formats"], {}, service.tokens.local, "req_2")
        finally:
            release()

    with pytest.raises(Overloaded) as err:
        asyncio.run(two_calls())
    assert err.value.status == 503 and err.value.retry_after == service.settings.retry_after_seconds
    # once given back, the slot serves the next call
    assert asyncio.run(service.run(REGISTRY["knowledge.formats"], {}, service.tokens.local, "req_3")).formats


def test_a_client_gone_before_the_first_byte_is_logged_as_gone_not_as_a_timeout(tmp_path, caplog):
    """A whole result whose client went away while its first batch was computed (a sum over a
    self-join of 10^10 rows) has its statement interrupted; DuckDB's interrupt was read as the
    watchdog's, and the call ended 504 BACKEND_TIMEOUT "ran past export_seconds", a timeout an
    operator would chase. It ends 499, "client closed request", said once in the server's log."""
    from tabular.service import create_app

    with tabular.connect(str(tmp_path / "home"), export_seconds=600) as engine:
        path = tmp_path / "same.csv"
        path.write_text("k,v\n" + "".join(f"1,{i}\n" for i in range(100_000)))
        assert engine.namespace("default", "default").ingest_file(path, source_uri="same.csv").state == "ready"
        plan = {
            "datasets": [{"source_uri": "same.csv", "alias": "a"}, {"source_uri": "same.csv", "alias": "b"}],
            "joins": [{"alias": "b", "on": [{"left": "a.k", "right": "b.k"}]}],
            "aggregates": [{"fn": "sum", "column": "b.v"}],
            "format": "csv",
        }
        app = create_app(engine, mcp=False)
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": "/v1/knowledge.query_export",
            "raw_path": b"/v1/knowledge.query_export",
            "query_string": b"",
            "root_path": "",
            "headers": [
                (b"host", b"127.0.0.1"),
                (b"content-type", b"application/json"),
                (b"x-request-id", b"req_gone"),
            ],
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 8765),
        }

        async def gone_client() -> list[dict]:
            sent: list[dict] = []
            bodies = [{"type": "http.request", "body": json.dumps(plan).encode(), "more_body": False}]

            async def receive() -> dict:
                if bodies:
                    return bodies.pop()
                await asyncio.sleep(1)  # the statement runs: its first batch is the whole sum
                return {"type": "http.disconnect"}

            async def send(message: dict) -> None:
                sent.append(message)

            await app(scope, receive, send)
            return sent

        with caplog.at_level(logging.INFO, logger="tabular"):
            sent = asyncio.run(gone_client())
    said = [r.getMessage() for r in caplog.records if r.name.startswith("tabular")]
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 499  # to no one: it was 504
    [line] = [s for s in said if "req_gone" in s]
    assert "499" in line and "client closed request" in line and "knowledge.query_export" in line
    assert not any("export_seconds" in s or "BACKEND_TIMEOUT" in s for s in said)
