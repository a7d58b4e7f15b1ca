"""Hostile files sent to the real server: each is refused with a clear code, within a bounded
wait, and the server's peak memory stays bounded; names that try to leave the uploads folder
cannot. The files are made here, in tmp_path (none is committed)."""

from __future__ import annotations

import base64
from pathlib import Path

import httpx
import pytest
from hostile_workbooks import LAUGHS, ROWS, SHEET_CLOSE, SHEET_OPEN, WORKBOOK, padding, workbook

from tabular.settings import Settings

from .support import Server, envelope, ingest, wait_for

# A workbook's parts may inflate to 32 MiB here (the default is 1 GiB): the bombs stay small.
XML_LIMIT = 32 << 20
# What the server may reach while refusing all of them (it starts near 300 MiB).
PEAK_MEMORY_KIB = 1_200_000


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("svc-hostile") / "home", max_workbook_xml_bytes=XML_LIMIT).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def c(hostile):
    with hostile.client() as client:
        yield client


def refused(c: httpx.Client, path: Path, code: str, says: str) -> dict:
    got = ingest(c, path, "hostile/" + path.name)  # waits 60 s at most
    assert got["state"] == "failed", got
    assert got["error_code"] == code, got
    assert says in got["error_message"], got["error_message"]
    return got


def test_a_well_formed_workbook_of_the_same_make_is_read(c, tmp_path):
    path = workbook(tmp_path / "fine.xlsx", [SHEET_OPEN % b"", ROWS % b"a", SHEET_CLOSE])
    assert ingest(c, path, "hostile/fine.xlsx")["state"] == "ready"


def test_a_decompression_bomb_is_refused_unread(c, tmp_path):
    # 48 MiB of sheet XML in a zip of about 50 KiB.
    path = workbook(
        tmp_path / "bomb.xlsx", [SHEET_OPEN % b"", ROWS % b"a", b"<!--", *padding(48 << 20), b"-->", SHEET_CLOSE]
    )
    assert path.stat().st_size < 1 << 20
    refused(c, path, "too_large", "max_workbook_xml_bytes")


def test_a_bomb_of_many_empty_rows_is_refused(c, tmp_path):
    path = workbook(tmp_path / "rows.xlsx", [SHEET_OPEN % b"", ROWS % b"a", *padding(40 << 20, b"<row/>"), SHEET_CLOSE])
    refused(c, path, "too_large", "max_workbook_xml_bytes")


def test_a_long_comment_under_the_limit_is_refused_not_parsed_for_minutes(c, tmp_path):
    # Python's expat rescans an open comment at every block it is fed: 20 MB took ~10 s, 100 MB minutes.
    path = workbook(
        tmp_path / "comment.xlsx", [SHEET_OPEN % b"", ROWS % b"a", b"<!--", *padding(20 << 20), b"-->", SHEET_CLOSE]
    )
    refused(c, path, "format_unavailable", "markup over")


@pytest.mark.parametrize("where", ["sheet", "workbook"])
def test_entity_expansion_is_refused(c, tmp_path, where):
    if where == "sheet":
        path = workbook(tmp_path / "laughs.xlsx", [SHEET_OPEN % LAUGHS, ROWS % b"&lol9;", SHEET_CLOSE])
    else:
        book = WORKBOOK.replace('<?xml version="1.0"?>', '<?xml version="1.0"?>' + LAUGHS.decode()).replace(
            'name="S"', 'name="&lol9;"'
        )
        path = workbook(tmp_path / "laughs_book.xlsx", [SHEET_OPEN % b"", ROWS % b"a", SHEET_CLOSE], book=book)
    refused(c, path, "format_unavailable", "DTD")


# A cell 8 MiB past the default limits (both 32 MiB; the server here keeps them), and one of
# 100 MiB under `-m slow`.
PAST_THE_LIMITS = (max(Settings().max_line_bytes, Settings().max_cell_bytes) >> 20) + 8


