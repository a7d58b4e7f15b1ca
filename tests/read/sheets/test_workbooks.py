"""Workbooks become one dataset per table: ranges, types, units, totals, broken files."""

import zipfile

import pytest
from conftest import ROOT, columns
from hostile_workbooks import LAUGHS, ROWS, SHEET_CLOSE, SHEET_OPEN, padding, workbook
from openpyxl import Workbook

import tabular

SHEETS = ROOT / "fixtures" / "sheets"


def datasets(ns, name, **fields):
    status = ns.ingest_file(SHEETS / name, source_uri=name, **fields)
    assert status.state == "ready", status.error_message
    return ns.dataset_get(name, sample_rows=20).datasets


def types(dataset):
    return {c.name: (c.type, c.physical, c.format) for c in dataset.columns}


def test_cells_keep_what_excel_means(ns):
    (sales,) = datasets(ns, "typed_cells.xlsx")
    assert (sales.origin.sheet, sales.origin.range, sales.origin.format) == ("Sales", "A1:G11", "xlsx")
    assert types(sales) == {
        "Date": ("date", "DATE", "%Y-%m-%d"),
        "Region": ("string", "VARCHAR", ""),
        "Units": ("number", "BIGINT", ""),
        "Revenue": ("number", "DECIMAL(7, 2)", "decimal_mark=.;unit=$"),
        "Share": ("number", "DECIMAL(5, 2)", "decimal_mark=.;unit=%"),
        "Note": ("string", "VARCHAR", ""),
        "Code": ("string", "VARCHAR", ""),
    }
    first = sales.sample[0]
    assert (first["Share"], first["Revenue"], first["Code"]) == ("12.50", "1234.50", "00123")
    # 0.0875 shown as 8.8% is held exactly as 8.75, not as a float's tail.
    assert "8.75" in [r["Share"] for r in sales.sample]
    # Text cells of digits stay text, and no person approved that: the file said so.
    assert not columns(sales)["Code"].approved and sales.questions == []


def test_1904_dates_and_datetimes(ns):
    (log,) = datasets(ns, "date1904.xlsx")
    assert types(log)["Date"][:2] == ("date", "DATE") and types(log)["Logged"][:2] == ("datetime", "TIMESTAMP")
    assert log.sample[0]["Date"] == "2024-01-15" and log.sample[0]["Logged"] == "2024-01-15T09:30:00"
    assert "1999-07-01T00:00:00" in [r["Logged"] for r in log.sample]


def test_title_block_is_not_a_table_and_the_total_row_is_left_out(ns):
    (report,) = datasets(ns, "title_block.xlsx")
    assert report.origin.range == "A4:E11"
    assert [c.name for c in report.columns] == ["Region", "Q1", "Q2", "Q3", "Q4"]
    # A Total row is no data: left out, said in the warnings, and no rejected row.
    assert (report.rows, report.rows_rejected, report.rejected, report.complete) == (6, 0, [], True)
    assert "row 11 of sheet 'Report' (a Total row: Total) was left out so sums are not doubled" in report.warnings


def test_a_cached_total_is_not_summed_twice(ns):
    (expenses,) = datasets(ns, "total_row.xlsx")
    amounts = [r["Amount"] for r in expenses.sample]
    assert len(amounts) == 6 and expenses.rejected == [] and expenses.rows_rejected == 0
    assert (
        "row 8 of sheet 'Expenses' (a Total row: Total | 660) was left out so sums are not doubled" in expenses.warnings
    )


