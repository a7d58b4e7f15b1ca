"""tabular/read/sheets/extent.py: the extent a worksheet's cells span is the one calamine makes
its grid of, however the sheet writes its cells' references and wherever the chunks cut it."""

from __future__ import annotations

import random
from pathlib import Path

import hostile_workbooks as hw
import pytest
from python_calamine import CalamineWorkbook

from tabular.read.sheets.extent import Extent
from tabular.read.sheets.rules import column_letter

OPEN = b'<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
# A cell at {ref} (0-based {row}), as a spreadsheet writes it and as a hostile file may: calamine
# reads each of these as the cell at that reference.
WRITTEN = [
    '<c r="{ref}" t="n"><v>1</v></c>',
    '<c s="3" r="{ref}"><v>2.5</v></c>',  # r not first
    '<c\tr="{ref}"><v>1</v></c>',  # a tab between attributes
    "<c r='{ref}'><v>1</v></c>",  # single quotes
    '<c r = "{ref}"><v>1</v></c>',  # spaces around =
    '<c r="{lower}"><v>1</v></c>',  # lower case letters
    '<c r="{zeros}"><v>1</v></c>',  # leading zeros
    '<x:c r="{ref}"><x:v>1</x:v></x:c>',  # a prefix, even one never declared
    '<c r="A1" r="{ref}"><v>1</v></c>',  # two references: the last counts
    '<c t="n" foo="a>b" r="{ref}"><v>1</v></c>',  # a > in a quoted value
    '<c r="{ref}" t="inlineStr"><is><t> r="ZZ1 in text</t></is></c>',  # a reference in text is no cell
    '<c r="{ref}"><f>CONCAT(" r=""XFD9",A1)</f><v>x</v></c>',
]


def calamine_end(tmp_path: Path, xml: bytes) -> tuple[int, int]:
    """(last row, widest column), 1-based, of the grid calamine makes of the sheet."""
    path = hw.workbook_of(tmp_path / "s.xlsx", {"S": xml})
    with path.open("rb") as fh:
        sheet = CalamineWorkbook.from_filelike(fh).get_sheet_by_name("S")
    return (sheet.end[0] + 1, sheet.end[1] + 1) if sheet.end else (0, 0)


def scanned(xml: bytes, size: int) -> tuple[int, int]:
    extent = Extent("xl/worksheets/sheet1.xml")
    for at in range(0, len(xml), size):
        extent.feed(xml[at : at + size])
    extent.feed(b"", final=True)
    return extent.rows, extent.columns


def sheet(rows: list[bytes]) -> bytes:
    return OPEN + b"<cols><col min='1' max='3'/></cols><sheetData>" + b"".join(rows) + b"</sheetData></worksheet>"


@pytest.mark.parametrize("seed", range(12))
def test_the_extent_is_calamines_however_the_cells_are_written_and_the_chunks_cut(tmp_path, seed):
    """Grids of a million cells at most: calamine makes the grid these are checked against."""
    rng = random.Random(seed)
    rows, number = [], 0
    for _ in range(rng.randint(3, 12)):
        number += rng.choice([1, 1, 2, 40, 300])
        cells = []
        for _ in range(rng.randint(0, 5)):
            column = rng.choice([1, 2, 5, 12, 27, 250])
            ref = f"{column_letter(column)}{rng.choice([number, number, number + rng.randint(1, 300)])}"
            shape = rng.choice(WRITTEN)
            lower = ref.lower()
            zeros = ref.rstrip("0123456789") + "00" + ref[len(ref.rstrip("0123456789")) :]
            cells.append(shape.format(ref=ref, lower=lower, zeros=zeros))
        opening = rng.choice([f'<row r="{number}">', f"<row r='{number}'>", "<row>"])
        rows.append((opening + "".join(cells) + "</row>").encode())
    xml = sheet(rows)
    want = calamine_end(tmp_path, xml)
    for size in (len(xml), 1, 7, rng.randint(2, 64)):
        assert scanned(xml, size) == want, (size, xml)


