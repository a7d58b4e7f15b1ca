"""What both sheet readers (read/sheets/workbooks.py through openpyxl or calamine, read/sheets/columnar.py through
fastexcel) decide alike: a cell's kind, the total row left out of a table, the unit a number
format gives, the coverage of a workbook's sheets, and what a panic inside calamine means."""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

from ... import readings as C
from ...errors import IngestFailed
from ...models import Coverage
from ..totals import TOTAL_CELL, is_total_label

__all__ = ["TOTAL_CELL"]  # synthesize/schemas.py finds Total rows in a snapshot by it

CURRENCY_IN_FORMAT = re.compile(r'\[\$([^\]-]+)(?:-[0-9A-Fa-f]+)?\]|"([^"]+)"|([$€£¥₹])')
NUMBER_TEXT = re.compile(r"[-+]?[\d.,eE+-]+")


@dataclass(frozen=True)
class Cell:
    text: str | None  # what the readings see; None for an empty cell
    kind: str  # "s" text, "n" number, "d" date/time, "b" bool, "e" error, "" empty


def cell_of_text(text: str | None) -> Cell:
    """A cell known only by its text (fastexcel reads every cell as text): number-like text is
    taken for a number, other text for text."""
    if text is None or not text.strip():
        return Cell(None, "")
    return Cell(text, "n" if NUMBER_TEXT.fullmatch(text.strip()) else "s")


def is_total_row(cells: list[Cell]) -> bool:
    """The row says Total (or Sum, Gesamt, Итого …) alone in its first filled cell, and beside
    the label there are sums, or formulas a spreadsheet never computed (empty here), but no other
    text: the rule delimited text follows too (read/totals.py)."""
    first = next((c for c in cells if c.kind), None)
    if first is None or first.kind != "s" or not is_total_label(first.text):
        return False
    return sum(1 for c in cells if c.kind == "s") == 1


def unit_of(number_format: str) -> str | None:
    """The unit a number format shows: % (which scales the value by 100) or a currency symbol
    the readings know. A % quoted or escaped ('0.00"%"', '0.00" %"', '0.00\\%') is literal text: the value
    is shown as it is stored, so it is no percent format and no unit."""
    if "%" in re.sub(r'"[^"]*"|\\%', "", number_format):
        return "%"
    match = CURRENCY_IN_FORMAT.search(number_format)
    if match:
        symbol = next(g for g in match.groups() if g).strip()
        if symbol in C.UNITS and symbol != "%":
            return symbol
    return None


def is_panic(err: BaseException) -> bool:
    """A Rust panic inside calamine (python-calamine or fastexcel): pyo3 raises it as
    `pyo3_runtime.PanicException`, which derives from BaseException, not Exception, so an
    `except Exception` lets it through, and out of the ingest worker's thread."""
    kind = type(err)
    return kind.__name__ == "PanicException" and kind.__module__ in ("pyo3_runtime", "builtins")


@contextmanager
def calamine_panics(what: str):
    """Around every calamine call: a panic on a file is that file's failure (`format_unavailable`),
    never the worker's. Anything else goes on as it was raised."""
    try:
        yield
    except BaseException as err:
        if not is_panic(err):
            raise
        said = (str(err).strip().splitlines() or ["no message"])[0][:200]
        raise IngestFailed("format_unavailable", f"{what} cannot be read: calamine stopped on it ({said})") from None


def column_number(letters: str) -> int:
    """A cell reference's column letters as a number (A is 1, AA is 27), for any run of capital
    letters, however long: a hostile file's reference past XFD is a large number for the limits
    to refuse, never an error here."""
    number = 0
    for ch in letters:
        number = number * 26 + ord(ch) - 64
    return number


def each_sheet(
    names: list[str], hidden: list[str], options: dict, read_one: Callable[[str, int], list], parser: str | None = None
) -> tuple[list, dict]:
    """The one sheet loop every workbook reader runs: the sheets `options.sheets` names (one it
    does not know refuses the file, naming the sheets there are), else the visible ones; each
    read by `read_one(name, index of its first extraction)`; a sheet that cannot be read is
    lost and said in the coverage, not the workbook. Each extraction names the hidden sheets
    and, where given, the parser that read it."""
    wanted = options.get("sheets")
    unknown = [n for n in wanted or [] if n not in names]
    if unknown:
        raise IngestFailed("format_unavailable", f"no sheet named {unknown[0]!r}; the workbook has {names}")
    chosen = [n for n in names if (n in wanted if wanted else n not in hidden)]
    extractions: list = []
    lost: list[str] = []
    for name in chosen:
        try:
            extractions += read_one(name, len(extractions))
        except Exception as err:  # one sheet that cannot be read is lost, not the workbook
            lost.append(f"sheet {name!r}: {getattr(err, 'message', err)}")
    for ex in extractions:
        ex.origin.hidden_sheets = hidden
        if parser:
            ex.origin.parser = parser
    return extractions, Coverage.of_sheets(len(chosen), lost)
