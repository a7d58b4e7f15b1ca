"""A plan is closed (SPEC §2, issue 32): the same mistaken plans, a key that is no clause at the
top, inside a clause, inside a nested plan, refused at the same path with the same did-you-mean
over HTTP, MCP (streamable HTTP), Python (tabular.Client and the embedded engine) and the CLI
(exit 2), and never answered with the key only named in `ignored_args`."""

from __future__ import annotations

import io
import json
import sys

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

import tabular
from tabular import cli

from .support import CSV, ingest

SOURCE = {"source_uri": "files/closed-currency.csv"}
# (plan, the path refused, a did-you-mean it must offer or None)
CASES = [
    ({"datasets": [SOURCE], "filters": [{"column": "item", "op": "eq", "value": "x"}]}, "filters", None),
    ({"datasets": [SOURCE], "group-by": [{"column": "item"}]}, "group-by", "group_by"),
    ({"datasets": [SOURCE], "where": [{"column": "item", "op": "eq", "vlue": "x"}]}, "where[0].vlue", "value"),
    ({"datasets": [SOURCE], "aggregates": [{"fn": "count", "colum": "item"}]}, "aggregates[0].colum", "column"),
    (
        {"datasets": [{"plan": {"datasets": [SOURCE], "aggregate": [{"fn": "count"}]}, "alias": "t"}]},
        "datasets[0].plan.aggregate",
        "aggregates",
    ),
    (
        {
            "datasets": [{**SOURCE, "alias": "a"}, {**SOURCE, "alias": "b"}],
            "joins": [{"alias": "b", "on": [{"left": "a.item", "right": "b.item", "opp": "eq"}]}],
        },
        "joins[0].on[0].opp",
        "op",
    ),
]
IDS = [c[1] for c in CASES]


@pytest.fixture(scope="module")
def served(server, http):
    assert ingest(http, CSV / "currency.csv", SOURCE["source_uri"])["state"] == "ready"
    return server


def _check(errors: list[dict], path: str, near: str | None) -> None:
    at = {e["path"]: e for e in errors}
    assert path in at, errors
    if near:
        assert near in at[path].get("did_you_mean", []), at[path]


@pytest.mark.parametrize("plan, path, near", CASES, ids=IDS)
def test_http_refuses_it(served, http, plan, path, near):
    r = http.post("/v1/knowledge.query", json=plan)
    assert r.status_code == 422 and r.json()["detail"]["code"] == "VALIDATION_FAILED"
    _check(r.json()["detail"]["errors"], path, near)


@pytest.mark.parametrize("plan, path, near", CASES, ids=IDS)
def test_the_python_client_refuses_it(served, plan, path, near):
    with tabular.Client(served.url) as client, pytest.raises(tabular.ValidationFailed) as refused:
        client.call("knowledge.query", plan)
    _check([e.to_dict() for e in refused.value.errors], path, near)


def test_mcp_refuses_each(served):
    async def session_run() -> None:
        async with streamable_http_client(served.url + "/mcp") as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                for plan, path, near in CASES:
                    got = await session.call_tool("loom_knowledge_query", plan)
                    assert got.is_error, plan
                    detail = got.structured_content["detail"]
                    assert detail["code"] == "VALIDATION_FAILED"
                    _check(detail["errors"], path, near)

    anyio.run(session_run)


@pytest.mark.parametrize("plan, path, near", CASES, ids=IDS)
def test_the_embedded_engine_and_the_cli_refuse_it(tmp_path, capsys, monkeypatch, plan, path, near):
    home = tmp_path / "home"
    with tabular.connect(str(home)) as engine:
        ns = engine.namespace(engine.context.settings.default_org, engine.context.settings.default_namespace)
        assert ns.ingest_file(CSV / "currency.csv", source_uri=SOURCE["source_uri"]).state == "ready"
        with pytest.raises(tabular.ValidationFailed) as refused:
            ns.query(plan)
        _check([e.to_dict() for e in refused.value.errors], path, near)
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(plan)))
    capsys.readouterr()
    try:
        code = cli.main(["--home", str(home), "query", "-"])
    except SystemExit as exit_:
        code = exit_.code
    out = capsys.readouterr()
    assert code == 2, (out.out, out.err)
    assert path in out.err + out.out
