"""A large .xlsx sheet read through fastexcel's typed columns, as the text the readings see.

fastexcel's text read (dtypes="string") costs about twice its typed read, and writes a number to
nine decimal places: 1/3 became 0.333333333, 1E-10 became 0 and 99.99999999999 became 100. Here
the rows below a sheet's header are read typed, column at a time:

- a column whose every cell is a number comes back as doubles, each written as the shortest text
  that reads back as the same double (the text the openpyxl path writes, workbooks._number_text),
  vectorised: 0.1 is `0.1`, 5 is `5`, 1E+20 is `100000000000000000000`;
- a column of dates or datetimes is written as fastexcel's text read writes it
  (`2024-02-01 00:00:00`, `2024-02-01 10:30:00.250`), booleans `true`/`false`;
- a column of mixed cells comes back as fastexcel's own text, as before.

Whole numbers, booleans and timestamps without fractions of a second are written in Arrow; the
rest in one DuckDB statement. A double past 2**53 may be another whole number than the cell's
digits (9007199254740993 reads as 9007199254740992), on either read: such cells take their
digits from the sheet's XML (wholes.py), as the openpyxl reader reads them.

The rows above (a title, the header) come from the sheet's XML, which columnar._hints reads
anyway. What comes out has the text read's shape (its rows, its columns, from the same first
column), so every rule after it (tables, titles, totals, typing) reads it as it read the text.
Where the typed read cannot give what the text read gave (a duration column, a date cell in the
header rows, an escape calamine would unescape), the caller reads the sheet as text.
"""

from __future__ import annotations

import functools
import re
import zipfile
from dataclasses import dataclass, field
from typing import NamedTuple

import defusedxml.ElementTree as ET
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from sqlglot import exp

from planner.dialect import DIALECT

from ...jsonval import iso_duration_sql
from .markup import GuardedStream

# The head: rows of a sheet read from its XML; the typed read starts at most this far down.
HEAD_ROWS = 50
# Text cells fastexcel's typed read takes for empty in a column of numbers, dates or booleans
# (pandas' default na_values; a blank or whitespace-only text cell too), "nan" and "NaN" for NaN.
# The text read keeps them as text, so a column holding one is read as text (NULL_WORDS_XML).
NULL_WORDS = (
    "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
)  # fmt: skip
# As a cell's text stands in the XML, whole between its tags.
_NULL_WORDS_XML = re.compile(
    b">(?:" + b"|".join(re.escape(w.replace("<", "&lt;").replace(">", "&gt;").encode()) for w in NULL_WORDS) + b")<"
)
_RETRIES = 2  # typed reads of one sheet (the second after a column of mixed cells was found)
_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_SHARED = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings"


@dataclass
class Head:
    """The first HEAD_ROWS rows of one sheet, as its XML holds them: per (row, column), 0-based,
    the cell's kind (t="s" shared, "inlineStr", "str", "b", "e", "n", or "date" for a number in a
    date format) and its value (the shared string's index for "s")."""

    part: str = ""  # the sheet's XML part in the archive
    cells: dict[tuple[int, int], tuple[str, str | None]] = field(default_factory=dict)
    plain: bool = True  # no cell the typed path cannot write as the text read would

    def add(self, i: int, j: int, element, kind: str, date_format: bool) -> None:
        if kind in ("s", "str", "n", "b", "e"):
            value = element.find(f"{_NS}v")
            text = value.text if value is not None else None
            self.cells[(i, j)] = ("date" if kind == "n" and date_format and text else kind, text)
        elif kind == "inlineStr":
            inline = element.find(f"{_NS}is")
            runs = [] if inline is None else inline.findall(f"{_NS}t") + inline.findall(f"{_NS}r/{_NS}t")
            self.cells[(i, j)] = ("inlineStr", "".join(t.text or "" for t in runs) if inline is not None else None)
        else:  # t="d" (an ISO date cell) and anything else: the text read's own text
            self.plain = False

    def start(self) -> int:
        """Where the typed read starts: below the last text cell of a column that holds only
        numbers, dates or booleans under it (its header), as far as the head shows; 0 where no
        column does (every column text: the typed read gives text throughout)."""
        by_column: dict[int, list[tuple[int, str]]] = {}
        for (i, j), (kind, _) in sorted(self.cells.items()):
            by_column.setdefault(j, []).append((i, kind))
        start = 0
        for cells in by_column.values():
            texts = [i for i, kind in cells if kind in ("s", "str", "inlineStr")]
            values = [i for i, kind in cells if kind in ("n", "date", "b")]
            if values and texts and max(texts) < min(values):
                start = max(start, max(texts) + 1)
        return start


