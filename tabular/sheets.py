"""Workbooks (XLSX, XLSM; ODS; XLS) to extractions: one per table, in the workbook's order.

Cells become the text our readings parse, keeping what the spreadsheet meant: a date-formatted
number becomes an ISO date, a percent-formatted 0.125 becomes `12.5%`, a currency format gives
its unit, a text cell stays text. A sheet can hold several tables separated by empty rows or
columns; a title block above a table is not a table; a trailing total row is left out.
"""

from __future__ import annotations

import datetime as dt
import re
import struct
import warnings
import zipfile
import zlib
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from openpyxl import load_workbook
from openpyxl.utils import get_column_letter

from . import candidates as C
from .errors import IngestFailed
from .extract import PARQUET_OPTIONS, Excluded, Extraction, cells_schema, join_headers
from .formats import CFB_MAGIC
from .jsonval import iso_duration
from .markup import LONG_TOKEN, MarkupGuard
from .settings import Settings
from .sheet_rules import Cell, calamine_panics, coverage, is_total_row, unit_of
from .sheets_fast import read_fast


def check_container(path: Path, fmt: str, settings: Settings) -> int:
    """Refuse what is not a readable workbook with SPEC codes before any parser sees it, and
    answer the bytes its members inflate to."""
    with path.open("rb") as fh:
        head = fh.read(8)
    if not head:
        raise IngestFailed("no_text", "the file is empty")
    if head.startswith(CFB_MAGIC):
        # Named a zip workbook by options.format: an OLE2 file otherwise goes to read_xls.
        raise IngestFailed(
            "format_unavailable",
            f"the file is not a {fmt} workbook but an OLE2 container: an encrypted (password-protected) workbook, "
            "or an old binary .xls (ingest it without options.format); save it unprotected as .xlsx",
        )
    if not zipfile.is_zipfile(path):
        raise IngestFailed("format_unavailable", f"the file is not a {fmt} workbook (not a zip archive)")
    try:
        with zipfile.ZipFile(path) as archive:
            inflated = sum(i.file_size for i in archive.infolist())
            if inflated > settings.max_workbook_xml_bytes:
                # From the sizes the zip declares, before any member is inflated: a bomb is refused unread.
                raise IngestFailed(
                    "too_large",
                    f"the workbook's parts inflate to {inflated} bytes, over max_workbook_xml_bytes ({settings.max_workbook_xml_bytes})",
                )
            fast = uses_fast_reader(path, inflated, settings)
            for info in archive.infolist():
                # On the fast path calamine alone parses the sheets, and sheets_fast.py reads
                # their first rows through a MarkupGuard itself.
                sheet = info.filename.startswith("xl/worksheets/")
                repeats = _OdsRepeats() if fmt == "ods" and info.filename == "content.xml" else None
                extent = _scan_part(archive, info, markup=not (fast and sheet), extent=sheet, repeats=repeats)
                if repeats and repeats.cells > settings.max_sheet_cells:
                    # calamine expands repeated rows that hold values: 842 bytes made 30 million cells.
                    raise IngestFailed(
                        "too_large",
                        f"its repeated rows make {repeats.cells} cells, over max_sheet_cells ({settings.max_sheet_cells})",
                    )
                if extent and extent[0] * extent[1] > settings.max_sheet_cells:
                    # The readers hold a sheet as a dense grid: A1 and CV1048576 make 100 million cells.
                    raise IngestFailed(
                        "too_large",
                        f"{info.filename} spans {extent[0]} rows by {extent[1]} columns, over max_sheet_cells ({settings.max_sheet_cells}) as a grid",
                    )
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error, NotImplementedError) as err:
        raise IngestFailed("format_unavailable", f"the workbook is damaged: {err}") from None
    if fmt == "ods" and "content.xml" not in names:
        raise IngestFailed("format_unavailable", "the zip archive is not an ODS spreadsheet (no content.xml)")
    if fmt in ("xlsx", "xlsm") and "xl/workbook.xml" not in names:
        raise IngestFailed("format_unavailable", f"the zip archive is not a {fmt} workbook (no xl/workbook.xml)")
    return inflated


