"""tabular/read/sheets/typed.py: a large workbook's cells read through fastexcel's typed columns
publish as the openpyxl reader publishes them: a number cell is the number the workbook stored
(fastexcel's text read wrote nine decimal places: 1/3 was 0.333333333), dates, booleans, mixed
columns, text that fastexcel's typed read takes for empty, titles, several tables and totals
as before."""

from __future__ import annotations

import datetime as dt
import math
import random
import re
import struct
import zipfile
from decimal import Decimal

import pyarrow as pa
import pytest
from both_ways import published
from openpyxl import Workbook

import tabular
from tabular.read.sheets.typed import NULL_WORDS, holds_null_words, number_texts
from tabular.read.sheets.workbooks import _number_text

FAST = {"sheet_fast_bytes": 0}  # every workbook through the columnar reader
CAREFUL = {"sheet_fast_bytes": 1 << 40, "sheet_fast_inflated_bytes": 1 << 40}  # through openpyxl


def write(path, rows, formats=None):
    wb = Workbook()
    ws = wb.active
    ws.title = "data"
    for row in rows:
        ws.append(row)
    for column, fmt in (formats or {}).items():
        for (cell,) in ws.iter_rows(min_row=2, min_col=column, max_col=column):
            cell.number_format = fmt
    wb.save(path)
    return path


def shared(path):
    """The workbook with its text cells in a shared strings part, as Excel writes them (openpyxl
    writes each text inline)."""
    inline = re.compile(rb'<c r="([A-Z]+\d+)"([^>]*?) t="inlineStr"><is><t>([^<]*)</t></is></c>')
    strings: list[bytes] = []

    def indexed(m):
        strings.append(m.group(3))
        return b'<c r="%s"%s t="s"><v>%d</v></c>' % (m.group(1), m.group(2), len(strings) - 1)

    with zipfile.ZipFile(path) as archive:
        parts = {n: archive.read(n) for n in archive.namelist()}
    for name in [n for n in parts if n.startswith("xl/worksheets/")]:
        parts[name] = inline.sub(indexed, parts[name])
    items = b"".join(b"<si><t>%s</t></si>" % t for t in strings)
    parts["xl/sharedStrings.xml"] = (
        b'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="%d" uniqueCount="%d">%s</sst>'
        % (len(strings), len(strings), items)
    )
    parts["[Content_Types].xml"] = parts["[Content_Types].xml"].replace(
        b"</Types>",
        b'<Override PartName="/xl/sharedStrings.xml" ContentType="application/'
        b'vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml" /></Types>',
    )
    parts["xl/_rels/workbook.xml.rels"] = parts["xl/_rels/workbook.xml.rels"].replace(
        b"</Relationships>",
        b'<Relationship Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" '
        b'Target="sharedStrings.xml" Id="rIdShared" /></Relationships>',
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return path


def both(tmp_path, path):
    """The workbook as the columnar reader and as openpyxl publish it."""
    fast, careful = published(tmp_path / "fast", path, **FAST), published(tmp_path / "careful", path, **CAREFUL)
    assert fast["state"] == careful["state"] == "ready", (fast, careful)
    return fast, careful


def test_number_texts_are_the_shortest_text_of_each_double_as_the_openpyxl_reader_writes_it():
    rng = random.Random(3)
    values = [0.0, -0.0, 1e15, 1e16, 1e-5, 1e-7, 2.0**53, 2.0**53 + 2, 2.0**63, 5e-324, 1.7976931348623157e308]
    for _ in range(20_000):
        pick = rng.random()
        if pick < 0.4:
            value = struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0]
        elif pick < 0.7:
            value = round(rng.uniform(-1e6, 1e6), rng.randint(0, 12))
        else:
            value = rng.uniform(-1, 1) * 10 ** rng.randint(-30, 30)
        if math.isfinite(value):
            values.append(value)
    got = number_texts(pa.array(values, pa.float64())).to_pylist()
    want = [_number_text(v, "General") for v in values]
    assert [(v, g) for v, g, w in zip(values, got, want) if g != w] == []
    assert all(float(g) == v for g, v in zip(got, values))  # each reads back as its double


