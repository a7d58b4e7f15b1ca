"""HTTP: every op of the registry at `POST /v1/knowledge.<op>`, made from the registry and thin
over `Engine.run`. Every failure is the SPEC §2 envelope `{"detail": {code, message, request_id,
errors?}}`; `X-Request-Id` is echoed or made; a bearer token is checked when a tokens file is
set. `knowledge.upload` streams its body to disk (raw with `?filename=`, or multipart `file`)."""

from __future__ import annotations

import asyncio
import json
import logging
import mimetypes
import re
import uuid
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Callable

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from python_multipart.exceptions import FormParserError
from starlette.requests import ClientDisconnect

from ..engine import Engine, _path
from ..errors import ErrorItem, Internal, NotFound, Overloaded, RateLimited, TabularError, TooLarge, ValidationFailed, close_names
from ..ops import REGISTRY, Op
from ..ops.ingest import UploadWriter
from .auth import Grant, Tokens

log = logging.getLogger("tabular.service")
audit_log = logging.getLogger("tabular.audit")

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


def audit(op: Op, grant: Grant | None, body: dict, request_id: str, status: int, code: str | None) -> None:
    """One JSON line per call of an audited op (the writes): who, what, where, how it ended."""
    if not op.audited:
        return
    audit_log.info(json.dumps({
        "op": op.name, "caller": grant.name if grant else None, "org": body.get("org"), "namespace": body.get("namespace"),
        "request_id": request_id, "status": status, "code": code,
    }))


def error_response(err: TabularError, request_id: str) -> JSONResponse:
    headers = {"Retry-After": str(err.retry_after)} if isinstance(err, RateLimited) else None
    return JSONResponse({"detail": err.to_detail(request_id)}, status_code=err.status, headers=headers)


def _request_id(request: Request) -> str:
    return getattr(request.state, "request_id", "")


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


def _not_json(err: Exception) -> ValidationFailed:
    failure = ValidationFailed(f"the body is not JSON: {err}", [ErrorItem("", "not JSON", expected="a JSON object")])
    failure.status = 400  # SPEC §2: 400 for a body that is not JSON
    return failure


def parse_body(raw: bytes) -> dict:
    """The JSON object of a request body (empty: `{}`)."""
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as err:
        raise _not_json(err) from None
    if not isinstance(body, dict):
        raise ValidationFailed("the body must be a JSON object", [ErrorItem("", "not an object", expected="object", received=type(body).__name__)])
    return body


class Service:
    """What every route shares: the engine, the tokens, and the in-flight limit."""

    def __init__(self, engine: Engine, tokens: Tokens):
        self.engine, self.tokens, self.settings = engine, tokens, engine.settings
        self.slots = asyncio.Semaphore(self.settings.max_inflight)

    async def run(self, op: Op, body: dict, grant: Grant, request_id: str):
        body = self.tokens.authorize(grant, op, body)
        try:
            if self.slots.locked():
                try:
                    await asyncio.wait_for(self.slots.acquire(), self.settings.overload_wait_seconds)
                except TimeoutError:
                    raise Overloaded(
                        f"{self.settings.max_inflight} calls are being served; try again shortly", retry_after=self.settings.retry_after_seconds
                    ) from None
            else:
                await self.slots.acquire()
            try:
                out = await run_in_threadpool(self.engine.run, op.name, body, grant.name)
            finally:
                self.slots.release()
        except TabularError as err:
            audit(op, grant, body, request_id, err.status, err.code)
            raise
        audit(op, grant, body, request_id, 200, None)
        return out


def _op_route(service: Service, op: Op) -> Callable:
    takes_key = "idempotency_key" in op.input.model_fields

    async def handle(request: Request) -> Response:
        grant = service.tokens.identify(request.headers.get("authorization"))
        body = parse_body(await request.body())
        key = request.headers.get("idempotency-key")
        if takes_key and key and not body.get("idempotency_key"):
            body["idempotency_key"] = key
        out = await service.run(op, body, grant, _request_id(request))
        return Response(out.model_dump_json(by_alias=True), media_type="application/json")

    handle.__name__ = op.name.replace(".", "_")
    return handle


