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
_CELL, _COVERED, _ROW = _TABLE + "table-cell", _TABLE + "covered-table-cell", _TABLE + "table-row"
_TABLE_ELEMENT, _TABLE_PROPERTIES = _TABLE + "table", _STYLE + "table-properties"
_P, _SPACES, _TAB, _LINE_BREAK = _TEXT + "p", _TEXT + "s", _TEXT + "tab", _TEXT + "line-break"
_ANNOTATION, _STYLE_ELEMENT = _OFFICE + "annotation", _STYLE + "style"
_VALUE_TYPE, _VALUE = _OFFICE + "value-type", _OFFICE + "value"
_COLUMNS_REPEATED, _ROWS_REPEATED = _TABLE + "number-columns-repeated", _TABLE + "number-rows-repeated"
_NAME, _TABLE_STYLE, _DISPLAY = _TABLE + "name", _TABLE + "style-name", _TABLE + "display"
_STYLE_NAME, _FAMILY, _SPACE_COUNT = _STYLE + "name", _STYLE + "family", _TEXT + "c"
_VALUE_OF = {
    "float": _VALUE,
    "percentage": _VALUE,
    "currency": _VALUE,
    "date": _OFFICE + "date-value",
    "time": _OFFICE + "time-value",
    "boolean": _OFFICE + "boolean-value",
    "string": _OFFICE + "string-value",
}
_DURATION = re.compile(r"-?P(?:(\d+)D)?T?(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?")