def test_a_number_cell_is_the_number_the_workbook_stored_with_the_types_openpyxl_gives(tmp_path):
    rng = random.Random(5)
    rows = [["id", "third", "tiny", "almost", "money", "places", "big", "neg", "day", "stamp", "flag"]]
    for i in range(1, 301):
        rows.append(
            [
                i,
                i / 3,
                i * 1e-10,
                100 - i * 1e-11,
                round(rng.uniform(0, 1000), 2),
                round(rng.uniform(-10, 10), 1 + i % 6),
                2**53 - i,
                -i * 7,
                dt.date(2020, 1, 1) + dt.timedelta(days=i),
                dt.datetime(2021, 5, 6, 7, 8, 9) + dt.timedelta(minutes=i * 37),
                i % 3 == 0,
            ]
        )
    path = write(tmp_path / "numbers.xlsx", rows, {5: '"$"#,##0.00', 9: "yyyy-mm-dd", 10: "yyyy-mm-dd hh:mm"})
    fast, careful = both(tmp_path, path)
    assert fast["rows"] == careful["rows"] and fast["dataset"]["columns"] == careful["dataset"]["columns"]
    physical = {c["name"]: c["physical"] for c in fast["dataset"]["columns"]}
    assert physical == {
        "id": "BIGINT",
        "third": "DOUBLE",
        "tiny": "DECIMAL(26, 25)",
        "almost": "DOUBLE",
        "money": "DECIMAL(5, 2)",
        "places": "DECIMAL(8, 6)",
        "big": "BIGINT",
        "neg": "BIGINT",
        "day": "DATE",
        "stamp": "TIMESTAMP",
        "flag": "BOOLEAN",
    }
    names = [c["name"] for c in fast["dataset"]["columns"]]
    first = dict(zip(names, fast["rows"][0]))
    assert first["third"] == 1 / 3 and first["almost"] == 100 - 1e-11  # was 0.333333333 and 100
    assert Decimal(first["tiny"]) == Decimal("1E-10")  # was 0
    assert Decimal(str(first["money"])) == Decimal(str(rows[1][4]))
    assert first["big"] == 2**53 - 1


@pytest.mark.parametrize("word", ["N/A", "NULL", "nan", "None", "-", "abc", "  "])
def test_a_text_cell_in_a_column_of_numbers_is_read_as_the_openpyxl_reader_reads_it(tmp_path, word):
    rows = [["n", "when", "ok"]] + [[i * 1.5, dt.date(2020, 1, i % 28 + 1), i % 2 == 0] for i in range(1, 200)]
    rows += [[word, dt.date(2020, 2, 1), True], [3.0, word, False], [4.0, dt.date(2020, 2, 2), word]]
    rows += [[i * 2.5, dt.date(2021, 1, i % 28 + 1), True] for i in range(1, 50)]
    fast, careful = both(tmp_path, write(tmp_path / "mixed.xlsx", rows, {2: "yyyy-mm-dd"}))
    assert fast["dataset"]["columns"] == careful["dataset"]["columns"]
    assert fast["dataset"]["questions"] == careful["dataset"]["questions"]
    assert fast["rows"] == careful["rows"] and fast["dataset"]["rejected"] == careful["dataset"]["rejected"]


def test_booleans_and_numbers_in_one_column_stay_as_they_were(tmp_path):
    rows = [["mixed", "n"]] + [[True if i % 50 == 0 else i, i] for i in range(1, 300)]
    fast, careful = both(tmp_path, write(tmp_path / "bools.xlsx", rows))
    assert fast["rows"] == careful["rows"]
    assert fast["dataset"]["columns"] == careful["dataset"]["columns"]


