"""HTTP: every op of the registry at `POST /v1/knowledge.<op>`, made from the registry and thin
over `Engine.run`. Every failure is the SPEC §2 envelope `{"detail": {code, message, request_id,
errors?}}`; `X-Request-Id` is echoed or made; a bearer token is checked when a tokens file is
set. `knowledge.upload` streams its body to disk (raw with `?filename=`, or multipart `file`)."""

from __future__ import annotations

import importlib.resources
import json
import re
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.abc
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..engine import Engine, out_of_memory
from ..errors import (
    AuthInsufficient,
    ErrorItem,
    Internal,
    MethodNotAllowed,
    NotFound,
    TabularError,
    TooLarge,
    ValidationFailed,
    close_names,
)
from ..ops import REGISTRY, Op
from ..results import FORMATS as RESULT_FORMATS
from ..validation import validation_failed, validation_items
from .auth import Tokens
from .calls import Service, Streamed, error_response, log, not_json, read_json, request_id
from .ui import mount as mount_ui
from .ui import refusal_page as ui_refusal
from .upload import upload_route

REQUEST_ID = re.compile(r"^[A-Za-z0-9._:/+=-]{1,128}$")


class ErrorOut(BaseModel):
    path: str
    message: str
    expected: str | None = None
    received: Any = None
    did_you_mean: list[str] | None = None


class ErrorDetail(BaseModel):
    code: str
    message: str
    request_id: str
    errors: list[ErrorOut] | None = None


class ErrorEnvelope(BaseModel):
    """Every failure, on every route (SPEC §2)."""

    detail: ErrorDetail


