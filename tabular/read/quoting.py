"""A quote is quoting only at a field's edges (issue 34).

Python's csv module, lenient, rewrites a field whose quotes do not close at its edge:
`"ACME" GMBH` becomes `ACME GMBH`, `"Ann "the" Great"` becomes `Ann the" Great"`. Read
strictly, such a record is an error; `EdgeQuotes` reads it again from its own lines with the
edge rule, and counts the lines it did so for the extraction's warning:

- a field that starts with the quote is quoted when a quote closes it at its edge (followed by
  the delimiter or the end of the record): what lies between is the value, a doubled quote one
  quote, any other quote kept as written (`Ann "the" Great`);
- a field whose quote closes nowhere at an edge is kept as written, quotes and all
  (`"ACME" GMBH`), up to the next delimiter.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np


def split_at_edges(record: str, delimiter: str, quote: str) -> list[str]:
    """One record's fields by the edge rule (the record's own text, without its line end)."""
    return [value for value, _ in quoted_fields(record, delimiter, quote)]


def quoted_fields(record: str, delimiter: str, quote: str) -> list[tuple[str, bool]]:
    """One record's fields by the edge rule, each with whether quotes enclosed it."""
    fields: list[tuple[str, bool]] = []
    i, n = 0, len(record)
    while True:
        end = record.find(delimiter, i)
        end = n if end == -1 else end
        if record.startswith(quote, i):
            closing = _closing(record, i + 1, delimiter, quote)
            if closing is not None:
                fields.append((record[i + 1 : closing].replace(quote * 2, quote), True))
                end = closing + 1
            else:
                fields.append((record[i:end], False))
        else:
            fields.append((record[i:end], False))
        if end >= n:
            return fields
        i = end + len(delimiter)


def _closing(record: str, start: int, delimiter: str, quote: str) -> int | None:
    """The first quote after `start` that ends the field at an edge (a doubled one is a quote)."""
    at = start
    while (k := record.find(quote, at)) != -1:
        if record.startswith(quote, k + 1):
            at = k + 2
            continue
        if k + 1 == len(record) or record.startswith(delimiter, k + 1):
            return k
        at = k + 1
    return None


class EdgeQuotes:
    """csv.reader over `lines`, strict, with a record it refuses read again by the edge rule.
    With `width` (the table's), a record that runs over several lines but does not have the
    table's width, where each of its lines does, is those lines: a stray quote opened it
    (`"with quotes` swallowing the rows after it). `line_num` is the last line of the record
    last given, as csv.reader's; `mended` holds the line numbers of the records read again, and
    `quoted_blanks` the fields (by position) where a quoted value was only whitespace (`" "`): a
    value written on purpose, not a blank cell."""

    def __init__(self, lines, delimiter: str, quote: str, width: int | None = None, **dialect):
        self.delimiter, self.quote, self.width = delimiter, quote, width
        self.taken: list[str] = []
        self.queued: list[tuple[list[str], int]] = []
        self.lines = iter(lines)
        self.reader = csv.reader(self._feed(), delimiter=delimiter, quotechar=quote, strict=True, **dialect)
        self.mended: list[int] = []
        self.quoted_blanks: set[int] = set()
        self.line_num = 0

    def _feed(self):
        for line in self.lines:
            self.taken.append(line)
            yield line

    def __iter__(self):
        return self

    def __next__(self) -> list[str]:
        if self.queued:
            row, self.line_num = self.queued.pop(0)
            return row
        self.taken = []
        try:
            row = next(self.reader)
        except csv.Error as err:
            if "field larger than field limit" in str(err) or not self.taken:
                raise
            row = None
        first = self.reader.line_num - len(self.taken) + 1
        if row is not None and (len(self.taken) < 2 or self.width is None or len(row) == self.width):
            self.line_num = self.reader.line_num
            self._note_quoted_blanks()
            return row
        per_line = [split_at_edges(line.rstrip("\r\n"), self.delimiter, self.quote) for line in self.taken]
        if len(per_line) > 1 and self.width is not None and all(len(r) == self.width for r in per_line):
            self.mended.extend(range(first, first + len(per_line)))
            self.queued = [(r, first + k) for k, r in enumerate(per_line)]
            return next(self)
        if row is not None:
            self.line_num = self.reader.line_num
            self._note_quoted_blanks()
            return row
        self.mended.append(first)
        self.line_num = self.reader.line_num
        self._note_quoted_blanks()
        return split_at_edges("".join(self.taken).rstrip("\r\n"), self.delimiter, self.quote)

    def _note_quoted_blanks(self) -> None:
        """Note the fields of the record just read whose quotes enclose only whitespace. Only a
        record with a quote before a space or tab is split again to tell."""
        opened = (self.quote + " ", self.quote + "\t")
        if not any(o in line for line in self.taken for o in opened):
            return
        record = "".join(self.taken).rstrip("\r\n")
        for k, (value, quoted) in enumerate(quoted_fields(record, self.delimiter, self.quote)):
            if quoted and value and not value.strip():
                self.quoted_blanks.add(k)


def irregular_bytes(path: Path, delimiter: str, quote: str, chunk: int = 16 << 20) -> bool:
    """Whether the UTF-8 file holds a quote with a character of a value on both sides (`"ACME" GMBH`,
    `"Ann "the" Great"`), a field of quoted whitespace (`" "`), an odd number of quotes, or a NUL: such a quote is not at a
    field's edge, and Arrow's reader drops quotes there (and keeps a NUL, which the careful reader
    takes out with a warning); a quoted space is a value, which only the careful reader tells
    from a blank cell. So the careful reader must read the file. A quote inside a value that
    never opened a field (`Title "with" quotes`) is kept by both, but also sends the file the
    careful way: one vectorised look at each quote's neighbours cannot tell the two apart."""
    if len(delimiter) != 1 or len(quote) != 1:
        return True
    q, edge = ord(quote), np.zeros(256, dtype=bool)
    edge[[ord(delimiter), q, 10, 13]] = True  # what may stand beside a quote at a field's edge
    qq = re.escape(quote.encode())
    # Quote, whitespace, quote: a literal start the regex engine finds fast; the edges are
    # checked on the few matches (an alternation before the quote made it 25 times slower).
    blank = re.compile(qq + rb"[ \t]+" + qq)
    opened = (quote.encode() + b" ", quote.encode() + b"\t")
    before, quotes = b"\n", 0
    with path.open("rb") as stream:
        while block := stream.read(chunk):
            if b"\x00" in block:
                return True
            quotes += block.count(quote.encode())
            data = np.frombuffer(before + block + stream.peek(1)[:1], dtype=np.uint8)
            at = np.flatnonzero(data[1:-1] == q) + 1 if len(data) > 2 else np.empty(0, dtype=np.int64)
            if at.size and np.any(~edge[data[at - 1]] & ~edge[data[at + 1]]):
                return True
            # A quoted blank across the block's end is seen whole in the window (up to 256 bytes).
            window = before + block + stream.peek(256)[:256]
            if any(o in window for o in opened) and _edged(blank, window, edge):
                return True
            before = block[-257:]
    # An odd number of quotes: one opens a field and closes nowhere (`c,"` on the last line),
    # which Arrow reads to the end of the file, cells and all; the careful reader keeps it.
    return quotes % 2 == 1


def _edged(blank: re.Pattern, window: bytes, edge: np.ndarray) -> bool:
    """Whether some match of `blank` in `window` stands at a field's edges on both sides."""
    for found in blank.finditer(window):
        start, end = found.start(), found.end()
        if (start == 0 or edge[window[start - 1]]) and (end == len(window) or edge[window[end]]):
            return True
    return False