def uses_fast_reader(path: Path, inflated: int, settings: Settings) -> bool:
    """Whether a workbook this large (on disk, or inflated) is read by fastexcel (sheets_fast.py)."""
    return path.stat().st_size >= settings.sheet_fast_bytes or inflated >= settings.sheet_fast_inflated_bytes


_ROW_REF = re.compile(rb'<row[^>]*?\sr="([0-9]+)"')
_WIDE_REF = re.compile(rb'<c[^>]*?\sr="([A-Z]{2,3})[0-9]')
# _NARROW_REFS[k]: a one-letter reference past column k (A is 1).
_NARROW_REFS = [re.compile(rb'<c[^>]*?\sr="([' + bytes(range(65 + k, 91)) + rb"])[0-9]") for k in range(26)]


class _OdsRepeats:
    """The cells an ODS's repeated rows with values make when expanded (calamine expands them;
    empty repeated rows, such as the rest of a sheet LibreOffice writes, it does not)."""

    ROW = re.compile(
        rb'<table:table-row\b[^>]*?table:number-rows-repeated="([0-9]+)"[^>]*>(.{0,8192}?)</table:table-row>', re.S
    )
    COLUMNS = re.compile(rb'table:number-columns-repeated="([0-9]+)"')
    # A cell repeated across columns (only such cells are looked at one by one).
    WIDE_CELL = re.compile(rb'<table:table-cell\b[^>]*?table:number-columns-repeated="([0-9]+)"[^>]*>')

    def __init__(self):
        self.repeated = 0  # cells of repeated rows with values
        self.rows = 0  # row elements
        self.widest = 0  # the most columns one valued cell repeats across
        self.tail = b""

    @property
    def cells(self) -> int:
        """At least the cells calamine makes: the repeated rows', and every row as wide as the
        widest repeated valued cell."""
        return self.repeated + self.rows * self.widest

    def feed(self, chunk: bytes) -> None:
        self.rows += chunk.count(b"<table:table-row")
        for cell in self.WIDE_CELL.finditer(chunk):
            if b"office:value-type" in cell.group(0):
                self.widest = max(self.widest, int(cell.group(1)))
        text = self.tail + chunk
        end = 0
        for row in self.ROW.finditer(text):
            body = row.group(2)
            if b"office:value-type" in body or b"<text:p" in body:
                width = sum(int(n) for n in self.COLUMNS.findall(body)) or body.count(b"<table:table-cell")
                self.repeated += int(row.group(1)) * max(width, 1)
            end = row.end()
        self.tail = text[max(end, len(text) - 16384) :]  # a row cut by the chunk's end is read whole next time


def _scan_part(
    archive: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    markup: bool,
    extent: bool = False,
    repeats: _OdsRepeats | None = None,
) -> tuple[int, int] | None:
    """Read one member to its end (zipfile checks its CRC and its declared size there); with
    `markup`, check its XML as markup.py says before a Python parser may read it. With `extent`
    (a worksheet), answer the (rows, columns) its cell references span: the last row number,
    and the widest column, found without a Python step per cell."""
    guard = MarkupGuard(info.filename) if markup and info.filename.lower().endswith((".xml", ".rels", ".vml")) else None
    rows = columns = 0
    tail = b""
    with archive.open(info) as stream:
        while chunk := stream.read(LONG_TOKEN):
            if guard:
                guard.feed(chunk)
            if repeats:
                repeats.feed(chunk)
            if extent:
                text = tail + chunk
                last = text.rfind(b"<row")
                if last >= 0 and (found := _ROW_REF.match(text, last)):
                    rows = max(rows, int(found.group(1)))
                for letters in set(_WIDE_REF.findall(text)):
                    columns = max(columns, _column_number(letters.decode()))
                while columns < 26 and (
                    found := _NARROW_REFS[columns].search(text)
                ):  # one scan once the widest is seen
                    columns = found.group(1)[0] - 64
                tail = text[-64:]
    return (rows, columns) if extent else None


def _column_number(letters: str) -> int:
    number = 0
    for ch in letters:
        number = number * 26 + ord(ch) - 64
    return number


def _decimals(number_format: str) -> int | None:
    section = number_format.split(";")[0]
    match = re.search(r"0\.(0+)", section)
    return len(match.group(1)) if match else (0 if re.search(r"[0#]", section) else None)