def test_a_left_out_total_row_leaves_answers_complete_before_and_after_an_approval(ns):
    (expenses,) = datasets(ns, "total_row.xlsx")
    plan = {
        "datasets": [{"source_uri": "total_row.xlsx"}],
        "aggregates": [{"fn": "sum", "column": "Amount"}, {"fn": "count"}],
    }
    answer = ns.query(plan)
    assert answer.complete and answer.incomplete == [] and [str(v) for v in answer.rows[0]] == ["660.00", "6"]
    # An approval that types a column again, and one that settles nothing new: still no rejected row.
    retyped = ns.approve("total_row.xlsx", expenses.snapshot_id, columns={"Item": "string", "Amount": "string"})
    assert retyped.retyped and (retyped.dataset.rows, retyped.dataset.rows_rejected, retyped.dataset.complete) == (
        6,
        0,
        True,
    )
    again = ns.approve("total_row.xlsx", retyped.dataset.snapshot_id, columns={"Amount": "number"})
    assert (again.dataset.rows, again.dataset.rows_rejected, again.dataset.complete) == (6, 0, True)
    assert any("a Total row" in w for w in again.dataset.warnings)
    answer = ns.query(plan)
    assert answer.complete and [str(v) for v in answer.rows[0]] == ["660.00", "6"]
    # A new revision of the file, carrying the person's types, says the same. (The same bytes
    # read the same way are no new revision: the sheet is named, so it is read anew.)
    status = ns.ingest_file(SHEETS / "total_row.xlsx", source_uri="total_row.xlsx", options={"sheets": ["Expenses"]})
    (expenses,) = ns.dataset_get("total_row.xlsx").datasets
    assert status.revision == 2 and (expenses.rows_rejected, expenses.complete) == (0, True)
    assert ns.query(plan).complete


def test_merged_two_row_header(ns):
    (regions,) = datasets(ns, "merged_header.xlsx")
    assert [c.name for c in regions.columns] == [
        "Region",
        "2023 / Revenue",
        "2023 / Cost",
        "2024 / Revenue",
        "2024 / Cost",
    ]
    assert regions.origin.header_rows == 2 and regions.rows == 5


def test_several_tables_on_a_sheet(ns):
    found = datasets(ns, "two_tables.xlsx")
    assert [(d.dataset_id, d.origin.sheet, d.origin.range) for d in found][:2] == [
        ("data_1", "Data", "A1:C6"),
        ("data_2", "Data", "A10:D14"),
    ]
    assert [d.index for d in found] == list(range(len(found)))
    assert types(found[1])["Start"][0] == "date"
    side = [d for d in found if d.origin.sheet == "Side"]
    assert [d.origin.range for d in side] == ["A1:B5", "D1:E5"]


def test_hidden_and_empty_sheets(ns):
    found = datasets(ns, "hidden_and_empty.xlsx")
    assert [d.origin.sheet for d in found] == ["Visible"]
    assert found[0].origin.model_dump()["hidden_sheets"] == ["Secret"]
    found = datasets(ns, "hidden_and_empty.xlsx", options={"sheets": ["Secret"]})
    assert [d.origin.sheet for d in found] == ["Secret"]


def test_error_cells_are_nulls_with_a_warning(ns):
    (ratios,) = datasets(ns, "errors_formulas.xlsx")
    assert columns(ratios)["Ratio"].nulls == 4  # 3 error cells and a formula never computed
    assert any("error cells" in w for w in ratios.warnings)


def test_ods_and_xlsm(ns):
    (inventory,) = datasets(ns, "wide_types.ods")
    assert {n: t[0] for n, t in types(inventory).items()} == {
        "id": "number",
        "received": "date",
        "discount": "number",
        "price": "number",
        "in_stock": "bool",
        "name": "string",
    }
    (orders,) = datasets(ns, "macro.xlsm")
    assert orders.origin.format == "xlsm" and orders.rows == 3


@pytest.mark.parametrize(
    "name, code",
    [
        ("zero_bytes.xlsx", "no_text"),
        ("truncated.xlsx", "format_unavailable"),
        ("not_a_zip.xlsx", "format_unavailable"),
        ("encrypted.xlsx", "format_unavailable"),
    ],
)
def test_broken_workbooks_fail_with_a_code(ns, name, code):
    status = ns.ingest_file(SHEETS / name, source_uri=name)
    assert (status.state, status.error_code) == ("failed", code)
    assert not ns.dataset_get(name).found


