"""Workbooks (XLSX, XLSM; ODS; XLS) to extractions: one per table, in the workbook's order.

Cells become the text our readings parse, keeping what the spreadsheet meant: a date-formatted
number becomes an ISO date, a percent-formatted 0.125 becomes `12.5%`, a currency format gives
its unit, a text cell stays text. A sheet can hold several tables separated by empty rows or
columns; a title block above a table is not a table; a trailing total row is left out.
"""

from __future__ import annotations

import datetime as dt
import re
import warnings
import zipfile
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ... import readings as C
from ...errors import IngestFailed
from ...jsonval import iso_duration
from ...models import Origin
from ...settings import Settings
from ..extraction import PARQUET_OPTIONS, Excluded, Extraction, cells_schema, join_headers
from . import odsxml
from .columnar import read_fast
from .containers import Uncached, check_container, uses_fast_reader
from .hints import OdsFormats, UnitWatch, sheet_parts
from .regions import name_tables, workbook_regions
from .rules import Cell, Prose, calamine_panics, each_sheet, is_prose, is_total_row, unit_of
from .sparse import Compact, apart_note, compact, from_rows
from .xls import check_xls

# An .xls whose grids span more than this many cells per cell it holds is read by calamine
# whatever its size (see read_xls).
SPARSE_RATIO = 4


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
    """Every table of every visible sheet (or the sheets `options.sheets` names), an Excel table
    or a named range naming the table it covers (read/sheets/regions.py); a sheet with
    formula cells that have no saved value says so in its datasets' warnings (Uncached)."""
    formulas: dict[str, Uncached] = {}
    watch = UnitWatch() if fmt in ("xlsx", "xlsm") else None
    sparse: dict = {}  # worksheet parts whose extent passes max_sheet_cells: openpyxl reads them
    inflated = check_container(path, fmt, settings, formulas, watch, sparse)
    extractions, covered = _read_workbook(path, folder, fmt, options, settings, inflated, watch, sparse)
    name_tables(extractions, workbook_regions(path))
    if any(u.count for u in formulas.values()):
        with zipfile.ZipFile(path) as archive:
            parts = {name: part for name, _state, part in sheet_parts(archive)}
        for ex in extractions:
            sheet = ex.origin.sheet or ""
            found = formulas.get(parts.get(sheet, ""))
            if found and found.count:
                ex.notes.append(found.note(sheet))
    return extractions, covered


def _read_workbook(
    path: Path,
    folder: Path,
    fmt: str,
    options: dict,
    settings: Settings,
    inflated: int,
    watch: UnitWatch | None,
    sparse: dict,
) -> tuple[list[Extraction], dict]:
    if uses_fast_reader(path, inflated, settings):
        return read_fast(path, folder, fmt, options, settings, watch)
    from openpyxl import load_workbook  # here: the fast reader does without it (0.3 s to import)

    try:
        # A file object: uploads are stored without their extension, which openpyxl checks.
        with path.open("rb") as fh, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # openpyxl warns about styles it fills in itself
            book = load_workbook(fh, read_only=False, data_only=True)
    except Exception as err:  # openpyxl raises many kinds for a workbook it finds odd
        # calamine is more forgiving (missing shared strings, odd attributes); number formats are lost.
        if sparse:  # but it holds a sheet as a grid of its extent
            part, (rows, columns) = next(iter(sparse.items()))
            raise IngestFailed(
                "too_large",
                f"the workbook cannot be read by openpyxl ({type(err).__name__}), and {part} spans {rows} rows by "
                f"{columns} columns, over max_sheet_cells ({settings.max_sheet_cells}) as calamine's grid",
            ) from None
        try:
            extractions, covered = read_calamine(path, folder, fmt, options, settings, checked=True)
        except IngestFailed as failed:
            if failed.error_code == "no_text":  # read, and no table in it: said as it is
                raise
            raise IngestFailed(
                "format_unavailable", f"the workbook cannot be read: {type(err).__name__}: {err}"
            ) from None
        for ex in extractions:
            ex.notes.append(f"read without number formats (openpyxl: {type(err).__name__})")
        return extractions, covered
    sheets = {ws.title: ws for ws in book.worksheets}
    hidden = [ws.title for ws in book.worksheets if ws.sheet_state != "visible"]

    def read_one(name: str, index: int) -> list[Extraction] | list[Prose]:
        return _sheet(sheets[name], folder, fmt, index, settings, options)

    return each_sheet(list(sheets), hidden, options, read_one, "openpyxl")