@pytest.mark.parametrize("mib", [PAST_THE_LIMITS, pytest.param(100, marks=pytest.mark.slow)])
def test_a_huge_cell_is_refused(c, tmp_path, mib):
    # On one line: the line is too long before the csv module holds the cell.
    path = tmp_path / "cell.csv"
    with path.open("wb") as f:
        f.write(b"id,text\n1,short\n2,")
        f.writelines(padding(mib << 20, b"x"))
        f.write(b"\n3,short\n")
    refused(c, path, "too_large", "max_line_bytes")
    # Quoted, over many short lines: the cell is.
    path = tmp_path / "quoted.csv"
    with path.open("wb") as f:
        f.write(b'id,text\n1,short\n2,"')
        f.writelines(padding(-(-mib // 8) << 20, b"xxxxxxx\n"))  # blocks of 8 MiB, mib at least
        f.write(b'"\n3,short\n')
    refused(c, path, "too_large", "max_cell_bytes")


def test_a_million_columns_are_refused(c, tmp_path):
    path = tmp_path / "wide.csv"
    path.write_bytes(b",".join(b"c%d" % i for i in range(1_000_000)) + b"\n" + b"1," * 999_999 + b"1\n")
    refused(c, path, "too_large", "max_columns")


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [
        ("sheet.xlsx", b"id,amount\n1,2\n", "not a zip archive"),
        ("table.csv", None, "holds"),  # a workbook (a zip of several parts) named .csv
        ("data.parquet", b"id,amount\n1,2\n", ""),
        ("records.json", b"PAR1\x00\x00\x00garbage", "json"),
        ("picture.csv", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 64, "binary"),
        ("old.xlsx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(512), "encrypted"),
    ],
)
def test_a_file_that_claims_another_format_is_refused(c, tmp_path, name, content, says):
    path = tmp_path / name
    if content is None:
        workbook(path, [SHEET_OPEN % b"", ROWS % b"a", SHEET_CLOSE])
    else:
        path.write_bytes(content)
    refused(c, path, "format_unavailable", says)


@pytest.mark.parametrize(
    "filename", ["../../x.csv", "/etc/passwd", "..", "a/../../b.csv", "..\\..\\w.csv", "x\x00.csv"]
)
def test_upload_names_cannot_leave_the_uploads_folder(hostile, c, tmp_path, filename):
    before = set(hostile.home.parent.rglob("*"))
    bodies = [
        c.post("/v1/knowledge.upload", params={"filename": filename}, content=b"id\n1\n"),
        c.post("/v1/knowledge.upload", files={"file": (filename, b"id\n1\n", "text/csv")}),
        c.post(
            "/v1/knowledge.upload", json={"filename": filename, "content_base64": base64.b64encode(b"id\n1\n").decode()}
        ),
    ]
    uploads = (hostile.home / "uploads").resolve()
    for r in bodies:
        if r.status_code != 200:  # refusing such a name is fine too, with the envelope
            envelope(r, 422, "VALIDATION_FAILED")
            continue
        answered = r.json()["filename"]
        assert not {"/", "\\", "\x00"} & set(answered) and answered.strip("."), answered
    created = set(hostile.home.parent.rglob("*")) - before
    assert all(p.resolve().is_relative_to(hostile.home.resolve()) for p in created), created
    stored = [p for p in created if p.parent.resolve() == uploads]
    assert len(stored) == sum(r.status_code == 200 for r in bodies)
    for r in bodies:  # and what was stored reads like any upload
        if r.status_code == 200:
            started = c.post(
                "/v1/knowledge.ingest",
                json={"upload_id": r.json()["upload_id"], "source_uri": f"hostile/name/{len(filename)}"},
            )
            assert started.status_code == 200, started.text
            assert wait_for(c, started.json()["ingestion_id"])["error_code"] in (None, "format_unavailable")


@pytest.fixture(autouse=True)
def within_memory(hostile):
    """After each hostile file: the server's peak memory stayed within the bound (a bomb read
    whole would take gigabytes), whichever worker runs which test."""
    yield
    assert hostile.rss_peak_kib() < PEAK_MEMORY_KIB, "the server went past its memory bound"