def shared_strings(archive: zipfile.ZipFile, wanted: set[int]) -> dict[int, str] | None:
    """The shared strings of these indexes (read only as far as the largest), or None where
    one holds an escape calamine unescapes (`_x000D_`), or is missing."""
    if not wanted:
        return {}
    part = _shared_part(archive)
    if part is None:
        return None
    last = max(wanted)
    out: dict[int, str] = {}
    index = 0
    with archive.open(part) as stream:
        for _, element in ET.iterparse(GuardedStream(stream, part)):
            if element.tag != f"{_NS}si":
                continue
            if index in wanted:
                runs = element.findall(f"{_NS}t") + element.findall(f"{_NS}r/{_NS}t")
                out[index] = "".join(t.text or "" for t in runs)
            element.clear()
            if index >= last:
                break
            index += 1
    return out if len(out) == len(wanted) else None


def _shared_part(archive: zipfile.ZipFile) -> str | None:
    """The shared strings' part, if the workbook has one."""
    names = set(archive.namelist())
    if "xl/sharedStrings.xml" in names:
        return "xl/sharedStrings.xml"
    try:
        rels = ET.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
    except KeyError:
        return None
    for rel in rels:
        target = rel.get("Target", "")
        part = target.lstrip("/") if target.startswith("/") else "xl/" + target
        if rel.get("Type") == _SHARED and part in names:
            return part
    return None


def head_texts(head: Head, rows: int, strings: dict[int, str]) -> dict[tuple[int, int], str | None] | None:
    """The text of each head cell above row `rows`, as the typed columns below it are written;
    None where one cannot be written so (a date cell)."""
    out: dict[tuple[int, int], str | None] = {}
    numbers: dict[tuple[int, int], float] = {}
    for (i, j), (kind, value) in head.cells.items():
        if i >= rows:
            continue
        if kind == "date":
            return None
        if kind == "e" or value is None:
            out[(i, j)] = None
        elif kind == "s":
            out[(i, j)] = strings[int(value)]
        elif kind == "n":
            try:
                numbers[(i, j)] = float(value)
            except ValueError:
                return None
            continue
        elif kind == "b":
            out[(i, j)] = "true" if value.strip() in ("1", "true") else "false"
        else:
            out[(i, j)] = value
        text = out[(i, j)]
        if text is not None and kind in ("s", "inlineStr", "str") and ("_x" in text or text != text.strip()):
            return None  # calamine unescapes _x000D_ and trims some texts: the text read says which
    if numbers:  # written as the typed columns are, all at once
        out.update(zip(numbers, number_texts(pa.array(list(numbers.values()), pa.float64())).to_pylist()))
        for (i, j), number in numbers.items():  # past 2**53 a double is another whole number: the XML's digits
            value = head.cells[(i, j)][1]
            if abs(number) >= EXACT_DOUBLES and value is not None and WHOLE_TEXT.fullmatch(value.strip()):
                out[(i, j)] = value.strip()
    return out


# Every double at or past 2**53 is a whole number, and may be another one than the cell's digits
# (9007199254740993 reads as 9007199254740992): such a cell takes its digits from the sheet's XML,
# as the openpyxl reader reads them (wholes.py).
EXACT_DOUBLES = 2**53
WHOLE_TEXT = re.compile(r"-?[0-9]{16,}")