def test_a_title_several_tables_blank_columns_and_a_total_row_are_read_as_before(tmp_path):
    wb = Workbook()
    ws = wb.active
    ws["A1"] = "Quarterly report"
    for r, row in enumerate([["region", "units", "price"], ["north", 10, 1.25], ["south", 20, 2.5]], 3):
        for c, value in enumerate(row, 1):
            ws.cell(r, c, value)
    for r in range(3, 300):
        ws.cell(r, 6, "id" if r == 3 else r)
        ws.cell(r, 7, "share" if r == 3 else r / 7)
    ws.cell(300, 6, "Total")
    ws.cell(300, 7, 99.5)
    path = tmp_path / "layout.xlsx"
    wb.save(path)
    for config in (FAST, CAREFUL):
        with tabular.connect(str(tmp_path / f"h{len(config)}{config['sheet_fast_bytes']}"), **config) as e:
            ns = e.namespace("a", "b")
            assert ns.ingest_file(path, source_uri="f").state == "ready"
            got = ns.dataset_get("f").datasets
            seen = [(d.name, d.rows, [(c.name, c.type) for c in d.columns]) for d in got]
            rows = [ns.query({"datasets": [{"source_uri": "f", "dataset_id": d.dataset_id}]}).rows for d in got]
        if config is FAST:
            fast = (seen, rows)
    assert fast == (seen, rows)
    assert [s[0] for s in seen] == ["Sheet 1", "Sheet 2"] and seen[1][1] == 296  # the total row left out


def test_the_texts_fastexcel_takes_for_empty_are_found_in_the_sheet_or_the_shared_strings(tmp_path):
    for word, found in [("N/A", True), ("<NA>", True), ("NA", True), ("Nothing", False), ("NAN", False)]:
        path = write(tmp_path / "w.xlsx", [["a"], [1.5], [word]])
        with zipfile.ZipFile(path) as archive:
            parts = [n for n in archive.namelist() if n.startswith("xl/worksheets/") or "sharedStrings" in n]
            assert holds_null_words(archive, parts) is found, word
    assert "<NA>" in NULL_WORDS


def test_the_shared_strings_are_looked_through_once_for_all_the_sheets(tmp_path, monkeypatch):
    # Each sheet's empty cells send the typed read to look for NULL_WORDS; the shared strings,
    # one part for the whole workbook, were read again for every sheet.
    from tabular.read.sheets import typed

    wb = Workbook()
    for k in range(3):
        ws = wb.active if k == 0 else wb.create_sheet()
        ws.title = f"s{k}"
        ws.append(["n", "name"])
        for i in range(1, 200):
            ws.append([None if i % 50 == 0 else i * 1.5, f"w{i % 7}"])
    path = tmp_path / "sheets.xlsx"
    wb.save(path)
    shared(path)
    looked: list[str] = []

    def counted(archive, parts):
        looked.extend(parts)
        return holds_null_words(archive, parts)

    monkeypatch.setattr(typed, "holds_null_words", counted)
    with tabular.connect(str(tmp_path / "home"), **FAST) as engine:
        ns = engine.namespace("a", "b")
        assert ns.ingest_file(path, source_uri="f").state == "ready"
        got = ns.dataset_get("f").datasets
    assert [(d.rows, [c.type for c in d.columns]) for d in got] == [(199, ["number", "string"])] * 3
    assert sorted(looked) == ["xl/sharedStrings.xml"] + [f"xl/worksheets/sheet{k}.xml" for k in (1, 2, 3)]


@pytest.mark.parametrize("word", ["N/A", "None", "<NA>", "-1.#QNAN", "-", "  "])
def test_such_a_text_cell_among_shared_strings_is_read_as_the_openpyxl_reader_reads_it(tmp_path, word):
    # Excel keeps text cells in the shared strings, where openpyxl writes them inline.
    rows = [["n", "name"]] + [[i * 1.5, f"w{i % 9}"] for i in range(1, 200)]
    rows += [[word, "x"], [None, "y"]] + [[i * 2.5, "z"] for i in range(1, 50)]
    fast, careful = both(tmp_path, shared(write(tmp_path / "mixed.xlsx", rows)))
    assert fast["dataset"]["columns"] == careful["dataset"]["columns"]
    assert fast["dataset"]["questions"] == careful["dataset"]["questions"]
    assert fast["rows"] == careful["rows"]