def _number_text(value: float | int, number_format: str) -> str:
    """A number as exact decimal text, scaled by a percent format, with the format's unit and
    decimals where they lose nothing."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if number_format == "General":  # most cells, and every cell calamine reads: no format to apply
        if type(value) is int:
            return str(value)
        text = repr(value)
        if "e" not in text and "n" not in text:  # not 1e-05, inf or nan: the decimal text already
            return text[:-2] if text.endswith(".0") else text
    number = Decimal(value) if isinstance(value, int) else Decimal(repr(value))
    unit = unit_of(number_format)
    if unit == "%":
        number = number * 100
    places = _decimals(number_format)
    text = format(number.normalize(), "f")
    if places:
        # Keep the decimals the format shows (money: 12.50), when that loses no digit.
        try:
            shown = number.quantize(Decimal(1).scaleb(-places))
            if shown == number:
                text = format(shown, "f")
        except ArithmeticError:
            pass
    if unit == "%":
        return text + "%"
    return (unit + text) if unit else text


def _cell(value, number_format: str, data_type: str) -> Cell:
    if value is None:
        return Cell(None, "")
    if (type(value) is float or type(value) is int) and data_type != "e":  # the commonest first
        return Cell(_number_text(value, number_format or "General"), "n")
    if data_type == "e" or (isinstance(value, str) and value.startswith("#") and value.endswith(("!", "?", "A"))):
        return Cell(None, "e")
    if isinstance(value, bool):
        return Cell("true" if value else "false", "b")
    if isinstance(value, dt.datetime):
        if value.time() == dt.time(0) and not re.search(r"[hHs]", number_format):
            return Cell(value.date().isoformat(), "d")
        return Cell(value.isoformat(timespec="seconds" if not value.microsecond else "microseconds"), "d")
    if isinstance(value, dt.date):
        return Cell(value.isoformat(), "d")
    if isinstance(value, dt.time):
        return Cell(value.isoformat(), "d")
    if isinstance(value, dt.timedelta):
        return Cell(iso_duration(value), "d")
    if isinstance(value, (int, float)):
        return Cell(_number_text(value, number_format or "General"), "n")
    text = str(value)
    return Cell(text if text.strip() else None, "s")


@dataclass
class _Table:
    top: int  # 0-based row index in the sheet grid
    left: int
    bottom: int  # inclusive
    right: int


def _blocks(grid: list[list[Cell]], width: int) -> list[_Table]:
    """Rectangles of cells separated by fully empty rows, then by fully empty columns."""
    filled_rows = [any(c.kind for c in row) for row in grid]
    bands, start = [], None
    for i, filled in enumerate(filled_rows + [False]):
        if filled and start is None:
            start = i
        elif not filled and start is not None:
            bands.append((start, i - 1))
            start = None
    tables = []
    for top, bottom in bands:
        cols = [any(j < len(grid[i]) and grid[i][j].kind for i in range(top, bottom + 1)) for j in range(width)]
        left = None
        for j, filled in enumerate(cols + [False]):
            if filled and left is None:
                left = j
            elif not filled and left is not None:
                tables.append(_Table(top, left, bottom, j - 1))
                left = None
    return tables


def _is_title(table: _Table, grid) -> bool:
    """A block of one or two rows with one filled cell each (a report title) is not a table."""
    rows = table.bottom - table.top + 1
    if rows > 3:
        return False
    filled = [
        sum(1 for j in range(table.left, table.right + 1) if j < len(grid[i]) and grid[i][j].kind)
        for i in range(table.top, table.bottom + 1)
    ]
    return max(filled) <= 1


def read_workbook(
    path: Path, folder: Path, fmt: str, options: dict, settings: Settings
) -> tuple[list[Extraction], dict]:
    """Every table of every visible sheet (or the sheets `options.sheets` names)."""
    inflated = check_container(path, fmt, settings)
    if uses_fast_reader(path, inflated, settings):
        return read_fast(path, folder, fmt, options, settings)
    try:
        # A file object: uploads are stored without their extension, which openpyxl checks.
        with path.open("rb") as fh, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # openpyxl warns about styles it fills in itself
            book = load_workbook(fh, read_only=False, data_only=True)
    except Exception as err:  # openpyxl raises many kinds for a workbook it finds odd
        # calamine is more forgiving (missing shared strings, odd attributes); number formats are lost.
        try:
            extractions, covered = read_calamine(path, folder, fmt, options, settings, checked=True)
        except IngestFailed:
            raise IngestFailed(
                "format_unavailable", f"the workbook cannot be read: {type(err).__name__}: {err}"
            ) from None
        for ex in extractions:
            ex.notes.append(f"read without number formats (openpyxl: {type(err).__name__})")
        return extractions, covered
    wanted = options.get("sheets")
    hidden = [ws.title for ws in book.worksheets if ws.sheet_state != "visible"]
    if wanted:
        unknown = [n for n in wanted if n not in book.sheetnames]
        if unknown:
            raise IngestFailed(
                "format_unavailable", f"no sheet named {unknown[0]!r}; the workbook has {book.sheetnames}"
            )
    extractions: list[Extraction] = []
    lost: list[str] = []
    chosen = [ws for ws in book.worksheets if (ws.title in wanted if wanted else ws.sheet_state == "visible")]
    for ws in chosen:
        try:
            extractions += _sheet(ws, folder, fmt, len(extractions), settings, options)
        except Exception as err:  # one sheet that cannot be read is lost, not the workbook
            lost.append(f"sheet {ws.title!r}: {getattr(err, 'message', err)}")
    for ex in extractions:
        ex.origin["hidden_sheets"] = hidden
    return extractions, coverage(len(chosen), lost)


def _sheet(ws, folder: Path, fmt: str, first_index: int, settings: Settings, options: dict) -> list[Extraction]:
    # The filled cells only: a sheet's declared size can be the whole grid (1,048,576 rows ×
    # 16,384 columns) because one far cell carries a format.
    filled = {key: c for key, c in ws._cells.items() if c.value is not None}
    height = max((r for r, _ in filled), default=0)
    width = max((c for _, c in filled), default=0)
    if width > settings.max_columns or height * width > settings.max_sheet_cells:
        raise IngestFailed(
            "too_large",
            f"sheet {ws.title!r} spans {height} rows × {width} columns, over max_columns or max_sheet_cells",
        )
    empty = Cell(None, "")
    grid = [[empty] * width for _ in range(height)]
    for (r, c), cell in filled.items():
        grid[r - 1][c - 1] = _cell(cell.value, cell.number_format or "", cell.data_type)
    merged = [(m.min_row - 1, m.min_col - 1, m.max_row - 1, m.max_col - 1) for m in ws.merged_cells.ranges]
    return _tables(ws.title, grid, merged, folder, fmt, first_index, settings, options)


def _tables(
    sheet: str,
    grid: list[list[Cell]],
    merged,
    folder: Path,
    fmt: str,
    first_index: int,
    settings: Settings,
    options: dict,
) -> list[Extraction]:
    """The tables of one sheet's grid of cells, each written as an extraction."""
    width = max((len(r) for r in grid), default=0)
    if width > settings.max_columns:
        raise IngestFailed(
            "too_large", f"sheet {sheet!r} has {width} columns; at most {settings.max_columns} are read (max_columns)"
        )
    errors = sum(1 for row in grid for c in row if c.kind == "e")
    merged = [(r0, c0, r1, c1, _cell_at(grid, r0, c0)) for r0, c0, r1, c1 in merged]
    blocks = _blocks(grid, width)
    tables = [t for t in blocks if not _is_title(t, grid)] or blocks
    out = []
    for k, table in enumerate(tables):
        name = sheet if len(tables) == 1 else f"{sheet} {k + 1}"
        out.append(
            _table(
                sheet,
                name,
                grid,
                table,
                merged,
                folder / f"{first_index + len(out)}.parquet",
                fmt,
                settings,
                options,
                errors,
            )
        )
    return out


