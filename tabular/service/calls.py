"""What the HTTP routes and the MCP tools share: running an op for a caller (the token check,
the in-flight limit, the audit line) and the SPEC §2 envelope of a failure."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import suppress
from typing import Any

import duckdb
from fastapi import Request
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.concurrency import run_in_threadpool

from ..engine import Engine
from ..errors import ErrorItem, Overloaded, RateLimited, TabularError, TooLarge, ValidationFailed
from ..ops import Op
from ..results import chunks as result_chunks
from .auth import Grant, Tokens

log = logging.getLogger("tabular.service")
audit_log = logging.getLogger("tabular.audit")


def audit(op: Op, grant: Grant | None, body: dict, request_id: str, status: int, code: str | None) -> None:
    """One JSON line per call of an audited op (the writes): who, what, where, how it ended."""
    if not op.audited:
        return
    audit_log.info(
        json.dumps(
            {
                "op": op.name,
                "caller": grant.name if grant else None,
                "org": body.get("org"),
                "namespace": body.get("namespace"),
                "request_id": request_id,
                "status": status,
                "code": code,
            }
        )
    )


def error_response(err: TabularError, request_id: str) -> JSONResponse:
    headers = {"Retry-After": str(err.retry_after)} if isinstance(err, RateLimited) else None
    return JSONResponse({"detail": err.to_detail(request_id)}, status_code=err.status, headers=headers)


def request_id(request: Request) -> str:
    return getattr(request.state, "request_id", "")


def not_json(err: Exception) -> ValidationFailed:
    failure = ValidationFailed(f"the body is not JSON: {err}", [ErrorItem("", "not JSON", expected="a JSON object")])
    failure.status = 400  # SPEC §2: 400 for a body that is not JSON
    return failure


class JsonNumber(float):
    """A JSON number with a fraction or exponent: a float everywhere, that also keeps the digits
    it was written with, so an expression's literal 0.1 is exactly 0.1 (planner/expressions.py)."""

    text: str

    def __new__(cls, text: str) -> JsonNumber:
        number = super().__new__(cls, text)
        number.text = text
        return number


def _not_a_number(word: str):
    raise ValueError(f"{word} is not JSON (RFC 8259 has no NaN or Infinity)")


def parse_body(raw: bytes) -> dict:
    """The JSON object of a request body (empty: `{}`)."""
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw, parse_constant=_not_a_number, parse_float=JsonNumber)
    except (ValueError, UnicodeDecodeError) as err:
        raise not_json(err) from None
    except RecursionError:
        raise ValidationFailed(
            "the body nests deeper than can be read",
            [ErrorItem("", "nested too deep", expected="at most a few dozen levels")],
        ) from None
    if not isinstance(body, dict):
        raise ValidationFailed(
            "the body must be a JSON object",
            [ErrorItem("", "not an object", expected="object", received=type(body).__name__)],
        )
    return body


