"""What the server answers before a request reaches the app: a request its HTTP parser cannot
read (malformed, or a request line and headers past what the parser holds) gets the SPEC §2
envelope, as every other failure does, instead of uvicorn's plain-text 400."""

from __future__ import annotations

import asyncio
import json
import uuid

from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

UNREADABLE = (
    "the request could not be read as HTTP/1.1: it is malformed, or its request line and headers are longer than "
    "the server reads (a URL may hold max_url_bytes; plans go in the JSON body)"
)


def unreadable_answer(default_headers: list[tuple[bytes, bytes]]) -> bytes:
    """The whole HTTP answer to a request that could not be parsed: 400 VALIDATION_FAILED."""
    request_id = "req_" + uuid.uuid4().hex[:16]
    body = json.dumps({"detail": {"code": "VALIDATION_FAILED", "message": UNREADABLE, "request_id": request_id}})
    content = body.encode()
    head = [b"HTTP/1.1 400 Bad Request\r\n"]
    head += [name + b": " + value + b"\r\n" for name, value in default_headers]
    head += [
        b"content-type: application/json\r\n",
        b"content-length: " + str(len(content)).encode() + b"\r\n",
        b"x-request-id: " + request_id.encode() + b"\r\n",
        b"connection: close\r\n\r\n",
    ]
    return b"".join(head) + content


class _Enveloped:
    """uvicorn calls send_400_response when its parser refuses the bytes; answer the envelope."""

    # Set by the uvicorn protocol this is mixed into.
    transport: asyncio.Transport
    server_state: ServerState

    def send_400_response(self, msg: str) -> None:
        self.transport.write(unreadable_answer(self.server_state.default_headers))
        self.transport.close()


class H11Enveloped(_Enveloped, H11Protocol):
    pass


PROTOCOL: type[asyncio.Protocol] = H11Enveloped
try:  # uvicorn's faster parser, where it is installed (uvicorn picks it the same way)
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # pragma: no cover - httptools is an optional extra of uvicorn
    pass
else:

    class HttpToolsEnveloped(_Enveloped, HttpToolsProtocol):
        pass

    PROTOCOL = HttpToolsEnveloped