# Each double `v` as the shortest decimal text that reads back as it, without an exponent (as
# workbooks._number_text writes it on "General"): DuckDB's text of a double has the shortest
# round-trip digits (5.0, 0.1, 1.5e-07, 1e+20); a whole number loses its `.0`, and an exponent is
# written out in positions. NaN is `NaN`, infinities `inf` and `-inf`. Most cells take one of the
# first branches: a whole number below 1E+15, or another from 1E-4 on, which DuckDB writes with
# neither an exponent nor a `.0`.
_NUMBER_TEXT = r"""
CASE
  WHEN isnan(v) THEN 'NaN'
  WHEN v <> 0 AND v = trunc(v) AND abs(v) < 1e15 THEN CAST(CAST(v AS BIGINT) AS VARCHAR)
  WHEN abs(v) >= 0.0001 AND abs(v) < 1e15 THEN CAST(v AS VARCHAR)
  WHEN NOT contains(CAST(v AS VARCHAR), 'e') THEN regexp_replace(CAST(v AS VARCHAR), '\.0$', '')
  WHEN CAST(regexp_extract(CAST(v AS VARCHAR), 'e([+-]?[0-9]+)$', 1) AS INTEGER) < 0 THEN
    regexp_extract(CAST(v AS VARCHAR), '^(-?)', 1) || '0.'
    || repeat('0', -1 - CAST(regexp_extract(CAST(v AS VARCHAR), 'e([+-]?[0-9]+)$', 1) AS INTEGER))
    || regexp_extract(CAST(v AS VARCHAR), '^-?([0-9])', 1)
    || regexp_extract(CAST(v AS VARCHAR), '^-?[0-9](?:\.([0-9]+))?e', 1)
  ELSE
    regexp_extract(CAST(v AS VARCHAR), '^(-?)', 1) || rpad(
      regexp_extract(CAST(v AS VARCHAR), '^-?([0-9])', 1)
      || regexp_extract(CAST(v AS VARCHAR), '^-?[0-9](?:\.([0-9]+))?e', 1),
      CAST(regexp_extract(CAST(v AS VARCHAR), 'e([+-]?[0-9]+)$', 1) AS INTEGER) + 1, '0'
    ) || CASE
      WHEN length(regexp_extract(CAST(v AS VARCHAR), '^-?[0-9](?:\.([0-9]+))?e', 1))
        > CAST(regexp_extract(CAST(v AS VARCHAR), 'e([+-]?[0-9]+)$', 1) AS INTEGER)
      THEN '.' || substr(
        regexp_extract(CAST(v AS VARCHAR), '^-?[0-9](?:\.([0-9]+))?e', 1),
        CAST(regexp_extract(CAST(v AS VARCHAR), 'e([+-]?[0-9]+)$', 1) AS INTEGER) + 1
      )
      ELSE ''
    END
END
"""
# A timestamp `v` as fastexcel's text read writes it: `2024-02-01 10:30:00`, with the
# milliseconds where there are any (`…:00.250`).
_STAMP_TEXT = """
CASE
  WHEN strftime(CAST(v AS TIMESTAMP), '%g') = '000' THEN strftime(CAST(v AS TIMESTAMP), '%Y-%m-%d %H:%M:%S')
  ELSE strftime(CAST(v AS TIMESTAMP), '%Y-%m-%d %H:%M:%S.%g')
END
"""
_BOOL_TEXT = "CASE WHEN v THEN 'true' WHEN NOT v THEN 'false' END"


@functools.lru_cache(maxsize=8)
def _parsed(template: str) -> exp.Expression:
    """A template parsed once (sqlglot takes about 10 ms for _NUMBER_TEXT)."""
    return exp.maybe_parse(template, dialect=DIALECT)


def _sql(template: str, value: exp.Expression) -> exp.Expression:
    """A template's SQL (written for a column `v`) for `value`."""
    return _parsed(template).transform(lambda n: value.copy() if isinstance(n, exp.Column) and n.name == "v" else n)


def _text_sql(kind: pa.DataType, value: exp.Expression) -> exp.Expression | None:
    """SQL writing a column of this Arrow type as the text read's text; None for a type it cannot write so."""
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return exp.cast(value, "VARCHAR")
    if pa.types.is_null(kind):
        return exp.cast(exp.null(), "VARCHAR")
    if pa.types.is_floating(kind):
        return _sql(_NUMBER_TEXT, exp.cast(value, "DOUBLE"))
    if pa.types.is_timestamp(kind):
        return _sql(_STAMP_TEXT, value)
    if pa.types.is_boolean(kind):
        return _sql(_BOOL_TEXT, value)
    if pa.types.is_duration(kind):  # registered as its microseconds (_registered)
        return iso_duration_sql(value)
    return None