def read_calamine(
    path: Path, folder: Path, fmt: str, options: dict, settings: Settings, checked: bool = False
) -> tuple[list[Extraction], dict]:
    """A workbook through calamine (ODS, and XLSX openpyxl refuses): values keep their types
    (dates, numbers, booleans, text), though calamine gives no number formats, so a percent is
    read as its fraction."""
    from python_calamine import CalamineWorkbook

    if not checked:
        check_container(path, fmt, settings)
    try:
        with path.open("rb") as fh, calamine_panics(f"the {fmt} workbook"):
            book = CalamineWorkbook.from_filelike(fh)
            wanted = options.get("sheets")
            extractions: list[Extraction] = []
            lost: list[str] = []
            visible = [m for m in book.sheets_metadata if str(m.visible).lower().endswith("visible")]
            hidden = [m.name for m in book.sheets_metadata if m not in visible]
            chosen = [m.name for m in book.sheets_metadata if (m.name in wanted if wanted else m.name not in hidden)]
            for name in chosen:
                try:
                    rows = book.get_sheet_by_name(name).to_python(skip_empty_area=False)
                    grid = [[_cell(v, "", "") if v != "" else Cell(None, "") for v in row] for row in rows]
                    extractions += _tables(name, grid, [], folder, fmt, len(extractions), settings, options)
                except Exception as err:  # one sheet that cannot be read is lost, not the workbook
                    lost.append(f"sheet {name!r}: {getattr(err, 'message', err)}")
    except IngestFailed:
        raise
    except Exception as err:  # calamine raises its own error kinds for damaged files
        raise IngestFailed(
            "format_unavailable", f"the spreadsheet cannot be read: {type(err).__name__}: {err}"
        ) from None
    for ex in extractions:
        ex.origin["hidden_sheets"] = hidden
    return extractions, coverage(len(chosen), lost)


