"""MCP: every op of the registry as the tool `loom_knowledge_<op>`, over stdio (`tabular mcp`) or
streamable HTTP (`/mcp` in `tabular serve`). A tool's input schema is the op's input model, its
description the op's; an error is a tool result with `isError` and the SPEC §2 envelope."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Protocol

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from ..engine import Engine
from ..errors import AuthInvalid, ErrorItem, Internal, NotFound, TabularError, TooLarge, close_names
from ..ops import REGISTRY, Op
from ..settings import Settings
from .auth import Grant, Tokens
from .calls import Service, audit, error_response, log
from .calls import request_id as request_id_of
from .jsonrpc import Refused, message_limit, read_message, reply_line, screen, tool_result
from .stdio import serve

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


def server(service: Service, identity: Identity | None = None) -> Server:
    """The MCP server over the service's engine: each call goes through `Service.run`, as an HTTP
    route's does (tokens, the in-flight limit, the audit line). Over HTTP each request's bearer
    token says who calls; over stdio the `identity` the process was started with."""
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
            arguments = dict(params.arguments or {})
            if identity is not None:
                grant = identity.grant
                arguments = {**identity.defaults, **arguments}
            else:
                headers = getattr(ctx.request, "headers", None)
                grant = service.tokens.identify(headers.get("authorization") if headers is not None else None)
            out = await service.run(op, arguments, grant, request_id)
        except TabularError as err:
            return tool_result({"detail": err.to_detail(request_id)}, error=True)
        except Exception:
            log.exception("MCP tool %s failed (request %s)", params.name, request_id)
            return tool_result(
                {
                    "detail": Internal("an internal error; the request id names it in the server log").to_detail(
                        request_id
                    )
                },
                error=True,
            )
        return tool_result(out.model_dump(mode="json", by_alias=True))

    return Server(
        "tabular",
        version="0.1.0",
        instructions="Typed datasets from spreadsheets and CSV; exact answers to typed plans.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def http_app(service: Service, host: str) -> tuple[Screened, StreamableHTTPSessionManager]:
    """The streamable HTTP endpoint (stateless, JSON answers), each message screened first, and
    its session manager to run."""
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
    endpoint = StreamableHTTPASGIApp(manager)
    return Screened(endpoint, service.settings, refusals(None, service.tokens)), manager


class Screened:
    """/mcp: a POST's message read here (bounded by message_limit) and screened as a stdio line
    is (jsonrpc.screen), then handed to the SDK's endpoint; one the SDK could not parse (nested
    past its parser, a lone surrogate) is answered here, where it was a bare -32700."""

    def __init__(self, endpoint, settings: Settings, refused: Refusals):
        self.endpoint, self.settings, self.refused = endpoint, settings, refused
        self.limit = message_limit(settings)

    async def __call__(self, scope, receive, send) -> None:
        request = Request(scope, receive)
        if request.method != "POST":
            return await self.endpoint(scope, receive, send)
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > 2 * self.limit:
            failure = TooLarge(f"the message is over {self.limit:,} bytes (max_body_bytes)")
            return await error_response(failure, request_id_of(request))(scope, receive, send)
        try:
            message = await read_message(request.stream(), self.limit)
        except ClientDisconnect:
            return  # gone before its message was whole: no one to answer
        # Off the event loop: a message may be an upload's whole base64.
        got = await anyio.to_thread.run_sync(screen, message, self.settings)
        if isinstance(got, Refused):
            self.refused(got, request.headers.get("authorization"))
            if got.reply is None:  # a notification: no JSON-RPC answer, so the SPEC's envelope
                return await error_response(got.error, request_id_of(request))(scope, receive, send)
            status = 200 if "result" in got.reply else 400
            return await Response(reply_line(got.reply), status, media_type="application/json")(scope, receive, send)
        replayed = False

        async def replay() -> dict:
            nonlocal replayed
            if replayed:
                return await receive()  # after the body: the client going away
            replayed = True
            return {"type": "http.request", "body": message.head, "more_body": False}

        await self.endpoint(scope, replay, send)


@dataclass(frozen=True)
class Identity:
    """Who a stdio session calls as, for all its calls: a token's grant (org and namespaces bound
    as over HTTP), or the local user with the org and namespace a call names by default."""

    grant: Grant
    defaults: dict = field(default_factory=dict)


def stdio_identity(tokens: Tokens, token: str | None, org: str | None, namespace: str | None) -> Identity:
    """`tabular mcp --token T` (or TABULAR_TOKEN): the token's grant from the tokens file, as HTTP
    would identify it; without one, the local user (whoever can run the command can read the
    home), whose calls default to --org and --namespace. A token this home cannot identify stops
    the command with why, never serves as someone else."""
    if token:
        if tokens.single_user:
            raise SystemExit(
                "tabular mcp: --token (or TABULAR_TOKEN) is identified by the tokens file, and this home has none "
                "(TABULAR_TOKENS); without a token, --org and --namespace say whose data the tools serve"
            )
        try:
            grant = tokens.identify(f"Bearer {token}")
        except AuthInvalid as err:
            raise SystemExit(f"tabular mcp: {err.message}") from None
        if org and org != grant.org:
            raise SystemExit(f"tabular mcp: the token is of the org {grant.org!r}, not {org!r}")
        defaults = {"namespace": namespace} if namespace else {}
        return Identity(grant, defaults)
    defaults = {k: v for k, v in (("org", org), ("namespace", namespace)) if v}
    return Identity(tokens.local, defaults)


class Refusals(Protocol):
    """Records a refused message; `authorization` is the HTTP caller's header (none on stdio)."""

    def __call__(self, got: Refused, authorization: str | None = None) -> None: ...


def refusals(identity: Identity | None, tokens: Tokens) -> Refusals:
    """What records a tools/call the screen refused before any op saw it (jsonrpc.screen): a
    refused write is audited, as Service.run audits one (`authorization`: the HTTP caller's header)."""
    by_tool = {tool_name(op.name): op for op in REGISTRY.values()}

    def refused(got: Refused, authorization: str | None = None) -> None:
        op = by_tool.get(got.tool or "")
        if op is None:
            return
        try:
            grant = identity.grant if identity is not None else tokens.identify(authorization)
        except TabularError:
            grant = None
        audit(op, grant, {"org": grant.org if grant else None}, got.request_id, got.error.status, got.error.code)

    return refused


def run_stdio(engine: Engine, token: str | None = None, org: str | None = None, namespace: str | None = None) -> None:
    """Serve MCP on stdin/stdout (`tabular mcp`) as the identity `stdio_identity` answers; every
    line with an id is answered once (stdio.serve)."""
    # The tokens file only to identify a token: the local user is the single user, as before.
    tokens = Tokens.load(engine.settings) if token else Tokens(engine.settings)
    identity = stdio_identity(tokens, token, org, namespace)
    app = server(Service(engine, tokens), identity)
    anyio.run(serve, app, engine.settings, refusals(identity, tokens))