def _registered(columns: dict[int, pa.Array]) -> pa.Table:
    """The columns as a table DuckDB reads (c0, c3 … by their places), a duration as its count of microseconds."""
    return pa.table(
        {
            f"c{k}": c.cast(pa.duration("us")).cast(pa.int64()) if pa.types.is_duration(c.type) else c
            for k, c in columns.items()
        }
    )


@functools.lru_cache(maxsize=32)
def _texts_select(kinds: tuple[tuple[int, pa.DataType], ...]) -> str | None:
    """The statement writing columns c0, c3 … of these types as text (_text_sql), written once per
    shape of sheet; None where one type cannot be written so."""
    selects = []
    for k, kind in kinds:
        sql = _text_sql(kind, exp.column(f"c{k}"))
        if sql is None:
            return None
        selects.append(exp.alias_(sql, f"c{k}"))
    return exp.select(*selects).from_("cells").sql(dialect=DIALECT)


_TICKS = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}
_YEAR_1000, _YEAR_10000 = -30_610_224_000, 253_402_300_800  # seconds from 1970 to 1000-01-01 and 10000-01-01


def _arrow_text(column: pa.Array) -> pa.Array | None:
    """The text read's text of the columns most sheets hold, in Arrow: booleans, whole numbers
    below 1E+15 (no NaN, no -0), timestamps without fractions of a second; None for any other,
    which _NUMBER_TEXT and _STAMP_TEXT write."""
    kind = column.type
    if pa.types.is_boolean(kind):
        return pc.if_else(column, "true", "false")
    if pa.types.is_floating(kind) and column.null_count == 0:
        v = column.to_numpy(zero_copy_only=False)
        if np.isnan(v).any() or not (np.abs(v) < 1e15).all() or (v != np.trunc(v)).any() or np.signbit(v[v == 0]).any():
            return None
        return pa.array(v.astype(np.int64)).cast(pa.string())
    if pa.types.is_timestamp(kind) and kind.tz is None:
        ticks = column.cast(pa.int64()).to_numpy(zero_copy_only=False)
        valid = pc.is_valid(column).to_numpy(zero_copy_only=False)
        seconds = ticks[valid] // _TICKS[kind.unit]
        if (ticks[valid] % _TICKS[kind.unit]).any() or ((seconds < _YEAR_1000) | (seconds >= _YEAR_10000)).any():
            return None  # milliseconds, or a year of other than four digits: _STAMP_TEXT writes them
        return column.cast(pa.timestamp("s")).cast(pa.string())  # Arrow writes 2024-02-01 10:30:00
    return None


def batch_texts(columns: list[pa.Array]) -> list[pa.Array] | None:
    """Typed columns as the text read's text: in Arrow where it can (_arrow_text), the rest in
    one DuckDB statement; None where one holds a type that cannot be written so."""
    out: list[pa.Array | None] = [
        c.cast(pa.string()) if pa.types.is_string(c.type) or pa.types.is_large_string(c.type) else _arrow_text(c)
        for c in columns
    ]
    typed = [k for k, c in enumerate(out) if c is None]
    if typed:
        import duckdb

        select = _texts_select(tuple((k, columns[k].type) for k in typed))
        if select is None:
            return None
        cells = _registered({k: columns[k] for k in typed})
        with duckdb.connect() as con:
            con.register("cells", cells)
            found = con.sql(select).to_arrow_table()
        for k in typed:
            out[k] = found.column(f"c{k}").combine_chunks().cast(pa.string())
    return [c for c in out if c is not None]


def number_texts(column: pa.Array) -> pa.Array:
    """Each double as the shortest decimal text that reads back as it, without an exponent:
    `5`, `0.1`, `-0.00000015`, `100000000000000000000` (workbooks._number_text on "General")."""
    texts = batch_texts([column.cast(pa.float64())])
    assert texts is not None  # a double is always written
    return texts[0]


# What fastexcel's text read writes for a double: a whole one in full, another to nine decimals
# (1/3 as 0.333333333, 1E-10 as 0), trailing zeros dropped. Checked against its read of 9,000
# doubles of every size: only past 1E+300 do the digits differ (that cell then keeps its text).
_SHOWN = "CASE WHEN v = floor(v) THEN printf('%.0f', v) ELSE rtrim(rtrim(printf('%.9f', v), '0'), '.') END"