class GridBound:
    """Fed content.xml's bytes in order: at least the cells calamine's grids of every sheet hold
    together (a sheet's rows to the last one holding a value, as wide as the widest such row:
    repeated empty rows between them counted, the empty rows and cells a sheet ends with, as
    LibreOffice writes them, not), found with a regex step per row, never one per cell; `unsure`
    where the markup is not what it reads (a table inside a cell, the table namespace under
    another prefix): expat is then asked (OdsSheets)."""

    TOKEN = re.compile(rb"<table:table[\s>]|</table:table>|<table:table-row(?=[\s/>])([^>]*?)(/?)>")
    ROW_END = b"</table:table-row>"
    ROWS = re.compile(rb'table:number-rows-repeated="([0-9]{1,12})"')
    COLUMNS = re.compile(rb'table:number-columns-repeated="([0-9]{1,12})"')
    PREFIX = re.compile(rb'xmlns(:\w+)?="urn:oasis:names:tc:opendocument:xmlns:table:1.0"')

    def __init__(self):
        self.cells = 0
        self.unsure = False
        self._depth = self._rows = self._pending = self._width = 0
        self._tail = b""
        self._searched = 0  # bytes of the tail's open row already searched for its end

    def feed(self, chunk: bytes, final: bool = False) -> None:
        text = self._tail + chunk
        self.unsure = self.unsure or any(p != b":table" for p in self.PREFIX.findall(text))
        at = 0
        while found := self.TOKEN.search(text, at):
            token = found.group(0)
            if token == b"</table:table>":
                self._depth -= 1
                if self._depth == 0:
                    self.cells += self._rows * self._width
                at = found.end()
                continue
            if not token.startswith(b"<table:table-row"):
                self._depth += 1
                self.unsure = self.unsure or self._depth > 1
                self._rows = self._pending = self._width = 0
                at = found.end()
                continue
            if found.group(2):  # <table:table-row …/>: empty
                self._row(found.group(1), text, 0, 0)
                at = found.end()
                continue
            end = text.find(self.ROW_END, max(found.end(), self._searched - len(self.ROW_END)))
            if end < 0 and not final:  # the row goes on in the next chunk
                self._tail, self._searched = text[found.start() :], len(text) - found.start()
                return
            end = len(text) if end < 0 else end
            self._row(found.group(1), text, found.end(), end)
            self._searched = 0
            at = end + len(self.ROW_END)
        if final:
            self.cells += self._rows * self._width if self._depth > 0 else 0
            self._tail = b""
            return
        # No whole token from `at` on: what may be one cut by the chunk's end starts at its last "<".
        cut = text.rfind(b"<", at)
        self._tail, self._searched = (text[cut:] if cut >= 0 else b""), 0

    def _row(self, attrs: bytes, text: bytes, start: int, end: int) -> None:
        """One row, its cells text[start:end] (read in place: a row is never copied)."""
        repeated = self.ROWS.search(attrs)
        repeat = max(1, int(repeated.group(1))) if repeated else 1
        if text.find(b"<table:table ", start, end) >= 0 or text.find(b"<table:table>", start, end) >= 0:
            self.unsure = True  # a table inside a cell: its rows are no rows of the sheet
        if text.find(b"office:value-type", start, end) < 0 and text.find(b"<text:p", start, end) < 0:
            self._pending += repeat  # counted only if a row holding a value comes after
            return
        self._rows += self._pending + repeat
        self._pending = 0
        width = text.count(b"<table:table-cell", start, end) + text.count(b"<table:covered-table-cell", start, end)
        if text.find(b"columns-repeated", start, end) >= 0:
            width += sum(max(1, int(n)) - 1 for n in self.COLUMNS.findall(text, start, end))
            last = text.rfind(b"<table:table-cell", start, end)  # an empty repeated cell the row ends with
            if (
                last >= 0
                and text[last:end].rstrip().endswith(b"/>")
                and (trailing := self.COLUMNS.search(text, last, end))
            ):
                width -= max(1, int(trailing.group(1)))
        self._width = max(self._width, width)


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
        # The table being read; cells are read only inside one (depth 1), so this first is never written.
        self._sheet = Sheet("", False)
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
        if keep:  # the extent alone needs no text
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

    # The handlers test the commonest names first (cells, paragraphs, rows): one call per element.
    def _start(self, name: str, attrs: dict) -> None:
        if name == _CELL or name == _COVERED:
            if self._depth == 1:
                kind = attrs.get(_VALUE_TYPE)
                value = attrs.get(_VALUE_OF.get(kind, _VALUE)) if self.keep and kind else None
                self._cell = (_count(attrs.get(_COLUMNS_REPEATED)), kind, value)
                self._paragraphs = []
        elif name == _P:
            if self._cell and not self._notes:
                self._text = []
        elif self._text is not None:
            if name == _SPACES:
                self._text.append(" " * _count(attrs.get(_SPACE_COUNT)))
            elif name == _TAB:
                self._text.append("\t")
            elif name == _LINE_BREAK:
                self._text.append("\n")
        elif name == _ROW:
            if self._depth == 1:
                self._row_repeat = _count(attrs.get(_ROWS_REPEATED))
                self._column = 0
        elif name == _ANNOTATION:
            self._notes += 1
        elif name == _TABLE_ELEMENT:
            self._depth += 1
            if self._depth == 1:
                self._sheet = Sheet(attrs.get(_NAME, ""), attrs.get(_TABLE_STYLE) in self.hidden_styles)
                self.sheets.append(self._sheet)
                self._row = 0
        elif name == _STYLE_ELEMENT:
            self._style = attrs.get(_STYLE_NAME) if attrs.get(_FAMILY) == "table" else None
        elif name == _TABLE_PROPERTIES and self._style and attrs.get(_DISPLAY) == "false":
            self.hidden_styles.add(self._style)

    def _chars(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)

    def _end(self, name: str) -> None:
        if name == _CELL or name == _COVERED:
            if self._cell and self._depth == 1:
                self._end_cell(self._cell)
        elif name == _P:
            if self._text is not None:
                # Without `keep` no text is gathered: a paragraph says the cell holds a value.
                self._paragraphs.append("".join(self._text) if self.keep else "?")
                self._text = None
        elif name == _ROW:
            if self._depth == 1:
                self._row += self._row_repeat
        elif name == _ANNOTATION:
            self._notes -= 1
        elif name == _TABLE_ELEMENT:
            self._depth -= 1

    def _end_cell(self, cell: tuple[int, str | None, str | None]) -> None:
        repeat, kind, value = cell
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
