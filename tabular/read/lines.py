"""The lines of a delimited text as the careful reader takes them: each bounded in length, a NUL
or a comment after the values taken out, the warnings that name the lines it happened on, and
which trailing lines are notes after the table rather than rows; a fixed-width text's lines as
rows (FixedReader); and the account of where every line of the file went (LineAccount)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import IngestFailed, Internal
from ..readings import quick_kind
from . import sniff
from .totals import is_total_cells

# Lines a warning names by number; the rest are counted.
NAMED_LINES = 5


def lines_hold(lines: list[int]) -> str:
    """The start of a warning about some lines: '3 lines (lines 2, 5, 9) hold', '1 line (line 4) holds'."""
    shown = ", ".join(str(n) for n in lines[:NAMED_LINES]) + (", …" if len(lines) > NAMED_LINES else "")
    many = len(lines) != 1
    return (
        f"{len(lines)} line{'s' if many else ''} ({'lines' if many else 'line'} {shown}) {'hold' if many else 'holds'}"
    )


def undecodable_note(lines: list[int], encoding: str) -> str:
    """The warning for lines whose bytes do not decode under the file's settled encoding."""
    return (
        f"{lines_hold(lines)} bytes that are not {encoding}: each such byte was read as \ufffd "
        f"and the rest of the file as {encoding}; if the file is in another encoding, ingest again with options.encoding"
    )


def nul_note(lines: list[int]) -> str:
    """The warning for lines that held a NUL character (taken out of their values)."""
    return f"{lines_hold(lines)} a NUL character: it was taken out of the value, the row kept"


def comments_note(lines: list[int]) -> str:
    """The warning for lines that ended in a comment after their values (sniff.comment_suffix)."""
    return f"{lines_hold(lines)} a comment after the values (`# …`): taken out of the row"


def quotes_note(lines: list[int], quote: str) -> str:
    """The warning for lines whose quotes did not close at a field's edge (read/quoting.py)."""
    return (
        f"{lines_hold(lines)} a {quote} that does not close at a field's edge: read with {quote} as quoting "
        f"only at a field's edges, other {quote} kept as written"
    )


def bounded_lines(
    text,
    limit: int,
    damaged: list[int] | None = None,
    nuls: list[int] | None = None,
    account: LineAccount | None = None,
):
    """The text's lines, none longer than `limit` characters: a longer one fails the job
    (too_large) before it is parsed (a 200 MB line of two-character cells took 3.8 GB as one
    row of Python strings, holding the interpreter meanwhile). With `damaged`, the numbers of
    the lines holding U+FFFD (bytes a lenient decode replaced) are added to it; with `nuls`,
    those of the lines holding a NUL, which is taken out of the value (no store keeps it). With
    `account`, its `lines` follow the lines given."""
    number = 0
    while line := text.readline(limit + 1):
        if len(line) > limit:
            raise IngestFailed("too_large", f"a line is longer than {limit} characters (max_line_bytes)")
        number += 1
        if account is not None:
            account.lines = number
        if damaged is not None and "\ufffd" in line:
            damaged.append(number)
        if nuls is not None and "\x00" in line:
            nuls.append(number)
            line = line.replace("\x00", "")
        yield line


def without_comments(lines, commented: list[int], quotechar: str = '"'):
    """The lines with the comment after their values taken out (sniff.comment_suffix), the
    numbers of the lines that held one added to `commented`."""
    for number, line in enumerate(lines, start=1):
        kept = sniff.strip_comment(line, quotechar)
        if kept != line:
            commented.append(number)
        yield kept


TAIL_BYTES = 64 << 10


def ends_in_words(path: Path, layout: sniff.Layout) -> bool:
    """Whether the file's last line with anything in it could be a note (note_text) or a total
    row (read/totals.py): the careful reader weighs either, the fast ones read every line as a row."""
    with path.open("rb") as f:
        f.seek(max(0, path.stat().st_size - TAIL_BYTES))
        tail = f.read().decode("utf-8", errors="ignore")
    lines = [line for line in tail.splitlines() if line.strip()]
    if not lines:
        return False
    records = sniff.records(lines[-1] + "\n", layout.delimiter, layout.quotechar)
    return bool(records) and (
        note_text(records[-1], layout.width, layout.delimiter) is not None or is_total_cells(records[-1])
    )


# A note after a table ("Report created October 10", "Source: national statistics office") is a
# line of words in the first cell alone. At least this many words where the first column holds
# words too (a name alone on a last row is a row).
NOTE_WORDS = 3


