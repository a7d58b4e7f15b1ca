"""tabular/read/sheets/columnar.py: large workbooks read through fastexcel: one extraction per
table of each visible sheet, cells as the openpyxl reader would write them (percents scaled,
totals left out), hidden sheets named, a sheet that cannot be read lost alone."""

from __future__ import annotations

import datetime as dt
import zipfile
from pathlib import Path

import duckdb
import pytest
from openpyxl import Workbook

from tabular.errors import IngestFailed
from tabular.jsonval import iso_duration
from tabular.read.sheets.columnar import read_fast
from tabular.read.sheets.hints import sheet_parts
from tabular.read.sheets.workbooks import read_workbook
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


def read_large(path, tmp_path):
    """The workbook as ingest reads a large one: its container checked (which also looks at every
    cell's unit), then the fast reader."""
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    return read_workbook(path, out, "xlsx", {}, Settings(sheet_fast_bytes=1))[0]


def _column_book(tmp_path, name, values, formats, column=2, width=3):
    """A sheet of `width` columns: an id, and `values` in `column` (1-based) with `formats`."""
    wb = Workbook()
    ws = wb.active
    ws.append([f"h{k}" if k != column else "amount" for k in range(1, width + 1)])
    for i, (value, number_format) in enumerate(zip(values, formats)):
        ws.append([value if k == column else i for k in range(1, width + 1)])
        if number_format:
            ws.cell(i + 2, column).number_format = number_format
    path = tmp_path / f"{name}.xlsx"
    wb.save(path)
    return path


EURO, DOLLAR, POUND = "[$€-407] #,##0.00", '"$"#,##0.00', '"£"#,##0.00'


@pytest.mark.parametrize(
    "main, odd, at, column, width",
    [
        (EURO, DOLLAR, 1, 2, 3),  # in the first rows
        (EURO, DOLLAR, 300, 2, 3),  # past the rows the reader looks at first
        ("0%", "General", 350, 2, 2),  # a plain number among percents
        (POUND, EURO, 399, 3, 4),  # the last row, another column
        ("General", DOLLAR, 250, 1, 2),  # a unit among plain numbers: no unit was applied, none is
    ],
)
def test_a_column_of_several_units_is_kept_as_plain_numbers_said_never_one_unit_for_all(
    tmp_path, main, odd, at, column, width
):
    """The fast reader applied the first rows' unit to every cell: $11 became €11 and a plain 5
    became 500%. A column whose number cells show several units keeps each number as it is
    stored, as text (no sum adds dollars to euros), and its dataset says why."""
    values = [round(0.01 * i, 2) if "%" in main else 10 + i for i in range(400)]
    formats = [odd if i == at else main for i in range(400)]
    path = _column_book(tmp_path, "units", values, formats, column, width)
    [extraction] = read_large(path, tmp_path)
    got = [row[column - 1] for row in cells(extraction)]
    expected_units = {u for u in ("$", "€", "£", "%") if u in main + odd}
    if main == "General":  # a plain column with one odd cell: it stays plain numbers too
        assert not any(u in "".join(got) for u in expected_units)
    else:
        assert got == [f"{v:g}" if isinstance(v, float) else str(v) for v in values]
        assert extraction.forced[f"c{column}"].type == "string"
        assert any("several units" in n for n in extraction.notes)


def test_a_column_of_one_unit_keeps_it_past_the_first_rows(tmp_path):
    path = _column_book(tmp_path, "one", [10 + i for i in range(400)], [DOLLAR] * 400)
    [extraction] = read_large(path, tmp_path)
    assert [row[1] for row in cells(extraction)][-1] == "$409"
    assert not extraction.notes


@pytest.mark.parametrize("number_format", ["hh:mm", "h:mm:ss AM/PM", "hh:mm:ss", "[$-409]h:mm AM/PM;@"])
def test_a_time_of_day_is_read_as_a_time_not_a_datetime_of_1899(tmp_path, number_format):
    times = [dt.time(8 + i % 12, i % 60) for i in range(40)]
    path = _column_book(tmp_path, "clock", times, [number_format] * 40)
    [extraction] = read_large(path, tmp_path)
    assert [row[1] for row in cells(extraction)] == [t.isoformat() for t in times]