async def _receive(request: Request, sink: Callable[[bytes], None], limit: int) -> TooLarge | None:
    """Feed the body to `sink` chunk by chunk. Past the limit nothing more is kept, but up to
    another `limit` bytes are read and dropped, so a client that sends before it reads still
    gets the 413; a declared length past that is refused before a byte is read."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > 2 * limit:
        return TooLarge(f"the upload is over max_upload_bytes ({limit} bytes)")
    received, failure = 0, None
    async for chunk in request.stream():
        received += len(chunk)
        if failure is None:
            try:
                sink(chunk)
            except TooLarge as err:
                failure = err
        elif received > 2 * limit:
            break
    return failure


class _MultipartFile:
    """A streaming multipart parser: the part named `file` goes to the writer, small text fields
    (org, namespace, filename, content_type) are kept; nothing is spooled to memory."""

    FIELD_BYTES = 4096

    def __init__(self, writer: UploadWriter, boundary: bytes):
        from python_multipart.multipart import MultipartParser

        self.writer = writer
        self.fields: dict[str, str] = {}
        self.filename = ""
        self.content_type = "application/octet-stream"
        self.seen_file = False
        self.complete = False  # the closing boundary came: the body was not cut short
        self._header_field = b""
        self._header_value = b""
        self._headers: dict[bytes, bytes] = {}
        self._name = ""
        self._is_file = False
        self._value = bytearray()
        self.parser = MultipartParser(boundary, {
            "on_part_begin": self._begin, "on_part_data": self._data, "on_part_end": self._end,
            "on_header_field": self._field, "on_header_value": self._hvalue, "on_header_end": self._hend,
            "on_headers_finished": self._headers_done, "on_end": self._done,
        })

    def write(self, chunk: bytes) -> None:
        self.parser.write(chunk)

    def _done(self) -> None:
        self.complete = True

    def _begin(self) -> None:
        self._headers, self._value, self._name, self._is_file = {}, bytearray(), "", False

    def _field(self, data: bytes, start: int, end: int) -> None:
        self._header_field += data[start:end]

    def _hvalue(self, data: bytes, start: int, end: int) -> None:
        self._header_value += data[start:end]

    def _hend(self) -> None:
        self._headers[self._header_field.lower()] = self._header_value
        self._header_field, self._header_value = b"", b""

    def _headers_done(self) -> None:
        from python_multipart.multipart import parse_options_header

        _, options = parse_options_header(self._headers.get(b"content-disposition", b""))
        self._name = options.get(b"name", b"").decode("utf-8", "replace")
        self._is_file = self._name == "file"
        if self._is_file:
            self.seen_file = True
            self.filename = options.get(b"filename", b"").decode("utf-8", "replace")
            self.content_type = self._headers.get(b"content-type", b"application/octet-stream").decode("latin-1")

    def _data(self, data: bytes, start: int, end: int) -> None:
        if self._is_file:
            self.writer.write(data[start:end])
        elif len(self._value) < self.FIELD_BYTES:
            self._value += data[start:end][: self.FIELD_BYTES - len(self._value)]

    def _end(self) -> None:
        if not self._is_file and self._name:
            self.fields[self._name] = self._value.decode("utf-8", "replace")


def _upload_route(service: Service) -> Callable:
    op = REGISTRY["knowledge.upload"]

    async def upload(
        request: Request,
        filename: str | None = Query(None, min_length=1, max_length=255, description="The file's name (raw body); its extension tells the format."),
        org: str = Query("", description="Organisation (raw body or multipart); filled from the token or the install's default."),
        namespace: str = Query("", description="Namespace (raw body or multipart)."),
    ) -> Response:
        grant = service.tokens.identify(request.headers.get("authorization"))
        content_type = request.headers.get("content-type", "")
        multipart = content_type.startswith("multipart/form-data")
        if filename is None and not multipart:
            if content_type.split(";")[0].strip() in ("application/json", ""):
                # The op's own input: {filename, content_base64}, as MCP and Python send it.
                out = await service.run(op, parse_body(await request.body()), grant, _request_id(request))
                return Response(out.model_dump_json(by_alias=True), media_type="application/json")
            raise ValidationFailed(
                "a raw upload names its file with ?filename=",
                [ErrorItem("filename", "missing", expected="?filename=<name> with the raw body, or multipart with a `file` part")],
            )
        body = service.tokens.authorize(grant, op, {"org": org, "namespace": namespace})
        writer = UploadWriter(service.engine.context)
        try:
            if multipart:
                from python_multipart.multipart import parse_options_header

                _, options = parse_options_header(content_type)
                boundary = options.get(b"boundary")
                if not boundary:
                    raise ValidationFailed("the multipart body has no boundary", [ErrorItem("content-type", "no boundary")])
                parts = _MultipartFile(writer, boundary)
                failure = await _receive(request, parts.write, service.settings.max_upload_bytes)
                if failure is None:
                    parts.parser.finalize()
                    if not parts.complete:
                        raise ValidationFailed("the multipart body ends before its closing boundary", [ErrorItem("file", "cut short", expected="multipart/form-data ending --boundary--")])
                    if not parts.seen_file:
                        raise ValidationFailed("the multipart body has no `file` part", [ErrorItem("file", "missing", expected="a part named file")])
                    body = service.tokens.authorize(grant, op, {**body, **{k: v for k, v in parts.fields.items() if k in ("org", "namespace") and v}})
                    filename = parts.fields.get("filename") or parts.filename or "upload"
                    content_type = parts.fields.get("content_type") or parts.content_type
            else:
                failure = await _receive(request, writer.write, service.settings.max_upload_bytes)
            if failure is not None:
                raise failure
        except ClientDisconnect:
            writer.abort()
            return Response(status_code=400)
        except FormParserError as err:
            writer.abort()
            raise ValidationFailed(f"the multipart body is malformed: {err}", [ErrorItem("file", "malformed multipart", expected="multipart/form-data")]) from None
        except BaseException as err:
            writer.abort()
            if isinstance(err, TabularError):
                audit(op, grant, body, _request_id(request), err.status, err.code)
            raise
        org = body.get("org") or service.settings.default_org
        namespace = body.get("namespace") or service.settings.default_namespace
        media_type = content_type.split(";")[0].strip()
        if media_type in ("", "application/octet-stream", "application/x-www-form-urlencoded"):
            # No type said (curl --data-binary sends the form type): the file's name tells.
            media_type = mimetypes.guess_type(filename)[0] or "application/octet-stream"
        out = await run_in_threadpool(writer.finish, org, namespace, filename, media_type)
        audit(op, grant, {"org": org, "namespace": namespace}, _request_id(request), 200, None)
        return Response(out.model_dump_json(by_alias=True), media_type="application/json")

    return upload


class _McpEndpoint:
    """MCP over streamable HTTP, behind the same token check as the ops (AUTH_INVALID before any MCP)."""

    def __init__(self, endpoint, tokens: Tokens):
        self.endpoint, self.tokens = endpoint, tokens

    async def __call__(self, scope, receive, send) -> None:
        request = Request(scope)
        try:
            self.tokens.identify(request.headers.get("authorization"))
        except TabularError as err:
            return await error_response(err, _request_id(request))(scope, receive, send)
        await self.endpoint(scope, receive, send)


def _validation_items(errors: list[dict]) -> list[ErrorItem]:
    items = []
    for e in errors:
        loc = tuple(e.get("loc", ()))
        if loc and loc[0] in ("body", "query", "header", "path"):
            loc = loc[1:]
        received = e.get("input")
        items.append(ErrorItem(_path(loc), e.get("msg", ""), expected=e.get("type"), received=received if isinstance(received, (str, int, float, bool)) else None))
    return items


def _openapi(app: FastAPI) -> Callable[[], dict]:
    """OpenAPI with each op's input and output models as its request and answer schemas."""

    def build() -> dict:
        if app.openapi_schema:
            return app.openapi_schema
        schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
        wanted: list[tuple[type[BaseModel], str]] = [(ErrorEnvelope, "serialization")]
        for op in REGISTRY.values():
            for pair in ((op.input, "validation"), (op.output, "serialization")):
                if pair not in wanted:
                    wanted.append(pair)
        refs, defs = models_json_schema(wanted, ref_template="#/components/schemas/{model}")
        schema.setdefault("components", {}).setdefault("schemas", {}).update(defs.get("$defs", {}))
        error = {"description": "The SPEC §2 error envelope", "content": {"application/json": {"schema": refs[(ErrorEnvelope, "serialization")]}}}
        for op in REGISTRY.values():
            post = schema["paths"][f"/v1/{op.name}"]["post"]
            if op.name == "knowledge.upload":
                post["requestBody"] = {"content": {
                    "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
                    "multipart/form-data": {"schema": {"type": "object", "properties": {"file": {"type": "string", "format": "binary"}}}},
                    "application/json": {"schema": refs[(op.input, "validation")]},
                }}
            else:
                post["requestBody"] = {"content": {"application/json": {"schema": refs[(op.input, "validation")]}}}
            post["responses"] = {"200": {"description": "The answer", "content": {"application/json": {"schema": refs[(op.output, "serialization")]}}},
                                 "default": error}
        app.openapi_schema = schema
        return schema

    return build