def test_an_empty_cell_counts_as_far_as_it_stands_which_is_safe(tmp_path):
    xml = sheet([b'<row r="1"><c r="A1"><v>1</v></c><c r="C1"/><c r="B7"/></row><row r="9"></row>'])
    assert calamine_end(tmp_path, xml) == (1, 1)
    for size in (5, 1 << 20):
        rows, columns = scanned(xml, size)
        assert rows >= 7 and columns == 3  # B7 and C1, though calamine makes no cell of them


def test_cells_with_no_reference_stand_after_the_cell_before_them_where_a_chunk_is_read_tag_by_tag(tmp_path):
    """A chunk that holds a reference written otherwise (here `r='A1'`) is read tag by tag, and
    there a cell without a reference is placed as calamine places it."""
    xml = sheet([b"<row r='1'><c r='A1'><v>1</v></c><c><v>2</v></c></row><row><c/><c/><c><v>3</v></c></row>"])
    assert scanned(xml, 1 << 20) == calamine_end(tmp_path, xml) == (2, 3)


def test_a_cell_far_below_the_row_it_stands_in_is_far_below(tmp_path):
    """`<row r="3">` holding `CV300004`: calamine puts the cell on row 300,004 (a grid of 30
    million cells), which counting rows alone missed."""
    xml = sheet([b'<row r="1"><c r="A1"><v>1</v></c></row><row r="3"><c r="CV300004"><v>9</v></c></row>'])
    assert scanned(xml, 1 << 20) == calamine_end(tmp_path, xml) == (300_004, 100)


@pytest.mark.parametrize("between", [b"", b"\r\n"], ids=["one line", "a line per row"])
def test_a_large_plain_sheet_is_read_at_c_speed_and_right(monkeypatch, between):
    """Cells written `<c r="…"` throughout are checked a chunk at a time: only the first chunk
    (its <cols>) and the last (its page margins) are read cell by cell. A line break between rows
    and an `=` in a formula are no odd reference: they keep the fast path."""
    rows = [
        b'<row r="%d" spans="1:3"><c r="A%d" t="n"><v>%d</v></c><c r="B%d" s="1"><f>IF(A%d=1,0.5,0)</f>'
        b'<v>0.5</v></c><c r="C%d" t="inlineStr"><is><t>x</t></is></c></row>%s' % (i, i, i, i, i, i, between)
        for i in range(1, 60_001)
    ]
    xml = sheet(rows).replace(b"</worksheet>", b'<pageMargins left="0.7" header="0.3" footer="0.3"/></worksheet>')
    slow = []
    extent = Extent()
    by_cell = extent._cell_by_cell
    monkeypatch.setattr(extent, "_cell_by_cell", lambda *a, **k: slow.append(1) or by_cell(*a, **k))
    for at in range(0, len(xml), 1 << 20):
        extent.feed(xml[at : at + (1 << 20)])
    extent.feed(b"", final=True)
    assert (extent.rows, extent.columns) == (60_000, 3)
    assert len(slow) <= 3 < len(xml) >> 20


@pytest.mark.parametrize(
    "ref",
    ["A" * 200_000 + "1", "A" + "9" * 5_000, "XFDA1", "A99999999"],
    ids=["200k letters", "5k digits", "four letters", "eight digits"],
)
@pytest.mark.parametrize("written", ['<c r="{ref}"><v>1</v></c>', "<c r='{ref}'><v>1</v></c>", '<row r="{ref}"/>'])
def test_a_reference_past_any_sheet_by_its_length_is_refused_too_large_at_once(ref, written):
    """A reference longer than XFD1048576 is written, in any form: refused as too_large, never an
    internal error (int() refuses over 4,300 digits) nor minutes adding up a megabyte of letters."""
    from tabular.errors import IngestFailed

    xml = sheet([written.format(ref=ref).encode()])
    with pytest.raises(IngestFailed) as refused:
        scanned(xml, 1 << 20)
    assert refused.value.error_code == "too_large" and "past any sheet" in str(refused.value)


def test_leading_zeros_do_not_make_a_reference_long(tmp_path):
    xml = sheet([b'<row r="1"><c r="C00000007"><v>1</v></c></row>'])
    assert scanned(xml, 1 << 20) == calamine_end(tmp_path, xml) == (7, 3)