def note_text(row: list[str], width: int, delimiter: str = ",") -> str | None:
    """The words of a line that could be a note after a table: in a table of two columns or more,
    only its first cell is filled, with words (letters and a space), or the cells after it each
    begin with a space, as prose goes on after a comma (`Source: City statistics office, 2021`).
    None for any other line. Whether it is one is decided at the table's end (`is_note`)."""
    if width < 2 or not row or len(row) > width:
        return None
    text = row[0].strip()
    if " " not in text or not any(ch.isalpha() for ch in text):
        return None
    rest = [c for c in row[1:] if c.strip()]
    if rest and not all(c[:1] == " " for c in rest):
        return None
    return delimiter.join([text, *(c.rstrip() for c in row[1:] if c.strip())]) if rest else text


def is_note(text: str, column: FirstColumn, apart: bool) -> bool:
    """Whether a candidate line after the table's last row (note_text) is a note rather than a
    row: set `apart` from the rows by a blank or comment line, with words that stand out of the
    first column's values: those are mostly not words (numbers, dates, codes without a space),
    or it has NOTE_WORDS words or more and is longer than every one of them. A line right under
    the last row (a product with no price yet, a task with no owner) is a row: kept, it is at
    worst a value its column asks about, where left out it would be a row lost."""
    if not apart:
        return False
    if column.values and column.worded * 2 < column.values:
        return True
    return len(text.split()) >= NOTE_WORDS and len(text) > column.longest


@dataclass
class FirstColumn:
    """What a note after a table is weighed against: the first cells of the table's rows."""

    values: int = 0  # rows with a first cell
    worded: int = 0  # of them, cells of words with a space (as a note is)
    longest: int = 0

    def add(self, cell: str | None) -> None:
        """Count one row's first cell (kinds over the first FIRST_COUNTED rows; lengths over all)."""
        if not cell:
            return
        self.longest = max(self.longest, len(cell.strip()))
        if self.values < FIRST_COUNTED and (text := cell.strip()):
            self.values += 1
            self.worded += " " in text and quick_kind(text) == "text"


FIRST_COUNTED = 10_000


@dataclass
class LineAccount:
    """Where every line of a delimited file went (issue 54): a data row (rejected ones included),
    a header or preamble line, a blank or comment line, a row left out and named in a warning (a
    note, a total row), or a line past a record's first (a quoted value over several lines). The
    reader counts as it goes; `check` adds up once the file is read: a line in none of them was
    lost without a word, which is a bug."""

    lines: int = 0  # lines the file gave (bounded_lines)
    preamble: int = 0
    header: int = 0
    blank: int = 0
    comment: int = 0
    rows: int = 0
    left_out: int = 0
    joined: int = 0

    def check(self, name: str) -> None:
        """Raises Internal, naming the counts, where they do not add up to the file's lines."""
        parts = ("preamble", "header", "blank", "comment", "rows", "left_out", "joined")
        said = sum(getattr(self, p) for p in parts)
        if said != self.lines:
            counts = ", ".join(f"{p} {getattr(self, p)}" for p in parts)
            raise Internal(
                f"this is a bug: {name!r} has {self.lines} lines but the reader accounts for {said} ({counts}); "
                "a line would be lost without a word, so nothing was published"
            )


class FixedReader:
    """Lines of a fixed-width text as rows, like csv.reader (line_num counts the lines read)."""

    def __init__(self, text, starts: tuple[int, ...]):
        self.lines = iter(text)
        self.starts = starts
        self.line_num = 0

    def __iter__(self):
        return self

    def __next__(self) -> list[str]:
        line = next(self.lines).rstrip("\r\n")
        self.line_num += 1
        cells = sniff.cut(line, self.starts)
        return Crossing(cells, line) if sniff.crosses(line, self.starts) else cells


class Crossing(list):
    """A fixed-width line where a value may run across a column start (see sniff.crosses)."""

    def __init__(self, cells: list[str], line: str):
        super().__init__(cells)
        self.line = line


def header_records(records, reader, layout: sniff.Layout, account: LineAccount) -> list[list[str]]:
    """The header's rows, past the preamble; the lines they took counted into `account`."""
    for _ in range(layout.skip_records):
        if next(records, None) is None:
            break
    last_line = account.preamble = reader.line_num
    header_cells: list[list[str]] = []
    while len(header_cells) < layout.header_rows:
        row = next(records, None)
        if row is None:
            break
        account.joined += reader.line_num - last_line - 1
        last_line = reader.line_num
        if sniff.is_blank(row) or sniff.is_comment(row, layout.width):
            account.blank += sniff.is_blank(row)
            account.comment += not sniff.is_blank(row)
            continue
        header_cells.append(row)
    account.header = len(header_cells)
    return header_cells