# A text fastexcel's nine decimals may have cut: nine places in full, a 0 that may have been 1E-10,
# or a whole number past a double's 17 digits, written in full binary expansion.
_CUT = r"^-?(?:[0-9]+\.[0-9]{8}[1-9]|0|[0-9]{18,})$"


def maybe_cut(texts: pa.Array) -> bool:
    """Whether a column of fastexcel's text may hold a number its nine decimals changed."""
    return bool(pc.any(pc.match_substring_regex(texts, _CUT)).as_py())


def exact_numbers(texts: pa.Array, numbers: pa.Array) -> pa.Array:
    """A column fastexcel read as text, its number cells written again from their doubles (the
    text read keeps nine decimals). `numbers`: the same cells read as floats, coerced (a text
    cell that reads as a number is one too; a date, a boolean or other text is null). A cell is a
    number cell where its text is what fastexcel writes for its double, and then becomes the
    shortest text of the double (number_texts); any other keeps its text (`0012`, `1e3`, `true`)."""
    if numbers.null_count == len(numbers):
        return texts
    import duckdb

    t, v = exp.column("t"), exp.column("v")
    shown = exp.EQ(this=t, expression=exp.paren(_sql(_SHOWN, v)))
    text = exp.Case().when(exp.func("coalesce", shown, exp.false()), _sql(_NUMBER_TEXT, v)).else_(t)
    frame = pa.table({"t": texts.cast(pa.string()), "v": numbers.cast(pa.float64())})
    with duckdb.connect() as con:
        con.register("cells", frame)
        out = con.sql(exp.select(exp.alias_(text, "t")).from_("cells").sql(dialect=DIALECT)).to_arrow_table()
    return out.column(0).combine_chunks().cast(pa.string())


def holds_null_words(archive: zipfile.ZipFile, parts: list[str]) -> bool:
    """Whether these parts (a sheet, the shared strings) hold a text cell fastexcel's typed read
    would take for empty (NULL_WORDS), read a chunk at a time."""
    names = set(archive.namelist())
    for part in parts:
        if part not in names:
            continue
        carry = b""
        with archive.open(part) as stream:
            while chunk := stream.read(1 << 20):
                if _NULL_WORDS_XML.search(carry + chunk):
                    return True
                carry = chunk[-16:]
    return False


class Typed(NamedTuple):
    """A sheet read typed below its head (typed_batch)."""

    batch: pa.RecordBatch  # as the text read's batch: every column text, rows from the sheet's first
    first: int  # the place in the sheet (0-based) of its first column
    kinds: dict[int, str]  # by a column's place in the sheet: what one_kind says of every cell read typed
    start: int  # the first row (0-based) read typed; the rows above are the head's


def one_kind(column: pa.Array) -> str | None:
    """What every cell of a typed column is, where its text says it alone: "bool", "date" (a
    timestamp at midnight, written `2024-02-01` on a date format), "datetime" (a timestamp
    without fractions of a second, written `2024-02-01T10:30:00` on a datetime format); None
    for any other (numbers among them: their readings and questions are the text's to decide)."""
    if pa.types.is_boolean(column.type):
        return "bool"
    if not pa.types.is_timestamp(column.type) or column.type.tz is not None:
        return None
    ticks = column.cast(pa.int64()).filter(pc.is_valid(column)).to_numpy(zero_copy_only=False)
    per_second = _TICKS[column.type.unit]
    if (ticks % per_second).any():
        return None
    return "date" if not (ticks % (86_400 * per_second)).any() else "datetime"