def read_xls(path: Path, folder: Path, options: dict, settings: Settings) -> tuple[list[Extraction], dict]:
    """An old binary workbook (.xls: BIFF5/BIFF8 records in an OLE2 container) through calamine,
    after check_xls: as an ODS is read (values keep their types, dates included; no number
    formats, so a percent is its fraction), or, from sheet_fast_bytes on, column at a time
    through fastexcel (sheets_fast.py), as a large .xlsx is."""
    check_xls(path, settings)
    if path.stat().st_size >= settings.sheet_fast_bytes:
        return read_fast(path, folder, "xls", options, settings)
    return read_calamine(path, folder, "xls", options, settings, checked=True)


class _Damaged(Exception):
    """The OLE2 container or its BIFF records contradict themselves."""


# OLE2 (Compound File Binary) sector numbers that are not sectors.
_END_OF_CHAIN = 0xFFFFFFFE
# BIFF record types (MS-XLS 2.3): the ones calamine reads as cells carry (row, column) first.
# formula, number, label, bool/error, rk, label sst, and mulrk (a run of numbers along a row)
_BIFF_CELLS = frozenset((0x0006, 0x0203, 0x0204, 0x0205, 0x027E, 0x00FD, 0x00BD))
_BIFF_MULRK, _BIFF_DIMENSIONS = 0x00BD, 0x0200
_BIFF_EOF, _BIFF_FILEPASS, _BIFF_SST, _BIFF_BOUNDSHEET = 0x000A, 0x002F, 0x00FC, 0x0085
_TWO_U16 = struct.Struct("<HH")
_XLS_SHEET_CELLS = 65536 * 256  # BIFF8's grid: 65,536 rows by 256 columns (IV65536)
_ENCRYPTED_STREAMS = {"encryptedpackage", "encryptioninfo"}


