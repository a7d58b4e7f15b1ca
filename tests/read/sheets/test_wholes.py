"""tabular/read/sheets/wholes.py: a number cell past 2**53 keeps the digits the sheet holds on the
fast path (fastexcel reads it as a double, 9007199254740993 as 9007199254740992), as the openpyxl
reader keeps them: in a column of numbers, among text, in the header, for a formula's value; a
text cell of many digits is left as it is, and a cell whose digits cannot be read is said."""

from __future__ import annotations

import re
import zipfile

import pyarrow as pa
from both_ways import published
from openpyxl import Workbook

FAST = {"sheet_fast_bytes": 0}  # every workbook through the columnar reader
CAREFUL = {"sheet_fast_bytes": 1 << 40, "sheet_fast_inflated_bytes": 1 << 40}  # through openpyxl
BIG = 2**53


def write(path, rows):
    wb = Workbook()
    ws = wb.active
    ws.title = "data"
    for row in rows:
        ws.append(row)
    wb.save(path)
    return path


def both(tmp_path, path):
    """The workbook as the columnar reader and as openpyxl publish it."""
    fast, careful = published(tmp_path / "fast", path, **FAST), published(tmp_path / "careful", path, **CAREFUL)
    assert fast["state"] == careful["state"] == "ready", (fast, careful)
    return fast, careful


def rewritten(path, change):
    """The workbook with its sheet's XML changed by `change`."""
    with zipfile.ZipFile(path) as archive:
        parts = {n: archive.read(n) for n in archive.namelist()}
    parts["xl/worksheets/sheet1.xml"] = change(parts["xl/worksheets/sheet1.xml"])
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return path


def digits_book(path, rows):
    """A workbook whose number cells hold the digits given as text of 16 digits or more: openpyxl
    writes an int past 2**53 as its double, so the digits are put in the XML after, each over a
    placeholder exact in binary and in decimal."""
    marks: list[str] = []
    placed = []
    for row in rows:
        out = []
        for value in row:
            if isinstance(value, str) and re.fullmatch(r"-?[0-9]{16,}", value):
                marks.append(value)
                value = -(len(marks) + 0.5) / 1024
            out.append(value)
        placed.append(out)
    write(path, placed)

    def put(sheet):
        for k, digits in enumerate(marks, 1):
            placeholder = b"<v>%s</v>" % repr(-(k + 0.5) / 1024).encode()
            assert placeholder in sheet
            sheet = sheet.replace(placeholder, b"<v>%s</v>" % digits.encode(), 1)
        return sheet

    return rewritten(path, put)


def test_a_whole_number_past_2_53_keeps_its_digits_as_the_openpyxl_reader_reads_them(tmp_path):
    """fastexcel reads every number as a double: 9007199254740993 was 9007199254740992 and
    12345678901234567891 was 12345678901234567000, silently. Both readers now give the XML's digits,
    in a column of numbers, among text, in the head, negative, and for a formula's value."""
    rows = [["id", "big", "huge", "mixed", str(BIG + 11)]]
    for i in range(1, 260):
        rows.append([i, str(BIG + i), str(-(12345678901234567890 + i)), "n/a" if i % 10 == 0 else str(BIG * 3 + i), i])
    path = digits_book(tmp_path / "big.xlsx", rows)
    fast, careful = both(tmp_path, path)
    assert fast["dataset"]["columns"] == careful["dataset"]["columns"]
    assert fast["dataset"]["warnings"] == careful["dataset"]["warnings"]
    assert fast["rows"] == careful["rows"]
    names = [c["name"] for c in fast["dataset"]["columns"]]
    first = dict(zip(names, fast["rows"][0]))
    assert str(first["big"]) == str(BIG + 1) and str(first["huge"]) == "-12345678901234567891"
    assert names[4] == str(BIG + 11)  # a header cell past 2**53


def test_a_formula_s_value_past_2_53_keeps_its_digits(tmp_path):
    path = digits_book(tmp_path / "f.xlsx", [["id", "big"]] + [[i, str(BIG + i)] for i in range(1, 40)])
    rewritten(path, lambda sheet: re.sub(rb'(<c r="B\d+"[^>]*>)(<v>)', rb"\1<f>A1+1</f>\2", sheet))
    fast, careful = both(tmp_path, path)
    assert fast["rows"] == careful["rows"] and str(fast["rows"][0][1]) == str(BIG + 1)