def test_typed_columns_are_written_as_fastexcels_text_read_writes_the_same_cells(tmp_path):
    """Timestamps (with and without milliseconds, before 1970 too), booleans and numbers, each
    written from its typed column in one statement, as the text read writes those cells."""
    import fastexcel

    from tabular.read.sheets.typed import batch_texts

    rng = random.Random(11)
    start = dt.datetime(1900, 3, 1)
    rows = [["when", "flag", "n"]]
    for i in range(400):
        when = start + dt.timedelta(days=rng.randrange(60_000), seconds=rng.randrange(86_400))
        if i % 3 == 0:
            when += dt.timedelta(milliseconds=rng.randrange(1, 1000))
        rows.append([when, rng.random() < 0.5, rng.choice([0.5, 7, 1 / 3, 1e-7, 12345.678, -2.25])])
    path = write(tmp_path / "t.xlsx", rows, {1: "yyyy-mm-dd hh:mm:ss.000"})
    reader = fastexcel.read_excel(path)
    typed = reader.load_sheet(0, header_row=None, skip_rows=1, dtype_coercion="strict").to_arrow()
    text = reader.load_sheet(0, header_row=None, skip_rows=1, dtypes="string").to_arrow()
    assert [str(c.type) for c in typed.columns] == ["timestamp[ms]", "bool", "double"]
    got = batch_texts(list(typed.columns))
    assert got[0].to_pylist() == text.column(0).to_pylist()
    assert got[1].to_pylist() == text.column(1).to_pylist()
    assert got[2].to_pylist() == [_number_text(v, "General") for v in typed.column(2).to_pylist()]
    assert batch_texts([pa.array([1, 2], pa.date32())]) is None  # a type the text read writes otherwise


def test_whole_numbers_timestamps_and_booleans_written_in_arrow_are_the_statements_text():
    """The columns most sheets hold are written in Arrow (typed._arrow_text); each cell's text is
    what the one DuckDB statement writes for every other column, -0, NaN, fractions of a second
    and years past 9999 left to the statement."""
    from tabular.read.sheets import typed

    def by_statement(column):
        import duckdb

        with duckdb.connect() as con:
            con.register("cells", typed._registered({0: column}))
            return con.sql(typed._texts_select(((0, column.type),))).to_arrow_table().column(0).to_pylist()

    wholes = [0.0, 1.0, -1.0, 7.0, 1e15 - 1, -(1e15 - 1), 123456789.0, 2.0**40]
    stamps = [dt.datetime(1900, 1, 1), dt.datetime(1969, 12, 31, 23, 59, 59), dt.datetime(2024, 2, 29, 10, 30), None]
    columns = [
        (pa.array(wholes, pa.float64()), True),
        (pa.array(wholes + [-0.0], pa.float64()), False),  # -0 is `-0`: the statement writes it
        (pa.array(wholes + [math.nan], pa.float64()), False),
        (pa.array(wholes + [0.5], pa.float64()), False),
        (pa.array(wholes + [1e15], pa.float64()), False),
        (pa.array(stamps, pa.timestamp("ms")), True),
        (pa.array(stamps + [dt.datetime(2024, 1, 1, 0, 0, 0, 250_000)], pa.timestamp("ms")), False),
        (pa.array(stamps, pa.timestamp("us")), True),
        (pa.array([True, False, None], pa.bool_()), True),
    ]
    for column, in_arrow in columns:
        assert (typed._arrow_text(column) is not None) is in_arrow, column
        (got,) = typed.batch_texts([column])
        assert got.to_pylist() == by_statement(column), column
    assert typed.batch_texts([pa.array(wholes, pa.float64())])[0].to_pylist()[:4] == ["0", "1", "-1", "7"]
    assert [_number_text(v, "General") for v in wholes + [-0.0]] == by_statement(pa.array(wholes + [-0.0]))