class RequestIds:
    """Echo a caller's `X-Request-Id` (or make one) on every answer, errors included."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        given = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"x-request-id"), "")
        request_id = given if REQUEST_ID.match(given) else "req_" + uuid.uuid4().hex[:16]
        scope.setdefault("state", {})["request_id"] = request_id

        async def send_with_id(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"x-request-id", request_id.encode())]}
            await send(message)

        await self.app(scope, receive, send_with_id)


class UrlLimit:
    """A URL (path and query) past `max_url_bytes` is 413 before any route reads it: no op takes
    its input from the URL, and a long one only costs the router and the logs."""

    def __init__(self, app, limit: int):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            size = len(scope.get("raw_path") or scope["path"].encode()) + len(scope.get("query_string", b""))
            if size > self.limit:
                failure = TooLarge(
                    f"the URL is {size} bytes, over {self.limit} (max_url_bytes); an op's input goes in the JSON body"
                )
                if scope["path"].startswith("/ui"):  # a plan typed into the page's form: its error page
                    return await ui_refusal(failure)(scope, receive, send)
                request_id = scope.get("state", {}).get("request_id", "")
                return await error_response(failure, request_id)(scope, receive, send)
        await self.app(scope, receive, send)


LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


class SameOrigin:
    """Single-user mode has no token to stop a web page the user visits: there, an op route
    answers only requests without a foreign Origin, and (on a loopback service) with a loopback
    Host, as /mcp does (a cross-site `text/plain` POST had deleted a source)."""

    def __init__(self, app, loopback: bool):
        self.app, self.loopback = app, loopback

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not scope["path"].startswith(("/v1/", "/ui")):
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"] if k in (b"origin", b"host")}
        host = headers.get("host", "")
        origin = headers.get("origin", "")
        hostname = host.rsplit(":", 1)[0] if not host.startswith("[") else host.split("]")[0] + "]"
        foreign = bool(origin) and origin.split("://", 1)[-1] != host
        if foreign or (self.loopback and hostname not in LOOPBACK):
            said = f"Origin {origin!r}" if foreign else f"Host {host!r}"
            failure = AuthInsufficient(
                f"{said} is not this service's: in single-user mode only requests from this machine's own pages and clients are served"
            )
            if scope["path"].startswith("/ui"):
                return await ui_refusal(failure)(scope, receive, send)
            return await error_response(failure, scope.get("state", {}).get("request_id", ""))(scope, receive, send)
        await self.app(scope, receive, send)


# SPEC §4: a whole result's headers hold 4 KB at most in all. Ours take this much of it; the rest
# is the server's own (content type, date, the echoed X-Request-Id of 128 bytes at most).
STREAM_HEADER_BYTES = 3 * 1024


def stream_headers(whole) -> dict[str, str]:
    """What comes with a whole result's rows, in headers: the receipt's id (knowledge.receipt
    answers the whole receipt; none when the disk refused to keep it), the plan's keys not read,
    and the columns when they fit in STREAM_HEADER_BYTES (a thousand columns do not:
    knowledge.receipt answers them too)."""
    headers = {"X-Tabular-Receipt-Id": whole.receipt_id} if whole.receipt_kept else {}
    # JSON with every non-ASCII character escaped: a header is latin-1.
    ignored = json.dumps(whole.ignored_args, ensure_ascii=True)
    columns = json.dumps([c.model_dump() for c in whole.columns], ensure_ascii=True)
    for name, value in (("X-Tabular-Ignored-Args", ignored), ("X-Tabular-Columns", columns)):
        if sum(len(k) + len(v) + 4 for k, v in headers.items()) + len(name) + len(value) + 4 <= STREAM_HEADER_BYTES:
            headers[name] = value
    return headers


def _stream_route(service: Service, op: Op) -> Callable:
    """POST /v1/<op> for an op that streams (knowledge.query_export): its rows sent as they are
    computed, in the format the body names; short fields in headers (stream_headers), the
    whole receipt by its id. A client that goes away stops the statement (calls.Rows)."""

    async def handle(request: Request) -> Response:
        grant = service.tokens.identify(request.headers.get("authorization"))
        body = await read_json(request, service.settings.max_body_bytes)
        whole, rows = await service.stream(op, body, grant, gone=request)
        return Streamed(rows, media_type=RESULT_FORMATS[whole.format], headers=stream_headers(whole))

    return handle


def _op_route(service: Service, op: Op) -> Callable:
    takes_key = "idempotency_key" in op.input.model_fields

    async def handle(request: Request) -> Response:
        grant = service.tokens.identify(request.headers.get("authorization"))
        body = await read_json(request, service.settings.max_body_bytes)
        key = request.headers.get("idempotency-key")
        if takes_key and key and not body.get("idempotency_key"):
            body["idempotency_key"] = key
        out = await service.run(op, body, grant, request_id(request))
        return Response(out.model_dump_json(by_alias=True), media_type="application/json")

    handle.__name__ = op.name.replace(".", "_")
    return handle


class _McpEndpoint:
    """MCP over streamable HTTP, behind the same token check as the ops (AUTH_INVALID before any
    MCP). The MCP SDK is loaded, and its session manager started in the app's task group
    (`group`, set by the lifespan), at the first request with a valid token: a server most of
    whose callers speak HTTP starts without it (0.4 s of CPU at every start)."""

    def __init__(self, service: Service, host: str, tokens: Tokens):
        self.service, self.host, self.tokens = service, host, tokens
        self.endpoint: Any = None
        self.group: anyio.abc.TaskGroup | None = None
        self.loading = anyio.Lock()

    async def __call__(self, scope, receive, send) -> None:
        request = Request(scope)
        try:
            self.tokens.identify(request.headers.get("authorization"))
        except TabularError as err:
            return await error_response(err, request_id(request))(scope, receive, send)
        if self.endpoint is None:
            async with self.loading:
                if self.endpoint is None:
                    self.endpoint = await self._started()
        await self.endpoint(scope, receive, send)

    async def _started(self) -> Any:
        from .mcp import http_app  # optional: the MCP SDK, loaded by the first MCP request

        endpoint, manager = http_app(self.service, self.host)
        if self.group is None:
            raise RuntimeError("/mcp was called outside the app's lifespan")
        await self.group.start(self._serve, manager)
        return endpoint

    @staticmethod
    async def _serve(manager, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        async with manager.run():
            task_status.started()
            await anyio.sleep_forever()


# Where /docs and /redoc load Swagger UI and ReDoc from: files a package ships (fastapi-offline),
# so the pages work on a machine with no way out to a CDN.
DOCS_ASSETS = "/docs-assets"


def _docs(app: FastAPI) -> None:
    """/docs (Swagger UI) and /redoc (ReDoc) over /openapi.json, every script and style served here."""
    app.mount(
        DOCS_ASSETS,
        StaticFiles(directory=str(importlib.resources.files("fastapi_offline") / "static")),
        name="docs-assets",
    )

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_swagger_ui_html(
            openapi_url=root + app.openapi_url,
            title=f"{app.title} - Swagger UI",
            swagger_js_url=f"{root}{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{root}{DOCS_ASSETS}/favicon.png",
        )

    @app.get("/redoc", include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_redoc_html(
            openapi_url=root + app.openapi_url,
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{root}{DOCS_ASSETS}/redoc.standalone.js",
            redoc_favicon_url=f"{root}{DOCS_ASSETS}/favicon.png",
            with_google_fonts=False,
        )


def _answered(op: Op, refs: dict) -> dict:
    return {
        "description": "The answer",
        "content": {"application/json": {"schema": refs[(op.output, "serialization")]}},
    }


def _streamed(op: Op, refs: dict) -> dict:
    """An op that streams: the rows in the body, in the format asked; what comes with them in headers."""
    header = {"schema": {"type": "string"}}
    return {
        "description": "The rows, streamed as they are computed; the headers (4 KB at most) carry the receipt's id, "
        "and knowledge.receipt answers the whole receipt and the columns by it for an hour",
        "content": {media: {"schema": {"type": "string", "format": "binary"}} for media in RESULT_FORMATS.values()},
        "headers": {
            "X-Tabular-Receipt-Id": {**header, "description": "The receipt's id: knowledge.receipt answers it"},
            "X-Tabular-Columns": {
                **header,
                "description": "The result's columns and their types (JSON), when they fit in the headers",
            },
            "X-Tabular-Ignored-Args": {**header, "description": "The body's keys that were not read (JSON)"},
        },
    }


def _openapi(app: FastAPI, single_user: bool) -> Callable[[], dict]:
    """OpenAPI with each op's input and output models as its request and answer schemas, its
    example body, and the bearer scheme (/docs' "Authorize" sends it): required with tokens,
    optional in single-user mode."""

    def build() -> dict:
        if app.openapi_schema:
            return app.openapi_schema
        schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
        wanted: list[tuple[type[BaseModel], JsonSchemaMode]] = [(ErrorEnvelope, "serialization")]
        for op in REGISTRY.values():
            pairs: tuple[tuple[type[BaseModel], JsonSchemaMode], ...] = (
                (op.input, "validation"),
                (op.output, "serialization"),
            )
            for pair in pairs:
                if pair not in wanted:
                    wanted.append(pair)
        refs, defs = models_json_schema(wanted, ref_template="#/components/schemas/{model}")
        components = schema.setdefault("components", {})
        components.setdefault("schemas", {}).update(defs.get("$defs", {}))
        components["securitySchemes"] = {
            "bearer": {
                "type": "http",
                "scheme": "bearer",
                "description": "A token of the tokens file (`tabular token` makes one); none in single-user mode.",
            }
        }
        schema["security"] = [{}, {"bearer": []}] if single_user else [{"bearer": []}]
        error = {
            "description": "The SPEC §2 error envelope",
            "content": {"application/json": {"schema": refs[(ErrorEnvelope, "serialization")]}},
        }
        for op in REGISTRY.values():
            post = schema["paths"][f"/v1/{op.name}"]["post"]
            if op.name == "knowledge.upload":
                post["requestBody"] = {
                    "content": {
                        "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
                        "multipart/form-data": {
                            "schema": {"type": "object", "properties": {"file": {"type": "string", "format": "binary"}}}
                        },
                        "application/json": {"schema": refs[(op.input, "validation")], "example": op.example},
                    }
                }
            else:
                post["requestBody"] = {
                    "content": {"application/json": {"schema": refs[(op.input, "validation")], "example": op.example}}
                }
            post["responses"] = {"200": _streamed(op, refs) if op.streams else _answered(op, refs), "default": error}
        app.openapi_schema = schema
        return schema

    return build


def _error_handlers(app: FastAPI) -> None:
    """Every failure answered in the SPEC's envelope with its request id: our codes, pydantic's
    and Starlette's refusals, memory run out outside an op, and a bug (INTERNAL, logged)."""

    @app.exception_handler(TabularError)
    async def tabular_error(request: Request, err: TabularError) -> JSONResponse:
        return error_response(err, request_id(request))

    @app.exception_handler(RequestValidationError)
    async def request_invalid(request: Request, err: RequestValidationError) -> JSONResponse:
        errors = list(err.errors())
        if any(e.get("type") == "json_invalid" for e in errors):
            return error_response(not_json(ValueError("invalid JSON")), request_id(request))
        # A route's own parameters (knowledge.upload's query): where they came from ("query") is no part of the path.
        errors = [{**e, "loc": tuple(e.get("loc", ()))[1:]} for e in errors]
        return error_response(validation_failed(validation_items(errors)), request_id(request))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, err: StarletteHTTPException) -> JSONResponse:
        if err.status_code == 404:
            failure: TabularError = NotFound(f"no route {request.url.path}; ops are POST /v1/knowledge.<op>")
        elif err.status_code == 405:
            failure = MethodNotAllowed(
                f"{request.method} is not served at {request.url.path}; ops are POST /v1/knowledge.<op>"
            )
        else:
            failure = ValidationFailed(str(err.detail))
            failure.status = err.status_code
        return error_response(failure, request_id(request))

    @app.exception_handler(MemoryError)
    async def memory_error(request: Request, err: MemoryError) -> JSONResponse:
        # Outside an op (reading a body, writing an answer): the call is refused, the server lives.
        log.warning("request %s ran out of memory", request_id(request))
        return error_response(out_of_memory("the call"), request_id(request))

    @app.exception_handler(Exception)
    async def internal(request: Request, err: Exception) -> JSONResponse:
        log.exception("request %s failed", request_id(request))
        # Answered outside the request-id middleware (Starlette's outermost layer): name it here.
        answer = error_response(
            Internal("an internal error; the request id names it in the server log"), request_id(request)
        )
        answer.headers["X-Request-Id"] = request_id(request)
        return answer


