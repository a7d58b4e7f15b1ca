"""One registry, every transport: a test fails when an op has no description or a transport
(HTTP, OpenAPI, MCP, the CLI, engine.call) lacks it."""

from __future__ import annotations

import json

import pytest

import tabular
from tabular import cli
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
    assert "VALIDATION_FAILED" in capsys.readouterr().out


def test_mcp_tool_names_follow_the_spec():
    assert tool_name("knowledge.dataset_get") == "loom_knowledge_dataset_get"