def check_xls(path: Path, settings: Settings) -> None:
    """Refuse what is not a readable .xls with SPEC codes before calamine sees it.

    calamine reads every sheet of an .xls (hidden ones too) when it opens the file, each into a
    grid as large as the rows and columns its cells span, and sizes what it allocates from the
    file's own numbers (the streams' sizes, the shared strings' count, a sheet's DIMENSIONS). An
    allocation that fails ends the process, not the file; so those numbers are checked here
    against the file, and the grids against max_sheet_cells (all sheets together: calamine
    holds them at once), walking the records once: one step per record, never per byte."""
    data = path.read_bytes()
    if not data:
        raise IngestFailed("no_text", "the file is empty")
    if not data.startswith(CFB_MAGIC):
        raise IngestFailed(
            "format_unavailable",
            "the file is not an OLE2 container, as an .xls workbook is (Excel 2–4 workbooks are not read); save it as .xlsx",
        )
    try:
        streams = _cfb_streams(data)
        if _ENCRYPTED_STREAMS & set(streams):
            raise IngestFailed(
                "format_unavailable",
                "the file is an encrypted (password-protected) workbook; save it unprotected as .xlsx",
            )
        name = next((n for n in ("workbook", "book") if n in streams), None)
        if name is None:
            held = ", ".join(sorted(streams)[:8]) or "none"
            raise IngestFailed(
                "format_unavailable", f"the OLE2 file holds no workbook stream, so it is no .xls (its streams: {held})"
            )
        stream = streams[name]()
        sheets = _biff_globals(stream)
        total = 0
        for start in sheets:
            declared, spanned = _biff_sheet_cells(stream, start)
            if declared > _XLS_SHEET_CELLS:
                raise _Damaged(
                    f"a sheet's DIMENSIONS record declares {declared} cells, more than an .xls sheet holds ({_XLS_SHEET_CELLS})"
                )
            if declared > settings.max_sheet_cells:
                raise IngestFailed(
                    "too_large",
                    f"a sheet declares {declared} cells (its DIMENSIONS record), over max_sheet_cells ({settings.max_sheet_cells})",
                )
            total += spanned
            if total > settings.max_sheet_cells:
                raise IngestFailed(
                    "too_large",
                    f"the sheets span {total} or more cells as grids, over max_sheet_cells ({settings.max_sheet_cells}); calamine holds every sheet of an .xls at once",
                )
    except (_Damaged, struct.error, IndexError, ValueError) as err:
        raise IngestFailed(
            "format_unavailable",
            f"the file is an OLE2 container, as an .xls or an encrypted (password-protected) workbook is, and it is damaged: {err}",
        ) from None


