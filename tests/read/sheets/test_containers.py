"""tabular/read/sheets/containers.py: a workbook's container checked before any parser reads it:
what is no workbook, what inflates or spans past the limits, DTDs refused, and formula cells
saved without their values counted."""

from __future__ import annotations

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


@pytest.mark.parametrize(
    "far",
    [
        b'<c r="CV300004"><v>9</v></c>',  # in <row r="3">: calamine places a cell by its own reference
        b"<c r='CV300004'><v>9</v></c>",
        b'<c r = "cv300004"><v>9</v></c>',
        b'<c r="A3" r="CV300004"><v>9</v></c>',  # of two references, the last counts
        b'<x:c r="CV300004"><x:v>9</x:v></x:c>',
        b'<c\tr="CV0300004"><v>9</v></c>',
    ],
)
def test_a_cell_far_from_the_row_it_is_written_in_is_refused_as_the_grid_it_makes(tmp_path, far):
    """Each of these cells is CV300004 to calamine, whose grid would hold 30 million cells."""
    import hostile_workbooks as hw

    rows = hw.TOP_XLSX[: hw.TOP_XLSX.rindex(b"</row>")] + far + b"</row>"  # the far cell in row 3
    xml = b'<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
    path = hw.workbook_of(tmp_path / "far.xlsx", {"S": xml + b"<sheetData>" + rows + b"</sheetData></worksheet>"})
    code, message = code_of(path, sheet_fast_bytes=0)
    assert code == "too_large" and "300004 rows by 100 columns" in message


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