@pytest.mark.parametrize(
    "name",
    [
        "typed_cells.xlsx",
        "date1904.xlsx",
        "title_block.xlsx",
        "two_tables.xlsx",
        "total_row.xlsx",
        "hidden_and_empty.xlsx",
        "macro.xlsm",
    ],
)
def test_the_fast_reader_types_workbooks_as_the_careful_one(tmp_path, name):
    """Large workbooks go through fastexcel; on every fixture it must give the same datasets."""
    import tabular

    def outcome(**settings):
        with tabular.connect(str(tmp_path / str(len(settings))), **settings) as engine:
            ns = engine.namespace("a", "b")
            assert ns.ingest_file(SHEETS / name, source_uri=name).state == "ready"
            return [
                (
                    d.dataset_id,
                    d.origin.range,
                    d.rows,
                    d.rows_rejected,
                    [(c.name, c.type, c.physical) for c in d.columns],
                    d.sample,
                )
                for d in ns.dataset_get(name, sample_rows=20).datasets
            ]

    assert outcome(sheet_fast_bytes=0) == outcome()


def test_a_sheet_that_cannot_be_read_fails_the_ingest_unless_partial_is_allowed(ns):
    status = ns.ingest_file(SHEETS / "one_bad_sheet.xlsx", source_uri="bad")
    assert (status.state, status.error_code) == ("failed", "incomplete_extraction")
    assert "Broken" in status.error_message and not ns.dataset_get("bad").found
    status = ns.ingest_file(SHEETS / "one_bad_sheet.xlsx", source_uri="bad", allow_partial=True)
    assert status.state == "partial"
    assert (status.coverage.unit, status.coverage.total, status.coverage.extracted, status.coverage.failed) == (
        "sheets",
        2,
        1,
        1,
    )
    assert "Broken" in status.coverage.lost[0]
    (good,) = ns.dataset_get("bad").datasets
    assert good.origin.sheet == "Good" and good.rows == 3 and good.complete is False


def fast_outcome(tmp_path, parts: list[bytes]):
    """A workbook of these sheet parts ingested through the fast reader (fastexcel)."""
    import tabular

    tmp_path.mkdir(exist_ok=True)
    path = workbook(tmp_path / "w.xlsx", parts)
    with tabular.connect(str(tmp_path / "home"), sheet_fast_bytes=0) as engine:
        ns = engine.namespace("a", "b")
        status = ns.ingest_file(path, source_uri="w.xlsx")
        rows = [d.rows for d in ns.dataset_get("w.xlsx").datasets] if status.state == "ready" else None
        return status, rows


def many_rows(first: int, count: int) -> bytes:
    return b"".join(
        b'<row r="%d"><c r="A%d"><v>%d</v></c><c r="B%d"><v>1</v></c></row>' % (r, r, r, r)
        for r in range(first, first + count)
    )


def test_the_fast_reader_refuses_markup_python_would_parse_in_the_head(tmp_path):
    # The first rows are read by Python's XML parser for their formats: a long comment there
    # would cost it quadratic time, a DTD entity expansion.
    status, _ = fast_outcome(
        tmp_path / "comment", [SHEET_OPEN % b"", ROWS % b"a", b"<!--", *padding(3 << 20), b"-->", SHEET_CLOSE]
    )
    assert (status.state, status.error_code) == (
        "failed",
        "format_unavailable",
    ) and "markup over" in status.error_message
    status, _ = fast_outcome(tmp_path / "dtd", [SHEET_OPEN % LAUGHS, ROWS % b"&lol9;", SHEET_CLOSE])
    assert (status.state, status.error_code) == ("failed", "format_unavailable") and "DTD" in status.error_message