def _sheet(
    ws, folder: Path, fmt: str, first_index: int, settings: Settings, options: dict
) -> list[Extraction] | list[Prose]:
    # The filled cells only: a sheet's declared size can be the whole grid (1,048,576 rows ×
    # 16,384 columns) because one far cell carries a format.
    # A sheet is held by those, on a compact grid (read/sheets/sparse.py): a far cell costs a cell.
    filled = {
        (r - 1, c - 1): _cell(cell.value, cell.number_format or "", cell.data_type)
        for (r, c), cell in ws._cells.items()
        if cell.value is not None
    }
    sheet = compact(filled, ws.title, settings)
    merged = sheet.merged((m.min_row - 1, m.min_col - 1, m.max_row - 1, m.max_col - 1) for m in ws.merged_cells.ranges)
    return _tables(ws.title, sheet, merged, folder, fmt, first_index, settings, options)


def _tables(
    sheet: str,
    held: Compact,
    merged,
    folder: Path,
    fmt: str,
    first_index: int,
    settings: Settings,
    options: dict,
) -> list[Extraction] | list[Prose]:
    """The tables of one sheet's cells (a compact grid), each written as an extraction; a block
    of one or two lone values below or beside the tables is left out, and said; a sheet of text
    and no table (a sentence, a title alone) is no dataset but a note (rules.Prose)."""
    grid = held.grid
    width = max((len(r) for r in grid), default=0)
    if width > settings.max_columns:
        raise IngestFailed(
            "too_large", f"sheet {sheet!r} has {width} columns; at most {settings.max_columns} are read (max_columns)"
        )
    errors = sum(1 for row in grid for c in row if c.kind == "e")
    merged = [(r0, c0, r1, c1, _cell_at(grid, r0, c0)) for r0, c0, r1, c1 in merged]
    blocks = _blocks(grid, width)
    tables = [t for t in blocks if not _is_title(t, grid)]
    if not tables:
        lines = [
            [[c for c in row[t.left : t.right + 1] if c.kind] for row in grid[t.top : t.bottom + 1]] for t in blocks
        ]
        if is_prose(lines):
            return [Prose.of(sheet, lines)]
        tables = blocks
    # A title block above the first table names it; one anywhere else is a value out of place.
    apart = [
        (held.ref(i, j), text)
        for t in blocks
        if t not in tables and t.top > tables[0].top
        for i in range(t.top, t.bottom + 1)
        for j in range(t.left, t.right + 1)
        if (text := grid[i][j].text)  # a blank (whitespace) or error cell holds no value to lose
    ]
    out: list[Extraction] = []
    for k, table in enumerate(tables):
        name = sheet if len(tables) == 1 else f"{sheet} {k + 1}"
        out.append(
            _table(
                sheet,
                name,
                held,
                table,
                merged,
                folder / f"{first_index + len(out)}.parquet",
                fmt,
                settings,
                options,
                errors,
            )
        )
    if apart:
        for ex in out:
            ex.notes.append(apart_note(sheet, apart))
    return out


def read_calamine(
    path: Path, folder: Path, fmt: str, options: dict, settings: Settings, checked: bool = False
) -> tuple[list[Extraction], dict]:
    """A workbook through calamine (ODS, and XLSX openpyxl refuses): values keep their types
    (dates, numbers, booleans, text), though calamine gives no number formats, so a percent is
    read as its fraction."""
    from python_calamine import CalamineWorkbook

    formats = OdsFormats() if fmt == "ods" else None
    sparse: dict = {}
    if not checked:
        check_container(path, fmt, settings, watch=formats, sparse=sparse if fmt == "ods" else None)
    if sparse:
        # Its grids would pass max_sheet_cells: read from the cells that hold values, not by calamine.
        extractions, covered = _read_sparse_ods(path, folder, options, settings)
        assert formats is not None  # only an ODS's check gathers `sparse`
        for ex in extractions:
            ex.notes.extend(formats.notes())
        return extractions, covered
    try:
        with path.open("rb") as fh, calamine_panics(f"the {fmt} workbook"):
            book = CalamineWorkbook.from_filelike(fh)
            names = [m.name for m in book.sheets_metadata]
            hidden = [m.name for m in book.sheets_metadata if not str(m.visible).lower().endswith("visible")]

            def read_one(name: str, index: int) -> list[Extraction] | list[Prose]:
                found = book.get_sheet_by_name(name)
                held = from_rows(found.iter_rows(), found.end, _calamine_cell)
                return _tables(name, held, [], folder, fmt, index, settings, options)

            extractions, covered = each_sheet(names, hidden, options, read_one, "calamine")
        for ex in extractions:
            ex.notes.extend(formats.notes() if formats else [])
        return extractions, covered
    except IngestFailed:
        raise
    except Exception as err:  # calamine raises its own error kinds for damaged files
        raise IngestFailed(
            "format_unavailable", f"the spreadsheet cannot be read: {type(err).__name__}: {err}"
        ) from None


