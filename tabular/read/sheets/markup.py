"""What a workbook part's XML may hold before a Python XML parser reads it.

Two shapes are refused: a DTD (entity expansion: no spreadsheet writes one) and a markup token
(a comment, a tag, a CDATA section) longer than LONG_TOKEN. Python's expat rescans an open token
at every chunk it is fed, so one long comment costs time quadratic in its length. Parts that only
calamine reads (quick-xml, linear, no entities) need neither check, only their CRC.
"""

from __future__ import annotations

from ...errors import IngestFailed

LONG_TOKEN = 1 << 20
_OPENERS = ((b"<!--", b"-->"), (b"<![CDATA[", b"]]>"), (b"<?", b"?>"))


def _open_token(data: bytes) -> int:
    """Where a markup token still open at the end of `data` starts, or -1."""
    for opener, closer in _OPENERS:
        at = data.rfind(opener)
        if at != -1 and data.find(closer, at + len(opener)) == -1:
            return at
    at = data.rfind(b"<")
    return at if at != -1 and data.find(b">", at) == -1 else -1


class MarkupGuard:
    """Fed a part's bytes in order; raises IngestFailed (format_unavailable) at the first DTD or
    at a token that has stayed open past LONG_TOKEN bytes."""

    def __init__(self, part: str):
        self.part = part
        self.carry = b""

    def feed(self, chunk: bytes) -> None:
        data = self.carry + chunk
        if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
            raise IngestFailed(
                "format_unavailable",
                f"the workbook part {self.part} declares a DTD, which no spreadsheet writes (entity expansion is refused)",
            )
        start = _open_token(data)
        self.carry = data[start:] if start != -1 else data[-16:]
        if start != -1 and len(self.carry) > LONG_TOKEN:
            raise IngestFailed(
                "format_unavailable",
                f"the workbook part {self.part} holds markup over {LONG_TOKEN} bytes long (a comment or a tag), which no spreadsheet writes",
            )


class GuardedStream:
    """A binary stream whose every read passes through a MarkupGuard: what an XML parser reads
    through it has been checked as far as it has read."""

    def __init__(self, stream, part: str):
        self.stream = stream
        self.guard = MarkupGuard(part)

    def read(self, size: int = -1) -> bytes:
        chunk = self.stream.read(size)
        if chunk:
            self.guard.feed(chunk)
        return chunk