def test_a_long_comment_only_calamine_reads_costs_nothing_and_loses_nothing(tmp_path):
    # Past the rows Python reads, calamine parses alone, in linear time: the comment is skipped.
    status, rows = fast_outcome(
        tmp_path,
        [
            SHEET_OPEN % b"",
            ROWS % b"a",
            many_rows(3, 500),
            b"<!--",
            *padding(3 << 20),
            b"-->",
            many_rows(503, 10),
            SHEET_CLOSE,
        ],
    )
    assert status.state == "ready", status.error_message
    assert rows == [511]


def test_the_fast_reader_places_a_table_that_does_not_start_at_a1(tmp_path):
    """fastexcel starts a sheet at its first filled row and column: the range and the first
    rows' cell kinds (text digits stay text) must still be the sheet's own."""
    import openpyxl

    import tabular

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["C3"], ws["D3"] = "name", "code"
    for i in range(4, 10):
        ws.cell(i, 3, f"n{i}")
        ws.cell(i, 4, f"00{i}").number_format = "@"
    wb.save(tmp_path / "shifted.xlsx")

    def outcome(**settings):
        with tabular.connect(str(tmp_path / str(len(settings))), **settings) as engine:
            ns = engine.namespace("a", "b")
            assert ns.ingest_file(tmp_path / "shifted.xlsx", source_uri="s").state == "ready"
            (d,) = ns.dataset_get("s", sample_rows=2).datasets
            return d.origin.range, types(d), [q.kind for q in d.questions], d.sample

    careful = outcome()
    assert careful == (
        (
            "C3:D9",
            {"name": ("string", "VARCHAR", ""), "code": ("string", "VARCHAR", "")},
            [],
            [{"name": "n4", "code": "004"}, {"name": "n5", "code": "005"}],
        )
    )
    assert outcome(sheet_fast_bytes=0) == careful


# --------------------------------------------------------------------------------------------
# Formulas with no saved value (issue 30): read as empty by every reader, and now said.


def _formula_book(path, cached: bool = False):
    """Sheet 'Prices' (net, vat, gross = net * 1.2 in a formula) and sheet 'Plain' (no formula);
    openpyxl saves formulas without their values, as a program that does not calculate does."""
    book = Workbook()
    prices = book.active
    prices.title = "Prices"
    prices.append(["item", "net", "gross"])
    for i in range(2, 14):
        prices.append([f"item {i}", i * 10, f"=B{i}*1.2"])
    book.create_sheet("Plain").append(["a", "b"])
    book["Plain"].append([1, 2])
    book.save(path)
    if cached:  # the values a spreadsheet program would have saved beside the formulas
        with zipfile.ZipFile(path) as z:
            parts = {i.filename: z.read(i.filename) for i in z.infolist()}
        sheet = parts["xl/worksheets/sheet1.xml"]
        for i in range(2, 14):
            sheet = sheet.replace(f"<f>B{i}*1.2</f><v />".encode(), f"<f>B{i}*1.2</f><v>{i * 12}</v>".encode())
        parts["xl/worksheets/sheet1.xml"] = sheet
        with zipfile.ZipFile(path, "w") as z:
            for name, data in parts.items():
                z.writestr(name, data)
    return path


@pytest.mark.parametrize("fast", [False, True], ids=["openpyxl", "fastexcel"])
def test_formulas_with_no_saved_value_are_said_per_sheet(tmp_path, fast):
    path = _formula_book(tmp_path / "prices.xlsx")
    with tabular.connect(str(tmp_path / "home"), **({"sheet_fast_bytes": 0} if fast else {})) as engine:
        ns = engine.namespace("acme", "finance")
        status = ns.ingest_file(path, source_uri="prices.xlsx")
        assert status.state == "ready"
        got = {d.dataset_id: d for d in ns.dataset_get("prices.xlsx", sample_rows=3).datasets}
    expected = (
        "sheet 'Prices': 12 formula cells have no saved value (C2, C3, C4, C5, C6, …): read as empty; "
        "open and save the file in a spreadsheet program to keep their values"
    )
    assert expected in got["prices"].warnings
    assert [r["gross"] for r in got["prices"].sample] == [None, None, None]
    assert not any("formula" in w for w in got["plain"].warnings)
    assert any(w.endswith(expected) and w.startswith("prices: ") for w in status.warnings)


