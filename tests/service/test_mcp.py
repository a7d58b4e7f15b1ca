"""A real MCP client session (the `mcp` SDK) over stdio against `tabular mcp`, and over
streamable HTTP against `/mcp` of `tabular serve`."""

from __future__ import annotations

import base64
import io
import json
import os
import sys
import time

import anyio
import jsonschema
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

import tabular
from tabular import cli
from tabular.ops import EXAMPLE_IDS, REGISTRY
from tabular.service.auth import token_hash
from tabular.service.mcp import tool_name, tools

from .support import CSV, TOKENS


async def _ingest(session: ClientSession, path, source_uri: str) -> dict:
    up = await session.call_tool(
        "loom_knowledge_upload", {"filename": path.name, "content_base64": base64.b64encode(path.read_bytes()).decode()}
    )
    assert not up.is_error, up.content
    started = await session.call_tool(
        "loom_knowledge_ingest", {"upload_id": up.structured_content["upload_id"], "source_uri": source_uri}
    )
    deadline = time.monotonic() + 60
    while True:
        got = await session.call_tool(
            "loom_knowledge_ingest_status", {"ingestion_id": started.structured_content["ingestion_id"]}
        )
        if got.structured_content["state"] not in ("pending", "processing") or time.monotonic() > deadline:
            return got.structured_content
        await anyio.sleep(0.02)


def test_an_mcp_session_over_stdio_lists_every_op_and_answers(two_tenants):
    home, _ = two_tenants
    params = StdioServerParameters(command=sys.executable, args=["-m", "tabular.cli", "--home", str(home), "mcp"])

    async def session_run() -> None:
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                # Without a token: the default namespace, and a call that names its own still
                # reads there (the local user may read the whole home).
                default, named = [
                    (await session.call_tool("loom_knowledge_list", arguments)).structured_content
                    for arguments in ({}, {"org": "acme", "namespace": "finance"})
                ]
                assert _uris(default) == ["mine.csv"] and _uris(named) == ["a.csv", "b.csv"]
                tools = {t.name: t for t in (await session.list_tools()).tools}
                # Every op that answers JSON is a tool; one that streams rows (query_export) is not.
                assert set(tools) == {tool_name(name) for name, op in REGISTRY.items() if not op.streams}
                assert tool_name("knowledge.query_export") not in tools
                for name, op in REGISTRY.items():
                    if op.streams:
                        continue
                    tool = tools[tool_name(name)]
                    assert tool.description == op.description
                    assert tool.input_schema["properties"].keys() == op.input.model_json_schema()["properties"].keys()
                    assert tool.annotations.read_only_hint is (not op.writes)

                assert (await _ingest(session, CSV / "currency.csv", "files/currency.csv"))["state"] == "ready"
                got = await session.call_tool(
                    "loom_knowledge_dataset_get", {"source_uri": "files/currency.csv", "sample_rows": 1}
                )
                assert not got.is_error
                dataset = got.structured_content["datasets"][0]
                assert dataset["sample"][0]["item"] == "Desk lamp"
                # An approval that would reject every value of a column is refused at the column.
                wiped = await session.call_tool(
                    "loom_knowledge_dataset_approve",
                    {
                        "source_uri": "files/currency.csv",
                        "snapshot_id": dataset["snapshot_id"],
                        "columns": {"price_usd": "date"},
                    },
                )
                assert wiped.is_error and wiped.structured_content["detail"]["errors"][0]["path"] == "columns.price_usd"

                plan = {
                    "datasets": [{"source_uri": "files/currency.csv"}],
                    "aggregates": [{"fn": "count"}],
                    "agent": "a1",
                }
                answer = await session.call_tool("loom_knowledge_query", plan)
                assert not answer.is_error
                assert answer.structured_content["rows"] == [[6]] and answer.structured_content["ignored_args"] == [
                    "agent"
                ]
                # a plan is closed: a key that is no clause is an error at its path, never skipped
                closed = await session.call_tool("loom_knowledge_query", {**plan, "filters": []})
                assert closed.is_error and closed.structured_content["detail"]["errors"][0]["path"] == "filters"

                # Errors carry the same envelope and code as HTTP.
                bad = await session.call_tool(
                    "loom_knowledge_query",
                    {"datasets": [{"source_uri": "files/currency.csv"}], "select": [{"column": "itme"}]},
                )
                assert bad.is_error
                detail = bad.structured_content["detail"]
                assert detail["code"] == "VALIDATION_FAILED" and detail["errors"][0]["path"] == "select[0].column"
                assert "item" in detail["errors"][0]["did_you_mean"]
                unknown = await session.call_tool("loom_knowledge_qurey", {})
                assert unknown.is_error and unknown.structured_content["detail"]["code"] == "RESOURCE_NOT_FOUND"

    anyio.run(session_run)


