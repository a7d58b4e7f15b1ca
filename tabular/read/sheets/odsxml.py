"""An ODS's content.xml read with expat, counting its repeats rather than making them: the extent
each table's values span (calamine's grid, which it allocates when it opens the file: 842
bytes of repeated empty rows made 30 million cells), and, for a workbook whose grids would
pass max_sheet_cells, the cells that hold values themselves (read/sheets/workbooks.py reads
those as calamine's).

Fed after markup.py's guard has seen each chunk (no DTD reaches expat). One Python step per
element: about 30 MB of content.xml a second.
"""

from __future__ import annotations

import datetime as dt
import re
import zipfile
from pathlib import Path
from pyexpat import ExpatError, ParserCreate

from ...errors import IngestFailed
from ...settings import Settings
from .markup import LONG_TOKEN, MarkupGuard

_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0 "
_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0 "
_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0 "
_STYLE = "urn:oasis:names:tc:opendocument:xmlns:style:1.0 "
_CELLS = (_TABLE + "table-cell", _TABLE + "covered-table-cell")
_VALUE_OF = {
    "float": "value",
    "percentage": "value",
    "currency": "value",
    "date": "date-value",
    "time": "time-value",
    "boolean": "boolean-value",
    "string": "string-value",
}
_DURATION = re.compile(r"-?P(?:(\d+)D)?T?(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?")


class Sheet:
    """One table of the document: its name, whether it is hidden, the extent its values span
    (rows from the first, columns from A), how many cells hold values (repeats counted) and,
    when kept, those cells by (row, column), 0-based."""

    def __init__(self, name: str, hidden: bool):
        self.name = name
        self.hidden = hidden
        self.rows = 0
        self.columns = 0
        self.values = 0
        self.cells: dict[tuple[int, int], object] = {}

    @property
    def extent(self) -> int:
        return self.rows * self.columns