def test_a_number_past_2_53_written_in_a_form_not_read_digit_by_digit_is_said(tmp_path):
    from tabular.read.sheets.wholes import exact_wholes

    path = digits_book(tmp_path / "odd.xlsx", [["id", "big"]] + [[i, str(BIG + i)] for i in range(1, 40)])
    rewritten(path, lambda sheet: sheet.replace(b'<c r="B7"', b"<c r='B7'"))
    texts = pa.array(["big"] + [str(float(BIG + i)).split(".")[0] for i in range(1, 40)], pa.string())
    batch = pa.RecordBatch.from_arrays([pa.array(["id", *map(str, range(1, 40))]), texts], names=["a", "b"])
    got, inexact = exact_wholes(batch, 0, path, "xl/worksheets/sheet1.xml")
    assert inexact == {1}
    column = got.column(1).to_pylist()
    assert column[1] == str(BIG + 1) and column[6] == str(float(BIG + 6)).split(".")[0]  # B7: the double's
    fast = published(tmp_path / "fast", path, **FAST)
    assert any("past 2**53" in w and "'big'" in w for w in fast["dataset"]["warnings"]), fast["dataset"]["warnings"]


def test_a_text_cell_of_many_digits_is_kept_as_it_is_and_not_looked_for_in_the_xml(tmp_path, monkeypatch):
    from tabular.read.sheets import wholes

    rows = [["id", "code"]] + [[i, f"{12345678901234567890 + i}"] for i in range(1, 60)]
    path = write(tmp_path / "codes.xlsx", rows)  # openpyxl writes the codes as text cells
    looked: list = []
    scan = wholes._xml_wholes
    monkeypatch.setattr(wholes, "_xml_wholes", lambda *a: looked.append(a) or scan(*a))
    fast, careful = both(tmp_path, path)
    assert fast["rows"] == careful["rows"] and fast["rows"][0][1] == "12345678901234567891"
    assert fast["dataset"]["warnings"] == careful["dataset"]["warnings"] and looked == []


def test_a_number_past_2_53_written_with_an_exponent_is_its_double_and_no_warning(tmp_path):
    """Excel writes some large numbers as 1.2345678901234568E+17: that text is the double itself,
    so the fast reader finds the cell, says nothing, and reads what openpyxl reads."""
    for k, value in enumerate((1e16, 2.0**60, 1.2345678901234568e17)):
        path = write(tmp_path / f"exp{k}.xlsx", [["id", "x"]] + [[i, value + i * 4096] for i in range(40)])
        sheet = zipfile.ZipFile(path).read("xl/worksheets/sheet1.xml")
        assert re.search(rb'<c r="B2"[^>]*><v>[0-9.]+e\+[0-9]+</v>', sheet), sheet[:400]
        fast, careful = both(tmp_path / f"b{k}", path)
        assert fast["rows"] == careful["rows"]
        assert not [w for w in fast["dataset"]["warnings"] if "2**53" in w], fast["dataset"]["warnings"]


def test_a_text_id_whose_digits_are_a_doubles_own_text_is_exact_and_no_warning(tmp_path):
    """An even id past 2**53 kept as text ('9007199254740994') reads as a double whose text is the
    same digits: it was looked for among the sheet's number cells, not found there, and its text
    column said it 'holds the nearest double'. Either side of 1E+16, among other text."""
    for k, ids in enumerate(
        (
            [str(BIG + 2 * i) for i in range(1, 60)],  # 16 digits, each a double exactly
            [str(10**16 + 2 * i) for i in range(1, 60)],  # 17 digits
            [str(BIG + 2 * i) if i % 2 else f"X{i}" for i in range(1, 60)],  # among other text
        )
    ):
        path = write(tmp_path / f"ids{k}.xlsx", [["n", "id"]] + [[i, v] for i, v in enumerate(ids)])
        fast, careful = both(tmp_path / f"b{k}", path)
        assert fast["rows"] == careful["rows"] and fast["rows"][0][1] == ids[0]
        assert fast["dataset"]["warnings"] == careful["dataset"]["warnings"], fast["dataset"]["warnings"]
        assert not [w for w in fast["dataset"]["warnings"] if "2**53" in w]


def test_a_text_id_of_19_digits_the_fast_reader_cannot_keep_is_said(tmp_path):
    """A text id of a double's full 19 digits ('1152921504606847232') is taken for a number cell by
    the fast reader's exact text and written as the double's shortest text: the column says its
    last digits may differ (a known loss, not a silent one)."""
    ids = [str(2**60 + 256 * i) for i in range(1, 60)]
    path = write(tmp_path / "ids.xlsx", [["n", "id"]] + [[i, v] for i, v in enumerate(ids)])
    fast = published(tmp_path / "fast", path, **FAST)
    changed = [row[1] for row, want in zip(fast["rows"], ids) if row[1] != want]
    if changed:
        assert any("past 2**53" in w and "'id'" in w for w in fast["dataset"]["warnings"]), fast["dataset"]
