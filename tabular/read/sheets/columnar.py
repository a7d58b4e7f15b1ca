"""Large workbooks: fastexcel (calamine, in Rust) reads every cell as Arrow text, column at a time;
the first rows alone are read for what that text does not say (text cells, dates, number
formats): from an .xlsx's sheet XML and styles, from an .xls's typed values (python-calamine).

Same outcome as read/sheets/workbooks.py on what both see: tables split on empty rows and columns, a title
block is no table, a total row is left out, percent and currency formats give their units,
Excel text stays text. What this path cannot see: merged header cells (one header row is
assumed) and which cells were errors (they are nulls, uncounted).
"""

from __future__ import annotations

import datetime as dt
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import defusedxml.ElementTree as ET
import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from openpyxl.styles.numbers import BUILTIN_FORMATS, is_date_format
from openpyxl.utils import get_column_letter
from sqlglot import exp

from ... import readings as C
from ...errors import IngestFailed
from ...models import Origin
from ...settings import Settings
from ..extraction import Excluded, Extraction, join_headers
from .markup import LONG_TOKEN, GuardedStream
from .rules import calamine_panics, cell_of_text, column_number, each_sheet, is_total_row, unit_of
from .typed import HEAD_ROWS, Head, typed_batch

HINT_ROWS = 200
_TIME_IN_FORMAT = re.compile(r"[hHs]")
# A format that shows a date: a year, a day, or a month (m after h or before s is minutes).
_DATE_IN_FORMAT = re.compile(r"[yYdD]|(?<![hH:mM])[mM]+(?![mM]*:?[sS])")
# Quoted text, escaped characters, [colors and locales], and AM/PM, before looking for a date.
_ELAPSED = re.compile(r"\[(?:h+|m+|s+)\]", re.IGNORECASE)
_QUOTED = re.compile(r'"[^"]*"|\\.|\[[^\]]*\]|AM/PM|A/P', re.IGNORECASE)


@dataclass
class _Hint:
    """What the first rows of a sheet column say about its cells."""

    kinds: set[str] = field(default_factory=set)  # "s", "n", "d", "b" below the first filled cell
    unit: str | None = None
    time: bool = False
    clock: bool = True  # every date cell's format shows a time of day alone (hh:mm), no date
    elapsed: bool = False  # a date cell's format shows elapsed time ([h]:mm): a duration
    units: set = field(default_factory=set)  # each number cell's unit (None: no unit)
    header: int = 0  # the sheet row (1-based) of the column's first filled cell
    styles: set[int] = field(default_factory=set)  # the number cells' styles

    @property
    def mixed(self) -> bool:
        """Number cells of several units ($ and €, % and plain): one unit for all would change values."""
        return len(self.units) > 1


_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_CELL_REF = re.compile(r"([A-Z]+)(\d+)")


def _styles(archive: zipfile.ZipFile) -> list[str]:
    """The number format of each cell style (cellXfs), by index."""
    try:
        root = ET.fromstring(archive.read("xl/styles.xml"))
    except KeyError:
        return []
    custom = {int(f.get("numFmtId")): f.get("formatCode", "") for f in root.iter(f"{_NS}numFmt")}
    xfs = root.find(f"{_NS}cellXfs")
    formats = []
    for xf in xfs if xfs is not None else []:
        number = int(xf.get("numFmtId", "0"))
        formats.append(custom.get(number, BUILTIN_FORMATS.get(number, "General")))
    return formats


def sheet_parts(archive: zipfile.ZipFile) -> list[tuple[str, str, str]]:
    """(name, state, part path) of each sheet, in the workbook's order."""
    book = ET.fromstring(archive.read("xl/workbook.xml"))
    rels = ET.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
    targets = {r.get("Id"): r.get("Target", "") for r in rels}
    out = []
    for sheet in book.iter(f"{_NS}sheet"):
        target = targets.get(sheet.get(_REL), "")
        part = target.lstrip("/") if target.startswith("/") else "xl/" + target
        out.append((sheet.get("name", ""), sheet.get("state", "visible"), part))
    return out