@pytest.mark.parametrize("number_format", ["[h]:mm:ss", "[h]:mm", "[mm]:ss"])
def test_elapsed_times_are_durations_past_a_day_and_past_two_months(tmp_path, number_format):
    spans = [dt.timedelta(hours=20 + 37 * i, minutes=5 * (i % 2)) for i in range(40)]  # up to 1,463 hours
    path = _column_book(tmp_path, "elapsed", spans, [number_format] * 40)
    [extraction] = read_large(path, tmp_path)
    assert [row[1] for row in cells(extraction)] == [iso_duration(s) for s in spans]


def _cells_of(extractions):
    return [cells(e) for e in extractions]


@pytest.mark.parametrize(
    "column",
    [
        # text among numbers of many places: the typed read reads the column as text
        lambda i: "n/a" if i % 7 == 0 else [1 / 3, 2 / 3, 1e-10, -1e-12, 0.1 + 0.2, 1.23456789e22][i % 6],
        # a number of many places only past the first rows of a text column
        lambda i: 1 / 3 if i == 300 else f"code {i}",
        # an empty cell, and a word the typed read takes for empty (NA) in the sheet: read as text
        lambda i: None if i == 9 else [1 / 7, 22 / 7, 5e-11][i % 3],
    ],
)
def test_number_cells_among_text_keep_every_digit_on_the_fast_path(tmp_path, column):
    """fastexcel's text read writes a number to nine decimals: 1/3 was stored as 0.333333333 and
    1E-10 as 0 wherever a column was read as text. Both readers now give the same cells."""
    wb = Workbook()
    ws = wb.active
    ws.append(["id", "value", "note"])
    for i in range(400):
        ws.append([i, column(i), "NA" if i == 5 else f"n{i}"])
    path = tmp_path / "many_places.xlsx"
    wb.save(path)
    fast = read_large(path, tmp_path)
    out = tmp_path / "careful"
    out.mkdir()
    careful = read_workbook(path, out, "xlsx", {}, Settings())[0]
    assert [e.origin.parser for e in fast + careful] == ["fastexcel", "openpyxl"]
    assert _cells_of(fast) == _cells_of(careful)


def test_the_fast_reader_reads_a_workbook_without_importing_openpyxl_or_polars(book, tmp_path):
    """Each costs a large workbook's ingest 0.3 s or more to import, and this reader needs neither."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from tabular.read.sheets.workbooks import read_workbook\n"
        "from tabular.settings import Settings\n"
        f"found, _ = read_workbook(Path({str(book)!r}), Path({str(tmp_path)!r}), 'xlsx', {{}}, Settings(sheet_fast_bytes=0))\n"
        "print([e.origin.parser for e in found], 'openpyxl' in sys.modules, 'polars' in sys.modules)\n"
    )
    root = Path(__file__).resolve().parents[3]  # the checkout, whose tabular this imports
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=root).stdout
    assert out.split("]")[-1].split() == ["False", "False"], out
    assert "fastexcel" in out


def test_date_and_time_cells_are_rewritten_in_arrow_as_duckdb_rewrote_them():
    """columnar._replaced drops a date's zero clock, a time of day's 1899 date and writes a
    datetime's T in Arrow; the oracle is the DuckDB SQL the reader ran before."""
    import pyarrow as pa

    from tabular.read.sheets.columnar import _replaced
    from tabular.read.sheets.hints import Hint

    texts = [
        "2024-01-02 00:00:00",
        "2024-01-02 10:00:00",
        "1899-12-31 10:30:00",
        "x 00:00:00",
        " 00:00:00",
        "2024-01-02 00:00:00 00:00:00",
        "n/a",
        "",
        None,
        "été 00:00:00",
    ]
    cases = [
        (Hint(kinds={"d"}), "regexp_replace(t, ' 00:00:00$', '')"),
        (Hint(kinds={"d"}, time=True, clock=True), "regexp_replace(t, '^1899-12-31 ', '')"),
        (Hint(kinds={"d"}, time=True, clock=False), "replace(t, ' ', 'T')"),
        (Hint(kinds={"n"}), "t"),
        (Hint(kinds={"n"}, units={"$", None}), "t"),  # several units: as they are
    ]
    con = duckdb.connect()
    con.register("cells", pa.table({"t": pa.array(texts, pa.string())}))
    for hint, sql in cases:
        want = [r[0] for r in con.execute(f"SELECT {sql} FROM cells").fetchall()]
        assert _replaced(pa.array(texts, pa.string()), hint).to_pylist() == want, sql
    assert _replaced(pa.array(texts, pa.string()), Hint(kinds={"n"}, units={"%"})) is None  # DuckDB scales it