def _read_sparse_ods(path: Path, folder: Path, options: dict, settings: Settings) -> tuple[list[Extraction], dict]:
    sheets = {s.name: s for s in odsxml.read_sheets(path, settings)}
    hidden = [s.name for s in sheets.values() if s.hidden]

    def read_one(name: str, index: int) -> list[Extraction] | list[Prose]:
        sheet = sheets[name]
        filled = {at: _calamine_cell(value) for at, value in sheet.cells.items()}
        extractions = _tables(name, compact(filled, name, settings), [], folder, "ods", index, settings, options)
        if sheet.extent > settings.max_sheet_cells:
            for ex in extractions:
                if isinstance(ex, Prose):
                    continue  # a sheet of text alone is a note (each_sheet), not a dataset to warn on
                ex.notes.append(
                    f"sheet {name!r} spans {sheet.rows} rows by {sheet.columns} columns for {len(filled)} "
                    f"{'value' if len(filled) == 1 else 'values'}: "
                    "read from the cells that hold values"
                )
        return extractions

    return each_sheet(list(sheets), hidden, options, read_one, "expat")


def read_xls(path: Path, folder: Path, options: dict, settings: Settings) -> tuple[list[Extraction], dict]:
    """An old binary workbook (.xls: BIFF5/BIFF8 records in an OLE2 container) through calamine,
    after check_xls: as an ODS is read (values keep their types, dates included; no number
    formats, so a percent is its fraction), or, from sheet_fast_bytes on, column at a time
    through fastexcel (read/sheets/columnar.py), as a large .xlsx is, unless its grids are
    mostly empty (SPARSE_RATIO)."""
    spanned, held = check_xls(path, settings)
    # fastexcel makes every cell of the grids (16.7 million for one value at IV65536: 1.7 GB);
    # calamine's own grid is leaner and the rest takes a Python step per value, none per empty cell.
    if path.stat().st_size >= settings.sheet_fast_bytes and spanned <= SPARSE_RATIO * held:
        return read_fast(path, folder, "xls", options, settings)
    return read_calamine(path, folder, "xls", options, settings, checked=True)


def _cell_at(grid, i, j) -> Cell:
    return grid[i][j] if i < len(grid) and j < len(grid[i]) else Cell(None, "")


def _calamine_cell(value) -> Cell:
    return _cell(value, "", "")


def _table(
    sheet: str,
    name: str,
    held: Compact,
    t: _Table,
    merged,
    out: Path,
    fmt: str,
    settings: Settings,
    options: dict,
    errors: int,
) -> Extraction:
    grid = held.grid
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
                held.rows[last] + 1,
                " | ".join(c.text for c in grid[last][t.left : t.right + 1] if c.text),
                "total_row",
                tuple(_cell_at(grid, last, j).text for j in range(t.left, t.right + 1)),  # its sums checked once typed
            )
        )
    cells = [[_cell_at(grid, i, j) for i in rows] for j in range(t.left, t.right + 1)]
    columns = [_midnights(col) for col in cells]
    kinds = [{c.kind for c in col} - {""} for col in cells]
    ids = list(range(1, len(rows) + 1))
    table = pa.Table.from_arrays(
        [pa.array(ids, pa.int64()), pa.array([held.rows[i] + 1 for i in rows], pa.int64())]
        + [pa.array(col, pa.string()) for col in columns],
        schema=cells_schema(width),
    )
    pq.write_table(table, out, **PARQUET_OPTIONS)
    where = f"{held.ref(t.top, t.left)}:{held.ref(t.bottom, t.right)}"
    origin = Origin(format=fmt, sheet=sheet, range=where, header_rows=header_rows)
    extraction = Extraction(name, headers, out, len(rows), origin)
    extraction.left_out = left_out
    # Text cells stay text: a column Excel holds as text is not read as numbers or dates.
    extraction.forced = {f"c{j + 1}": C.STRING for j, k in enumerate(kinds) if k and k <= {"s"}}
    if errors:
        extraction.notes.append(f"{errors} error cells (#DIV/0!, #N/A …) on sheet {sheet!r} were read as nulls")
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
    # A date cell (kind "d") always holds its text.
    if not any(c.kind == "d" and c.text is not None and _DATETIME_TEXT.match(c.text) for c in cells):
        return texts
    return [
        t + "T00:00:00" if c.kind == "d" and t is not None and _DATE_TEXT.fullmatch(t) else t
        for c, t in zip(cells, texts)
    ]
