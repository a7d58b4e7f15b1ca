"""Tiny inputs with huge costs (issue 16), refused before they are paid for, on a served
deployment whose peak memory is checked at the end."""

from __future__ import annotations

import pytest
from hostile_workbooks import ROWS, SHEET_CLOSE, SHEET_OPEN, workbook
from service.support import Server, start_ingest, wait_for

PEAK_MEMORY_KIB = 1_500_000


def ingest(c, path, source_uri: str) -> dict:
    """The job's state once it ends: a bomb is refused with its code, however busy the machine
    (the 600 s only guard a hang; how fast it is refused is bench/'s to say, not a test's)."""
    return wait_for(c, start_ingest(c, path, source_uri), seconds=600)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # Every workbook takes the fast reader (fastexcel), as a large one would; DuckDB has 1 GB.
    srv = Server(tmp_path_factory.mktemp("bombs") / "home", sheet_fast_bytes=0, duckdb_memory="1GB").start()
    yield srv
    srv.stop()


@pytest.fixture
def bombs(server):
    """The server, its peak memory checked after each bomb: whichever process runs which of this
    module's tests (make test's workers take them as they free up), none passes the bound."""
    yield server
    assert server.rss_peak_kib() < PEAK_MEMORY_KIB, "the server went past its memory bound"


def test_a_workbook_with_one_far_cell_is_refused_before_the_grid_is_made(bombs, tmp_path):
    far = b'<row r="1048576"><c r="CV1048576" t="inlineStr"><is><t>x</t></is></c></row>'
    path = workbook(tmp_path / "far.xlsx", [SHEET_OPEN % b"", ROWS % b"a", far, SHEET_CLOSE])
    with bombs.client() as c:
        got = ingest(c, path, "far.xlsx")
    assert (got["state"], got["error_code"]) == ("failed", "too_large") and "max_sheet_cells" in got["error_message"]


def test_an_ods_of_repeated_rows_is_refused_before_they_are_expanded(bombs, tmp_path):
    import zipfile

    content = (
        b'<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"'
        b' xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"'
        b' office:version="1.2"><office:body><office:spreadsheet><table:table table:name="S">'
        b'<table:table-row><table:table-cell office:value-type="string"><text:p>a</text:p></table:table-cell></table:table-row>'
        b'<table:table-row table:number-rows-repeated="300000"><table:table-cell table:number-columns-repeated="100" office:value-type="float"'
        b' office:value="1"><text:p>1</text:p></table:table-cell></table:table-row>'
        b"</table:table></office:spreadsheet></office:body></office:document-content>"
    )
    path = tmp_path / "repeats.ods"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet", compress_type=zipfile.ZIP_STORED)
        z.writestr("content.xml", content)
    assert path.stat().st_size < 1000
    with bombs.client() as c:
        got = ingest(c, path, "repeats.ods")
    assert (got["state"], got["error_code"]) == ("failed", "too_large") and "max_sheet_cells" in got["error_message"]


def test_an_ods_of_rows_with_a_cell_repeated_across_columns_is_refused(bombs, tmp_path):
    import zipfile

    row = (
        b'<table:table-row><table:table-cell table:number-columns-repeated="16384" office:value-type="float" office:value="1">'
        b"<text:p>1</text:p></table:table-cell></table:table-row>"
    )
    content = (
        b'<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"'
        b' xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"'
        b' office:version="1.2"><office:body><office:spreadsheet><table:table table:name="S">'
        + row * 1300
        + b"</table:table></office:spreadsheet></office:body></office:document-content>"
    )
    path = tmp_path / "wide.ods"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet", compress_type=zipfile.ZIP_STORED)
        z.writestr("content.xml", content)
    with bombs.client() as c:
        got = ingest(c, path, "wide.ods")
    assert (got["state"], got["error_code"]) == ("failed", "too_large") and "max_sheet_cells" in got["error_message"]


def test_a_tall_narrow_workbook_is_read(bombs, tmp_path):
    rows = b"".join(
        b'<row r="%d"><c r="A%d"><v>%d</v></c><c r="B%d"><v>1</v></c></row>' % (i, i, i, i) for i in range(2, 20_002)
    )
    path = workbook(
        tmp_path / "tall.xlsx",
        [
            SHEET_OPEN % b"",
            b'<row r="1"><c r="A1" t="inlineStr"><is><t>id</t></is></c><c r="B1" t="inlineStr"><is><t>n</t></is></c></row>',
            rows,
            SHEET_CLOSE,
        ],
    )
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


def test_a_gzip_of_blank_lines_and_a_json_nested_deep_are_refused(bombs, tmp_path):
    import gzip

    blank = tmp_path / "blank.csv.gz"
    with gzip.open(blank, "wb", compresslevel=9) as f:
        f.write(b"a,b\n1,2\n")
        for _ in range(40):  # 40 MiB in 41 KiB: a ratio of 1000, past max_inflate_ratio's 250 after 8 MiB
            f.write(b"\n" * (1 << 20))
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)
    with bombs.client() as c:
        for path, says in ((blank, "max_inflate_ratio"), (deep, "max_json_depth")):
            got = ingest(c, path, path.name)
            assert (got["state"], got["error_code"]) == ("failed", "too_large") and says in got["error_message"], got
