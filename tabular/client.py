"""A client for a tabular service over HTTP, with the embedded engine's `call` and namespace
methods: `tabular.Client(base_url, token).namespace("acme", "finance").query({...})`.

Errors raise the same `TabularError` subclasses as the engine, carrying `code`, `status`,
`errors` and the server's `request_id`. Calls that are safe to repeat (the registry's idempotent
ops, and an ingest, which always carries an idempotency key) are retried on 5xx and on a broken
connection, with exponential backoff and the server's `Retry-After`; any op is retried on 429/503
back-pressure, which the server answers before running anything.
"""

from __future__ import annotations

import io
import os
import time
import uuid
from collections.abc import Callable

import httpx
from pydantic import BaseModel

from .errors import ErrorItem, RateLimited, TabularError
from .namespace import NamespaceOps, local_file
from .ops import REGISTRY, refuse_stream


def _error_classes() -> dict[str, type[TabularError]]:
    """Each code's class: the first that says the code itself (INTERNAL is errors.Internal; a
    class that inherits its code, or the base, claims none)."""
    out: dict[str, type[TabularError]] = {}
    todo = list(TabularError.__subclasses__())
    while todo:
        cls = todo.pop()
        if "code" in vars(cls):
            out.setdefault(cls.code, cls)
        todo.extend(cls.__subclasses__())
    return out


def error_from(response: httpx.Response) -> TabularError:
    """The typed error of an error answer (the SPEC §2 envelope; anything else is INTERNAL)."""
    try:
        detail = response.json()["detail"]
        code, message = detail["code"], detail["message"]
    except (ValueError, KeyError, TypeError):
        detail, code, message = {}, "INTERNAL", f"HTTP {response.status_code}: {response.text[:200]}"
    items = [
        ErrorItem(**{k: e.get(k) for k in ("path", "message", "expected", "received", "did_you_mean")})
        for e in detail.get("errors") or []
    ]
    cls = _error_classes().get(code, TabularError)
    if issubclass(cls, RateLimited):
        err: TabularError = cls(message, retry_after=_retry_after(response) or 1, errors=items)
    else:
        err = cls(message, items)
    err.code, err.status = code, response.status_code
    err.request_id = detail.get("request_id") or response.headers.get("x-request-id", "")
    return err


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after", "")
    return float(value) if value.replace(".", "", 1).isdigit() else None


class Client:
    """A remote tabular service. `token` (default: TABULAR_TOKEN) is sent as a bearer token."""

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        timeout: float = 60.0,
        retries: int = 3,
        backoff: float = 0.2,
        transport: httpx.BaseTransport | None = None,
    ):
        token = token if token is not None else os.environ.get("TABULAR_TOKEN")
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.Client(base_url=base_url.rstrip("/"), headers=headers, timeout=timeout, transport=transport)
        self.retries, self.backoff = retries, backoff

    def call(self, op: str, body: dict | BaseModel | None = None) -> dict:
        """Run an op by name: a dict in, a dict out, exactly the HTTP body and answer."""
        refuse_stream(op)
        if isinstance(body, BaseModel):
            body = body.model_dump(mode="json", by_alias=True, exclude_defaults=True)
        body = dict(body or {})
        spec = REGISTRY.get(op)
        if spec is not None and "idempotency_key" in spec.input.model_fields and not body.get("idempotency_key"):
            body["idempotency_key"] = "c_" + uuid.uuid4().hex  # makes the ingest safe to send again
        repeatable = spec is None or spec.idempotent or bool(body.get("idempotency_key"))
        return self._send(lambda: self.http.post(f"/v1/{op}", json=body), repeatable).json()

    def run(self, op: str, body: dict | BaseModel | None = None) -> BaseModel:
        """Run an op by name and answer its typed output model."""
        return REGISTRY[op].output.model_validate(self.call(op, body))

    def _send(self, request, repeatable: bool) -> httpx.Response:
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                response = request()
            except httpx.TransportError as err:
                # A refused connection sent nothing; anything else may have run on the server, so
                # only an op that is safe to repeat is sent again.
                if last or not (repeatable or isinstance(err, httpx.ConnectError)):
                    raise
                time.sleep(self.backoff * 2**attempt)
                continue
            if response.status_code < 400:
                return response
            refused = error_from(response)
            again = isinstance(refused, RateLimited) or (
                repeatable and response.status_code >= 500 and refused.code != "BACKEND_TIMEOUT"
            )
            if last or not again:
                raise refused
            time.sleep(min(30.0, max(self.backoff * 2**attempt, _retry_after(response) or 0)))
        raise AssertionError("unreachable")

    def namespace(self, org: str, namespace: str) -> RemoteNamespace:
        return RemoteNamespace(self, org, namespace)

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class RemoteNamespace(NamespaceOps):
    """A client bound to one (org, namespace): the embedded Namespace's methods, over HTTP."""

    def __init__(self, client: Client, org: str, namespace: str):
        self.client, self.org, self.name = client, org, namespace
        # The receipt id of the last whole result streamed (export, to_arrow(whole=True)): its
        # headers carry only the id; `receipt()` fetches the whole receipt.
        self.last_receipt_id = ""

    def receipt(self, receipt_id: str = ""):
        """knowledge.receipt: the whole receipt of a whole result (the SQL, every parameter, the
        snapshots read, the columns), by its id; by default the last this namespace streamed."""
        return self._run("knowledge.receipt", self._body(receipt_id=receipt_id or self.last_receipt_id))

    def upload_file(self, path: str | os.PathLike) -> dict:
        """Stream a local file as the raw body of knowledge.upload."""
        path, content_type = local_file(path)
        params = {"filename": path.name, "org": self.org, "namespace": self.name}

        def send() -> httpx.Response:
            with path.open("rb") as stream:
                return self.client.http.post(
                    "/v1/knowledge.upload", params=params, content=stream, headers={"Content-Type": content_type}
                )

        return self.client._send(send, repeatable=False).json()

    def _pause(self, ingestion_id: str) -> Callable[[float], bool]:
        def pause(seconds: float) -> bool:
            time.sleep(seconds)
            return True

        return pause

    def _run(self, op: str, body: dict) -> BaseModel:
        return self.client.run(op, body)

    def _call(self, op: str, body: dict) -> dict:
        return self.client.call(op, body)

    def _stream(self, body: dict):
        """Every row of the plan, from knowledge.query_export as an Arrow stream, read as it comes."""
        import pyarrow as pa

        request = self.client.http.build_request("POST", "/v1/knowledge.query_export", json={**body, "format": "arrow"})
        response = self.client.http.send(request, stream=True)
        if response.status_code >= 400:
            response.read()
            response.close()
            raise error_from(response)
        self.last_receipt_id = response.headers.get("x-tabular-receipt-id", "")
        return pa.ipc.open_stream(_Body(response))


class _Body(io.RawIOBase):
    """A streamed HTTP body as a file Arrow's reader reads from (closed at its end)."""

    def __init__(self, response: httpx.Response):
        self.response, self.pieces, self.left = response, response.iter_bytes(), b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self.left:
            piece = next(self.pieces, None)
            if piece is None:
                self.response.close()
                return 0
            self.left = piece
        n = min(len(buffer), len(self.left))
        buffer[:n], self.left = self.left[:n], self.left[n:]
        return n
