"""The server side of the ClickHouse backend (tabular/clickhouse.py, `_Server`): what it sends
through clickhouse-connect. No ClickHouse server runs in the tests, so the client is a stand-in
that records every call and answers it with chdb (the same engine, in process): the statements,
parameters and the Parquet upload of a local snapshot are the ones a server would get."""

from __future__ import annotations

import tempfile
from dataclasses import replace

import pytest

pytest.importorskip("chdb")
pytest.importorskip("clickhouse_connect")

from conftest import ROOT

import tabular
from tabular.backends import clickhouse
from tabular.ops.query import QueryIn, query


class StandIn:
    """clickhouse_connect's client, answered by chdb."""

    def __init__(self, **kwargs):
        self.kwargs = kwargs
        self.calls: list[tuple] = []
        self.chdb = clickhouse._Chdb.shared(tempfile.mkdtemp(prefix="chdb-"))
        self.server_version = "26.9 (stand-in)"

    def query_arrow(self, sql, parameters=None, settings=None):
        self.calls.append(("query_arrow", sql, parameters, settings))
        return self.chdb.query(sql, parameters or {})

    def command(self, sql, parameters=None):
        self.calls.append(("command", sql, parameters))
        self.chdb.command(sql, parameters)

    def raw_insert(self, table, column_names, insert_block=None, fmt=None):
        self.calls.append(("raw_insert", table, list(column_names), fmt))
        with tempfile.NamedTemporaryFile(suffix=".parquet") as copy:
            copy.write(insert_block.read())
            copy.flush()
            self.chdb.load(table, list(column_names), copy.name)


def test_a_server_gets_settings_statements_and_the_parquet(tmp_path, monkeypatch):
    import clickhouse_connect

    made: list[StandIn] = []
    monkeypatch.setattr(clickhouse_connect, "get_client", lambda **kw: made.append(StandIn(**kw)) or made[-1])
    engine = tabular.connect(
        str(tmp_path / "home"),
        query_engine="clickhouse",
        clickhouse_host="ch.example",
        clickhouse_port=8443,
        clickhouse_user="loader",
        clickhouse_secure=1,
        clickhouse_database="knowledge",
    )
    ns = engine.namespace("acme", "finance")
    assert ns.ingest_file(ROOT / "fixtures" / "query" / "orders.csv", source_uri="orders.csv").state == "ready"
    plan = {
        "datasets": [{"source_uri": "orders.csv"}],
        "where": [{"column": "note", "op": "contains", "value": "gift\\", "ignore_case": True}],
        "group_by": [{"column": "region"}],
        "aggregates": [{"fn": "sum", "column": "amount"}, {"fn": "count"}],
    }
    got = ns.query(plan)
    (client,) = made
    assert client.kwargs["host"] == "ch.example" and client.kwargs["port"] == 8443 and client.kwargs["secure"] is True
    assert client.kwargs["username"] == "loader" and client.kwargs["settings"]["join_use_nulls"] == 1
    assert got.receipt.engine == "clickhouse 26.9 (stand-in) (server ch.example:8443)"
    kinds = [c[0] for c in client.calls]
    assert kinds[0] == "command" and "raw_insert" in kinds  # the database, then the snapshot sent as Parquet
    insert = next(c for c in client.calls if c[0] == "raw_insert")
    assert insert[1].startswith('"knowledge".') and insert[2][0] == "__row_id" and insert[3] == "Parquet"
    run = client.calls[-1]
    assert (
        run[0] == "query_arrow"
        and run[1] == got.receipt.sql
        and run[3] == {"max_execution_time": engine.settings.query_seconds}
    )
    assert "gift\\" in run[2].values()  # parameters go to the client as values; it binds them
    duck = replace(engine.context, settings=replace(engine.settings, query_engine="duckdb"))
    same = query(duck, QueryIn.model_validate({"org": "acme", "namespace": "finance", **plan}))
    assert same.rows == got.rows and same.columns == got.columns
    # A second plan on the same snapshot loads nothing again.
    before = len(client.calls)
    ns.query({**plan, "limit": 1})
    assert [c[0] for c in client.calls[before:]] == ["query_arrow"]
    engine.close()


def test_past_its_time_limit_a_plan_is_stopped_and_the_next_one_runs(tmp_path):
    """ClickHouse's max_execution_time is the plan's query_seconds: past it the answer is 504
    BACKEND_TIMEOUT, as on DuckDB; loading a snapshot is not held to it, and the session that
    timed out answers the next plan."""
    engine = tabular.connect(str(tmp_path / "home"), query_engine="clickhouse", query_seconds=1e-6)
    ns = engine.namespace("acme", "slow")
    for name in ("orders", "items", "customers"):
        assert ns.ingest_file(ROOT / "fixtures" / "query" / f"{name}.csv", source_uri=f"{name}.csv").state == "ready"
    plan = {
        "datasets": [
            {"source_uri": "orders.csv", "alias": "o"},
            {"source_uri": "items.csv", "alias": "i"},
            {"source_uri": "customers.csv", "alias": "c"},
        ],
        "joins": [
            {"alias": "i", "on": [{"left": "o.order_id", "right": "i.order_id"}]},
            {"alias": "c", "on": [{"left": "o.customer_id", "right": "c.customer_id"}]},
        ],
        "group_by": [{"column": "c.segment"}],
        "aggregates": [{"fn": "median", "column": "i.price"}, {"fn": "count_distinct", "column": "i.sku"}],
    }
    with pytest.raises(tabular.TabularError) as caught:
        ns.query(plan)
    assert caught.value.code == "BACKEND_TIMEOUT" and caught.value.status == 504
    relaxed = replace(engine.context, settings=replace(engine.settings, query_seconds=30.0))
    got = query(relaxed, QueryIn.model_validate({"org": "acme", "namespace": "slow", **plan}))
    assert got.rows and got.receipt.engine.startswith("clickhouse ")
    engine.close()


def test_a_server_that_does_not_answer_is_503_not_internal(tmp_path):
    """Nothing listens on the port: the query answers OVERLOADED with a Retry-After (the backend
    is unavailable for now, the caller's to retry), never INTERNAL."""
    import socket

    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    engine = tabular.connect(
        str(tmp_path / "home"), query_engine="clickhouse", clickhouse_host="127.0.0.1", clickhouse_port=port
    )
    ns = engine.namespace("acme", "finance")
    assert ns.ingest_file(ROOT / "fixtures" / "query" / "orders.csv", source_uri="orders.csv").state == "ready"
    with pytest.raises(tabular.TabularError) as raised:
        ns.query({"datasets": [{"source_uri": "orders.csv"}], "aggregates": [{"fn": "count"}]})
    assert (raised.value.code, raised.value.status) == ("OVERLOADED", 503)
    assert f"127.0.0.1:{port}" in raised.value.message and raised.value.retry_after >= 1
    engine.close()
