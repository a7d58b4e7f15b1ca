"""A sheet costs the cells that hold values, not its extent (issue 53): a few values far apart
(empty rows and cells repeated in an ODS, far rows and references in an XLSX, a far cell in an
.xls) publish the table at the top, and a lone value apart from it is named in the warnings,
never dropped unsaid; what cannot be read so is refused `too_large` before any grid is made.

The workbooks are tests/hostile_workbooks.py's sparse shapes, made in tmp_path. Most are a
tenth of the issue's size with max_sheet_cells lowered to match, so the old reader's dense
grids (75 s and 4.3 GB for the issue's ODS; bench/sparse_sheets.py measures them) stay small
here; the issue's own ODS is read whole with calamine barred from opening it."""

import pytest
import python_calamine
from hostile_workbooks import TOP_ODS, ods, ods_gap, ods_number, ods_row, ods_text, sparse_ods, sparse_xls, sparse_xlsx
from openpyxl import Workbook

import tabular

TABLE = [{"name": "a", "n": 1}, {"name": "b", "n": 2}]


def ingested(tmp_path, path, **settings):
    """(status, datasets) of the file ingested into a fresh home with these settings."""
    with tabular.connect(str(tmp_path / "home"), **settings) as engine:
        ns = engine.namespace("acme", "sheets")
        status = ns.ingest_file(path, source_uri=path.name)
        found = ns.dataset_get(path.name, sample_rows=20).datasets if status.state == "ready" else []
        return status, found


class Barred:
    """calamine, asked to open a workbook: it would allocate every sheet's whole grid."""

    @staticmethod
    def from_filelike(*args, **kwargs):
        raise AssertionError("calamine was asked to open a sparse workbook")

    from_path = from_filelike


def test_the_issues_ods_publishes_its_table_and_names_the_far_value(tmp_path, monkeypatch):
    # Five values, the last 300,000 rows down and 100 columns right: calamine would make its 30
    # million cells on opening the file, so it is barred (the old reader fails here at once).
    path = sparse_ods(tmp_path / "sparse.ods", "rows")
    assert path.stat().st_size < 1000
    monkeypatch.setattr(python_calamine, "CalamineWorkbook", Barred)
    status, (found,) = ingested(tmp_path, path)
    assert status.state == "ready", status.error_message
    assert (found.origin.range, found.rows, found.sample) == ("A1:B3", 2, TABLE)
    (apart,) = [w for w in found.warnings if "apart from its tables" in w]
    assert "CV300004 ('9')" in apart and "left out" in apart
    assert any("300004 rows by 100 columns for 7 values" in w for w in found.warnings)


CASES = [
    # (format, shape, where the far value goes, the reference it has)
    ("ods", "rows", {"down": 30_000}, "CV30004"),
    ("ods", "columns", {"down": 100}, "XFD104"),
    ("ods", "sheets", {"down": 5_000}, "CV5004"),
    ("xlsx", "rows", {"down": 30_000}, "CV30004"),
    ("xlsx", "columns", {"down": 100}, "XFD104"),
    ("xlsx", "sheets", {"down": 5_000}, "CV5004"),
]


