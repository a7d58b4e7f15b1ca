"""tabular/read/sheets/rules.py: what both sheet readers decide alike (a cell's kind, a total
row, a number format's unit, column letters, a calamine panic)."""

from __future__ import annotations

import pytest

from tabular.errors import IngestFailed
from tabular.read.sheets.rules import (
    Cell,
    calamine_panics,
    cell_of_text,
    column_letter,
    column_number,
    is_panic,
    is_total_row,
    unit_of,
)


@pytest.mark.parametrize(
    ("letters", "number"), [("A", 1), ("Z", 26), ("AA", 27), ("AZ", 52), ("BA", 53), ("XFD", 16384)]
)
def test_column_letters_count_from_a_as_one(letters, number):
    assert column_number(letters) == number


def test_a_column_number_is_written_as_openpyxl_writes_its_letters_and_reads_back():
    from openpyxl.utils import get_column_letter

    assert [column_letter(n) for n in range(1, 18_279)] == [get_column_letter(n) for n in range(1, 18_279)]
    assert all(column_number(column_letter(n)) == n for n in range(1, 18_279))


def test_letters_past_xfd_are_a_large_number_for_the_limits_to_refuse_not_an_error():
    assert column_number("XFE") == 16385
    assert column_number("Z" * 12) > 10**16


@pytest.mark.parametrize(
    ("text", "cell"),
    [
        ("12", Cell("12", "n")),
        (" -1,234.50 ", Cell(" -1,234.50 ", "n")),
        ("1e5", Cell("1e5", "n")),
        ("Oslo", Cell("Oslo", "s")),
        ("12 kg", Cell("12 kg", "s")),
        ("", Cell(None, "")),
        ("   ", Cell(None, "")),
        (None, Cell(None, "")),
    ],
)
def test_a_cell_known_by_its_text_is_a_number_text_or_empty(text, cell):
    assert cell_of_text(text) == cell


@pytest.mark.parametrize(
    ("cells", "total"),
    [
        ([Cell("Total", "s"), Cell("10", "n"), Cell("20", "n")], True),
        ([Cell(None, ""), Cell("Grand Total", "s"), Cell("30", "n")], True),
        ([Cell("Summe", "s"), Cell(None, ""), Cell("30", "n")], True),
        ([Cell("Total", "s"), Cell("Recall", "s"), Cell("1990", "n")], False),
        ([Cell("10", "n"), Cell("Total", "s")], False),
        ([Cell("Oslo", "s"), Cell("10", "n")], False),
        ([Cell(None, ""), Cell(None, "")], False),
    ],
)
def test_a_total_row_says_total_first_and_holds_no_other_text(cells, total):
    assert is_total_row(cells) is total


@pytest.mark.parametrize(
    ("number_format", "unit"),
    [
        ("0.00%", "%"),
        ('"$"#,##0.00', "$"),
        ("[$€-407] #,##0.00", "€"),
        ("£#,##0", "£"),
        ('0.00" %"', None),  # quoted: shown as stored, not scaled by 100
        ("#,##0.00", None),
        ("General", None),
        ('"kg" 0.0', None),
    ],
)
def test_a_number_format_gives_its_unit_when_the_readings_know_it(number_format, unit):
    assert unit_of(number_format) == unit


@pytest.mark.parametrize("literal", ['0.00"%"', "0.00\\%", '#,##0" %"'])
def test_a_quoted_percent_sign_is_literal_text_not_a_percent_format(literal):
    assert unit_of(literal) is None
    assert unit_of(literal + ";[Red]-" + literal) is None


def test_a_percent_format_beside_quoted_text_is_still_a_percent():
    assert unit_of('0.0%" of total"') == "%"
    assert unit_of('#,##0.00 "€"') == "€"


class PanicException(BaseException):
    """What pyo3 raises for a Rust panic (its module is pyo3_runtime or builtins)."""


PanicException.__module__ = "pyo3_runtime"


def test_a_calamine_panic_is_the_files_failure_not_the_workers():
    assert is_panic(PanicException("index out of bounds"))
    with pytest.raises(IngestFailed) as caught:
        with calamine_panics("the sheet Sales"):
            raise PanicException("index out of bounds\nmore detail")
    assert caught.value.error_code == "format_unavailable"
    assert "the sheet Sales" in caught.value.message
    assert "index out of bounds" in caught.value.message
    assert "more detail" not in caught.value.message


def test_anything_else_goes_through_calamine_panics_as_raised():
    assert not is_panic(ValueError("x"))
    with pytest.raises(KeyError):
        with calamine_panics("the sheet Sales"):
            raise KeyError("x")


class _Origin:
    hidden_sheets: list = []
    parser = None


class _Extraction:
    def __init__(self, name):
        self.name, self.origin = name, _Origin()


def test_the_sheet_loop_reads_the_visible_sheets_and_loses_only_a_sheet_that_fails():
    from tabular.read.sheets.rules import each_sheet

    def read_one(name, index):
        if name == "Broken":
            raise IngestFailed("too_large", "too wide")
        return [_Extraction(f"{name}@{index}")]

    got, coverage = each_sheet(["A", "Hidden", "Broken", "B"], ["Hidden"], {}, read_one, "calamine")
    assert [e.name for e in got] == ["A@0", "B@1"]
    assert all(e.origin.hidden_sheets == ["Hidden"] and e.origin.parser == "calamine" for e in got)
    assert (coverage["total"], coverage["extracted"], coverage["failed"]) == (3, 2, 1) and "Broken" in coverage["lost"][
        0
    ]


def test_the_sheet_loop_reads_the_sheets_named_hidden_or_not_and_refuses_an_unknown_one():
    from tabular.read.sheets.rules import each_sheet

    def read_one(name, index):
        return [_Extraction(name)]

    got, _ = each_sheet(["A", "Hidden"], ["Hidden"], {"sheets": ["Hidden"]}, read_one)
    assert [e.name for e in got] == ["Hidden"] and got[0].origin.parser is None
    with pytest.raises(IngestFailed) as refused:
        each_sheet(["Sales", "Costs"], [], {"sheets": ["Sale"]}, read_one)
    assert refused.value.error_code == "format_unavailable" and "'Sale'" in refused.value.message
    assert "Sales" in refused.value.message
