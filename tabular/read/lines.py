"""The lines of a delimited text as the careful reader takes them: each bounded in length, a NUL
or a comment after the values taken out, and the warnings that name the lines it happened on."""

from __future__ import annotations

from pathlib import Path

from ..errors import IngestFailed
from . import sniff

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


def bounded_lines(text, limit: int, damaged: list[int] | None = None, nuls: list[int] | None = None):
    """The text's lines, none longer than `limit` characters: a longer one fails the job
    (too_large) before it is parsed (a 200 MB line of two-character cells took 3.8 GB as one
    row of Python strings, holding the interpreter meanwhile). With `damaged`, the numbers of
    the lines holding U+FFFD (bytes a lenient decode replaced) are added to it; with `nuls`,
    those of the lines holding a NUL, which is taken out of the value (no store keeps it)."""
    number = 0
    while line := text.readline(limit + 1):
        if len(line) > limit:
            raise IngestFailed("too_large", f"a line is longer than {limit} characters (max_line_bytes)")
        number += 1
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
    """Whether the file's last line with anything in it could be a note (sniff.note_text)."""
    with path.open("rb") as f:
        f.seek(max(0, path.stat().st_size - TAIL_BYTES))
        tail = f.read().decode("utf-8", errors="ignore")
    lines = [line for line in tail.splitlines() if line.strip()]
    if not lines:
        return False
    records = sniff.records(lines[-1] + "\n", layout.delimiter, layout.quotechar)
    return bool(records) and sniff.note_text(records[-1], layout.width) is not None
