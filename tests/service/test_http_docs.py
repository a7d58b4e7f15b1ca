"""docs/http-mcp.md names the address `tabular serve` listens on: every host:port it shows is the
default port of the settings (it said 8000 for the page while `serve` listens on 8765)."""

from __future__ import annotations

import re
from pathlib import Path

from tabular.settings import Settings

DOC = Path(__file__).resolve().parents[2] / "docs" / "http-mcp.md"


def test_every_local_address_in_the_doc_is_the_default_port():
    text = DOC.read_text(encoding="utf-8")
    ports = {int(p) for p in re.findall(r"(?:127\.0\.0\.1|localhost):(\d+)", text)}
    assert ports, "the doc shows where the server listens"
    assert ports == {Settings().port}
