"""knowledge.upload over HTTP: the raw body (`?filename=`), multipart `file`, or the op's JSON.
Bytes go to disk as they arrive (UploadWriter); nothing holds a whole file in memory."""

from __future__ import annotations

import mimetypes
from collections.abc import Callable

from fastapi import Query, Request
from fastapi.responses import Response
from python_multipart.exceptions import FormParserError
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect

from ..errors import AuthInvalid, ErrorItem, TabularError, TooLarge, ValidationFailed
from ..ingest.uploads import UploadWriter
from ..ops import REGISTRY
from .auth import Grant
from .calls import Service, audit, read_json, request_id


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
        self.files = 0  # parts named `file`; only the first is written
        self.complete = False  # the closing boundary came: the body was not cut short
        self._header_field = b""
        self._header_value = b""
        self._headers: dict[bytes, bytes] = {}
        self._name = ""
        self._is_file = False
        self._value = bytearray()
        self.parser = MultipartParser(
            boundary,
            {
                "on_part_begin": self._begin,
                "on_part_data": self._data,
                "on_part_end": self._end,
                "on_header_field": self._field,
                "on_header_value": self._hvalue,
                "on_header_end": self._hend,
                "on_headers_finished": self._headers_done,
                "on_end": self._done,
            },
        )

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
        self._is_file = self._name == "file" and not self.seen_file
        if self._name == "file" and self.seen_file:
            # A second file part: refused once the body is read (taking the last, as parsers do, hid the first).
            self.files += 1
            self._name = ""
        if self._is_file:
            self.seen_file = True
            self.files = 1
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


def _one_whole_file(parts: _MultipartFile) -> None:
    """A multipart body read to its end: refused unless it closed its boundary and held exactly one `file` part."""
    if not parts.complete:
        raise ValidationFailed(
            "the multipart body ends before its closing boundary",
            [ErrorItem("file", "cut short", expected="multipart/form-data ending --boundary--")],
        )
    if not parts.seen_file:
        raise ValidationFailed(
            "the multipart body has no `file` part",
            [ErrorItem("file", "missing", expected="a part named file")],
        )
    if parts.files > 1:
        raise ValidationFailed(
            f"the multipart body has {parts.files} `file` parts; an upload is one file",
            [
                ErrorItem(
                    "file",
                    f"{parts.files} parts named file",
                    expected="one part named file (upload each file on its own)",
                    received=f"{parts.files} parts",
                )
            ],
        )


async def _stored(
    service: Service, request: Request, filename: str | None, body: dict, grant: Grant, content_type: str
) -> Response:
    """The body streamed to an UploadWriter (raw, or multipart's `file`), then recorded."""
    op = REGISTRY["knowledge.upload"]
    multipart = content_type.startswith("multipart/form-data")
    org = str(body.get("org") or service.settings.default_org)
    writer = await run_in_threadpool(UploadWriter, service.engine.catalog, service.engine.settings, False, org)
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
                _one_whole_file(parts)
                body = service.tokens.authorize(
                    grant,
                    op,
                    {**body, **{k: v for k, v in parts.fields.items() if k in ("org", "namespace") and v}},
                )
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
        raise ValidationFailed(
            f"the multipart body is malformed: {err}",
            [ErrorItem("file", "malformed multipart", expected="multipart/form-data")],
        ) from None
    except BaseException:
        writer.abort()
        raise
    # The multipart part named it above; _stream refused a raw body without ?filename=.
    assert filename is not None
    org = body.get("org") or service.settings.default_org
    namespace = body.get("namespace") or service.settings.default_namespace
    media_type = content_type.split(";")[0].strip()
    if media_type in ("", "application/octet-stream", "application/x-www-form-urlencoded"):
        # No type said (curl --data-binary sends the form type): the file's name tells.
        media_type = mimetypes.guess_type(filename)[0] or "application/octet-stream"
    out = await run_in_threadpool(writer.finish, org, namespace, filename, media_type)
    audit(op, grant, {"org": org, "namespace": namespace}, request_id(request), 200, None)
    return Response(out.model_dump_json(by_alias=True), media_type="application/json")


def upload_route(service: Service) -> Callable:
    op = REGISTRY["knowledge.upload"]

    async def upload(
        request: Request,
        filename: str | None = Query(
            None,
            min_length=1,
            max_length=255,
            description="The file's name (raw body); its extension tells the format.",
        ),
        org: str = Query(
            "", description="Organisation (raw body or multipart); filled from the token or the install's default."
        ),
        namespace: str = Query("", description="Namespace (raw body or multipart)."),
    ) -> Response:
        grant: Grant | None = None
        try:
            grant = service.tokens.identify(request.headers.get("authorization"))
            content_type = request.headers.get("content-type", "")
            if (
                filename is None
                and not content_type.startswith("multipart/form-data")
                and content_type.split(";")[0].strip() in ("application/json", "")
            ):
                # The op's own input: {filename, content_base64}, as MCP and Python send it (audited by Service.run).
                # base64 makes 3 bytes 4: the op's JSON may be that much larger than a raw upload.
                limit = max(service.settings.max_body_bytes, service.settings.max_upload_bytes * 4 // 3 + 4096)
                body = await read_json(request, limit)
                grant_for_run, grant = grant, None  # from here Service.run audits
                out = await service.run(op, body, grant_for_run, request_id(request))
                return Response(out.model_dump_json(by_alias=True), media_type="application/json")
            return await _stream(request, filename, org, namespace, grant, content_type)
        except TabularError as err:
            if grant is not None or isinstance(err, AuthInvalid):
                # Every refusal of an upload is audited, as every other write's is (by Service.run).
                audit(op, grant, {"org": org, "namespace": namespace}, request_id(request), err.status, err.code)
            raise

    async def _stream(
        request: Request, filename: str | None, org: str, namespace: str, grant: Grant, content_type: str
    ) -> Response:
        multipart = content_type.startswith("multipart/form-data")
        if filename is None and not multipart:
            raise ValidationFailed(
                "a raw upload names its file with ?filename=",
                [
                    ErrorItem(
                        "filename",
                        "missing",
                        expected="?filename=<name> with the raw body, or multipart with a `file` part",
                    )
                ],
            )
        body = service.tokens.authorize(grant, op, {"org": org, "namespace": namespace})
        # The org's slot and a slot for the whole stream, as an op's call holds them (503 past
        # overload_wait_seconds): a flood of uploads no longer streams past max_inflight_per_org.
        release = await service.hold(str(body.get("org") or service.settings.default_org))
        try:
            return await _stored(service, request, filename, body, grant, content_type)
        finally:
            release()

    return upload