def _cfb_streams(data: bytes) -> dict:
    """{lowercased name: a function answering the stream's bytes} of an OLE2 container, every
    number it gives checked against the file's size (MS-CFB)."""
    if len(data) < 512:
        raise _Damaged("shorter than an OLE2 header")
    major, _order, shift, mini_shift = struct.unpack_from("<HHHH", data, 0x1A)
    if shift not in (9, 12) or mini_shift != 6:
        raise _Damaged(f"sector sizes 2^{shift} and 2^{mini_shift} are not OLE2's")
    size = 1 << shift
    n_dir, n_fat, first_dir, _, cutoff, first_mini_fat, n_mini_fat, first_difat, n_difat = struct.unpack_from(
        "<9I", data, 0x28
    )
    sectors = (len(data) - 1) // size  # whole or cut-short sectors after the header's
    if max(n_fat, n_mini_fat, n_difat, n_dir) > sectors:
        raise _Damaged(f"it declares more sectors than its {len(data)} bytes hold")

    def sector(number: int) -> bytes:
        if number >= sectors:
            raise _Damaged(f"sector {number} is past the end of the file")
        return data[(number + 1) * size : (number + 2) * size]

    fat_sectors = list(struct.unpack_from("<109I", data, 0x4C))
    number = first_difat
    for _ in range(n_difat):
        entries = struct.unpack(f"<{size // 4}I", sector(number).ljust(size, b"\0"))
        fat_sectors += entries[:-1]
        number = entries[-1]
    fat = struct.unpack(f"<{n_fat * size // 4}I", b"".join(sector(n).ljust(size, b"\0") for n in fat_sectors[:n_fat]))

    def chain(start: int, table: tuple) -> list[int]:
        out = []
        while start != _END_OF_CHAIN:
            if start >= len(table) or len(out) > len(table):
                raise _Damaged("a sector chain runs past the file's tables or loops")
            out.append(start)
            start = table[start]
        return out

    def regular(start: int, length: int) -> bytes:
        return b"".join(sector(n) for n in chain(start, fat))[:length]

    directory = regular(first_dir, len(data))
    entries = []
    for at in range(0, len(directory) - 127, 128):
        (name_bytes,) = struct.unpack_from("<H", directory, at + 64)
        kind = directory[at + 66]
        start, length = struct.unpack_from("<IQ", directory, at + 116)
        if major == 3:
            length &= 0xFFFFFFFF  # version 3 leaves the high half undefined
        if kind in (1, 2, 5) and length > len(data):
            raise _Damaged(f"a stream declares {length} bytes, more than the file's {len(data)}")
        name = directory[at : at + min(name_bytes, 64)].decode("utf-16-le", "replace").rstrip("\0")
        entries.append((name, kind, start, length))
    if not entries or entries[0][1] != 5:
        raise _Damaged("its directory has no root entry")
    root = entries[0]

    def mini(start: int, length: int) -> bytes:
        stream = regular(root[2], root[3])
        table = regular(first_mini_fat, n_mini_fat * size)
        mini_fat = struct.unpack(f"<{len(table) // 4}I", table[: len(table) // 4 * 4])
        return b"".join(stream[n * 64 : (n + 1) * 64] for n in chain(start, mini_fat))[:length]

    out = {}
    for name, kind, start, length in entries:
        if kind == 2 and name.lower() not in out:
            out[name.lower()] = lambda s=start, n=length: (mini if n < cutoff else regular)(s, n)
    return out


def _biff_globals(stream: bytes) -> list[int]:
    """Where each sheet's records start in the workbook stream (BoundSheet8), after checking
    what calamine sizes from the globals."""
    sheets, pos, end = [], 0, len(stream)
    while pos + 4 <= end:
        kind, length = _TWO_U16.unpack_from(stream, pos)
        body, pos = pos + 4, pos + 4 + length
        if kind == _BIFF_FILEPASS:
            raise IngestFailed(
                "format_unavailable",
                "the .xls workbook is password-protected (encrypted); save it unprotected as .xlsx",
            )
        if kind == _BIFF_SST and length >= 8:
            (count,) = struct.unpack_from("<i", stream, body + 4)
            if not 0 <= count <= end // 3:  # each string takes 3 bytes at least
                raise _Damaged(
                    f"its shared-string table declares {count} strings, more than the workbook's {end} bytes hold"
                )
        elif kind == _BIFF_BOUNDSHEET and length >= 4:
            (start,) = struct.unpack_from("<I", stream, body)
            if start > end:
                raise _Damaged("a sheet starts past the end of the workbook stream")
            sheets.append(start)
        elif kind == _BIFF_EOF:
            break
    return sheets


def _biff_sheet_cells(stream: bytes, pos: int) -> tuple[int, int]:
    """(cells the sheet's DIMENSIONS declares, cells its grid spans: from the topmost cell's row
    to the lowest one's, the leftmost cell's column to the rightmost one's), as calamine sizes
    a sheet's grids (at most that: it takes the rows from the first cell written).

    The records are walked one Python step each (their lengths chain them); the cells' rows and
    columns are then read together with numpy."""
    end = len(stream)
    unpack = _TWO_U16.unpack_from
    cells: list[int] = []
    found = cells.append
    declared = 0
    while pos + 4 <= end:
        kind, length = unpack(stream, pos)
        if kind in _BIFF_CELLS:
            found(pos)
        elif kind == _BIFF_EOF:
            break
        elif kind == _BIFF_DIMENSIONS:
            declared = _declared(stream[pos + 4 : pos + 4 + length])
        pos += 4 + length
    if not cells:
        return declared, 0
    data = np.frombuffer(stream, dtype=np.uint8)
    at = np.array(cells, dtype=np.int64)

    def u16(offsets: np.ndarray) -> np.ndarray:
        return data[offsets].astype(np.int64) | (data[offsets + 1].astype(np.int64) << 8)

    kinds, lengths = u16(at), u16(at + 2)
    whole = (lengths >= 4) & (at + 4 + lengths <= end)  # calamine refuses a shorter cell record
    at, kinds, lengths = at[whole], kinds[whole], lengths[whole]
    if not len(at):
        return declared, 0
    rows, cols = u16(at + 4), u16(at + 6)
    mulrk = (kinds == _BIFF_MULRK) & (lengths >= 6)
    lasts = cols.copy()
    lasts[mulrk] = u16(at[mulrk] + 4 + lengths[mulrk] - 2)  # a run of numbers ends at its last column
    spanned = (int(rows.max()) - int(rows.min()) + 1) * (
        int(max(cols.max(), lasts.max())) - int(min(cols.min(), lasts.min())) + 1
    )
    return declared, spanned


def _declared(record: bytes) -> int:
    """The cells calamine reserves for a sheet's DIMENSIONS record, with its unsigned arithmetic."""
    if len(record) == 10:
        top, bottom, left, right = struct.unpack_from("<HHHH", record)
    elif len(record) == 14:
        top, bottom, left, right = struct.unpack_from("<IIHH", record)
    else:
        return 0  # calamine refuses the sheet
    if bottom < 1 or right < 1:
        return 1
    return (((bottom - 1) - top + 1) % (1 << 32)) * (((right - 1) - left + 1) % (1 << 32))


def _cell_at(grid, i, j) -> Cell:
    return grid[i][j] if i < len(grid) and j < len(grid[i]) else Cell(None, "")


def _table(
    sheet: str, name: str, grid, t: _Table, merged, out: Path, fmt: str, settings: Settings, options: dict, errors: int
) -> Extraction:
    width = t.right - t.left + 1
    header_rows = options.get("header_rows")
    if header_rows is None:
        # A header cell merged across columns is the upper of two header rows.
        spans = [m for m in merged if m[0] == t.top and m[3] > m[1] and t.left <= m[1] <= t.right]
        header_rows = 2 if spans and t.bottom > t.top + 1 else 1
    header_grid = []
    for i in range(t.top, t.top + header_rows):
        row = []
        for j in range(t.left, t.right + 1):
            cell = _cell_at(grid, i, j)
            for r0, c0, r1, c1, first in merged:  # a merged header spreads over its columns
                if r0 <= i <= r1 and c0 <= j <= c1 and (i, j) != (r0, c0):
                    cell = first if i == r0 else Cell(None, "")
            row.append(cell.text or "")
        header_grid.append(row)
    headers = join_headers(header_grid, width)
    rows = list(range(t.top + header_rows, t.bottom + 1))
    left_out: list[Excluded] = []
    if rows and _is_total_row(grid, rows, t):
        last = rows.pop()
        left_out.append(
            Excluded(
                len(rows) + 1,
                last + 1,
                " | ".join(c.text for c in grid[last][t.left : t.right + 1] if c.text),
                "total_row",
            )
        )
    cells = [[_cell_at(grid, i, j) for i in rows] for j in range(t.left, t.right + 1)]
    columns = [_midnights(col) for col in cells]
    kinds = [{c.kind for c in col} - {""} for col in cells]
    ids = list(range(1, len(rows) + 1))
    table = pa.Table.from_arrays(
        [pa.array(ids, pa.int64()), pa.array([i + 1 for i in rows], pa.int64())]
        + [pa.array(col, pa.string()) for col in columns],
        schema=cells_schema(width),
    )
    pq.write_table(table, out, **PARQUET_OPTIONS)
    extraction = Extraction(name, headers, out, len(rows), {})
    extraction.left_out = left_out
    # Text cells stay text: a column Excel holds as text is not read as numbers or dates.
    extraction.forced = {f"c{j + 1}": C.STRING for j, k in enumerate(kinds) if k and k <= {"s"}}
    if errors:
        extraction.notes.append(f"{errors} error cells (#DIV/0!, #N/A …) on sheet {sheet!r} were read as nulls")
    extraction.origin = {
        "format": fmt,
        "sheet": sheet,
        "range": f"{get_column_letter(t.left + 1)}{t.top + 1}:{get_column_letter(t.right + 1)}{t.bottom + 1}",
        "header_rows": header_rows,
        "delimiter": None,
        "encoding": None,
    }
    return extraction


def _is_total_row(grid, rows: list[int], t: _Table) -> bool:
    return len(rows) >= 2 and is_total_row([_cell_at(grid, rows[-1], j) for j in range(t.left, t.right + 1)])


_DATETIME_TEXT = re.compile(r"\d{4}-\d{2}-\d{2}T")
_DATE_TEXT = re.compile(r"\d{4}-\d{2}-\d{2}")


def _midnights(cells: list[Cell]) -> list[str | None]:
    """A column's texts; where the column holds datetimes, a date cell among them is that day at
    midnight (calamine hands a datetime at 00:00 back as a date, so 2024-02-02 00:00 in a
    column of datetimes would otherwise read as a date, and the column as mixed)."""
    texts = [c.text for c in cells]
    if not any(c.kind == "d" and _DATETIME_TEXT.match(c.text) for c in cells):
        return texts
    return [t + "T00:00:00" if c.kind == "d" and _DATE_TEXT.fullmatch(t) else t for c, t in zip(cells, texts)]
