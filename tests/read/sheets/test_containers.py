"""tabular/read/sheets/containers.py: a workbook's container checked before any parser reads it:
what is no workbook, what inflates or spans past the limits, DTDs refused, and formula cells
saved without their values counted."""

from __future__ import annotations

import re
import zipfile

import pytest
from openpyxl import Workbook

from tabular.errors import IngestFailed
from tabular.read.sheets.containers import Uncached, check_container
from tabular.settings import Settings


def workbook(tmp_path, cells=(("A1", "id"), ("A2", 1)), name="book.xlsx"):
    book = Workbook()
    for ref, value in cells:
        book.active[ref] = value
    path = tmp_path / name
    book.save(path)
    return path


def code_of(path, fmt="xlsx", **settings):
    with pytest.raises(IngestFailed) as caught:
        check_container(path, fmt, Settings(**settings))
    return caught.value.error_code, caught.value.message


def test_a_workbook_passes_and_answers_the_bytes_its_parts_inflate_to(tmp_path):
    path = workbook(tmp_path)
    with zipfile.ZipFile(path) as archive:
        inflated = sum(i.file_size for i in archive.infolist())
    assert check_container(path, "xlsx", Settings()) == inflated


@pytest.mark.parametrize(
    ("data", "code", "words"),
    [
        (b"", "no_text", "empty"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 512, "format_unavailable", "OLE2"),
        (b"id,amount\n1,2\n", "format_unavailable", "not a zip"),
    ],
)
def test_what_is_no_workbook_is_refused_with_its_code(tmp_path, data, code, words):
    path = tmp_path / "x.xlsx"
    path.write_bytes(data)
    got_code, message = code_of(path)
    assert got_code == code and words in message


def test_a_zip_that_is_no_xlsx_workbook_is_refused(tmp_path):
    path = tmp_path / "x.xlsx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("readme.txt", "hello")
    assert code_of(path)[0] == "format_unavailable"
    assert "content.xml" in code_of(path, fmt="ods")[1]


def test_parts_inflating_past_the_limit_are_refused_unread(tmp_path):
    code, message = code_of(workbook(tmp_path), max_workbook_xml_bytes=100)
    assert code == "too_large" and "max_workbook_xml_bytes" in message


def test_a_sheet_spanning_past_the_cell_limit_as_a_grid_is_refused(tmp_path):
    path = workbook(tmp_path, (("A1", "id"), ("CV5000", 1)))  # 5000 rows by 100 columns
    code, message = code_of(path, max_sheet_cells=100_000)
    assert code == "too_large" and "5000 rows by 100 columns" in message
    check_container(path, "xlsx", Settings(max_sheet_cells=1_000_000))


def test_a_part_declaring_a_dtd_is_refused(tmp_path):
    path = tmp_path / "dtd.xlsx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("xl/workbook.xml", '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><workbook/>')
    code, message = code_of(path)
    assert code == "format_unavailable" and "DTD" in message


def test_formula_cells_without_a_saved_value_are_counted_with_their_references(tmp_path):
    path = workbook(tmp_path, (("A1", "n"), ("A2", 2), ("B2", "=A2*2"), ("B3", "=A2+1")))
    formulas = {}
    check_container(path, "xlsx", Settings(), formulas)
    uncached = formulas["xl/worksheets/sheet1.xml"]
    assert (uncached.count, uncached.refs) == (2, ["B2", "B3"])
    assert "2 formula cells have no saved value (B2, B3)" in uncached.note("Sheet")


SHEET = (
    b'<worksheet xmlns="x"><sheetData><row r="2">'
    b'<c r="B2"><f>A2*2</f><v>4</v></c>'  # saved: not counted
    b'<c r="C2"><f>A2*3</f><v></v></c>'  # no value
    b'<c r="D2" t="str"><f>""</f><v></v></c>'  # a saved empty text
    b'<c r="E2"><f>A2</f></c>'  # no value element at all
    b"</row></sheetData></worksheet>"
)


@pytest.mark.parametrize("size", [7, 64, len(SHEET)])
def test_uncached_counts_the_same_however_the_part_is_chunked(size):
    uncached = Uncached()
    pieces = [SHEET[i : i + size] for i in range(0, len(SHEET), size)]
    for k, piece in enumerate(pieces):
        uncached.feed(piece, final=k == len(pieces) - 1)
    assert (uncached.count, sorted(uncached.refs)) == (2, ["C2", "E2"])


def test_uncached_reads_a_prefixed_worksheet():
    uncached = Uncached()
    uncached.feed(
        b'<x:worksheet><x:sheetData><x:row><x:c r="A1"><x:f>1+1</x:f><x:v/></x:c></x:row></x:sheetData></x:worksheet>',
        final=True,
    )
    assert (uncached.count, uncached.refs) == (1, ["A1"])
    assert "1 formula cell has no saved value (A1)" in uncached.note("S")


def _slow_widest(text: bytes) -> int:
    """The widest column a cell tag of `text` names, by the plain reading: every `<c …>` tag."""
    from openpyxl.utils import column_index_from_string

    found = re.findall(rb'<c\s[^>]*?r="([A-Z]{1,3})[0-9]+"', text)
    return max((column_index_from_string(f.decode()) for f in found), default=0)


CELL_SHAPES = [
    '<c r="{ref}" t="s"><v>1</v></c>',
    '<c s="3" r="{ref}"><v>2.5</v></c>',  # r not first
    '<c\tr="{ref}"><v>1</v></c>',  # a tab between attributes
    '<c r="{ref}" t="inlineStr"><is><t> r="ZZ1 in text</t></is></c>',  # a reference in text is no cell
    '<c r="{ref}"><f>CONCAT(" r=""XFD9",A1)</f><v>x</v></c>',
    '<x:c r="{ref}"><x:v>1</x:v></x:c>',  # another prefix: not read as a cell by either
    '<cols><col min="1" max="40" width="9"/></cols>',
]


@pytest.mark.parametrize("seed", range(40))
def test_the_widest_column_is_found_as_a_plain_reading_of_every_cell_tag_finds_it(seed):
    import random

    from openpyxl.utils import get_column_letter

    from tabular.read.sheets.containers import _widest

    rng = random.Random(seed)
    cells = []
    for row in range(1, 30):
        for _ in range(rng.randint(0, 6)):
            ref = f"{get_column_letter(rng.choice([1, 2, 5, 12, 26, 27, 52, 300, 16384]))}{row}"
            cells.append(rng.choice(CELL_SHAPES).format(ref=ref))
    text = ("<sheetData>" + "".join(cells) + "</sheetData>").encode()
    assert _widest(text, 0) == _slow_widest(text)