def _big_book(path, rows, formats=None):
    """A workbook (as write() makes it) whose number cells hold the digits given as text: openpyxl
    writes an int past 2**53 as its double, so the digits are put in the XML after."""
    marks = {}
    placed = []
    for i, row in enumerate(rows):
        out = []
        for j, value in enumerate(row):
            if isinstance(value, str) and re.fullmatch(r"-?[0-9]{16,}", value):
                marks[f"{i}_{j}"] = value
                out.append(-(len(marks) + 0.5) / 1024)  # a placeholder, exact in binary and in decimal
            else:
                out.append(value)
        placed.append(out)
    write(path, placed, formats)
    with zipfile.ZipFile(path) as archive:
        parts = {n: archive.read(n) for n in archive.namelist()}
    sheet = parts["xl/worksheets/sheet1.xml"]
    for k, digits in enumerate(marks.values(), 1):
        placeholder = b"<v>%s</v>" % repr(-(k + 0.5) / 1024).encode()
        assert placeholder in sheet
        sheet = sheet.replace(placeholder, b"<v>%s</v>" % digits.encode(), 1)
    parts["xl/worksheets/sheet1.xml"] = sheet
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return path


BIG = 2**53


def _shapes(tmp_path):
    """One workbook of every shape a column takes: whole numbers, decimals of several scales,
    dates, datetimes, booleans, blanks, text among numbers, 0/1, currency, percent, numbers past
    2**53, text digits with leading zeros, and a Total row."""
    rng = random.Random(17)
    header = [
        "id",
        "flag01",
        "price",
        "rate",
        "tiny",
        "mixed",
        "day",
        "when",
        "ok",
        "gaps",
        "share",
        "cost",
        "big",
        "code",
    ]
    rows = [header]
    for i in range(1, 400):
        rows.append(
            [
                i,
                i % 2,
                round(rng.uniform(0, 100), 2),
                round(rng.uniform(-1, 1), 4 if i % 3 else 1),
                i * 1e-7,
                "none" if i % 37 == 0 else i * 0.5,
                dt.date(2020, 1, 1) + dt.timedelta(days=i),
                dt.datetime(2021, 1, 1, 8) + dt.timedelta(minutes=i * 13),
                i % 3 == 0,
                None if i % 4 == 0 else i,
                i / 400,
                round(rng.uniform(-500, 500), 2),
                str(BIG + i * 3),
                f"{i:05d}",
            ]
        )
    rows.append(["Total", None, 1234.5, None, None, None, None, None, None, 5000, None, 10.0, None, None])
    formats = {7: "yyyy-mm-dd", 8: "yyyy-mm-dd hh:mm", 11: "0.0%", 12: '"$"#,##0.00'}
    return _big_book(tmp_path / "shapes.xlsx", rows, formats)


def test_every_shape_reads_the_same_typed_as_through_fastexcel_s_text_and_through_openpyxl(tmp_path, monkeypatch):
    """The typed read (typed.typed_batch) against the text read it stands for (the same reader
    with typed_batch turned off) and against openpyxl: the same types, values, questions,
    warnings and rows left out, on every shape of column."""
    from tabular.read.sheets import columnar

    path = _shapes(tmp_path)
    read = columnar.typed_batch
    found: list = []
    monkeypatch.setattr(columnar, "typed_batch", lambda *a, **k: found.append(read(*a, **k)) or found[-1])
    typed = published(tmp_path / "typed", path, **FAST)
    assert len(found) == 1 and found[0] is not None  # the typed read read the sheet
    careful = published(tmp_path / "careful", path, **CAREFUL)
    monkeypatch.setattr(columnar, "typed_batch", lambda *a, **k: None)
    text = published(tmp_path / "text", path, **FAST)
    assert typed["state"] == text["state"] == careful["state"] == "ready"
    assert typed["dataset"] == text["dataset"] and typed["rows"] == text["rows"]
    for key in ("columns", "questions", "rejected", "rows"):
        assert typed["dataset"][key] == careful["dataset"][key]
    assert typed["rows"] == careful["rows"]
    # Not compared with openpyxl: the warning on the Total row, where both fast reads show a
    # currency cell without its format (10, not $10.00) and so also check its sum.
    physical = {c["name"]: c["physical"] for c in typed["dataset"]["columns"]}
    assert physical["price"].startswith("DECIMAL") and physical["price"].endswith(", 2)")
    assert physical["rate"].endswith(", 4)") and physical["cost"].endswith(", 2)")
    assert physical["day"] == "DATE" and physical["when"] == "TIMESTAMP" and physical["ok"] == "BOOLEAN"
    assert physical["big"] == "BIGINT" and physical["code"] == "VARCHAR"
    assert typed["rows"][0][header_at(typed, "big")] in (BIG + 3, str(BIG + 3))
    assert typed["dataset"]["rows"] == 399  # the Total row left out
    assert typed["dataset"]["questions"]  # 0/1 and the text among numbers still ask


