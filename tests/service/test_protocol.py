"""tabular/service/protocol.py: a request the HTTP parser cannot read is answered with the SPEC §2
envelope (400 VALIDATION_FAILED), not uvicorn's plain text."""

import json
import socket
from urllib.parse import urlparse

from uvicorn.protocols.http.h11_impl import H11Protocol

from tabular.service.protocol import PROTOCOL, UNREADABLE, H11Enveloped, unreadable_answer


def split(answer: bytes) -> tuple[str, dict[str, str], bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.decode().split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines)
    return status, headers, body


def test_the_answer_is_a_400_envelope_with_its_request_id():
    status, headers, body = split(unreadable_answer([(b"server", b"tabular")]))
    assert status == "HTTP/1.1 400 Bad Request"
    assert headers["server"] == "tabular" and headers["connection"] == "close"
    assert int(headers["content-length"]) == len(body)
    detail = json.loads(body)["detail"]
    assert (detail["code"], detail["message"]) == ("VALIDATION_FAILED", UNREADABLE)
    assert detail["request_id"] == headers["x-request-id"] and detail["request_id"].startswith("req_")


def test_each_answer_has_its_own_request_id():
    assert split(unreadable_answer([]))[1]["x-request-id"] != split(unreadable_answer([]))[1]["x-request-id"]


class _Transport:
    def __init__(self):
        self.written, self.closed = b"", False

    def write(self, data: bytes) -> None:
        self.written += data

    def close(self) -> None:
        self.closed = True


class _State:
    default_headers = [(b"server", b"tabular")]


def test_the_protocol_writes_the_envelope_and_closes_the_connection():
    assert issubclass(H11Enveloped, H11Protocol)
    protocol = object.__new__(PROTOCOL)
    protocol.transport, protocol.server_state = _Transport(), _State()
    protocol.send_400_response("Invalid HTTP request received.")
    assert protocol.transport.closed
    status, _, body = split(protocol.transport.written)
    assert status.startswith("HTTP/1.1 400") and json.loads(body)["detail"]["code"] == "VALIDATION_FAILED"


def test_the_server_answers_a_garbled_request_line_with_the_envelope(server):
    url = urlparse(server.url)
    with socket.create_connection((url.hostname, url.port), timeout=30) as s:
        s.sendall(b"NOT HTTP AT ALL\x00\r\n\r\n")
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    status, headers, body = split(answer)
    assert " 400 " in status and headers["content-type"] == "application/json"
    assert json.loads(body)["detail"]["code"] == "VALIDATION_FAILED"
