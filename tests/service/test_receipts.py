"""Whole results over HTTP (issue 53): the receipt leaves the headers (its id stays: knowledge.receipt
answers it, to its own org and namespace only), and a client that goes away stops its query."""

from __future__ import annotations

import socket
import time

import httpx
import pytest

import tabular

from .support import TOKENS, Server, ingest

LONG = 500  # characters of each `in` value: 1,000 of them, inside the plan limits


@pytest.fixture(scope="module")
def codes_csv(tmp_path_factory):
    """Rows whose code is 500 characters long, so a plan's `in` of 1,000 such codes matches some."""
    path = tmp_path_factory.mktemp("codes") / "codes.csv"
    path.write_text("code,amount\n" + "".join(f"{str(i) * LONG},{i}\n" for i in range(1, 4)))
    return path


def in_plan(source_uri: str) -> dict:
    values = [str(i) * LONG for i in range(1, 4)] + [f"{i:0{LONG}d}" for i in range(997)]
    assert len(values) == 1_000 and {len(v) for v in values} == {LONG}
    return {"datasets": [{"source_uri": source_uri}], "where": [{"column": "code", "op": "in", "values": values}]}


def test_a_long_receipt_streams_and_is_fetched_by_its_id_by_its_org_only(authed, codes_csv):
    """The receipt held the SQL and every parameter in X-Tabular-Receipt: with 1,000 values of
    500 characters the headers passed what any client reads, and the project's own Client
    raised httpx.RemoteProtocolError. Now the headers carry its id (4 KB at most in all) and
    knowledge.receipt answers the whole receipt, to the org and namespace that ran it."""
    acme_token, *_ = TOKENS["acme-writer"]
    with tabular.Client(authed.url, acme_token) as client:
        ns = client.namespace("acme", "finance")
        assert ns.ingest_file(codes_csv, source_uri="files/codes.csv").state == "ready"
        plan = in_plan("files/codes.csv")
        whole = ns.query({**plan, "limit": 1}).to_arrow(whole=True)
        assert whole.num_rows == 3 and sorted(whole.column("amount").to_pylist()) == [1, 2, 3]
        receipt_id = ns.last_receipt_id
        assert receipt_id.startswith("r_")
        got = ns.receipt()
        assert got.found and got.receipt_id == receipt_id
        assert sorted(v for v in got.receipt.params.values() if isinstance(v, str) and len(v) == LONG) == sorted(
            plan["where"][0]["values"]
        )
        assert got.receipt.rows_returned == 3 and got.receipt.datasets[0].source_uri == "files/codes.csv"
        assert [c.name for c in got.columns] == ["code", "amount"]
        with authed.client(acme_token) as raw:
            body = {**plan, "format": "csv", "org": "acme", "namespace": "finance"}
            with raw.stream("POST", "/v1/knowledge.query_export", json=body) as r:
                assert r.status_code == 200
                assert sum(len(k) + len(v) + 4 for k, v in r.headers.raw) <= 4096
                assert r.headers["x-tabular-receipt-id"].startswith("r_") and "x-tabular-receipt" not in r.headers
                assert len(r.read().decode().splitlines()) == 4
    # Another org asks for the same id: as for an id no one made.
    globex_token, *_ = TOKENS["globex-writer"]
    with tabular.Client(authed.url, globex_token) as client:
        foreign = client.namespace("globex", "finance").receipt(receipt_id)
        assert not foreign.found and foreign.receipt is None and foreign.columns == []
        assert client.namespace("globex", "finance").receipt("r_" + "0" * 32).model_dump() == {
            **foreign.model_dump(),
            "receipt_id": "r_" + "0" * 32,
        }
    # The same org, another namespace: nothing either.
    admin_token, *_ = TOKENS["acme-admin"]
    with tabular.Client(authed.url, admin_token) as client:
        assert not client.namespace("acme", "elsewhere").receipt(receipt_id).found
        assert client.namespace("acme", "finance").receipt(receipt_id).found


@pytest.fixture(scope="module")
def one_slot(tmp_path_factory):
    """A single-user server serving one call at a time, whose export would run for two minutes."""
    srv = Server(
        tmp_path_factory.mktemp("one-slot") / "home", max_inflight=1, overload_wait_seconds=10, export_seconds=120
    ).start()
    yield srv
    srv.stop()