@pytest.mark.parametrize(("fmt", "shape", "where", "ref"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_a_sparse_sheet_publishes_its_table_and_names_the_far_value(tmp_path, fmt, shape, where, ref):
    make = sparse_ods if fmt == "ods" else sparse_xlsx
    path = make(tmp_path / f"{shape}.{fmt}", shape, **where)
    # Each sheet's extent (or, for the ODS, all of them together: calamine holds them at once)
    # passes this; the old reader refused the XLSX and read the ODS whole, dropping the value unsaid.
    status, found = ingested(tmp_path, path, max_sheet_cells=1_000_000)
    assert status.state == "ready", status.error_message
    assert [(d.origin.range, d.rows, d.sample) for d in found] == [("A1:B3", 2, TABLE)] * (
        5 if shape == "sheets" else 1
    )
    for dataset in found:
        (apart,) = [w for w in dataset.warnings if "apart from its tables" in w]
        assert f"{ref} ('9')" in apart


@pytest.mark.parametrize("fast", [False, True], ids=["calamine", "fast-reader-size"])
def test_an_xls_with_a_far_cell_publishes_its_tables_and_names_it(tmp_path, fast):
    # Sales' last cell (I7, true) moved to CW20001: its grid spans 20,001 rows by 101 columns.
    path = sparse_xls(tmp_path / "far.xls", "far", row=20_000, column=100)
    status, found = ingested(tmp_path, path, **({"sheet_fast_bytes": 0} if fast else {}))
    assert status.state == "ready", status.error_message
    assert [(d.origin.sheet, d.origin.range, d.rows) for d in found] == [
        ("Sales", "A1:I7", 6),
        ("Expenses", "A3:B10", 6),
        ("Shifted", "C3:E6", 3),
    ]
    (apart,) = [w for w in found[0].warnings if "apart from its tables" in w]
    assert "CW20001 ('true')" in apart
    assert not any("apart" in w for d in found[1:] for w in d.warnings)


def test_a_far_block_of_values_is_a_table_of_its_own(tmp_path, monkeypatch):
    monkeypatch.setattr(python_calamine, "CalamineWorkbook", Barred)  # 30 million cells: never made
    far = [ods_row(ods_gap(98), ods_text(t), ods_number(n)) for t, n in (("x", 0), ("c", 3), ("d", 4))]
    path = ods(tmp_path / "two.ods", {"S": [*TOP_ODS, ods_row(ods_gap(100), repeated=300_000), *far]})
    status, found = ingested(tmp_path, path)
    assert status.state == "ready", status.error_message
    assert [(d.dataset_id, d.origin.range, d.rows) for d in found] == [
        ("s_1", "A1:B3", 2),
        ("s_2", "CU300004:CV300006", 2),
    ]
    assert found[1].sample == [{"x": "c", "0": 3}, {"x": "d", "0": 4}]
    assert not any("apart" in w for d in found for w in d.warnings)


def test_a_lone_value_below_a_table_is_named_where_a_title_above_it_is_not(tmp_path):
    book = Workbook()
    sheet = book.active
    sheet.title = "S"
    for row in (["Quarterly report"], [], ["name", "n"], ["a", 1], ["b", 2], [], [], ["Source: the ledger"]):
        sheet.append(row)
    book.save(tmp_path / "footer.xlsx")
    status, (found,) = ingested(tmp_path, tmp_path / "footer.xlsx")
    assert status.state == "ready", status.error_message
    assert (found.origin.range, found.sample) == ("A3:B5", TABLE)
    assert [w for w in found.warnings if "apart" in w] == [
        "sheet 'S': 1 cell apart from its tables (a lone value below or beside them) was left out: "
        "A8 ('Source: the ledger')"
    ]


def test_sparse_workbooks_that_cannot_be_read_so_are_refused_with_a_code(tmp_path):
    # Four .xls sheets each spanning IV65536: calamine holds every sheet of an .xls at once.
    status, _ = ingested(tmp_path, sparse_xls(tmp_path / "sheets.xls", "sheets"))
    assert (status.state, status.error_code) == ("failed", "too_large") and "max_sheet_cells" in status.error_message
    # A large XLSX is read by fastexcel as whole grids: one far cell refuses it.
    status, _ = ingested(tmp_path, sparse_xlsx(tmp_path / "rows.xlsx", "rows"), sheet_fast_bytes=0)
    assert (status.state, status.error_code) == ("failed", "too_large") and "max_sheet_cells" in status.error_message
    # An ODS past max_sheet_cells is read from its values, so many of them are refused.
    status, _ = ingested(tmp_path, sparse_ods(tmp_path / "sheets.ods", "sheets"), max_sparse_values=30)
    assert (status.state, status.error_code) == ("failed", "too_large") and "max_sparse_values" in status.error_message
    # Values with no empty row or column between them (a staircase) are one block: its grid counts.
    book = Workbook()
    for i in range(1, 201):
        book.active.cell(i, i, i)
        book.active.cell(i, i + 1, i)
    book.save(tmp_path / "stairs.xlsx")
    status, _ = ingested(tmp_path, tmp_path / "stairs.xlsx", max_sheet_cells=10_000)
    # A sheet refused is lost as a sheet (allow_partial would publish the others).
    assert (status.state, status.error_code) == ("failed", "incomplete_extraction")
    assert "400 values spread over 200 rows by 201 columns" in status.error_message


def test_an_xlsx_dimension_that_lies_is_not_believed(tmp_path):
    status, (found,) = ingested(tmp_path, sparse_xlsx(tmp_path / "dimension.xlsx", "dimension"), sheet_fast_bytes=0)
    assert status.state == "ready", status.error_message
    assert (found.origin.range, found.rows, found.sample) == ("A1:B3", 2, TABLE)


def test_a_sparse_ods_sheet_of_lone_values_is_a_note_not_a_lost_sheet(tmp_path, monkeypatch):
    # A sheet read from its values (its extent passes max_sheet_cells) that holds no table, only
    # a line of text and a far value: a note on the workbook's dataset, as any other sheet of
    # text alone is. It was lost (the extent's warning was put on the note as on a dataset),
    # and the workbook failed incomplete_extraction.
    monkeypatch.setattr(python_calamine, "CalamineWorkbook", Barred)
    words = [
        ods_row(ods_text("see sheet S")),
        ods_row(ods_gap(100), repeated=300_000),
        ods_row(ods_gap(99), ods_text("x")),
    ]
    path = ods(tmp_path / "note.ods", {"S": TOP_ODS, "Notes": words})
    status, datasets = ingested(tmp_path, path)
    assert status.state == "ready", status.error_message
    (found,) = datasets
    assert (found.origin.range, found.rows, found.sample) == ("A1:B3", 2, TABLE)
    assert any(w.startswith("sheet 'Notes' holds no table, only 'see sheet S x'") for w in found.warnings)
