"""One registry, every transport: a test fails when an op has no description or a transport
(HTTP, OpenAPI, MCP, the CLI, engine.call) lacks it."""

from __future__ import annotations

import json
from typing import get_args

import pytest

import tabular
from tabular import cli
from tabular.infer.kinds import KINDS
from tabular.models import QuestionKind, QuestionOut
from tabular.ops import REGISTRY
from tabular.service import create_app
from tabular.service.mcp import tool_name, tools


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    with tabular.connect(str(tmp_path_factory.mktemp("registry") / "home")) as e:
        yield e


def test_every_op_has_a_description_and_documented_inputs():
    for name, op in REGISTRY.items():
        assert name.startswith("knowledge.") and op.description, f"{name} has no description (its function's docstring)"
        assert op.role in ("viewer", "writer", "admin")
        assert op.writes or op.idempotent, f"{name} reads, so it is safe to send again"
        assert op.audited or not op.writes, f"{name} writes but is not audited"


def test_every_op_is_served_by_every_transport(engine):
    app = create_app(engine, mcp=False)
    routes = {getattr(r, "path", "") for r in app.routes}
    openapi = app.openapi()["paths"]
    mcp_tools = {t.name: t for t in tools()}
    for name, op in REGISTRY.items():
        assert f"/v1/{name}" in routes, f"{name} has no HTTP route"
        assert openapi[f"/v1/{name}"]["post"]["description"] == op.description
        if op.streams:
            # Rows streamed: no MCP tool (a tool answers JSON), and a JSON call is refused at `op`.
            assert tool_name(name) not in mcp_tools
            with pytest.raises(tabular.ValidationFailed) as refused:
                engine.call(name, {})
            assert refused.value.errors[0].path == "op"
            continue
        tool = mcp_tools.get(tool_name(name))
        assert tool is not None and tool.description == op.description, f"{name} has no MCP tool"
        assert tool.input_schema == op.input.model_json_schema()
        try:
            engine.call(name, {})
        except tabular.ValidationFailed:
            pass  # known to engine.call: only its input was refused


def test_every_op_is_a_cli_command(capsys, tmp_path):
    with pytest.raises(SystemExit):
        cli.main(["call", "--help"])
    usage = capsys.readouterr().out
    for name in REGISTRY:
        assert name in usage, f"{name} is not a choice of `tabular call`"
    assert cli.main(["--home", str(tmp_path / "home"), "call", "knowledge.formats", '{"colour": 1}']) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["default_format"] == "csv" and answer["ignored_args"] == ["colour"]
    assert cli.main(["--home", str(tmp_path / "home"), "call", "knowledge.dataset_get", "{}"]) == 2
    assert "VALIDATION_FAILED" in capsys.readouterr().err


def test_mcp_tool_names_follow_the_spec():
    assert tool_name("knowledge.dataset_get") == "loom_knowledge_dataset_get"


def test_every_plan_operator_is_described_in_the_openapi_schema_and_the_readme(engine):
    """Each expression operator, window function, aggregate and join kind: a description in the
    OpenAPI schema an agent reads, and a row with an example in docs/plans.md (issue 17)."""
    from typing import get_args

    from conftest import ROOT

    from planner.models import EXPR_OPERATORS, AggregateFn, WindowFn

    schemas = create_app(engine, mcp=False).openapi()["components"]["schemas"]
    operators = schemas["QueryExpr"]["properties"]
    readme = (ROOT / "docs" / "plans.md").read_text(encoding="utf-8")
    for op in EXPR_OPERATORS:
        key = "else" if op == "else_" else op
        assert operators[key].get("description"), f"{op} has no description in the OpenAPI schema"
        assert f"`{op}`" in readme and f'{{"{op}": ' in readme, f"{op} has no example in docs/plans.md"
    window = schemas["QueryWindow"]["properties"]["fn"]
    assert window.get("description") and all(fn in window["description"] for fn in get_args(WindowFn))
    for fn in get_args(WindowFn):
        assert f"`{fn}`" in readme, f"window {fn} is not in docs/plans.md"
    aggregate = schemas["QueryAggregate"]["properties"]["fn"]["description"]
    assert all(fn in aggregate for fn in get_args(AggregateFn))
    kinds = schemas["QueryJoin"]["properties"]["kind"]["description"]
    assert all(kind in kinds for kind in ("inner", "left", "semi", "anti"))
    assert schemas["QueryMeasure"]["properties"]["window"].get("description") and schemas["QueryCompute"]["properties"][
        "expr"
    ].get("description")


def test_the_apis_question_kinds_are_the_kinds_table():
    """A question kind added to infer/kinds.KINDS is named in the API and described there in the
    entry's own words, and no kind is named in the API that no stage asks. (The table's order is
    the order a column is asked the kinds; the API's, the order it lists them.)"""
    assert sorted(get_args(QuestionKind)) == sorted(KINDS)
    described = QuestionOut.model_fields["kind"].description
    assert [k for k in KINDS if k not in described] == []
    assert [k.name for k in KINDS.values() if k.words not in described] == []
