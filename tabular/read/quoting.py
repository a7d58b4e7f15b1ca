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
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

import numpy as np


def bounded_by_quotes(head: str, delimiters) -> tuple[str, str] | None:
    """(delimiter, quote) when the head's lines are fields bounded by quote, delimiter, quote
    (`"HITId","Title"`, `1,1,'di4-iN.wav','di'`): on all its lines but perhaps the first (a
    header written bare), each starting or ending with the quote. That delimiter and quote read
    the file, whatever else its text holds (`;` inside quoted text). The quote most lines show
    wins, `"` on a tie; None when no pair is that consistent."""
    lines = [line for line in re.split(r"\r\n|\r|\n", head)[:2000] if line.strip()]
    if len(lines) < 3:
        return None
    best = None
    for quote in ('"', "'"):
        for d in delimiters:
            mark = quote + d + quote
            n = sum(1 for line in lines if mark in line and (line.startswith(quote) or line.rstrip().endswith(quote)))
            if n >= 0.8 * (len(lines) - 1) and (best is None or n > best[0]):
                best = (n, d, quote)
    return (best[1], best[2]) if best else None


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
        self.dialect = dict(dialect, delimiter=delimiter, quotechar=quote, strict=True)
        self.reader = csv.reader(self._feed(), **self.dialect)
        self.mended: list[int] = []
        self.quoted_blanks: set[int] = set()
        self.line_num = 0
        self._open_space, self._open_tab = quote + " ", quote + "\t"

    def _feed(self):
        for line in self.lines:
            self.taken.append(line)
            yield line

    def __iter__(self):
        return self

    def __next__(self) -> list[str]:
        if self.queued:
            queued, self.line_num = self.queued.pop(0)
            return queued
        self.taken = []
        row: list[str] | None  # None: csv.reader refused the record
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
            # Only the lines whose own quotes do not close at an edge are named: a stray quote that
            # swallowed the rest of the file had every line after it named ('50001 lines hold a "').
            self.mended.extend(first + k for k, line in enumerate(self.taken) if self._refused(line))
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

    def _refused(self, line: str) -> bool:
        """Whether csv.reader, strict, refuses `line` as a record of its own: a quote on it that
        does not close at a field's edge (`"unclosed`), not a field quoted as written (`"a, b"`)."""
        if self.quote not in line:
            return False
        try:
            next(csv.reader([line], **self.dialect), None)
        except csv.Error:
            return True
        return False

    def _note_quoted_blanks(self) -> None:
        """Note the fields of the record just read whose quotes enclose only whitespace. Only a
        record with a quote before a space or tab is split again to tell."""
        if len(self.taken) == 1:  # most records: one line, most of them without a quote
            line = self.taken[0]
            if self.quote not in line or (self._open_space not in line and self._open_tab not in line):
                return
        elif not any(self._open_space in line or self._open_tab in line for line in self.taken):
            return
        record = "".join(self.taken).rstrip("\r\n")
        for k, (value, quoted) in enumerate(quoted_fields(record, self.delimiter, self.quote)):
            if quoted and value and not value.strip():
                self.quoted_blanks.add(k)


@dataclass
class ByteScan:
    """What one look at every byte of a UTF-8 file found.

    `irregular`: only the careful reader may read the file. It holds a quote with a character of
    a value on both sides (`"ACME" GMBH`, `"Ann "the" Great"`), a field of quoted whitespace
    (`" "`), whitespace before an empty quoted field (`1, "",2`), an odd number of quotes, or a
    NUL: such a quote is not at a field's edge, and Arrow's reader drops quotes there (and keeps
    a NUL, which the careful reader takes out with a warning); a quoted space is a value, which
    only the careful reader tells from a blank cell. A quote inside a value that never opened a
    field (`Title "with" quotes`) is kept by both, but also sends the file the careful way: one
    vectorised look at each quote's neighbours cannot tell the two apart.

    `lines`: its lines (line ends, and one more when its last line has none), which a reader
    that skips blank lines is checked against; None when the file holds a line-break character
    other than its line ends (a CR in a file of LF lines): only then can a record hold a line
    break and still end where a line does."""

    irregular: bool
    lines: int | None


class Scanning:
    """scan_bytes on its own thread, so that the look at every byte overlaps the reading and
    writing that follow it; `result` waits for it (and raises what it raised), `close` stops it
    at its next chunk: no thread outlives the reader it serves."""

    def __init__(self, path: Path, delimiter: str, quote: str, newline: str):
        self._stop = threading.Event()
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="byte-scan")
        self._found = pool.submit(scan_bytes, path, delimiter, quote, newline, stop=self._stop.is_set)
        pool.shutdown(wait=False)

    def result(self) -> ByteScan:
        return self._found.result()

    def close(self) -> None:
        self._stop.set()
        wait([self._found])


