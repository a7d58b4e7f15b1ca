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


# A cell of at least this many words reads as a sentence, not a name.
SENTENCE_WORDS = 4
# The characters of a prose sheet's text its note shows.
PROSE_SHOWN = 200


@dataclass(frozen=True)
class Prose:
    """A sheet that holds no table, only text or lone values (a sentence, a title alone): no
    dataset, but a note on the workbook's (on its first dataset's warnings, and so in
    ingest_status's)."""

    sheet: str
    text: str

    @classmethod
    def of(cls, sheet: str, blocks: list[list[list[Cell]]]) -> Prose:
        return cls(sheet, " ".join(c.text for block in blocks for row in block for c in row if c.text))

    def note(self) -> str:
        if not self.text:
            return f"sheet {self.sheet!r} holds no table, only cells without a value (errors, pictures): no dataset was made of it"
        shown = self.text if len(self.text) <= PROSE_SHOWN else self.text[: PROSE_SHOWN - 1] + "…"
        return f"sheet {self.sheet!r} holds no table, only {shown!r}: no dataset was made of it"


def is_prose(blocks: list[list[list[Cell]]]) -> bool:
    """Whether a sheet on which no table was found (each block of cells, by row, a title: one
    filled cell a row) holds no table but lone values or text: each block is one row (a table
    of it would be a header and no row), or every cell is text and the first reads as a
    sentence. A `count` above a 5, a `Name` above two names, stay a table."""
    if not blocks:
        return False  # an empty sheet: nothing to say
    if all(len(block) <= 1 for block in blocks):
        return True
    cells = [c for block in blocks for row in block for c in row]
    return all(c.kind == "s" for c in cells) and len((cells[0].text or "").split()) >= SENTENCE_WORDS


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


def column_letter(number: int) -> str:
    """A column's letters from its number (1 is A, 27 is AA), as openpyxl's get_column_letter
    writes them, without importing openpyxl (0.3 s) on the fast reader's path."""
    letters = ""
    while number > 0:
        number, rest = divmod(number - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def each_sheet(
    names: list[str], hidden: list[str], options: dict, read_one: Callable[[str, int], list], parser: str | None = None
) -> tuple[list, dict]:
    """The one sheet loop every workbook reader runs: the sheets `options.sheets` names (one it
    does not know refuses the file, naming the sheets there are), else the visible ones; each
    read by `read_one(name, index of its first extraction)`; a sheet that cannot be read is
    lost and said in the coverage, not the workbook; a sheet of text alone (Prose) is said on
    the first dataset, and a workbook of nothing else fails no_text saying it. Each extraction names the hidden sheets
    and, where given, the parser that read it."""
    wanted = options.get("sheets")
    unknown = [n for n in wanted or [] if n not in names]
    if unknown:
        raise IngestFailed("format_unavailable", f"no sheet named {unknown[0]!r}; the workbook has {names}")
    chosen = [n for n in names if (n in wanted if wanted else n not in hidden)]
    extractions: list = []
    prose: list[Prose] = []
    lost: list[str] = []
    for name in chosen:
        try:
            read = read_one(name, len(extractions))
        except Exception as err:  # one sheet that cannot be read is lost, not the workbook
            lost.append(f"sheet {name!r}: {getattr(err, 'message', err)}")
            continue
        prose += [x for x in read if isinstance(x, Prose)]
        extractions += [x for x in read if not isinstance(x, Prose)]
    if prose and not extractions and not lost:
        raise IngestFailed("no_text", "the workbook has no table: " + "; ".join(p.note() for p in prose))
    if prose and extractions:
        extractions[0].notes.extend(p.note() for p in prose)
    for ex in extractions:
        ex.origin.hidden_sheets = hidden
        if parser:
            ex.origin.parser = parser
    return extractions, Coverage.of_sheets(len(chosen), lost)