def test_an_mcp_session_over_streamable_http(server):
    async def session_run() -> None:
        async with streamable_http_client(server.url + "/mcp") as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                assert len((await session.list_tools()).tools) == sum(not op.streams for op in REGISTRY.values())
                got = await session.call_tool("loom_knowledge_dataset_get", {"source_uri": "files/nothing.csv"})
                assert not got.is_error and got.structured_content["found"] is False
                formats = await session.call_tool("loom_knowledge_formats", {})
                assert "csv" in {f["name"] for f in formats.structured_content["formats"]}

    anyio.run(session_run)


def _query_schema() -> dict:
    return next(t.input_schema for t in tools() if t.name == tool_name("knowledge.query"))


def test_every_tools_input_schema_is_a_valid_draft_2020_12_schema():
    for tool in tools():
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)


@pytest.mark.parametrize(
    "expr",
    ["cost", 3.5, 7, {"value": "2024-01-01", "type": "date"}, {"mul": ["cost", 2]}, {"add": ["a", {"value": "1.5"}]}],
    ids=["column", "float", "integer", "typed-value", "operator", "nested"],
)
def test_a_client_that_validates_arguments_accepts_every_kind_of_expression(expr):
    # A column name once matched two branches of the expression's oneOf (a string, and an empty
    # schema for numbers): a validating client refused plans the engine takes.
    plan = {"datasets": [{"source_uri": "f"}], "compute": [{"as": "x", "expr": expr}], "select": [{"column": "x"}]}
    assert list(jsonschema.Draft202012Validator(_query_schema()).iter_errors(plan)) == []


@pytest.mark.parametrize("expr", [True, None, [1, 2]], ids=["bool", "null", "list"])
def test_a_client_that_validates_arguments_refuses_what_is_no_expression(expr):
    plan = {"datasets": [{"source_uri": "f"}], "compute": [{"as": "x", "expr": expr}]}
    assert list(jsonschema.Draft202012Validator(_query_schema()).iter_errors(plan))


def _stdio(home, *flags, env=None) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "tabular.cli", "--home", str(home), "mcp", *flags], env=env
    )


async def _listed_each(params: StdioServerParameters, *calls: dict) -> list[dict]:
    """What knowledge.list answers to each call's arguments, asked in turn of one `tabular mcp`
    (the identity is the process's, bound at its start: one process serves every call of it)."""
    answers = []
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for arguments in calls:
                got = await session.call_tool("loom_knowledge_list", arguments)
                answers.append(
                    got.structured_content if not got.is_error else {"error": got.structured_content["detail"]}
                )
    return answers


async def _listed(params: StdioServerParameters, arguments: dict | None = None) -> dict:
    (answer,) = await _listed_each(params, arguments or {})
    return answer


@pytest.fixture(scope="module")
def two_tenants(tmp_path_factory):
    """A home whose default namespace holds one source and acme/finance two, and a tokens file."""
    where = tmp_path_factory.mktemp("mcp-identity")
    tokens = where / "tokens.json"
    tokens.write_text(
        json.dumps(
            {token_hash(t): {"name": n, "org": o, "namespaces": s, "role": r} for n, (t, o, s, r) in TOKENS.items()}
        )
    )
    with tabular.connect(str(where / "home")) as engine:
        engine.namespace("default", "default").ingest_file(CSV / "currency.csv", source_uri="mine.csv")
        for uri in ("a.csv", "b.csv"):
            engine.namespace("acme", "finance").ingest_file(CSV / "currency.csv", source_uri=uri)
    return where / "home", tokens


def _uris(listed: dict) -> list[str]:
    return sorted(r["source_uri"] for r in listed["rows"])


def test_mcp_over_stdio_with_a_token_serves_the_tokens_org_and_namespace(two_tenants):
    # An agent configured with a token once saw the default namespace (rows: []) where its own
    # held its sources: the token binds the identity as a bearer header does over HTTP.
    home, tokens = two_tenants
    env = {**os.environ, "TABULAR_TOKENS": str(tokens)}
    assert _uris(anyio.run(_listed, _stdio(home, "--token", "tok-acme-writer", env=env))) == ["a.csv", "b.csv"]
    # ... and from the environment, as the CLI's other commands read it.
    env_token = {**env, "TABULAR_TOKEN": "tok-acme-viewer"}
    assert _uris(anyio.run(_listed, _stdio(home, env=env_token))) == ["a.csv", "b.csv"]
    # Another org, named in a call, is refused as over HTTP.
    refused, own = anyio.run(_listed_each, _stdio(home, "--token", "tok-globex-writer", env=env), {"org": "acme"}, {})
    assert refused["error"]["code"] == "AUTH_INSUFFICIENT" and refused["error"]["errors"][0]["path"] == "org"
    assert own["rows"] == []