def _hints(path: Path) -> tuple[dict[str, dict[int, _Hint]], dict[str, str], dict[str, Head]]:
    """Per sheet and column: cell kinds and units from the first HINT_ROWS rows; sheet states;
    per sheet, its first HEAD_ROWS rows' cells (typed.Head).

    Read from the sheet XML directly: openpyxl would load every shared string first, which on
    a large workbook costs more than reading all of it with fastexcel."""
    out: dict[str, dict[int, _Hint]] = {}
    states: dict[str, str] = {}
    heads: dict[str, Head] = {}
    with zipfile.ZipFile(path) as archive:
        formats = _styles(archive)
        for name, state, part in sheet_parts(archive):
            states[name] = state
            hints: dict[int, _Hint] = {}
            seen: set[int] = set()
            head = heads[name] = Head(part=part)
            try:
                stream = archive.open(part)
            except KeyError:
                continue
            with stream:
                for _, element in ET.iterparse(GuardedStream(stream, part)):
                    if element.tag == f"{_NS}row":
                        if int(element.get("r", "0")) >= HINT_ROWS:
                            break
                        element.clear()
                        continue
                    if element.tag != f"{_NS}c" or element.find(f"{_NS}v") is None and element.find(f"{_NS}is") is None:
                        continue
                    match = _CELL_REF.match(element.get("r", ""))
                    if not match:
                        continue
                    j = column_number(match.group(1)) - 1
                    kind = element.get("t", "n")
                    style = int(element.get("s", "0"))
                    fmt = formats[style] if style < len(formats) else "General"
                    if int(match.group(2)) <= HEAD_ROWS:
                        head.add(int(match.group(2)) - 1, j, element, kind, is_date_format(fmt))
                    hint = hints.setdefault(j, _Hint())
                    if j not in seen:  # the first filled cell is likely a header
                        seen.add(j)
                        hint.header = int(match.group(2))
                        continue
                    if kind in ("s", "str", "inlineStr"):
                        hint.kinds.add("s")
                    elif kind == "b":
                        hint.kinds.add("b")
                    elif kind == "n" and is_date_format(fmt):
                        hint.kinds.add("d")
                        hint.time = hint.time or bool(_TIME_IN_FORMAT.search(fmt))
                        hint.clock = hint.clock and not _DATE_IN_FORMAT.search(_QUOTED.sub("", fmt))
                        hint.elapsed = hint.elapsed or bool(_ELAPSED.search(fmt))
                    elif kind == "n":
                        hint.kinds.add("n")
                        hint.unit = hint.unit or unit_of(fmt)
                        hint.units.add(unit_of(fmt))
                        hint.styles.add(style)
            out[name] = hints
    return out, states, heads


def _units_past_head(path: Path, part: str, hints: dict[int, _Hint], formats: list[str]) -> None:
    """Mark mixed (its units grown) each column whose number cells below the hint rows show
    another unit than its first rows do ($ among €, a plain number among %): one regex over the
    sheet's XML, which matches only such cells, read a chunk at a time."""
    pending = {j: h for j, h in hints.items() if h.unit and not h.mixed}
    with zipfile.ZipFile(path) as archive:
        if part not in archive.namelist():
            return
        while pending:
            pattern = _other_units(pending, formats)
            found = None
            tail = b""
            with archive.open(part) as stream:
                while found is None and (chunk := stream.read(LONG_TOKEN)):
                    text = tail + chunk
                    for match in pattern.finditer(text):
                        j = column_number(match.group(1).decode()) - 1
                        if int(match.group(2)) > pending[j].header:
                            style = int(match.group(3) or 0)
                            found = j, unit_of(formats[style] if style < len(formats) else "General")
                            break
                    tail = text[-4096:]
            if found is None:
                return
            pending.pop(found[0]).units.add(found[1])