async def read_json(request: Request, limit: int) -> dict:
    """The JSON object of the body, read up to `limit` bytes (more is 413: a plan is small)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise TooLarge(f"the body is over {limit} bytes (max_body_bytes); files go to knowledge.upload as the raw body")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge(
                f"the body is over {limit} bytes (max_body_bytes); files go to knowledge.upload as the raw body"
            )
        chunks.append(chunk)
    return parse_body(b"".join(chunks))


async def disconnected(request: Request) -> None:
    """Return when the client has gone away (the ASGI server's `http.disconnect`; the body is read)."""
    with suppress(Exception):  # a receive that fails: the connection is gone all the same
        while (await request.receive())["type"] != "http.disconnect":
            pass


class ClientClosed(TabularError):
    """A client that went away before the first byte of its whole result: its statement was
    stopped and its answer goes to no one. 499 is "client closed request" (nginx's); no code of
    SPEC §2, being answered to no one: the server's log says it, for the operator."""

    code, status = "CLIENT_CLOSED", 499


class Started:
    """An op run in a worker thread, and the DuckDB cursors it makes there: a client that goes
    away before the first byte interrupts those alone, while the call runs (cursors the same
    thread made for an earlier call may be streaming that call's rows by now)."""

    def __init__(self, engine: Engine, op: str, body: dict, caller: str):
        self.engine, self.args = engine, (op, body, caller)
        self._lock = threading.Lock()
        self._thread: int | None = None
        self._before: set[int] = set()

    def run(self):
        catalog, thread = self.engine.catalog, threading.get_ident()
        with catalog.connections.cursors_lock:
            before = {id(cur) for cur in catalog.connections.cursors.get(thread, ())}
        with self._lock:
            self._thread, self._before = thread, before
        try:
            return self.engine.run(*self.args)
        finally:
            with self._lock:
                self._thread = None

    def interrupt(self) -> None:
        catalog = self.engine.catalog
        with self._lock:  # the call still runs: its thread is no other call's yet
            if self._thread is None:
                return
            with catalog.connections.cursors_lock:
                made = [cur for cur in catalog.connections.cursors.get(self._thread, ()) if id(cur) not in self._before]
            for cur in made:
                with suppress(duckdb.Error):
                    cur.interrupt()


class Rows:
    """A whole result's bytes for a streaming response, read as DuckDB computes them. `finish`
    (once, whoever calls first: the last byte sent, or the response ended by a client that went
    away, even before its first byte) stops the statement if it still runs and gives the slots
    back; a client gone mid-stream no longer leaves DuckDB computing rows no one reads."""

    def __init__(self, whole, release: Callable[[], None]):
        self.whole, self._release, self._done = whole, release, False
        self._reading = threading.Lock()  # held by the thread reading the next piece

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._pieces()

    async def _pieces(self) -> AsyncIterator[bytes]:
        chunks = result_chunks(self.whole.reader, self.whole.format)

        def step() -> bytes | None:
            with self._reading:
                return next(chunks, None)

        try:
            while (piece := await run_in_threadpool(step)) is not None:
                yield piece
        finally:
            self.finish()

    def finish(self) -> None:
        if self._done:
            return
        self._done = True
        try:
            self.whole.cancel()  # a thread reading the statement stops it, and lets it go
            if self._reading.acquire(blocking=False):  # none reads it: let it go now
                try:
                    self.whole.close()
                finally:
                    self._reading.release()
        finally:
            self._release()


class Streamed(StreamingResponse):
    """A streaming response that finishes its Rows however it ends (sent whole, the client gone
    before or while the rows come): Starlette cancels the sending when the client goes away."""

    def __init__(self, rows: Rows, **kwargs):
        super().__init__(rows, **kwargs)
        self.rows = rows

    async def __call__(self, scope, receive, send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.rows.finish()


class Service:
    """What every route shares: the engine, the tokens, and the in-flight limits: all calls
    (`max_inflight`) and each org's (`max_inflight_per_org`), so one org's flood of slow calls
    never takes the slots another org's next call needs."""

    def __init__(self, engine: Engine, tokens: Tokens):
        self.engine, self.tokens, self.settings = engine, tokens, engine.settings
        self.slots = asyncio.Semaphore(self.settings.max_inflight)
        self.org_slots: dict[str, asyncio.Semaphore] = {}

    async def _slot(self, slots: asyncio.Semaphore, busy: str) -> None:
        """Take a slot, waiting `overload_wait_seconds` at most (then 503, saying whose)."""
        if not slots.locked():  # wait_for with a timeout of 0 would refuse even a free slot
            await slots.acquire()
            return
        try:
            await asyncio.wait_for(slots.acquire(), self.settings.overload_wait_seconds)
        except TimeoutError:
            raise Overloaded(f"{busy}; try again shortly", retry_after=self.settings.retry_after_seconds) from None

    def _org_slots(self, org: str) -> asyncio.Semaphore:
        # Single-user mode has one user, whatever org it names: no share to keep apart (and no key
        # per name sent), so its one share is the whole in-flight limit.
        if self.tokens.single_user:
            return self.org_slots.setdefault("", asyncio.Semaphore(self.settings.max_inflight))
        return self.org_slots.setdefault(org, asyncio.Semaphore(self.settings.max_inflight_per_org))

    async def hold(self, org: str):
        """Take the org's slot and a slot for a stream; answers the function that gives both back."""
        mine = self._org_slots(org)
        await self._slot(
            mine, f"{self.settings.max_inflight_per_org} calls of this org are being served (max_inflight_per_org)"
        )
        try:
            await self._slot(self.slots, f"{self.settings.max_inflight} calls are being served")
        except BaseException:
            mine.release()
            raise

        def release() -> None:
            self.slots.release()
            mine.release()

        return release

    async def stream(self, op: Op, body: dict, grant: Grant, gone: Request | None = None) -> tuple[Any, Rows]:
        """Authorize and run an op that streams (knowledge.query_export): its Whole and its bytes in
        the format it names (Rows), the org's slot and a slot held until the last byte is sent.
        With `gone` (the request), a client that goes away before the first byte stops the
        statement at once (its first batch may be a sort's or a hash table's whole work)."""
        called = request_id(gone) if gone is not None else ""
        try:
            body = self.tokens.authorize(grant, op, body)
            release = await self.hold(str(body.get("org") or self.settings.default_org))
            try:
                whole = await self._started(op, body, grant, gone)
            except BaseException:
                release()
                raise
        except TabularError as err:
            audit(op, grant, body, called, err.status, err.code)
            raise
        audit(op, grant, body, called, 200, None)
        return whole, Rows(whole, release)

    async def _started(self, op: Op, body: dict, grant: Grant, request: Request | None):
        call = Started(self.engine, op.name, body, grant.name)
        running = asyncio.ensure_future(run_in_threadpool(call.run))
        if request is not None:
            watching = asyncio.ensure_future(disconnected(request))
            try:
                await asyncio.wait({running, watching}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                watching.cancel()
            if watching.done() and not watching.cancelled() and not running.done():
                call.interrupt()
                await self._abandoned(running, op, request)
        return await running

    async def _abandoned(self, running: asyncio.Future, op: Op, request: Request) -> None:
        """A call whose client went away before its first byte, stopped: whatever it ends with
        (DuckDB's interrupt, which reads as a deadline's, or rows ready after all, let go) it is
        ClientClosed, said once in the log; never the timeout the interrupt looks like."""
        try:
            whole = await running
        except TabularError:  # the interrupt (as BACKEND_TIMEOUT), or any refusal: no one is there to be told
            pass
        except Exception:  # the interrupt as the backend's own exception; kept for a reader of the debug log
            log.debug("request %s: after its client went away", request_id(request), exc_info=True)
        else:
            whole.close()
        log.info(
            "request %s: %s ended 499 (client closed request): the client went away before the first byte, "
            "and its statement was stopped",
            request_id(request),
            op.name,
        )
        raise ClientClosed("the client went away before the first byte; its statement was stopped")

    async def run(self, op: Op, body: dict, grant: Grant, request_id: str):
        """Authorize, wait for the org's slot and a slot (503 past `overload_wait_seconds`), run,
        audit — also a refusal."""
        try:
            body = self.tokens.authorize(grant, op, body)
            mine = self._org_slots(str(body.get("org") or self.settings.default_org))
            await self._slot(
                mine, f"{self.settings.max_inflight_per_org} calls of this org are being served (max_inflight_per_org)"
            )
            try:
                await self._slot(self.slots, f"{self.settings.max_inflight} calls are being served")
                try:
                    out = await run_in_threadpool(self.engine.run, op.name, body, grant.name)
                finally:
                    self.slots.release()
            finally:
                mine.release()
        except TabularError as err:
            audit(op, grant, body, request_id, err.status, err.code)
            raise
        audit(op, grant, body, request_id, 200, None)
        return out