def create_app(engine: Engine, tokens: Tokens | None = None, mcp: bool = True) -> FastAPI:
    """The FastAPI app over `engine`: the ops, /healthz, OpenAPI at /openapi.json and /docs, MCP at /mcp."""
    tokens = tokens or Tokens.load(engine.settings)
    service = Service(engine, tokens)
    # /mcp, its SDK loaded by its first request (mcp=False: no /mcp at all).
    lazy_mcp = _McpEndpoint(service, engine.settings.host, tokens) if mcp else None

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if lazy_mcp is None:
            yield
            return
        async with anyio.create_task_group() as group:
            lazy_mcp.group = group
            try:
                yield
            finally:
                group.cancel_scope.cancel()

    app = FastAPI(
        title="tabular",
        version="0.1.0",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        description="Typed datasets from spreadsheets and CSV, answered by typed plans with receipts. Every op is POST /v1/knowledge.<op>.",
    )
    app.state.service = service

    _error_handlers(app)

    for op in REGISTRY.values():
        if op.name == "knowledge.upload":
            endpoint = upload_route(service)
        else:
            endpoint = _stream_route(service, op) if op.streams else _op_route(service, op)
        app.add_api_route(
            f"/v1/{op.name}",
            endpoint,
            methods=["POST"],
            name=op.name,
            summary=op.summary,
            description=op.description,
            tags=["read" if not op.writes else "write"],
            response_class=Response,
        )

    @app.post("/v1/{name}", include_in_schema=False)
    async def unknown_op(name: str) -> Response:
        raise NotFound(
            f"no op {name!r}",
            [ErrorItem("op", "unknown op", received=name, did_you_mean=close_names(name, list(REGISTRY)))],
        )

    @app.get("/healthz", tags=["service"])
    async def healthz(request: Request) -> dict:
        """Up; to a caller with a token, also the ops served and its own org's ingest jobs waiting
        (in single-user mode, every job waiting: there is one user)."""
        try:
            grant = tokens.identify(request.headers.get("authorization"))
        except TabularError:
            return {"status": "ok"}  # no counts of other tenants' work to strangers
        waiting = engine.jobs.waiting
        return {
            "status": "ok",
            "ops": len(REGISTRY),
            # Another org's queue is its own business (SPEC §2): it had counted every org's jobs.
            "jobs_waiting": len(waiting) if tokens.single_user else waiting.waiting(grant.org),
            "auth": "single-user" if tokens.single_user else "tokens",
        }

    if lazy_mcp is not None:
        # An ASGI app as the route: Starlette's Route serves one (any endpoint not a function),
        # though add_route's annotation names only request handlers.
        app.add_route(
            "/mcp",
            lazy_mcp,  # type: ignore[arg-type]
            methods=["GET", "POST", "DELETE"],
            include_in_schema=False,
        )

    app.openapi = _openapi(app, tokens.single_user)  # type: ignore[method-assign]  # FastAPI's documented override
    _docs(app)
    mount_ui(app, service)  # /ui: the page for the person the engine asks, made of the same ops
    if tokens.single_user:
        app.add_middleware(SameOrigin, loopback=engine.settings.host in LOOPBACK)
    app.add_middleware(UrlLimit, limit=engine.settings.max_url_bytes)
    app.add_middleware(RequestIds)
    return app