def test_formulas_with_saved_values_are_read_without_a_warning(ns, tmp_path):
    path = _formula_book(tmp_path / "cached.xlsx", cached=True)
    assert ns.ingest_file(path, source_uri="cached.xlsx").state == "ready"
    prices = ns.dataset_get("cached.xlsx", sample_rows=2).datasets[0]
    assert not any("formula" in w for w in prices.warnings)
    assert [r["gross"] for r in prices.sample] == [24, 36]


@pytest.mark.parametrize("prefix", ["", "x:"])
def test_formula_cells_split_across_chunks_are_counted_once(prefix):
    from tabular.read.sheets.containers import Uncached

    p = prefix
    xml = (
        f'<{p}worksheet xmlns="s"><{p}sheetData><{p}row r="1"><{p}c r="A1" t="n"><{p}v>1</{p}v></{p}c>'
        f'<{p}c r="B1"><{p}f>A1*2</{p}f><{p}v/></{p}c><{p}c r="D1"><{p}f>A1</{p}f><{p}v>1</{p}v></{p}c></{p}row>'
        f'<{p}row r="2"><{p}c r="B2" t="str"><{p}f>""</{p}f><{p}v></{p}v></{p}c>'
        f'<{p}c r="C2"><{p}f t="shared" si="0"/></{p}c><{p}c r="D2"><{p}f>1</{p}f></{p}c></{p}row>'
        f"</{p}sheetData></{p}worksheet>"
    ).encode()
    for size in range(1, len(xml) + 1):
        found = Uncached()
        for at in range(0, len(xml), size):
            found.feed(xml[at : at + size])
        found.feed(b"", final=True)
        assert (found.count, found.refs) == (3, ["B1", "C2", "D2"]), size


@pytest.mark.parametrize("fast", [False, True], ids=["careful", "fast"])
def test_a_percent_sign_written_as_text_in_the_format_keeps_the_value_as_stored(tmp_path, fast):
    """'0.00" %"' shows 8.75 as '8.75 %' (Excel scales only by an unquoted %): the value is 8.75,
    never 875; an unquoted '0.00%' shows 0.0875 as 8.75% and reads as 8.75 with unit %."""
    wb = Workbook()
    ws = wb.active
    ws.append(["item", "quoted", "percent"])
    for i, (quoted, share) in enumerate([(8.75, 0.0875), (12.5, 0.125), (3, 0.03)], start=2):
        ws.append([f"i{i}", quoted, share])
        ws.cell(i, 2).number_format = '0.00" %"'
        ws.cell(i, 3).number_format = "0.00%"
    wb.save(tmp_path / "shares.xlsx")
    with tabular.connect(str(tmp_path / "home"), **({"sheet_fast_bytes": 0} if fast else {})) as engine:
        ns = engine.namespace("a", "b")
        assert ns.ingest_file(tmp_path / "shares.xlsx", source_uri="s").state == "ready"
        answer = ns.query({"datasets": [{"source_uri": "s"}], "select": [{"column": "quoted"}, {"column": "percent"}]})
    assert [[str(v) for v in row] for row in answer.rows] == [["8.75", "8.75"], ["12.50", "12.50"], ["3.00", "3.00"]]


@pytest.mark.parametrize("fast", [False, True], ids=["careful", "fast"])
def test_a_sheet_named_that_the_workbook_lacks_fails_the_ingest_naming_its_sheets(tmp_path, fast):
    """Both readers run one sheet loop: a misspelt sheet is refused, never read as no sheet at all."""
    wb = Workbook()
    wb.active.title = "Sales"
    wb.active.append(["a", "b"])
    wb.active.append([1, 2])
    wb.save(tmp_path / "book.xlsx")
    with tabular.connect(str(tmp_path / "home"), **({"sheet_fast_bytes": 0} if fast else {})) as engine:
        status = engine.namespace("a", "b").ingest_file(
            tmp_path / "book.xlsx", source_uri="s", options={"sheets": ["Sale"]}
        )
    assert (status.state, status.error_code) == ("failed", "format_unavailable")
    assert "'Sale'" in status.error_message and "Sales" in status.error_message