def _other_units(columns: dict[int, _Hint], formats: list[str]) -> re.Pattern:
    """A number cell (no t="s", "str", "b", … ; a value, after any formula) of one of `columns`
    whose style shows another unit than the column's: (letters, row, style)."""
    alternatives = []
    for j, hint in columns.items():
        same = [k for k, f in enumerate(formats) if unit_of(f) == hint.unit] or [-1]
        styles = b"|".join(str(k).encode() for k in same)
        alternatives.append(
            rb"(?:" + get_column_letter(j + 1).encode() + rb')(?=[0-9]+"(?![^>]*\ss="(?:' + styles + rb')"))'
        )
    return re.compile(
        rb'<c r="(' + b"|".join(alternatives) + rb')([0-9]+)"(?![^>]*\st="(?:s|str|inlineStr|b|e|d)")'
        rb'(?:[^>]*?\ss="([0-9]+)")?[^>]*>(?:<f\b[^>]*/>|<f\b[^>]*>[^<]*</f>)?<v>'
    )


def _kind(value) -> tuple[str, bool]:
    """A typed cell's kind (as _hints reads it from the XML), and whether it holds a time of day."""
    if isinstance(value, bool):
        return "b", False
    if isinstance(value, str):
        return "s", False
    if isinstance(value, dt.datetime):
        return "d", True  # calamine hands a datetime at 00:00 back as a date
    if isinstance(value, (dt.date, dt.time, dt.timedelta)):
        return "d", not isinstance(value, dt.date)
    return "n", False


def _calamine_hints(path: Path) -> tuple[dict[str, dict[int, _Hint]], dict[str, str]]:
    """What _hints reads from an .xlsx's XML, for an .xls: per sheet and column, the kinds of
    the cells of the first HINT_ROWS rows, from the values calamine types (it gives no number
    formats, so no unit); and the sheets' states."""
    from python_calamine import CalamineWorkbook

    out: dict[str, dict[int, _Hint]] = {}
    states: dict[str, str] = {}
    with path.open("rb") as fh:
        book = CalamineWorkbook.from_filelike(fh)
    try:
        for meta in book.sheets_metadata:
            states[meta.name] = "visible" if str(meta.visible).lower().endswith("visible") else "hidden"
            hints: dict[int, _Hint] = {}
            for row in book.get_sheet_by_name(meta.name).to_python(skip_empty_area=False, nrows=HINT_ROWS):
                for j, value in enumerate(row):
                    if value is None or value == "":
                        continue
                    if j not in hints:  # the first filled cell is likely a header
                        hints[j] = _Hint()
                        continue
                    kind, time = _kind(value)
                    hints[j].kinds.add(kind)
                    hints[j].time = hints[j].time or time
            out[meta.name] = hints
    finally:
        book.close()  # before fastexcel reads the workbook again: one copy of its cells at a time
    return out, states


def read_fast(path: Path, folder: Path, fmt: str, options: dict, settings: Settings) -> tuple[list[Extraction], dict]:
    with calamine_panics(f"the {fmt} workbook"):
        return _read_fast(path, folder, fmt, options, settings)


def _read_fast(path: Path, folder: Path, fmt: str, options: dict, settings: Settings) -> tuple[list[Extraction], dict]:
    import fastexcel

    # read_workbook (read_xls) has already checked the container (its CRC check reads every member).
    try:
        hints, states, heads = (*_calamine_hints(path), {}) if fmt == "xls" else _hints(path)
        reader = fastexcel.read_excel(path.read_bytes())
        names = list(reader.sheet_names)
    except Exception as err:  # both readers raise their own kinds for damaged files
        raise IngestFailed("format_unavailable", f"the workbook cannot be read: {type(err).__name__}: {err}") from None
    hidden = [n for n in names if states.get(n, "visible") != "visible"]
    if fmt != "xls":
        with zipfile.ZipFile(path) as archive:
            formats = _styles(archive)
        for name, head in heads.items():
            _units_past_head(path, head.part, hints.get(name, {}), formats)
    con = duckdb.connect()
    scanned: dict[str, bool] = {}  # the workbook's parts typed.holds_null_words has read

    def read_one(name: str, index: int) -> list[Extraction]:
        # Rows from the sheet's first (skip_rows=0: none skipped); columns from its first filled
        # one, whose place in the sheet calamine says. Typed below the header where it can be
        # (typed.py), else every cell as fastexcel's text.
        typed = None
        if name in heads:
            texts = {j for j, h in hints.get(name, {}).items() if "s" in h.kinds or len(h.kinds) > 1}
            typed = typed_batch(reader, name, heads[name], path, texts, scanned)
        if typed is not None:
            batch, first_column = typed
        else:
            sheet = reader.load_sheet(name, header_row=None, dtypes="string", skip_rows=0)
            batch = sheet.to_arrow()
            first_column = sheet.available_columns()[0].absolute_index if batch.num_columns else 0
        if batch.num_columns > settings.max_columns:
            raise IngestFailed(
                "too_large", f"{batch.num_columns} columns; at most {settings.max_columns} are read (max_columns)"
            )
        return _sheet(
            con, name, batch, first_column, hints.get(name, {}), folder, fmt, index, options, typed is not None
        )

    try:
        return each_sheet(names, hidden, options, read_one)
    finally:
        con.close()


