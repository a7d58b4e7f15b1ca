"""tabular/read/sheets/columnar.py: large workbooks read through fastexcel: one extraction per
table of each visible sheet, cells as the openpyxl reader would write them (percents scaled,
totals left out), hidden sheets named, a sheet that cannot be read lost alone."""

from __future__ import annotations

import zipfile

import duckdb
import pytest
from openpyxl import Workbook

from tabular.errors import IngestFailed
from tabular.read.sheets.columnar import read_fast, sheet_parts
from tabular.settings import Settings


@pytest.fixture
def book(tmp_path):
    wb = Workbook()
    sales = wb.active
    sales.title = "Sales"
    for row in [["Region", "Units", "Share"], ["North", 10, 0.125], ["South", 20, 0.5], ["Total", 30, None]]:
        sales.append(row)
    for (cell,) in sales.iter_rows(min_row=2, min_col=3, max_col=3):
        cell.number_format = "0.0%"
    hidden = wb.create_sheet("Hidden")
    hidden.append(["secret"])
    hidden.append(["x"])
    hidden.sheet_state = "hidden"
    two = wb.create_sheet("Two")
    for r, row in enumerate([["a", "b", None, None, "c", "d"], [1, 2, None, None, 3, 4], [5, 6, None, None, 7, 8]], 1):
        for c, value in enumerate(row, 1):
            if value is not None:
                two.cell(r, c, value)
    path = tmp_path / "book.xlsx"
    wb.save(path)
    return path


def read(path, tmp_path, options=None, **settings):
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    return read_fast(path, out, "xlsx", options or {}, Settings(**settings))


def cells(extraction):
    return (
        duckdb.connect()
        .execute(f"SELECT * EXCLUDE (__row_id, __line) FROM read_parquet('{extraction.path}') ORDER BY __row_id")
        .fetchall()
    )


def test_each_table_of_each_visible_sheet_is_one_extraction_and_hidden_sheets_are_named(book, tmp_path):
    extractions, coverage = read(book, tmp_path)
    assert [(e.name, e.origin.range) for e in extractions] == [
        ("Sales", "A1:C4"),
        ("Two 1", "A1:B3"),
        ("Two 2", "E1:F3"),
    ]
    assert all(e.origin.hidden_sheets == ["Hidden"] and e.origin.parser == "fastexcel" for e in extractions)
    assert (coverage["total"], coverage["extracted"], coverage["lost"]) == (2, 2, [])


def test_cells_read_as_the_other_reader_writes_them_with_the_total_row_left_out(book, tmp_path):
    sales = read(book, tmp_path)[0][0]
    assert sales.headers == ["Region", "Units", "Share"]
    assert sales.rows == 2
    assert cells(sales) == [("North", "10", "12.5%"), ("South", "20", "50%")]


def test_sheets_named_in_options_are_read_hidden_or_not(book, tmp_path):
    extractions, coverage = read(book, tmp_path, {"sheets": ["Hidden"]})
    assert [(e.name, e.headers, e.rows) for e in extractions] == [("Hidden", ["secret"], 1)]
    assert coverage["total"] == 1


def test_a_sheet_past_the_column_limit_is_lost_alone(book, tmp_path):
    extractions, coverage = read(book, tmp_path, max_columns=4)
    assert [e.name for e in extractions] == ["Sales"]
    assert coverage["failed"] == 1 and "Two" in coverage["lost"][0]


def test_a_damaged_workbook_is_refused_as_such(tmp_path):
    path = tmp_path / "bad.xlsx"
    path.write_bytes(b"PK\x03\x04" + b"\x00" * 100)
    with pytest.raises(IngestFailed) as caught:
        read(path, tmp_path)
    assert caught.value.error_code == "format_unavailable"


def test_sheet_parts_list_every_sheet_in_order_with_its_state_and_part(book):
    with zipfile.ZipFile(book) as archive:
        assert sheet_parts(archive) == [
            ("Sales", "visible", "xl/worksheets/sheet1.xml"),
            ("Hidden", "hidden", "xl/worksheets/sheet2.xml"),
            ("Two", "visible", "xl/worksheets/sheet3.xml"),
        ]
