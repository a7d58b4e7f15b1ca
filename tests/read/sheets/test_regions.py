"""A workbook's own names name its datasets: an Excel table's name, a named range, else the
sheet's; a sheet holding no table (a sentence, a lone value) is a note, not a dataset. Every
workbook here is made with openpyxl in the shape it tests, read by the openpyxl reader and by the
fast (fastexcel) reader alike."""

from __future__ import annotations

import pytest
from openpyxl import Workbook
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.table import Table

import tabular
from tabular.read.sheets.regions import Region, names_of, workbook_regions

SENTENCE = "This workbook lists the orders of 2024 by region."


def rows(ws, at_row: int, at_col: int, values: list[list]) -> None:
    for i, row in enumerate(values):
        for j, v in enumerate(row):
            ws.cell(at_row + i, at_col + j, v)


def report(path, prose: bool = True):
    """Sheet1: an Excel table `users`; Two: two tables side by side, `stock` and `prices`;
    Ranged: a named range `orders`; Plain: no name; About: one sentence."""
    wb = Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    rows(ws, 1, 1, [["id", "name"], [1, "ann"], [2, "bob"]])
    ws.add_table(Table(displayName="users", ref="A1:B3"))
    two = wb.create_sheet("Two")
    rows(two, 1, 1, [["sku", "qty"], ["a", 1], ["b", 2], ["c", 3]])
    rows(two, 1, 4, [["code", "price"], ["x", 5], ["y", 6], ["z", 7]])
    two.add_table(Table(displayName="stock", ref="A1:B4"))
    two.add_table(Table(displayName="prices", ref="D1:E4"))
    ranged = wb.create_sheet("Ranged")
    rows(ranged, 1, 1, [["when", "amount"], ["2024-01-01", 3], ["2024-01-02", 4]])
    wb.defined_names["orders"] = DefinedName("orders", attr_text="Ranged!$A$1:$B$3")
    plain = wb.create_sheet("Plain")
    rows(plain, 1, 1, [["k", "v"], ["a", 1]])
    if prose:
        wb.create_sheet("About")["A1"] = SENTENCE
    wb.save(path)
    return path


@pytest.fixture(params=["openpyxl", "fast"])
def reader_ns(request, tmp_path):
    """A namespace whose workbooks are read by openpyxl, or by the fast reader (every size)."""
    settings = {"sheet_fast_bytes": 0} if request.param == "fast" else {}
    with tabular.connect(str(tmp_path / "home"), **settings) as engine:
        yield engine.namespace("acme", "books")


def test_a_table_name_a_named_range_or_the_sheet_names_each_dataset(reader_ns, tmp_path):
    status = reader_ns.ingest_file(report(tmp_path / "report.xlsx"), source_uri="report.xlsx")
    assert status.state == "ready", status.error_message
    got = reader_ns.dataset_get("report.xlsx").datasets
    assert [(d.dataset_id, d.origin.sheet, d.origin.range) for d in got] == [
        ("users", "Sheet1", "A1:B3"),
        ("stock", "Two", "A1:B4"),
        ("prices", "Two", "D1:E4"),
        ("orders", "Ranged", "A1:B3"),
        ("plain", "Plain", "A1:B2"),
    ]
    assert [d.rows for d in got] == [2, 3, 3, 2, 1]


def test_a_sheet_of_one_sentence_is_a_note_on_the_source_not_a_dataset(reader_ns, tmp_path):
    status = reader_ns.ingest_file(report(tmp_path / "report.xlsx"), source_uri="report.xlsx")
    ids = [d.dataset_id for d in reader_ns.dataset_get("report.xlsx").datasets]
    assert "about" not in ids
    said = [w for w in status.warnings if "About" in w]
    assert len(said) == 1 and SENTENCE in said[0] and "no dataset" in said[0]


def test_a_workbook_of_prose_alone_fails_saying_its_text(reader_ns, tmp_path):
    wb = Workbook()
    wb.active["A1"] = SENTENCE
    wb.save(tmp_path / "readme.xlsx")
    status = reader_ns.ingest_file(tmp_path / "readme.xlsx", source_uri="readme.xlsx")
    assert (status.state, status.error_code) == ("failed", "no_text")
    assert SENTENCE in status.error_message


@pytest.mark.parametrize(
    "cells, table",
    [
        ([["count"], [5]], True),  # a header above a value: a table of one row
        ([["Name"], ["Ann"], ["Bob"]], True),  # a short list of names under its header
        ([["Quarterly report"]], False),  # a title alone: a header and no row
        ([[SENTENCE], ["Ask finance for the 2023 figures."]], False),  # two sentences
        ([[42]], False),  # a lone value
    ],
)
def test_a_sheet_without_a_wide_table_is_a_table_only_where_it_holds_a_row(reader_ns, tmp_path, cells, table):
    wb = Workbook()
    rows(wb.active, 1, 1, [["k", "v"], ["a", 1]])
    rows(wb.create_sheet("Other"), 1, 1, cells)
    wb.save(tmp_path / "b.xlsx")
    status = reader_ns.ingest_file(tmp_path / "b.xlsx", source_uri="b.xlsx")
    ids = [d.dataset_id for d in reader_ns.dataset_get("b.xlsx").datasets]
    assert ids == (["sheet", "other"] if table else ["sheet"])
    assert any("'Other'" in w and "no dataset" in w for w in status.warnings) is not table