def typed_batch(
    reader, name: str, head: Head, archive_path, texts: set[int], scanned: dict[str, bool] | None = None
) -> Typed | None:
    """The sheet as the text read's batch (every column text, rows from the sheet's first) with
    what the typed read saw of it (Typed); None where the typed read cannot give the text read's
    cells.

    `texts`: the sheet's columns (0-based) whose first rows hold text or cells of several kinds,
    read as text from the start. A typed column with an empty cell (or NaN) may have been a
    NULL_WORDS text cell, which the text read keeps: where the sheet or the shared strings hold
    one, the sheet is read as text. `scanned`: what holds_null_words found in each part, kept
    across the workbook's sheets (they share one part of shared strings)."""
    if not head.plain:
        return None
    start = head.start()
    wanted = {int(v) for (i, _), (kind, v) in head.cells.items() if i < start and kind == "s" and v is not None}
    try:
        with zipfile.ZipFile(archive_path) as archive:
            strings = shared_strings(archive, wanted)
            shared = _shared_part(archive)
    except (KeyError, ValueError):
        return None
    if strings is None:
        return None
    above = head_texts(head, start, strings)
    if above is None:
        return None
    read = _strict(reader, name, start, head, texts)
    if read is None:
        return None
    sheet, batch = read
    batch = _with_exact_numbers(reader, name, start, batch)
    if batch is None:
        return None
    places = [c.absolute_index for c in sheet.available_columns()]
    if not places:
        return None
    first = places[0]
    if any(
        column.null_count or (pa.types.is_floating(column.type) and pc.any(pc.is_nan(column)).as_py())
        for column in batch.columns
        if not pa.types.is_string(column.type) and not pa.types.is_null(column.type)
    ):
        found = {} if scanned is None else scanned
        with zipfile.ZipFile(archive_path) as archive:
            for part in [p for p in (shared, head.part) if p]:  # the shared strings first: any sheet may stop there
                if part not in found:
                    found[part] = holds_null_words(archive, [part])
                if found[part]:
                    return None
    if places != list(range(first, first + len(places))) or any(
        j < first or j >= first + len(places) for _, j in above
    ):
        return None
    kinds = {first + k: kind for k, column in enumerate(batch.columns) if (kind := one_kind(column))}
    written = batch_texts(batch.columns)
    if written is None:
        return None
    columns = []
    for k, column in enumerate(written):
        top = [above.get((i, first + k)) for i in range(start)]
        columns.append(pa.concat_arrays([pa.array(top, pa.string()), column]) if start else column)
    names = [f"column_{k}" for k in range(len(columns))]
    return Typed(pa.RecordBatch.from_arrays(columns, names=names), first, kinds, start)


def _with_exact_numbers(reader, name: str, start: int, batch: pa.RecordBatch) -> pa.RecordBatch | None:
    """The batch with the number cells of its text columns (cells of several kinds) exact, from
    one more read as floats of those whose text may hold a cut number (maybe_cut); None where
    that read does not line up."""
    mixed = [n for n, c in zip(batch.schema.names, batch.columns) if pa.types.is_string(c.type) and maybe_cut(c)]
    if not mixed:
        return batch
    try:
        floats = reader.load_sheet(
            name,
            header_row=None,
            skip_rows=start,
            schema_sample_rows=None,
            dtypes=dict.fromkeys(mixed, "float"),
            dtype_coercion="coerce",
            use_columns=mixed,
        ).to_arrow()
    except Exception:  # a read the text read may still make
        return None
    if floats.num_rows != batch.num_rows or floats.schema.names != mixed:
        return None
    columns = [
        exact_numbers(column, floats.column(n)) if n in mixed else column
        for n, column in zip(batch.schema.names, batch.columns)
    ]
    return pa.RecordBatch.from_arrays(columns, names=batch.schema.names)


def _strict(reader, name: str, start: int, head: Head, texts: set[int]):
    """(sheet, batch) read typed from row `start`, each column one kind of cell (strict: never a
    boolean read as 1, or a number as a date); a column whose cells are of several kinds is read
    as text, found by the first rows (`texts`) or by the read that stopped on it. None where
    that takes more than _RETRIES reads, or a read fails."""
    offset = min((j for _, j in head.cells), default=0)
    dtypes = {f"__UNNAMED__{j - offset}": "string" for j in texts if j >= offset}
    for _ in range(_RETRIES):
        try:
            sheet = reader.load_sheet(
                name,
                header_row=None,
                skip_rows=start,
                schema_sample_rows=None,
                dtype_coercion="strict",
                dtypes=dtypes or None,
            )
            return sheet, sheet.to_arrow()
        except Exception as err:  # mixed cells in a column, or a read the text read may still make
            mixed = re.search(r"could not determine dtype for column (__UNNAMED__\d+)", str(err))
            if mixed is None or mixed.group(1) in dtypes:
                return None
            dtypes[mixed.group(1)] = "string"
    return None
