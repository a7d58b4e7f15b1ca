"""A regular delimited file read by DuckDB's own parallel CSV reader (issue 35).

The fast reader (extraction.FastRead) has decided the file is regular: UTF-8, one record a line,
quotes only at fields' edges, no NUL (quoting.scan_bytes). Over such a file DuckDB's reader, told
the dialect and every column as text, gives the cells Arrow's reader gives, parsed on every core
at once instead of in one stream. Where it differs from Arrow, the difference is caught, so that what
it gives is what Arrow would have given or nothing:

- it skips a blank line, where Arrow stops at it for the careful reader: the rows it read are
  checked against the file's lines (`complete`);
- it reads a quoted line break as part of a value, where Arrow stops: a record that holds one
  spans two lines, so the same count tells (a file that holds a line-break character other
  than its line ends, which one line could hold, has no count and is not read here);
- Arrow's stream stops at a blank or `#` row for the careful reader: so does the statement
  (`regular`);
- it refuses some files Arrow reads (a line end it did not expect) and some Arrow refuses too (a
  ragged row, bad UTF-8): a duckdb.Error, after which Arrow's stream reads the file as before.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
from sqlglot import exp

from planner.dialect import duckdb_function

from .sniff import Layout

IRREGULAR = "tabular: a row only the careful reader reads"

# Unicode whitespace as Arrow's utf8_trim_whitespace trims it, for RE2.
_SPACE = r"[\s\p{Zs}\x{0B}\x{1C}-\x{1F}\x{85}\x{2028}\x{2029}]"

# No cell reads as NULL: the file holds no NUL (quoting.scan_bytes), so no cell is this marker.
_NEVER = "\x00"


def relation(path: Path, layout: Layout, skipped: int, width: int, buffer_bytes: int = 4 << 20) -> exp.Expression:
    """The file's records past its first `skipped` lines, as rows of text cells c1…cN, read
    `buffer_bytes` at a time (a line may be half of that long)."""
    columns = exp.Struct(
        expressions=[
            exp.PropertyEQ(this=exp.to_identifier(f"c{i + 1}", quoted=True), expression=exp.Literal.string("VARCHAR"))
            for i in range(width)
        ]
    )
    options = {
        "auto_detect": exp.false(),
        "header": exp.false(),
        "skip": exp.Literal.number(skipped),
        "delim": exp.Literal.string(layout.delimiter),
        "quote": exp.Literal.string(layout.quotechar),
        "escape": exp.Literal.string(layout.quotechar),  # a doubled quote is one quote (RFC 4180)
        "strict_mode": exp.true(),
        "null_padding": exp.false(),
        "nullstr": exp.Literal.string(_NEVER),
        "buffer_size": exp.Literal.number(buffer_bytes),
        "max_line_size": exp.Literal.number(buffer_bytes // 2),
        "columns": columns,
    }
    return exp.Table(
        this=exp.ReadCSV(
            this=exp.Literal.string(str(path)),
            expressions=[exp.EQ(this=exp.column(k), expression=v) for k, v in options.items()],
        )
    )


def regular(cells: list[str]) -> exp.Expression:
    """A condition true for every row Arrow's stream would hand on, which stops the statement
    (IRREGULAR) at any other: a row whose first cell starts with `#` or whose every cell is
    blank (what `irregular_batch` looks for in Arrow's). Only a first cell that is empty or starts
    with whitespace or `#` is looked at further, and a regex tells that only where two byte
    comparisons let it through (`_maybe_suspect`): most first cells start with a printable
    ASCII character other than `!"#`."""
    first = exp.column(cells[0], quoted=True)
    suspect = exp.func("regexp_matches", first, exp.Literal.string(f"^(?:{_SPACE}|#|$)"))
    hashed = exp.func("regexp_matches", first, exp.Literal.string(f"^{_SPACE}*#"))
    blank = exp.and_(
        *[exp.func("regexp_full_match", exp.column(c, quoted=True), exp.Literal.string(f"{_SPACE}*")) for c in cells]
    )
    # Anonymous: sqlglot has no node for DuckDB's error(), which stops the statement.
    fail = duckdb_function("error", exp.Literal.string(IRREGULAR))
    stop = exp.Case().when(exp.and_(suspect, exp.or_(hashed, blank)), fail).else_(exp.true())
    # Nested, so the regexes run only where the comparisons let a suspect cell through.
    return exp.Case().when(_maybe_suspect(first), stop).else_(exp.true())


def _maybe_suspect(first: exp.Expression) -> exp.Condition:
    """False only for a cell starting with a character from `$` to DEL: DuckDB compares text
    byte by byte, and an empty cell, `#` and every whitespace character `_SPACE` names sort
    before `$` (ASCII) or from U+0080 on (UTF-8 from byte C2)."""
    return exp.or_(
        exp.LT(this=first, expression=exp.Literal.string("$")),
        exp.GTE(this=first, expression=exp.Literal.string("\u0080")),
    )


def complete(rows: int, lines: int, skipped: int) -> bool:
    """Whether DuckDB's reader gave a row for every line of the file past the skipped ones: a
    blank line it skipped, or a record it read over two lines, gives fewer."""
    return rows == lines - skipped


def irregular_batch(batch: pa.RecordBatch) -> bool:
    """A blank row or a `#` line in a batch of Arrow's stream: the careful reader must decide
    what they are. `regular` is the same rule for DuckDB's reader."""
    first = pc.utf8_trim_whitespace(batch.column(0))
    if pc.any(pc.starts_with(first, "#")).as_py():
        return True
    empty = _empty(first)
    if not pc.any(empty).as_py():
        return False
    rows = batch.filter(empty)
    blank = None
    for col in rows.columns:
        cell = _empty(pc.utf8_trim_whitespace(col))
        blank = cell if blank is None else pc.and_(blank, cell)
    return bool(pc.any(blank).as_py())


def _empty(cells: pa.Array) -> pa.Array:
    """Whether each cell is the empty string, told from its length: comparing with "" would
    make Arrow convert a Python value, and its first conversion imports pandas (0.3 s)."""
    return pc.invert(pc.cast(pc.utf8_length(cells), pa.bool_()))