def _ods(path, rows: list[list[str]]) -> None:
    """A one-sheet ODS of these cells (each a <table:table-cell> element)."""
    body = "".join("<table:table-row>" + "".join(r) + "</table:table-row>" for r in rows)
    content = (
        '<?xml version="1.0" encoding="UTF-8"?><office:document-content '
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body>'
        f'<office:spreadsheet><table:table table:name="S">{body}</table:table></office:spreadsheet>'
        "</office:body></office:document-content>"
    )
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.oasis.opendocument.spreadsheet")
        z.writestr(
            "META-INF/manifest.xml",
            '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest '
            'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
            '<manifest:file-entry manifest:full-path="/" '
            'manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>'
            '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
            "</manifest:manifest>",
        )
        z.writestr("content.xml", content)


def _text(t):
    return f'<table:table-cell office:value-type="string"><text:p>{t}</text:p></table:table-cell>'


def _money(v, currency):
    return (
        f'<table:table-cell office:value-type="currency" office:currency="{currency}" office:value="{v}">'
        f"<text:p>{v} {currency}</text:p></table:table-cell>"
    )


def _percent(v):
    return (
        f'<table:table-cell office:value-type="percentage" office:value="{v}"><text:p>{v}</text:p></table:table-cell>'
    )


@pytest.mark.parametrize(
    "cells, said",
    [
        (lambda i: [_money(10 + i, "USD" if i % 2 else "EUR")], "several currencies (EUR, USD)"),
        (
            lambda i: [_text(f"r{i}"), _money(i, "GBP"), _money(i, "GBP" if i < 18 else "JPY")],
            "several currencies (GBP, JPY)",
        ),
        (lambda i: [_percent(i / 100)], "read as their fractions"),
        (lambda i: [_money(10 + i, "USD")], None),  # one currency: nothing to say
    ],
)
def test_an_ods_says_what_calamine_cannot_see_in_its_cells(ns, tmp_path, cells, said):
    """calamine reads an ODS without number formats: cells of two currencies were one column of
    plain numbers, summed together without a word."""
    path = tmp_path / "book.ods"
    _ods(path, [[_text(f"h{k}") for k in range(len(cells(0)))]] + [cells(i) for i in range(20)])
    assert ns.ingest_file(path, source_uri="book.ods").state == "ready"
    (dataset,) = ns.dataset_get("book.ods").datasets
    if said:
        assert any(said in w for w in dataset.warnings)
    else:
        assert not any("currenc" in w or "fraction" in w for w in dataset.warnings)


@pytest.mark.parametrize(
    "parts",
    [
        [b""],  # an empty sheet part
        [SHEET_OPEN % b"", b'<row r="1"><c r="A1" s="1"><v>1</v></c>'],  # cut short
        [SHEET_OPEN % LAUGHS, ROWS % b"&lol9;", SHEET_CLOSE],  # entities
    ],
)
def test_a_damaged_sheet_on_the_fast_path_is_refused_with_a_code_never_a_crash(tmp_path, parts):
    """The look at every cell's unit reads a large sheet's first rows inside the container check;
    a sheet part it cannot parse once escaped it as a crash."""
    path = workbook(tmp_path / "bad.xlsx", parts)
    with tabular.connect(str(tmp_path / "home"), sheet_fast_bytes=0) as engine:
        status = engine.namespace("o", "n").ingest_file(path, source_uri="bad.xlsx")
    assert (status.state, status.error_code) == ("failed", "format_unavailable")
    assert "cannot be read" in status.error_message
