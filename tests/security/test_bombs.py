"""Tiny inputs with huge costs (issue 16), refused before they are paid for, on a served
deployment whose peak memory is checked at the end."""

from __future__ import annotations

import pytest

from hostile_workbooks import ROWS, SHEET_CLOSE, SHEET_OPEN, workbook
from service.support import Server, ingest

PEAK_MEMORY_KIB = 1_500_000


@pytest.fixture(scope="module")
def bombs(tmp_path_factory):
    # Every workbook takes the fast reader (fastexcel), as a large one would.
    srv = Server(tmp_path_factory.mktemp("bombs") / "home", sheet_fast_bytes=0).start()
    yield srv
    srv.stop()


def test_a_workbook_with_one_far_cell_is_refused_before_the_grid_is_made(bombs, tmp_path):
    far = b'<row r="1048576"><c r="CV1048576" t="inlineStr"><is><t>x</t></is></c></row>'
    path = workbook(tmp_path / "far.xlsx", [SHEET_OPEN % b"", ROWS % b"a", far, SHEET_CLOSE])
    with bombs.client() as c:
        got = ingest(c, path, "far.xlsx")
    assert (got["state"], got["error_code"]) == ("failed", "too_large") and "max_sheet_cells" in got["error_message"]


def test_a_tall_narrow_workbook_is_read(bombs, tmp_path):
    rows = b"".join(b'<row r="%d"><c r="A%d"><v>%d</v></c><c r="B%d"><v>1</v></c></row>' % (i, i, i, i) for i in range(2, 20_002))
    path = workbook(tmp_path / "tall.xlsx", [SHEET_OPEN % b"", b'<row r="1"><c r="A1" t="inlineStr"><is><t>id</t></is></c><c r="B1" t="inlineStr"><is><t>n</t></is></c></row>', rows, SHEET_CLOSE])
    with bombs.client() as c:
        got = ingest(c, path, "tall.xlsx")
    assert got["state"] == "ready", got


def test_a_line_of_a_hundred_million_characters_is_refused_unparsed(bombs, tmp_path):
    path = tmp_path / "line.csv"
    with path.open("w") as f:
        f.write("a,b\n1,2\n")
        f.write("xy," * (34 * 1024 * 1024) + "\n")
    with bombs.client() as c:
        got = ingest(c, path, "line.csv")
        assert (got["state"], got["error_code"]) == ("failed", "too_large") and "max_line_bytes" in got["error_message"]
        assert c.get("/healthz").status_code == 200


def test_the_server_stayed_within_its_memory_bound(bombs):
    assert bombs.rss_peak_kib() < PEAK_MEMORY_KIB