def header_at(seen, name):
    return [c["name"] for c in seen["dataset"]["columns"]].index(name)


# A sheet is long past SAMPLE_HEAD + SAMPLE_SPREAD rows (tabular/infer/columns.py, no setting),
# then typed on its sample in the guarded pass: the default run makes both a tenth of their size
# and the sheet 2,500 rows, which goes the same way; `make test-long` writes the 25,000 rows.
LONG = [
    pytest.param(None, 2_500, 10, id="None-2500"),
    pytest.param({"header_rows": 0}, 2_500, 10, id="options4-2500"),
    pytest.param(None, 25_000, 1, id="None-25000", marks=pytest.mark.slow),
    pytest.param({"header_rows": 0}, 25_000, 1, id="options4-25000", marks=pytest.mark.slow),
]


@pytest.mark.parametrize(
    "options, length, shrink",
    [
        # Each header option once by default, the lengths in turn; the other short ones are
        # `make test-long`'s.
        pytest.param(None, 300, 1, id="None-300", marks=pytest.mark.slow),
        pytest.param({"header_rows": 0}, 300, 1, id="options1-300", marks=pytest.mark.slow),
        pytest.param({"header_rows": 2}, 300, 1, id="options2-300"),
        *LONG,
    ],
)
def test_columns_the_typed_read_saw_whole_read_as_their_text_reads_whatever_the_header_rows(
    tmp_path, monkeypatch, options, length, shrink
):
    """A column the typed read saw as booleans, dates or datetimes alone skips typing by
    elimination, where the table's data rows are all typed ones; a header row read as data
    leaves it to the text's typing: the same types, questions, warnings and rows as the text read."""
    from tabular.infer import columns
    from tabular.read.sheets import columnar

    monkeypatch.setattr(columns, "SAMPLE_HEAD", columns.SAMPLE_HEAD // shrink)
    monkeypatch.setattr(columns, "SAMPLE_SPREAD", columns.SAMPLE_SPREAD // shrink)
    long = length > columns.SAMPLE_HEAD + columns.SAMPLE_SPREAD
    rows = [["id", "ok", "day", "when", "gaps"]]
    for i in range(1, length):
        rows.append(
            [
                i,
                i % 3 == 0,
                dt.date(2020, 1, 1) + dt.timedelta(days=i),
                dt.datetime(2021, 1, 1, 8) + dt.timedelta(hours=i),
                None if i % 4 else dt.date(2022, 1, i % 28 + 1),
            ]
        )
    path = write(tmp_path / "kinds.xlsx", rows, {3: "yyyy-mm-dd", 4: "yyyy-mm-dd hh:mm", 5: "yyyy-mm-dd"})
    typed = published(tmp_path / "typed", path, options, **FAST)
    monkeypatch.setattr(columnar, "typed_batch", lambda *a, **k: None)
    text = published(tmp_path / "text", path, options, **FAST)
    assert typed["state"] == text["state"] == "ready"
    assert bool(typed["one_pass"]) is long and typed["one_pass"] == text["one_pass"]  # the guarded pass
    assert typed["dataset"] == text["dataset"] and typed["rows"] == text["rows"]