class OdsSheets:
    """Fed content.xml's bytes in order: the document's sheets (Sheet), in its order. With
    `keep`, each value is kept too, as calamine gives it (a float, a bool, a date or datetime, a
    time of day, text), refused (too_large) past max_sheet_cells values, before they are made."""

    def __init__(self, settings: Settings, keep: bool = False):
        self.settings = settings
        self.keep = keep
        self.sheets: list[Sheet] = []
        self.hidden_styles: set[str] = set()
        self._style: str | None = None
        self._sheet: Sheet | None = None
        self._depth = 0  # tables open (a table inside a cell is read as part of its cell)
        self._row = 0
        self._row_repeat = 1
        self._column = 0
        self._cell: tuple[int, str | None, str | None] | None = None  # (repeat, type, value)
        self._text: list[str] | None = None
        self._paragraphs: list[str] = []
        self._notes = 0  # annotations open: their text is no cell's
        self._kept = 0
        parser = ParserCreate(namespace_separator=" ")
        parser.StartElementHandler = self._start
        parser.EndElementHandler = self._end
        parser.CharacterDataHandler = self._chars
        parser.buffer_text = True
        self._parser = parser

    @property
    def extent(self) -> int:
        """The cells calamine's grids of every sheet hold together."""
        return sum(s.extent for s in self.sheets)

    def feed(self, chunk: bytes, final: bool = False) -> None:
        try:
            self._parser.Parse(chunk, final)
        except ExpatError as err:
            raise IngestFailed(
                "format_unavailable",
                f"the ODS's content.xml is not well-formed XML ({err}); a password-protected ODS reads so: "
                "save it without a password",
            ) from None

    def _start(self, name: str, attrs: dict) -> None:
        if name in _CELLS and self._depth == 1:
            kind = attrs.get(_OFFICE + "value-type")
            value = attrs.get(_OFFICE + _VALUE_OF.get(kind or "", "value"))
            self._cell = (_count(attrs.get(_TABLE + "number-columns-repeated")), kind, value)
            self._paragraphs = []
        elif name == _TEXT + "p" and self._cell and not self._notes:
            self._text = []
        elif self._text is not None:
            if name == _TEXT + "s":
                self._text.append(" " * _count(attrs.get(_TEXT + "c")))
            elif name == _TEXT + "tab":
                self._text.append("\t")
            elif name == _TEXT + "line-break":
                self._text.append("\n")
        elif name == _OFFICE + "annotation":
            self._notes += 1
        elif name == _TABLE + "table-row" and self._depth == 1:
            self._row_repeat = _count(attrs.get(_TABLE + "number-rows-repeated"))
            self._column = 0
        elif name == _TABLE + "table":
            self._depth += 1
            if self._depth == 1:
                style = attrs.get(_TABLE + "style-name")
                self._sheet = Sheet(attrs.get(_TABLE + "name", ""), style in self.hidden_styles)
                self.sheets.append(self._sheet)
                self._row = 0
        elif name == _STYLE + "style":
            self._style = attrs.get(_STYLE + "name") if attrs.get(_STYLE + "family") == "table" else None
        elif name == _STYLE + "table-properties" and self._style and attrs.get(_TABLE + "display") == "false":
            self.hidden_styles.add(self._style)

    def _chars(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)

    def _end(self, name: str) -> None:
        if name == _TEXT + "p" and self._text is not None:
            self._paragraphs.append("".join(self._text))
            self._text = None
        elif name in _CELLS and self._cell and self._depth == 1:
            self._end_cell()
        elif name == _OFFICE + "annotation":
            self._notes -= 1
        elif name == _TABLE + "table-row" and self._depth == 1:
            self._row += self._row_repeat
        elif name == _TABLE + "table":
            self._depth -= 1

    def _end_cell(self) -> None:
        repeat, kind, value = self._cell
        self._cell = None
        sheet, row, column = self._sheet, self._row, self._column
        self._column += repeat
        text = "\n".join(self._paragraphs)
        if kind is None and not text:
            return
        sheet.rows = max(sheet.rows, row + self._row_repeat)
        sheet.columns = max(sheet.columns, column + repeat)
        sheet.values += self._row_repeat * repeat
        if not self.keep:
            return
        self._kept += self._row_repeat * repeat
        if self._kept > self.settings.max_sparse_values:
            raise IngestFailed(
                "too_large",
                f"its sheets span grids over max_sheet_cells ({self.settings.max_sheet_cells}) and hold over "
                f"{self.settings.max_sparse_values} values (repeats counted), over max_sparse_values",
            )
        held = _value(kind, value, text)
        if held == "":
            return
        for r in range(row, row + self._row_repeat):
            for c in range(column, column + repeat):
                sheet.cells[(r, c)] = held


def _count(text: str | None) -> int:
    """A repeat count; a missing or damaged one is 1."""
    try:
        return max(1, int(text)) if text else 1
    except ValueError:
        return 1


def _value(kind: str | None, value: str | None, text: str):
    """A cell's value as python-calamine gives it; its text where its value does not parse."""
    try:
        if kind in ("float", "percentage", "currency") and value is not None:
            return float(value)
        if kind == "boolean" and value is not None:
            return value.strip().lower() == "true"
        if kind == "date" and value:
            stamp = dt.datetime.fromisoformat(value)
            return stamp if "T" in value else stamp.date()
        if kind == "time" and value and (found := _DURATION.fullmatch(value.strip())):
            # As calamine: a time of day under a day, else the ISO text as written.
            days, hours, minutes, seconds = (float(g) if g else 0.0 for g in found.groups())
            span = dt.timedelta(days=days, hours=hours, minutes=minutes, seconds=seconds)
            if value.strip().startswith("-") or span >= dt.timedelta(days=1):
                return value
            return (dt.datetime.min + span).time()
    except (ValueError, OverflowError):
        pass
    if kind == "string" and value is not None and not text:
        return value
    return text


def read_sheets(path: Path, settings: Settings) -> list[Sheet]:
    """Every sheet of the ODS with the cells that hold values (the container check has read
    content.xml whole and found it well-formed within the limits)."""
    sheets = OdsSheets(settings, keep=True)
    guard = MarkupGuard("content.xml")
    with zipfile.ZipFile(path) as archive, archive.open("content.xml") as stream:
        while chunk := stream.read(LONG_TOKEN):
            guard.feed(chunk)
            sheets.feed(chunk)
    sheets.feed(b"", final=True)
    return sheets.sheets