def _filled(batch: pa.RecordBatch) -> np.ndarray:
    """rows × columns: which cells hold something."""
    if batch.num_columns == 0:
        return np.zeros((batch.num_rows, 0), dtype=bool)
    # Not empty and not only whitespace; utf8_is_space is false for "", and ten times cheaper than a trim.
    cols = [
        pc.fill_null(pc.invert(pc.or_(pc.utf8_is_space(c), pc.equal(pc.binary_length(c), 0))), False).to_numpy(
            zero_copy_only=False
        )
        for c in batch.columns
    ]
    return np.column_stack(cols)


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """(start, end inclusive) of each run of True."""
    edges = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1
    return list(zip(starts.tolist(), ends.tolist()))


def _sheet(
    con,
    sheet: str,
    batch: pa.RecordBatch,
    first_column: int,
    hints: dict[int, _Hint],
    folder: Path,
    fmt: str,
    first: int,
    options: dict,
    typed: bool = True,
) -> list[Extraction]:
    filled = _filled(batch)
    blocks = []
    for top, bottom in _runs(filled.any(axis=1)):
        for left, right in _runs(filled[top : bottom + 1].any(axis=0)):
            block = filled[top : bottom + 1, left : right + 1]
            title = (bottom - top + 1) <= 3 and block.sum(axis=1).max() <= 1
            blocks.append((top, left, bottom, right, title))
    tables = [b for b in blocks if not b[4]] or blocks
    out = []
    for k, (top, left, bottom, right, _) in enumerate(tables):
        name = sheet if len(tables) == 1 else f"{sheet} {k + 1}"
        out.append(
            _table(
                con,
                sheet,
                name,
                batch,
                first_column,
                hints,
                top,
                left,
                bottom,
                right,
                folder / f"{first + len(out)}.parquet",
                fmt,
                options,
                typed,
            )
        )
    return out


