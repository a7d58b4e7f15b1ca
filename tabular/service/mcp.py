"""MCP: every op of the registry as the tool `loom_knowledge_<op>`, over stdio (`tabular mcp`) or
streamable HTTP (`/mcp` in `tabular serve`). A tool's input schema is the op's input model, its
description the op's; an error is a tool result with `isError` and the SPEC §2 envelope."""

from __future__ import annotations

import json
import uuid

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings

from ..engine import Engine
from ..errors import ErrorItem, Internal, NotFound, TabularError, close_names
from ..ops import REGISTRY, Op
from .auth import Tokens
from .calls import Service, log

PREFIX = "loom_"


def tool_name(op: str) -> str:
    """`knowledge.dataset_get` → `loom_knowledge_dataset_get` (SPEC §2: dots become `_`)."""
    return PREFIX + op.replace(".", "_")


def tools() -> list[types.Tool]:
    return [
        types.Tool(
            name=tool_name(op.name),
            description=op.description,
            input_schema=op.input.model_json_schema(),
            annotations=types.ToolAnnotations(
                read_only_hint=not op.writes,
                idempotent_hint=op.idempotent,
                destructive_hint=False,
                open_world_hint=False,
            ),
        )
        for op in REGISTRY.values()
        if not op.streams  # a tool answers JSON: knowledge.query answers there
    ]


def _result(payload: dict, error: bool = False) -> types.CallToolResult:
    text = json.dumps(payload, ensure_ascii=False)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=payload, is_error=error
    )


def server(service: Service) -> Server:
    """The MCP server over the service's engine: each call goes through `Service.run`, as an HTTP
    route's does (tokens, the in-flight limit, the audit line)."""
    listed = tools()
    by_tool: dict[str, Op] = {tool_name(op.name): op for op in REGISTRY.values() if not op.streams}

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        request_id = "req_" + uuid.uuid4().hex[:16]
        op = by_tool.get(params.name)
        try:
            if op is None:
                raise NotFound(
                    f"no tool {params.name!r}",
                    [
                        ErrorItem(
                            "name",
                            "unknown tool",
                            received=params.name,
                            did_you_mean=close_names(params.name, list(by_tool)),
                        )
                    ],
                )
            headers = getattr(ctx.request, "headers", None)
            grant = service.tokens.identify(headers.get("authorization") if headers is not None else None)
            out = await service.run(op, dict(params.arguments or {}), grant, request_id)
        except TabularError as err:
            return _result({"detail": err.to_detail(request_id)}, error=True)
        except Exception:
            log.exception("MCP tool %s failed (request %s)", params.name, request_id)
            return _result(
                {
                    "detail": Internal("an internal error; the request id names it in the server log").to_detail(
                        request_id
                    )
                },
                error=True,
            )
        return _result(out.model_dump(mode="json", by_alias=True))

    return Server(
        "tabular",
        version="0.1.0",
        instructions="Typed datasets from spreadsheets and CSV; exact answers to typed plans.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def http_app(service: Service, host: str) -> tuple[StreamableHTTPASGIApp, StreamableHTTPSessionManager]:
    """The streamable HTTP endpoint (stateless, JSON answers) and its session manager to run."""
    security = None
    if host in ("127.0.0.1", "localhost", "::1"):
        # A browser page must not reach a loopback service through DNS rebinding.
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        )
    manager = StreamableHTTPSessionManager(
        app=server(service), stateless=True, json_response=True, security_settings=security
    )
    return StreamableHTTPASGIApp(manager), manager


def run_stdio(engine: Engine) -> None:
    """Serve MCP on stdin/stdout as the single local user (`tabular mcp`)."""
    from mcp.server.stdio import stdio_server

    app = server(Service(engine, Tokens(engine.settings)))

    async def main() -> None:
        async with stdio_server() as (read, write):
            await app.run(read, write, app.create_initialization_options())

    anyio.run(main)