def test_mcp_over_stdio_without_a_token_serves_the_org_and_namespace_it_is_given(two_tenants):
    # Without them, the default namespace (and a call that names another reads there):
    # test_an_mcp_session_over_stdio_lists_every_op_and_answers asks its session first.
    home, _ = two_tenants
    assert _uris(anyio.run(_listed, _stdio(home, "--org", "acme", "--namespace", "finance"))) == ["a.csv", "b.csv"]


@pytest.mark.parametrize(
    "flags, tokens_env, said",
    [
        (["--token", "tok-nobody"], True, "the token is not known"),
        (["--token", "tok-acme-writer"], False, "has none (TABULAR_TOKENS)"),
        (["--token", "tok-acme-writer", "--org", "globex"], True, "of the org 'acme', not 'globex'"),
    ],
    ids=["unknown-token", "no-tokens-file", "another-org"],
)
def test_mcp_with_a_token_it_cannot_honour_stops_with_why_and_serves_nothing(
    two_tenants, flags, tokens_env, said, monkeypatch
):
    # `tabular mcp` run in this process (cli.main, as `python -m tabular.cli` runs it): the
    # refusal is the SystemExit the interpreter prints on stderr with status 1 (a process that
    # prints it: tests/service/test_settings_at_start.py), raised before a line is read.
    home, tokens = two_tenants
    for name in [k for k in os.environ if k.startswith("TABULAR_")]:
        monkeypatch.delenv(name)
    if tokens_env:
        monkeypatch.setenv("TABULAR_TOKENS", str(tokens))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))  # served, it would end at once, status 0
    with pytest.raises(SystemExit) as stopped:
        cli.main(["--home", str(home), "mcp", *flags])
    assert stopped.value.code not in (0, None) and said in str(stopped.value.code)


def _wrong(schema: dict) -> tuple[str, object]:
    """A field of the tool's input and a value no schema of it takes (a list holding a list):
    its first required field, else its first typed one."""
    properties = schema["properties"]
    typed = [name for name, p in properties.items() if "type" in p]
    name = next((n for n in schema.get("required", []) if n in typed), typed[0])
    return name, [[]]


def test_a_validating_mcp_client_calls_every_tool_with_its_example_and_with_a_wrong_field(server):
    # Each tool's example (the one /docs shows) passes a Draft 2020-12 check of the tool's own
    # input schema and is taken by the engine; a field of the wrong type is refused by both,
    # the engine at that field's path.
    from .support import ingest

    with server.client() as http:
        assert ingest(http, CSV / "sales.csv", "files/sales.csv")["state"] == "ready"

    async def session_run() -> None:
        async with streamable_http_client(server.url + "/mcp") as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                listed = {t.name: t for t in (await session.list_tools()).tools}
                for name, op in REGISTRY.items():
                    if op.streams:
                        continue
                    tool = listed[tool_name(name)]
                    validator = jsonschema.Draft202012Validator(tool.input_schema)
                    assert list(validator.iter_errors(op.example)) == [], name
                    got = await session.call_tool(tool.name, op.example)
                    # The ids (and the folder) an example names are no one's here: a refusal
                    # may only say so, at their path; every other example is answered.
                    placeholders = {
                        k for k, v in op.example.items() if v in EXAMPLE_IDS.values() or k in ("snapshot_id", "path")
                    }
                    if got.is_error:
                        detail = got.structured_content["detail"]
                        assert placeholders, (name, detail)
                        assert detail["code"] != "INTERNAL", (name, detail)
                        if detail["code"] == "VALIDATION_FAILED":
                            assert detail["errors"][0]["path"] in placeholders, (name, detail)
                    field, value = _wrong(tool.input_schema)
                    wrong = {**op.example, field: value}
                    assert list(validator.iter_errors(wrong)), name
                    refused = await session.call_tool(tool.name, wrong)
                    assert refused.is_error, name
                    detail = refused.structured_content["detail"]
                    assert detail["code"] == "VALIDATION_FAILED" and detail["errors"][0]["path"].startswith(field), name
                # The examples that read sales.csv answer from it.
                answer = await session.call_tool("loom_knowledge_query", REGISTRY["knowledge.query"].example)
                rows = answer.structured_content["rows"]
                assert rows[0][0] == "north" and str(rows[0][1]) == "580.75"

    anyio.run(session_run)