def _table(
    con, sheet, name, batch, first_column, hints, top, left, bottom, right, out: Path, fmt, options, typed=True
) -> Extraction:
    """One table of the sheet: rows top..bottom, batch columns left..right (the sheet's columns
    first_column + left …)."""
    header_rows = options.get("header_rows") or 1
    width = right - left + 1
    headers = join_headers(
        [
            [batch.column(j)[i].as_py() or "" for j in range(left, right + 1)]
            for i in range(top, min(top + header_rows, bottom + 1))
        ],
        width,
    )
    start, stop = top + header_rows, bottom + 1
    left_out: list[Excluded] = []
    if stop - start >= 2 and _total_row(batch, stop - 1, left, right):
        stop -= 1
        left_out.append(
            Excluded(
                stop - start + 1,
                stop + 1,
                " | ".join(filter(None, (batch.column(j)[stop].as_py() for j in range(left, right + 1)))),
                "total_row",
            )
        )
    rows = max(stop - start, 0)
    ids = pa.array(np.arange(1, rows + 1, dtype=np.int64))
    source = pa.Table.from_arrays(
        [ids, pc.add(ids, start), *[batch.column(j).slice(start, rows) for j in range(left, right + 1)]],
        names=["__row_id", "__line", *[f"c{j - left + 1}" for j in range(left, right + 1)]],
    )
    selects = [exp.column("__row_id"), exp.column("__line")]
    forced = {}
    notes: list[str] = []
    for j in range(left, right + 1):
        cell = f"c{j - left + 1}"
        hint = hints.get(first_column + j, _Hint())
        selects.append(exp.alias_(_normalise(exp.column(cell, quoted=True), hint), cell, quoted=True))
        if hint.kinds and hint.kinds <= {"s"}:
            forced[cell] = C.STRING  # Excel text stays text, digits or not
        if hint.mixed or (hint.elapsed and not typed):
            forced[cell] = C.STRING
            notes.append(_undecided(headers[j - left] or cell, hint))
    con.register("__sheet_table", source)
    query = exp.select(*selects).from_("__sheet_table").sql(dialect="duckdb")
    con.execute(
        f"COPY ({query}) TO {exp.Literal.string(str(out)).sql(dialect='duckdb')} (FORMAT parquet, COMPRESSION lz4)"
    )
    con.unregister("__sheet_table")
    first, last = get_column_letter(first_column + left + 1), get_column_letter(first_column + right + 1)
    where = f"{first}{top + 1}:{last}{bottom + 1}"
    origin = Origin(format=fmt, sheet=sheet, range=where, header_rows=header_rows, parser="fastexcel")
    extraction = Extraction(name, headers, out, rows, origin)
    extraction.left_out = left_out
    extraction.forced = forced
    extraction.notes.extend(notes)
    return extraction


def _undecided(header: str, hint: _Hint) -> str:
    """The warning of a column this reader keeps as text, since it cannot tell its cells apart."""
    if hint.mixed:
        units = ", ".join(sorted("no unit" if u is None else u for u in hint.units))
        why = f"its number cells show several units ({units}), which this reader cannot tell apart cell by cell"
    else:
        why = "its cells are elapsed times ([h]:mm) this reader could not read as durations"
    return f"column {header!r}: {why}; kept as text without units, so no sum mixes them"


def _normalise(c: exp.Expression, hint: _Hint) -> exp.Expression:
    """A cell's text as read/sheets/workbooks.py would have made it: dates without a zero clock, percents scaled
    by 100 exactly, currency with its unit."""
    number = exp.not_(exp.Is(this=exp.TryCast(this=c, to=exp.DataType.build("DOUBLE")), expression=exp.null()))
    if "d" in hint.kinds and hint.time and hint.clock and not hint.elapsed:
        # A time of day (hh:mm) is a datetime on calamine's day 0: the time alone, as openpyxl gives it.
        return exp.Anonymous(
            this="regexp_replace", expressions=[c, exp.Literal.string("^1899-12-31 "), exp.Literal.string("")]
        )
    if "d" in hint.kinds and not hint.time:
        return exp.Anonymous(
            this="regexp_replace", expressions=[c, exp.Literal.string(" 00:00:00$"), exp.Literal.string("")]
        )
    if "d" in hint.kinds:
        return exp.Anonymous(this="replace", expressions=[c, exp.Literal.string(" "), exp.Literal.string("T")])
    if hint.mixed:
        return c  # several units: none is applied, and the column stays text (_table)
    if hint.unit == "%":
        scaled = exp.cast(
            exp.Mul(
                this=exp.cast(c, exp.DataType.build("DECIMAL(38, 18)", dialect="duckdb")),
                expression=exp.Literal.number(100),
            ),
            "VARCHAR",
        )
        trimmed = exp.func("rtrim", exp.func("rtrim", scaled, exp.Literal.string("0")), exp.Literal.string("."))
        return exp.Case().when(number, exp.DPipe(this=trimmed, expression=exp.Literal.string("%"))).else_(c)
    if hint.unit:
        return exp.Case().when(number, exp.DPipe(this=exp.Literal.string(hint.unit), expression=c)).else_(c)
    return c


def _total_row(batch, i: int, left: int, right: int) -> bool:
    return is_total_row([cell_of_text(batch.column(j)[i].as_py()) for j in range(left, right + 1)])