def scan_bytes(
    path: Path, delimiter: str, quote: str, newline: str, chunk: int = 4 << 20, stop: Callable[[], bool] = lambda: False
) -> ByteScan:
    """One pass over the file's bytes (see ByteScan), a chunk at a time, vectorised: the quotes'
    positions are found once, and only their neighbours are looked at. Stopped (`stop()`), it
    answers irregular: nothing it did not look at counts."""
    if len(delimiter) != 1 or len(quote) != 1:
        return ByteScan(True, 0)
    q, end = ord(quote), ord(newline[-1])
    other = 10 if end == 13 else 13
    edge = np.zeros(256, dtype=bool)
    edge[[ord(delimiter), q, 10, 13]] = True  # what may stand beside a quote at a field's edge
    space = np.zeros(256, dtype=bool)
    space[[32, 9]] = True
    before, quotes, lines, others, pairs, last = 10, 0, 0, 0, 0, end
    found = np.empty(chunk, dtype=bool)
    with path.open("rb") as stream:
        while block := stream.read(chunk):
            if b"\x00" in block or stop():
                return ByteScan(True, 0)
            a = np.frombuffer(block, dtype=np.uint8)
            hits = found[: a.size]
            lines += int(np.count_nonzero(np.equal(a, end, out=hits)))
            others += int(np.count_nonzero(np.equal(a, other, out=hits)))
            if newline == "\r\n":
                pairs += block.count(b"\r\n") + (before == 13 and block[0] == 10)
            at = np.flatnonzero(np.equal(a, q, out=hits))
            quotes += at.size
            last = block[-1]
            if not at.size:
                before = last
                continue
            ahead = stream.peek(2)[:2]
            left = _around(a, at - 1, before)
            right = _around(a, at + 1, before, ahead)
            if np.any(~edge[left] & ~edge[right]):
                return ByteScan(True, 0)
            # Whitespace before an empty quoted field (`1, "",2`): DuckDB's reader reads it as the
            # empty field, Arrow's and the careful reader as the text written.
            spaced = at[space[left] & (right == q)]
            if spaced.size and np.any(edge[_around(a, spaced + 2, before, ahead)]):
                return ByteScan(True, 0)
            # A quote at a field's start followed by whitespace may open a quoted blank.
            opening = at[edge[left] & space[right]]
            if opening.size and _quoted_blank(a, opening, edge, space, q, stream):
                return ByteScan(True, 0)
            before = last
    # An odd number of quotes: one opens a field and closes nowhere (`c,"` on the last line),
    # which Arrow reads to the end of the file, cells and all; the careful reader keeps it.
    # A CRLF file's every CR and LF pair up; a file of LF (or CR) lines holds no CR (or LF).
    breaks = others == lines == pairs if newline == "\r\n" else not others
    return ByteScan(quotes % 2 == 1, lines + (last != end) if breaks else None)


def _around(a: np.ndarray, at: np.ndarray, before: int, after: bytes = b"") -> np.ndarray:
    """The bytes at positions `at` of the chunk: `before` where one falls before it, the bytes
    `after` it where one falls past its end (a line end past those: the file's end)."""
    out = a[np.clip(at, 0, a.size - 1)]
    out[at < 0] = before
    past = at - a.size
    for k in range(max(int(past.max()) + 1, 0) if at.size else 0):
        out[past == k] = after[k] if k < len(after) else 10
    return out


def _quoted_blank(a, opening: np.ndarray, edge, space, q: int, stream) -> bool:
    """Whether some quote in `opening` (at a field's start, whitespace after it) encloses only
    whitespace up to a closing quote at the field's edge. Walks all of them a byte at a time
    together; the few that run off the chunk are finished on the next bytes (peeked, not read)."""
    tail = np.frombuffer(stream.peek(256)[:256], dtype=np.uint8)
    ahead = np.concatenate([a[-256:], tail]) if tail.size else a[-256:]
    offset = a.size - min(a.size, 256)  # where `ahead` starts in the chunk
    pos = opening + 1
    for _ in range(257):
        pos = pos + 1
        far = pos >= a.size
        if far.any():
            if _quoted_blank_ahead(ahead, pos[far] - offset, edge, space, q):
                return True
            pos = pos[~far]
        if not pos.size:
            return False
        byte = a[pos]
        closing = pos[byte == q]
        if closing.size:
            nxt = _around(a, closing + 1, 10, tail.tobytes())
            if np.any(edge[nxt]):
                return True
        pos = pos[space[byte]]
        if not pos.size:
            return False
    return False


def _quoted_blank_ahead(ahead: np.ndarray, pos: np.ndarray, edge, space, q: int) -> bool:
    """_quoted_blank's walk for the few quotes near the chunk's end, on `ahead`."""
    for p in pos.tolist():
        while p < ahead.size and space[ahead[p]]:
            p += 1
        if p < ahead.size and ahead[p] == q and (p + 1 >= ahead.size or edge[ahead[p + 1]]):
            return True
    return False