def test_names_a_person_did_not_choose_leave_the_sheet_its_name(tmp_path):
    wb = Workbook()
    ws = wb.active
    ws.title = "Sales"
    rows(ws, 1, 1, [["a", "b"], [1, 2], [3, 4]])
    ws.add_table(Table(displayName="Table1", ref="A1:B3"))  # Excel's own name for it
    other = wb.create_sheet("Costs")
    rows(other, 1, 1, [["a", "b"], [1, 2]])
    wb.defined_names["_xlnm.Print_Area"] = DefinedName("_xlnm.Print_Area", attr_text="Costs!$A$1:$B$2")
    wb.defined_names["rate"] = DefinedName("rate", attr_text="0.2")  # a constant
    wb.defined_names["header"] = DefinedName("header", attr_text="Costs!$A$1:$B$1")  # one row
    wb.defined_names["split"] = DefinedName("split", attr_text="Costs!$A$1:$A$2,Costs!$B$1:$B$2")
    wb.save(tmp_path / "b.xlsx")
    assert workbook_regions(tmp_path / "b.xlsx") == {"Sales": [], "Costs": []}


def test_named_ranges_on_quoted_sheets_and_of_one_sheet_only(tmp_path):
    wb = Workbook()
    ws = wb.active
    ws.title = "My sheet's"
    rows(ws, 1, 1, [["a", "b"], [1, 2], [3, 4]])
    wb.create_sheet("Other")
    wb.defined_names["mine"] = DefinedName("mine", attr_text="'My sheet''s'!$A$2:$B$3")
    # A name local to Other that points at My sheet's is not read as Other's.
    wb["Other"].defined_names["stray"] = DefinedName("stray", attr_text="'My sheet''s'!$A$1:$B$3")
    wb.save(tmp_path / "b.xlsx")
    found = workbook_regions(tmp_path / "b.xlsx")
    assert found["My sheet's"] == [Region("mine", "range", 1, 0, 2, 1)]
    assert found["Other"] == []


def test_a_region_names_the_table_it_mostly_covers():
    block = (0, 0, 9, 2)  # a header and nine rows, three columns
    data = Region("data", "range", 1, 0, 9, 2)  # the rows under the header
    column = Region("prices", "range", 1, 2, 9, 2)  # one column of it
    table = Region("users", "table", 0, 0, 9, 2)
    assert names_of([block], [data]) == ["data"]
    assert names_of([block], [column]) == [None]
    assert names_of([block], [data, table]) == ["users"]  # an Excel table first
    # Each region names one table: the one it covers most.
    assert names_of([block, (0, 4, 9, 6)], [Region("left", "range", 0, 0, 9, 3)]) == ["left", None]


def test_two_excel_tables_read_as_one_name_neither():
    block = (0, 0, 3, 4)  # A1:E4, where the tables A1:B4 and C1:E4 touch
    tables = [Region("stock", "table", 0, 0, 3, 1), Region("prices", "table", 0, 2, 3, 4)]
    assert names_of([block], tables) == [None]


def test_no_archive_names_nothing(tmp_path):
    (tmp_path / "x.xlsx").write_bytes(b"not a zip")
    assert workbook_regions(tmp_path / "x.xlsx") == {}


def ods(path, sheets: dict[str, list[list[str]]]):
    """A minimal OpenDocument spreadsheet (text cells), written by hand: no ODS writer is installed."""
    import zipfile
    from xml.sax.saxutils import escape

    def table(name, rows):
        cells = "".join(
            "<table:table-row>"
            + "".join(
                f'<table:table-cell office:value-type="string"><text:p>{escape(v)}</text:p></table:table-cell>'
                for v in row
            )
            + "</table:table-row>"
            for row in rows
        )
        return f'<table:table table:name="{escape(name)}">{cells}</table:table>'

    content = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">'
        "<office:body><office:spreadsheet>"
        + "".join(table(n, r) for n, r in sheets.items())
        + "</office:spreadsheet></office:body></office:document-content>"
    )
    manifest = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
        '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>'
        '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
        "</manifest:manifest>"
    )
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.oasis.opendocument.spreadsheet")
        z.writestr("content.xml", content, zipfile.ZIP_DEFLATED)
        z.writestr("META-INF/manifest.xml", manifest, zipfile.ZIP_DEFLATED)
    return path


def test_an_ods_sheet_of_prose_is_a_note_too(ns, tmp_path):
    """ODS is read by calamine, which gives no names (its tables keep their sheets' names), but
    a sheet of one sentence is a note there as in a workbook."""
    path = ods(tmp_path / "b.ods", {"Orders": [["id", "amount"], ["1", "10"], ["2", "20"]], "About": [[SENTENCE]]})
    status = ns.ingest_file(path, source_uri="b.ods")
    assert status.state == "ready", status.error_message
    assert [d.dataset_id for d in ns.dataset_get("b.ods").datasets] == ["orders"]
    assert any("'About'" in w and SENTENCE in w for w in status.warnings)
