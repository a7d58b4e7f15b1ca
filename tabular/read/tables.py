"""Where a delimited text holds another table after its first (issue 54): a blank line, then a
line of names of their own over rows that they name (`Time,Count` under a table of `Time,Reading`,
a summary exported below the data). Each table becomes a dataset of its own; read as one, the
second's header was a row of text among numbers and its counts were added to the readings."""

from __future__ import annotations

import csv
import io

from ..errors import IngestFailed
from .header import distinct_words, filled, has_header, is_blank
from .sniff import Layout, records

# Rows the next table needs under its header to be told from a note (a note is one line).
NEXT_TABLE_ROWS = 2


def next_table(head: str, layout: Layout, first: int, header: list[str] | None) -> int:
    """The line (0-based, in `head`) where another table begins after the one whose data starts at
    record `first`, or 0 when the head holds no other: after a blank line, a line of distinct
    words that is no copy of the table's `header` (a header written again is the same table, asked
    elsewhere) and that clearly names the rows under it (has_header), at least NEXT_TABLE_ROWS of
    them before the next blank line or the head's end, the table above keeping a row of its own."""
    reader = csv.reader(
        io.StringIO(head, newline=""),
        delimiter=layout.delimiter,
        quotechar=layout.quotechar,
        skipinitialspace=layout.spaced,
        escapechar=layout.escapechar or None,
        strict=False,
    )
    rows: list[tuple[list[str], int]] = []  # each record with the line it starts on
    start = 0
    try:
        for row in reader:
            rows.append((row, start))
            start = reader.line_num
    except csv.Error:
        return 0
    if not head.endswith(("\n", "\r")) and rows:
        rows.pop()  # the head's last line may be cut short: no decision rests on it
    names = [c.strip() for c in header] if header else None
    kept = 0
    for k in range(first, len(rows) - NEXT_TABLE_ROWS):
        row, line = rows[k]
        if is_blank(row):
            continue
        if k > first and is_blank(rows[k - 1][0]) and kept and _names_rows(row, rows[k + 1 :], names):
            return line
        kept += 1
    return 0


def _names_rows(line: list[str], below: list[tuple[list[str], int]], header: list[str] | None) -> bool:
    """Whether `line` is the header of a table of its own over the rows `below` it."""
    cells = [c.strip() for c in line]
    if filled(line) < 2 or not distinct_words([c for c in cells if c]) or cells == header:
        return False
    rows: list[list[str]] = []
    for row, _ in below:
        if is_blank(row):
            break
        rows.append(row)
    fit = [r for r in rows if len(r) == len(line)]  # a ragged row is the table's, rejected there
    if len(fit) < NEXT_TABLE_ROWS or len(fit) * 2 <= len(rows):
        return False
    return has_header(line, fit[:200]) == (True, True)


def skip_lines(text, count: int, limit: int) -> None:
    """Read past the first `count` lines of `text` (the tables before this one), none longer than
    `limit` characters (max_line_bytes: a longer one fails the job, as bounded_lines does)."""
    for _ in range(count):
        line = text.readline(limit + 1)
        if len(line) > limit:
            raise IngestFailed("too_large", f"a line is longer than {limit} characters (max_line_bytes)")
        if not line:
            return


def after(sample: str, layout: Layout) -> int:
    """The line of the sample where another table begins after this one (read/tables.py), or 0."""
    if layout.starts:
        return 0
    first = layout.skip_records + layout.header_rows
    header = list(layout.names) or None
    if header is None and layout.header_rows:
        read = records(sample, layout.delimiter, layout.quotechar, layout.spaced, layout.escapechar)
        header = read[first - 1] if len(read) >= first else None
    return next_table(sample, layout, first, header)


def first_lines(text: str, count: int) -> str:
    """The first `count` lines of `text`, line ends kept (as csv.reader counts them)."""
    stream = io.StringIO(text, newline="")
    return "".join(stream.readline() for _ in range(count))
