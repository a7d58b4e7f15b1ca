"""What the first rows of a workbook column say (hints.py), and the check of its units over every cell."""

from __future__ import annotations

import pytest

from tabular.read.sheets.hints import BUILTIN_FORMATS, Hint, UnitFeeder, is_date_format


@pytest.mark.parametrize(
    "number_format, clock, elapsed",
    [
        ("hh:mm", True, False),
        ("h:mm:ss AM/PM", True, False),
        ("[$-409]h:mm AM/PM;@", True, False),
        ("mm:ss.0", True, False),
        ("[h]:mm:ss", True, True),
        ("[mm]:ss", True, True),
        ("yyyy-mm-dd hh:mm", False, False),
        ("m/d/yy h:mm", False, False),
        ("d-mmm", False, False),
        ('mmmm" "yyyy', False, False),
    ],
)
def test_a_date_format_tells_a_time_of_day_and_an_elapsed_time_from_a_date(number_format, clock, elapsed):
    hint = Hint()
    hint.see("n", number_format)
    assert (hint.kinds, hint.clock, hint.elapsed) == ({"d"}, clock, elapsed)


def _sheet(cells: list[tuple[str, int, str]]) -> bytes:
    """A worksheet's XML: (column letters, row, style) number cells, a header row of text."""
    body = "".join(f'<c r="{col}{row}" s="{style}"><v>{row}</v></c>' for col, row, style in cells)
    return f'<worksheet><sheetData><row r="1"><c r="B1" t="s"><v>0</v></c></row>{body}</sheetData></worksheet>'.encode()


FORMATS = ["General", '"$"#,##0.00', "[$€-407] #,##0.00", "0%", '"$"#,##0']


@pytest.mark.parametrize("chunk", [7, 64, 1 << 20])
@pytest.mark.parametrize(
    "odd_style, found",
    [
        (2, {"$", "€"}),  # another currency
        (0, {"$", None}),  # no unit
        (3, {"$", "%"}),  # a percent
        (4, {"$"}),  # another style with the same unit: nothing to say
    ],
)
def test_a_cell_of_another_unit_below_the_first_rows_is_found_wherever_the_chunks_cut(chunk, odd_style, found):
    hint = Hint(units={"$"}, header=1)
    cells = [("B", row, "1") for row in range(2, 400)] + [("AB", 400, "0")]
    cells[300] = ("B", 302, str(odd_style))
    xml = _sheet(cells)
    feed = UnitFeeder({1: hint}, FORMATS)
    for at in range(0, len(xml), chunk):
        feed(xml[at : at + chunk])
    assert hint.units == found


DATE_OR_NOT = [
    "General", "0.00", '"$"#,##0.00', "0.0%", "yyyy-mm-dd", "yyyy-mm-dd hh:mm", "[h]:mm:ss", "[mm]:ss", "mm:ss.0",
    '[$-409]h:mm AM/PM;@', '[Red]0.00', '[$€-407] #,##0.00', '"days" 0', '0 "hrs"', "\\d0", "_d0", "0_s",
    "d-mmm;@", '#,##0;[Red]"m"', "[Blue]yyyy", "@", "ss", "[s]", "[hh]", "mmmm yyyy", '"y"0', "0.00E+00",
]  # fmt: skip


def test_which_formats_show_a_date_is_decided_as_openpyxl_decides_it():
    """The fast reader keeps openpyxl's table of built-in formats and its date rule without importing it."""
    from openpyxl.styles.numbers import BUILTIN_FORMATS as OPENPYXL_FORMATS
    from openpyxl.styles.numbers import is_date_format as openpyxl_is_date

    assert BUILTIN_FORMATS == OPENPYXL_FORMATS
    for fmt in [*BUILTIN_FORMATS.values(), *DATE_OR_NOT, None]:
        assert is_date_format(fmt) == openpyxl_is_date(fmt), fmt
