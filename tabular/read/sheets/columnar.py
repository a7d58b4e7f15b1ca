"""Large workbooks: fastexcel (calamine, in Rust) reads every cell as Arrow text, column at a time;
the first rows alone are read for what that text does not say (text cells, dates, number
formats: hints.py), and a column whose cells show several units is kept as text, said.

Same outcome as read/sheets/workbooks.py on what both see: tables split on empty rows and columns, a title
block is no table, a total row is left out, percent and currency formats give their units,
Excel text stays text, a number past 2**53 keeps the digits the sheet holds (wholes.py). What
this path cannot see: merged header cells (one header row is assumed) and which cells were
errors (they are nulls, uncounted). The cells are written to Parquet from Arrow; only a column
with a unit takes a DuckDB statement (percents scaled by 100 exactly).
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from sqlglot import exp

from planner.dialect import DIALECT

from ... import readings as C
from ...errors import IngestFailed
from ...models import Origin
from ...settings import Settings
from ..extraction import PARQUET_OPTIONS, Excluded, Extraction, cells_schema, int64_range, join_headers
from .hints import Hint, UnitWatch, calamine_hints, workbook_hints
from .rules import Prose, calamine_panics, cell_of_text, column_letter, each_sheet, is_prose, is_total_row
from .sparse import apart_note
from .typed import Typed, exact_numbers, maybe_cut, typed_batch
from .wholes import exact_wholes

# Rows per Parquet row group, as DuckDB's COPY wrote them: DuckDB reads a row group per thread.
ROW_GROUP = 122_880


def read_fast(
    path: Path, folder: Path, fmt: str, options: dict, settings: Settings, watched: UnitWatch | None = None
) -> tuple[list[Extraction], dict]:
    """Every table of the workbook; `watched`: what the container check's UnitWatch found of
    each sheet (its hints, with the units of every cell), which are then not read again."""
    with calamine_panics(f"the {fmt} workbook"):
        return _read_fast(path, folder, fmt, options, settings, watched)


def _read_fast(
    path: Path, folder: Path, fmt: str, options: dict, settings: Settings, watched: UnitWatch | None
) -> tuple[list[Extraction], dict]:
    import fastexcel

    # read_workbook (read_xls) has already checked the container (its CRC check reads every member).
    try:
        hints, states, heads = (
            (*calamine_hints(path), {}) if fmt == "xls" else workbook_hints(path, watched.hints if watched else None)
        )
        reader = fastexcel.read_excel(path.read_bytes())
        names = list(reader.sheet_names)
    except Exception as err:  # both readers raise their own kinds for damaged files
        raise IngestFailed("format_unavailable", f"the workbook cannot be read: {type(err).__name__}: {err}") from None
    hidden = [n for n in names if states.get(n, "visible") != "visible"]
    con = duckdb.connect()
    scanned: dict[str, bool] = {}  # the workbook's parts typed.holds_null_words has read

    def read_one(name: str, index: int) -> list[Extraction] | list[Prose]:
        # Rows from the sheet's first (skip_rows=0: none skipped); columns from its first filled
        # one, whose place in the sheet calamine says. Typed below the header where it can be
        # (typed.py), else every cell as fastexcel's text.
        typed = None
        if name in heads:
            texts = {j for j, h in hints.get(name, {}).items() if "s" in h.kinds or len(h.kinds) > 1}
            typed = typed_batch(reader, name, heads[name], path, texts, scanned)
        if typed is not None:
            batch, first_column = typed.batch, typed.first
        else:
            sheet = reader.load_sheet(name, header_row=None, dtypes="string", skip_rows=0)
            batch = _exact(reader, name, sheet.to_arrow())
            first_column = sheet.available_columns()[0].absolute_index if batch.num_columns else 0
        if batch.num_columns > settings.max_columns:
            raise IngestFailed(
                "too_large", f"{batch.num_columns} columns; at most {settings.max_columns} are read (max_columns)"
            )
        inexact: set[int] = set()
        if fmt != "xls":  # an .xls stores each number as a double: its digits are the double's
            batch, inexact = exact_wholes(batch, first_column, path, heads[name].part if name in heads else None)
        return _sheet(
            con,
            name,
            batch,
            first_column,
            hints.get(name, {}),
            folder,
            fmt,
            index,
            options,
            typed,
            {first_column + k for k in inexact},
        )

    try:
        return each_sheet(names, hidden, options, read_one)
    finally:
        con.close()


def _exact(reader, name: str, batch: pa.RecordBatch) -> pa.RecordBatch:
    """A sheet read as text, its number cells exact (typed.exact_numbers) from a second read
    of it as floats: the text read keeps nine decimals, 1/3 became 0.333333333 and 1E-10 0."""
    if not any(maybe_cut(c) for c in batch.columns):
        return batch
    floats = reader.load_sheet(name, header_row=None, dtypes="float", dtype_coercion="coerce", skip_rows=0).to_arrow()
    if floats.num_rows != batch.num_rows or floats.num_columns != batch.num_columns:
        raise IngestFailed("format_unavailable", f"sheet {name!r} reads as two different grids")
    columns = [exact_numbers(t, n) for t, n in zip(batch.columns, floats.columns)]
    return pa.RecordBatch.from_arrays(columns, names=batch.schema.names)


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
    hints: dict[int, Hint],
    folder: Path,
    fmt: str,
    first: int,
    options: dict,
    typed: Typed | None = None,
    inexact: set[int] | None = None,
) -> list[Extraction] | list[Prose]:
    """The sheet's tables (or its text, where it holds none); `inexact`: its columns (0-based)
    holding a number past 2**53 whose digits its XML did not show (wholes.exact_wholes)."""
    filled = _filled(batch)
    blocks = []
    for top, bottom in _runs(np.asarray(filled.any(axis=1))):
        for left, right in _runs(np.asarray(filled[top : bottom + 1].any(axis=0))):
            block = filled[top : bottom + 1, left : right + 1]
            title = (bottom - top + 1) <= 3 and block.sum(axis=1).max() <= 1
            blocks.append((top, left, bottom, right, title))
    tables = [b for b in blocks if not b[4]]
    if not tables:  # as read/sheets/workbooks.py: a sheet of text alone is no dataset
        lines = [
            [
                [cell_of_text(batch.column(j)[i].as_py()) for j in range(left, right + 1) if filled[i, j]]
                for i in range(top, bottom + 1)
            ]
            for top, left, bottom, right, _ in blocks
        ]
        if is_prose(lines):
            return [Prose.of(sheet, lines)]
        tables = blocks
    # As read/sheets/workbooks.py: a title block above the first table names it, one elsewhere is said.
    apart = [
        (f"{column_letter(first_column + j + 1)}{i + 1}", batch.column(j)[i].as_py())
        for top, left, bottom, right, title in blocks
        if title and len(tables) < len(blocks) and top > tables[0][0]
        for i, j in zip(*np.nonzero(filled[top : bottom + 1, left : right + 1]))
        for i, j in [(int(i) + top, int(j) + left)]
    ]
    out: list[Extraction] = []
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
                inexact or set(),
            )
        )
    if apart:
        for ex in out:
            ex.notes.append(apart_note(sheet, apart))
    return out


def _table(
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
    out: Path,
    fmt,
    options,
    typed: Typed | None = None,
    inexact: set[int] | None = None,
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
                tuple(batch.column(j)[stop].as_py() for j in range(left, right + 1)),  # its sums checked once typed
            )
        )
    rows = max(stop - start, 0)
    ids = int64_range(1, rows)
    forced = {}
    notes: list[str] = []
    # What the typed read saw of each column, where it read every data row of this table.
    kinds = typed.kinds if typed is not None and start >= typed.start else {}
    for j in range(left, right + 1):
        cell = f"c{j - left + 1}"
        hint = hints.get(first_column + j, Hint())
        if hint.kinds and hint.kinds <= {"s"}:
            forced[cell] = C.STRING  # Excel text stays text, digits or not
        elif kinds and (known := _known(kinds.get(first_column + j), hint)) is not None:
            forced[cell] = known  # the typed read saw every cell: its text needs no typing by elimination
        if hint.mixed or (hint.elapsed and typed is None):
            forced[cell] = C.STRING
            notes.append(_undecided(headers[j - left] or cell, hint))
        if inexact and first_column + j in inexact:
            notes.append(
                f"column {headers[j - left] or cell!r}: a number past 2**53 is written in the sheet in a form "
                "this reader does not read digit by digit; it holds the nearest double, whose last digits may differ"
            )
    cells = _normalised(
        con,
        [batch.column(j).slice(start, rows) for j in range(left, right + 1)],
        [hints.get(first_column + j, Hint()) for j in range(left, right + 1)],
    )
    table = pa.Table.from_arrays([ids, int64_range(1 + start, rows), *cells], schema=cells_schema(width))
    pq.write_table(table, out, row_group_size=ROW_GROUP, **PARQUET_OPTIONS)
    first, last = column_letter(first_column + left + 1), column_letter(first_column + right + 1)
    where = f"{first}{top + 1}:{last}{bottom + 1}"
    origin = Origin(format=fmt, sheet=sheet, range=where, header_rows=header_rows, parser="fastexcel")
    extraction = Extraction(name, headers, out, rows, origin)
    extraction.left_out = left_out
    extraction.forced = forced
    extraction.notes.extend(notes)
    return extraction


def _normalised(con, columns: list[pa.Array], hints: list[Hint]) -> list[pa.Array]:
    """Each column's cells as read/sheets/workbooks.py would have written them (_normalise): in
    Arrow where a replace does it, in one DuckDB statement for the columns with a unit."""
    out = [_replaced(c.cast(pa.string()), h) for c, h in zip(columns, hints)]
    units = [k for k, c in enumerate(out) if c is None]
    if units:
        con.register("__sheet_units", pa.table({f"c{k}": columns[k].cast(pa.string()) for k in units}))
        selects = [exp.alias_(_normalise(exp.column(f"c{k}", quoted=True), hints[k]), f"c{k}") for k in units]
        found = con.sql(exp.select(*selects).from_("__sheet_units").sql(dialect=DIALECT)).to_arrow_table()
        con.unregister("__sheet_units")
        for k in units:
            out[k] = found.column(f"c{k}").combine_chunks().cast(pa.string())
    return [c for c in out if c is not None]


def _replaced(c: pa.Array, hint: Hint) -> pa.Array | None:
    """_normalise in Arrow, for a column without a unit; None for one with a unit."""
    if "d" in hint.kinds and hint.time and hint.clock and not hint.elapsed:
        return pc.replace_substring_regex(c, "^1899-12-31 ", "")
    if "d" in hint.kinds and not hint.time:  # " 00:00:00" dropped from the end: cheaper than a regex
        return pc.if_else(pc.ends_with(c, " 00:00:00"), pc.utf8_slice_codeunits(c, 0, -9), c)
    if "d" in hint.kinds:
        return pc.replace_substring(c, " ", "T")
    if hint.mixed or not hint.unit:
        return c
    return None


# The reading the text of a column the typed read saw whole (typed.one_kind) takes by elimination,
# with no question: each written as _replaced writes it on the hint's format.
_KNOWN = {"bool": C.BOOL, "date": C.reading_from("date", "%Y-%m-%d"), "datetime": C.ISO_TIMESTAMP}


def _known(kind: str | None, hint: Hint):
    """The reading of a column the typed read saw as one kind, where its format writes it so."""
    if kind == "bool" and hint.kinds == {"b"}:
        return _KNOWN["bool"]
    if kind == "date" and hint.kinds == {"d"} and not hint.time:
        return _KNOWN["date"]
    if kind in ("date", "datetime") and hint.kinds == {"d"} and hint.time and not hint.clock and not hint.elapsed:
        return _KNOWN["datetime"]
    return None


def _undecided(header: str, hint: Hint) -> str:
    """The warning of a column this reader keeps as text, since it cannot tell its cells apart."""
    if hint.mixed:
        units = ", ".join(sorted("no unit" if u is None else u for u in hint.units))
        why = f"its number cells show several units ({units}), which this reader cannot tell apart cell by cell"
    else:
        why = "its cells are elapsed times ([h]:mm) this reader could not read as durations"
    return f"column {header!r}: {why}; kept as text without units, so no sum mixes them"


def _normalise(c: exp.Expression, hint: Hint) -> exp.Expression:
    """A number cell's text as read/sheets/workbooks.py would have made it, in a column with a unit
    (_replaced does the rest): percents scaled by 100 exactly, currency with its unit."""
    number = exp.not_(exp.Is(this=exp.TryCast(this=c, to=exp.DataType.build("DOUBLE")), expression=exp.null()))
    if hint.unit == "%":
        scaled = exp.cast(
            exp.Mul(
                this=exp.cast(c, exp.DataType.build("DECIMAL(38, 18)", dialect=DIALECT)),
                expression=exp.Literal.number(100),
            ),
            "VARCHAR",
        )
        trimmed = exp.func("rtrim", exp.func("rtrim", scaled, exp.Literal.string("0")), exp.Literal.string("."))
        return exp.Case().when(number, exp.DPipe(this=trimmed, expression=exp.Literal.string("%"))).else_(c)
    return exp.Case().when(number, exp.DPipe(this=exp.Literal.string(hint.unit), expression=c)).else_(c)


def _total_row(batch, i: int, left: int, right: int) -> bool:
    return is_total_row([cell_of_text(batch.column(j)[i].as_py()) for j in range(left, right + 1)])