def create_app(engine: Engine, tokens: Tokens | None = None, mcp: bool = True) -> FastAPI:
    """The FastAPI app over `engine`: the ops, /healthz, OpenAPI at /openapi.json and /docs, MCP at /mcp."""
    tokens = tokens or Tokens.load(engine.settings)
    service = Service(engine, tokens)
    manager = None
    if mcp:
        from .mcp import http_app

        mcp_endpoint, manager = http_app(engine, tokens, engine.settings.host)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if manager is None:
            yield
        else:
            async with manager.run():
                yield

    app = FastAPI(
        title="tabular", version="0.1.0", lifespan=lifespan,
        description="Typed datasets from spreadsheets and CSV, answered by typed plans with receipts. Every op is POST /v1/knowledge.<op>.",
    )
    app.state.service = service

    @app.exception_handler(TabularError)
    async def tabular_error(request: Request, err: TabularError) -> JSONResponse:
        return error_response(err, _request_id(request))

    @app.exception_handler(RequestValidationError)
    async def request_invalid(request: Request, err: RequestValidationError) -> JSONResponse:
        errors = list(err.errors())
        if any(e.get("type") == "json_invalid" for e in errors):
            return error_response(_not_json(ValueError("invalid JSON")), _request_id(request))
        items = _validation_items(errors)
        return error_response(ValidationFailed(f"{len(items)} problem(s) with the input", items), _request_id(request))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, err: StarletteHTTPException) -> JSONResponse:
        if err.status_code == 404:
            failure: TabularError = NotFound(f"no route {request.url.path}; ops are POST /v1/knowledge.<op>")
        else:
            failure = ValidationFailed(str(err.detail))
            failure.status = err.status_code
        return error_response(failure, _request_id(request))

    @app.exception_handler(Exception)
    async def internal(request: Request, err: Exception) -> JSONResponse:
        log.exception("request %s failed", _request_id(request))
        return error_response(Internal("an internal error; the request id names it in the server log"), _request_id(request))

    for op in REGISTRY.values():
        endpoint = _upload_route(service) if op.name == "knowledge.upload" else _op_route(service, op)
        summary = op.description.split(".")[0].split(";")[0]
        app.add_api_route(f"/v1/{op.name}", endpoint, methods=["POST"], name=op.name, summary=summary, description=op.description,
                          tags=["read" if not op.writes else "write"], response_class=Response)

    @app.post("/v1/{name}", include_in_schema=False)
    async def unknown_op(name: str) -> Response:
        raise NotFound(f"no op {name!r}", [ErrorItem("op", "unknown op", received=name, did_you_mean=close_names(name, list(REGISTRY)))])

    @app.get("/healthz", tags=["service"])
    async def healthz() -> dict:
        """Up, with the ops served and the ingest jobs waiting for a worker."""
        return {"status": "ok", "ops": len(REGISTRY), "jobs_waiting": len(engine.jobs.waiting), "auth": "single-user" if tokens.single_user else "tokens"}

    if manager is not None:
        app.add_route("/mcp", _McpEndpoint(mcp_endpoint, tokens), methods=["GET", "POST", "DELETE"], include_in_schema=False)

    app.openapi = _openapi(app)
    app.add_middleware(RequestIds)
    return app