@pytest.mark.slow
def test_a_client_that_goes_away_stops_its_query(one_slot, tmp_path):
    """A query_export whose first row needs all its work (a count over a self-join of 10^10 rows)
    went on computing after its client had gone, holding its slot until export_seconds: the next
    call waited, then was refused 503. Now the statement is stopped when the client goes."""
    path = tmp_path / "same.csv"
    path.write_text("k,v\n" + "".join(f"1,{i}\n" for i in range(100_000)))
    with one_slot.client() as http:
        assert ingest(http, path, "same.csv")["state"] == "ready"
    plan = {
        "datasets": [{"source_uri": "same.csv", "alias": "a"}, {"source_uri": "same.csv", "alias": "b"}],
        "joins": [{"alias": "b", "on": [{"left": "a.k", "right": "b.k"}]}],
        "aggregates": [{"fn": "sum", "column": "b.v"}],
        "format": "csv",
    }
    body = httpx.Request("POST", f"{one_slot.url}/v1/knowledge.query_export", json=plan)
    with socket.create_connection(("127.0.0.1", one_slot.port)) as sock:
        head = "".join(f"{k}: {v}\r\n" for k, v in body.headers.items())
        sock.sendall(f"POST /v1/knowledge.query_export HTTP/1.1\r\n{head}\r\n".encode() + body.read())
        time.sleep(2)  # the statement is running (its first row is the whole sum)
    # The client has gone: the statement stops and gives its slot back, well inside the 10 s the
    # next call may wait for it (it held it 120 s).
    with one_slot.client(timeout=60) as http:
        answered = http.post("/v1/knowledge.list", json={})
    assert answered.status_code == 200, answered.text


def test_headers_stay_within_4_kb_whatever_the_columns():
    """A thousand columns' names and types do not fit: X-Tabular-Columns is left out (knowledge.receipt
    answers them), and the receipt's id is always there."""
    from types import SimpleNamespace

    from tabular.ops.query import ResultColumn
    from tabular.service.http import stream_headers

    def whole(n: int):
        columns = [ResultColumn(name=f"column number {k} " + "é" * 20, type="string") for k in range(n)]
        return SimpleNamespace(receipt_id="r_" + "0" * 32, receipt_kept=True, ignored_args=["agent"], columns=columns)

    few, many = stream_headers(whole(3)), stream_headers(whole(1_000))
    assert set(few) == {"X-Tabular-Receipt-Id", "X-Tabular-Ignored-Args", "X-Tabular-Columns"}
    assert set(many) == {"X-Tabular-Receipt-Id", "X-Tabular-Ignored-Args"}
    assert all(v.isascii() for v in few.values())  # a header is latin-1: JSON escapes the rest
    assert sum(len(k) + len(v) + 4 for k, v in many.items()) <= 4096


@pytest.mark.parametrize("leaves_after", [0, 1], ids=["before the first byte", "after the first piece"])
def test_a_client_gone_mid_stream_lets_its_statement_go(tmp_path, leaves_after):
    """The response of a whole result ends when its client goes away (Starlette cancels the
    sending): the statement is stopped and let go and the slots given back, however far the
    rows had come, where the statement was left to the garbage collector."""
    import asyncio

    from tabular.service.calls import Rows, Streamed

    with tabular.connect(str(tmp_path / "home")) as engine:
        path = tmp_path / "pairs.csv"
        path.write_text("k,v\n" + "".join(f"{i % 2},{i}\n" for i in range(2_000)))
        assert engine.namespace("acme", "finance").ingest_file(path, source_uri="pairs").state == "ready"
        plan = {
            "datasets": [{"source_uri": "pairs", "alias": "a"}, {"source_uri": "pairs", "alias": "b"}],
            "joins": [{"alias": "b", "on": [{"left": "a.k", "right": "b.k"}]}],
            "org": "acme",
            "namespace": "finance",
        }
        whole = engine.stream(plan)
        whole.format = "csv"
        released: list[bool] = []

        async def scenario() -> list[dict]:
            sent: list[dict] = []
            gone = asyncio.Event()

            async def receive() -> dict:
                await gone.wait()
                return {"type": "http.disconnect"}

            async def send(message: dict) -> None:
                sent.append(message)
                if len([m for m in sent if m["type"] == "http.response.body"]) >= leaves_after:
                    gone.set()
                await asyncio.sleep(0)

            response = Streamed(Rows(whole, lambda: released.append(True)), media_type="text/csv")
            await response({"type": "http", "asgi": {"spec_version": "2.3"}}, receive, send)
            return sent

        sent = asyncio.run(scenario())
        pieces = [m for m in sent if m["type"] == "http.response.body" and m.get("more_body")]
        assert len(pieces) <= leaves_after + 1  # 2,000,000 rows were not all sent
        assert released == [True]
        for _ in range(100):  # a thread reading it stops at the interrupt, then lets it go
            if whole.done:
                break
            time.sleep(0.05)
        assert whole.done
