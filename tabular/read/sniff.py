"""Settle a delimited text's dialect and layout from its head: delimiter, preamble, header."""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from dataclasses import dataclass, replace

from ..readings import quick_kind
from .header import (
    VALUE_KINDS,
    distinct_words,
    has_header,
    header_over_rows,
    is_blank,
    names_over_rows,
    names_with_a_gap,
    past_titles,
)
from .quoting import bounded_by_quotes

DELIMITERS = (",", ";", "\t", "|", ":", "^", "~")
SNIFF_RECORDS = 2000
# Text that a ':' delimiter would cut in two: a clock (01:02:03, 2020-01-01 01:02) or a URL.
SPLITS_ON_COLON = re.compile(r"\d:\d\d|[A-Za-z]://")
# The delimiter of a fixed-width layout (its cells are cut at Layout.starts), and a column name
# in its first line (words apart by one space; columns apart by two or more).
FIXED = "fixed-width"
FIXED_NAME = re.compile(r"\S+(?: \S+)*")
# A line that separates sections (`-------- 2 - Sheet2`).
SEPARATOR = re.compile(r"[-=#*~_]{3,}")


@dataclass(frozen=True)
class Layout:
    """What the sniffer decided; every field can be overridden by ingest `options`."""

    delimiter: str
    quotechar: str
    newline: str  # "\r\n", "\n" or "\r"
    skip_records: int  # preamble records before the header (or the first data row)
    header_rows: int  # 0, 1 or 2
    width: int
    header_clear: bool  # False: a person should confirm the header row (a `header_row` question)
    starts: tuple[int, ...] = ()  # fixed-width columns (Excel's .prn): where each begins; delimiter is FIXED
    spaced: bool = False  # a space after each delimiter, before the quote: "int", "number"
    escapechar: str = ""  # "\\" where quotes inside quoted text are written \" (not RFC 4180's "")
    # Lines end in a comment after their values (`4;7 # checked`): see comment_suffix.
    comment_suffix: bool = False
    # One column because a ',' stands only between digits ('12,5' under 'price'): a judgement
    # a note says (two columns of whole numbers under a header of one name read the same).
    marks_in_numbers: str = ""
    # The header's names where they are not its cells as read (an empty name dropped), and what
    # the extraction says of the judgement (a title left out, a name dropped).
    names: tuple[str, ...] = ()
    said: tuple[str, ...] = ()


# A comment after a line's values: a `#` after a space, with no quote of the table's after it
# (`# it's Ann's` is a comment where `"` quotes; `"a # b",3` is a value).
COMMENT_SUFFIX = {q: re.compile(rf"(?<=\S)[ \t]+#[^{re.escape(q)}\r\n]*(?=\r?\n?$)") for q in ('"', "'")}


def strip_comment(line: str, quotechar: str = '"') -> str:
    """A line without the comment after its values (COMMENT_SUFFIX), its line end kept."""
    return COMMENT_SUFFIX[quotechar].sub("", line, count=1)


def _comment_suffix(lines: list[str], delimiter: str, quotechar: str, width: int) -> bool:
    """Whether the table's lines end in comments after their values (`4;7 # checked`): some do,
    each reads as a row of the table's width once the comment is taken out, and the value left
    before it is a number, a date or a time, as the column's other values are (a `#` in text,
    `Apt #5`, is text)."""
    if width < 2:
        return False
    if quotechar not in COMMENT_SUFFIX:
        return False
    commented = [line for line in lines if COMMENT_SUFFIX[quotechar].search(line)]
    if not commented:
        return False
    stripped = records("\n".join(strip_comment(line, quotechar) for line in commented), delimiter, quotechar)
    if any(len(row) != width for row in stripped):
        return False
    # The last column's kind, from every row once its comment is out (every row may hold one).
    every = records("\n".join(strip_comment(line, quotechar) for line in lines), delimiter, quotechar)
    kinds = Counter(_kind(r[-1]) for r in every if len(r) == width and r[-1].strip())
    column = kinds.most_common(1)[0][0] if kinds else None
    return column in VALUE_KINDS and all(_kind(row[-1]) == column for row in stripped)


def _kind(cell: str) -> str:
    """quick_kind, with integers and decimals one kind (a column of 7 and 7.5 is numbers)."""
    kind = quick_kind(cell)
    return "number" if kind == "int" else kind


def is_comment(row: list[str], width: int) -> bool:
    """A `#` line is a comment unless it has exactly the table's shape with cells after the first."""
    if not row or not row[0].lstrip().startswith("#"):
        return False
    return len(row) != width or not "".join(row[1:]).strip()


def records(head: str, delimiter: str, quotechar: str, spaced: bool = False, escapechar: str = "") -> list[list[str]]:
    # newline="": lines end at \r, \n or \r\n (old Mac files end at \r alone), kept as they are.
    reader = csv.reader(
        io.StringIO(head, newline=""),
        delimiter=delimiter,
        quotechar=quotechar,
        doublequote=True,
        strict=False,
        skipinitialspace=spaced,
        escapechar=escapechar or None,
    )
    out = []
    try:
        for row in reader:
            out.append(row)
            if len(out) >= SNIFF_RECORDS:
                break
    except csv.Error:
        pass
    return out


def _shape(records: list[list[str]]) -> tuple[float, int, int, int]:
    """(consistency, width, consistent rows, start) of a table read with one delimiter."""
    rows = [r for r in records if not is_blank(r)]
    widths = Counter(len(r) for r in rows if len(r) > 1)
    if not widths:
        return (0.0, 1, 0, 0)
    width, _ = max(widths.items(), key=lambda kv: (kv[1], kv[0]))
    narrow = width
    first = next((i for i, r in enumerate(records) if not is_blank(r)), None)
    ragged = first is not None and len({len(r) for r in records[first + 1 :] if len(r) > 1 and not is_blank(r)}) > 1
    if (
        ragged
        and first is not None
        and len(records[first]) > width
        and not is_comment(records[first], len(records[first]))
    ):
        # A first line wider than most rows, over rows of several widths, is a header over
        # ragged rows, not a preamble. (A title with commas over a regular table stays a title.)
        width = len(records[first])
    elif first is not None and _names_over(records[first], records[first + 1 : first + 202], width):
        # A line of names wider than the regular rows right under it (columns with no value
        # yet, or a trailing delimiter on the header) is their header, not a preamble: its rows
        # fit the table as much as rows of its own width do.
        narrow, width = width, len(records[first])
    start = next((i for i, r in enumerate(records) if len(r) == width and not is_comment(r, width)), None)
    if start is None:  # every row of that width is a `#` comment: no table reads this way
        return (0.0, width, 0, 0)
    body = [r for r in records[start:] if not is_blank(r) and not is_comment(r, width)]
    fit = sum(1 for r in body if len(r) in (width, narrow))
    return (fit / max(len(body), 1), width, fit, start)


def _names_over(first: list[str], below: list[list[str]], width: int) -> bool:
    """Whether `first`, wider than the table's `width`, names its columns: the rows right under
    it (no blank line between) have that width, the cells past it are names or empty (a trailing
    delimiter), each cell within it is a distinct word, and those words vote a header over the
    rows' values (has_header, clearly)."""
    if len(first) <= width or not below or len(below[0]) != width:
        return False
    if not distinct_words(first[:width]) or any(quick_kind(c) != "text" for c in first[width:] if c.strip()):
        return False
    if any(c != c.lstrip() or any(ch.isdigit() for ch in c) for c in first[width:] if c.strip()):
        return False  # `Created as New Dataset,Sample 022, February 11 2017`: a title, prose
    rows = [r for r in below if len(r) == width]
    return has_header(first[:width], rows) == (True, True)


# The most lines of titles and notes set apart by a blank line above a table (_past_a_title).
NOTES_ABOVE = 5


def _past_a_title(rows: list[list[str]], start: int, width: int) -> int:
    """Where the table starts when its first lines are set apart by a blank line from a clear
    header and its rows (`Quarterly report, 2024` and `Figures are provisional.`, blank, `id,amount`,
    values): after those titles and notes. Not where they read as rows of the table (two lines of
    its width holding values are a small table above another: the sniffer's `tabled` asks), nor
    where the header is among them (the same table written twice). `start` otherwise."""
    blank = next((i for i in range(start + 1, min(start + NOTES_ABOVE + 1, len(rows))) if is_blank(rows[i])), None)
    if blank is None or width < 2:  # one column: its lines above a blank line read as its rows do
        return start
    after = next((i for i in range(blank, len(rows)) if not is_blank(rows[i])), None)
    if after is None or len(rows[after]) != width or rows[after] in rows[start:blank]:
        return start
    valued = [r for r in rows[start:blank] if len(r) == width and any(quick_kind(c) in VALUE_KINDS for c in r)]
    if len(valued) > 1:
        return start
    data = [r for r in rows[after + 1 : after + 202] if len(r) == width and not is_blank(r)]
    return after if data and has_header(rows[after], data) == (True, True) else start


def _names_narrower(line: list[str], rows: list[list[str]], width: int) -> bool:
    """Whether `line`, right above a table of `width` columns and narrower than it, names its
    columns: two or more distinct words that vote a header over the rows' values, or one over
    rows whose other cells are all empty (a trailing delimiter)."""
    if not 1 <= len(line) < width or not distinct_words(line):
        return False
    if len(line) == 1 and any(c.strip() for r in rows for c in r[1:]):
        return False  # one name names the one column a trailing delimiter leaves ('1/2/2020,')
    return has_header([c.strip() for c in line] + [""] * (width - len(line)), rows)[0]


def newline_of(head: str) -> str:
    if "\r\n" in head:
        return "\r\n"
    if "\r" in head and "\n" not in head:
        return "\r"
    return "\n"


def sniff(head: str, delimiter: str | None = None, header_rows: int | None = None, quotechar: str = '"') -> Layout:
    """Choose the delimiter whose reading gives the most consistent table, then find its header;
    the lines left out before it are said (a title)."""
    layout = _sniff(head, delimiter, header_rows, quotechar)
    if layout.skip_records and layout.delimiter != FIXED:
        skipped = records(head, layout.delimiter, layout.quotechar, layout.spaced, layout.escapechar)
        written = [[c.strip() for c in r if c.strip()] for r in skipped[: layout.skip_records]]
        written = [cells for cells in written if cells]
        if written:
            k = layout.skip_records
            lines = "the line before the table" if k == 1 else f"the {k} lines before the table"
            shown = (" " if layout.delimiter == "\t" else layout.delimiter).join(written[0])
            shown = shown if len(shown) <= 80 else shown[:77] + "..."
            kind = (
                ("a comment" if k == 1 else "comments")
                if all(cells[0].startswith("#") for cells in written)
                else "its title"
                if len(written) == 1 or all(len(cells) == 1 for cells in written)
                else "titles and notes"
            )
            note = f"{lines} ({shown!r}) {'was' if k == 1 else 'were'} left out as {kind}, not read as rows"
            return replace(layout, said=(note, *layout.said))
    return layout


def _best_reading(head: str, choices: list[str], quotechar: str) -> tuple[str, list[list[str]], int, int, bool]:
    """The delimiter (and whether a space after it is skipped) whose reading of the head is the
    most consistent table: (delimiter, records, width, the table's first record, spaced)."""
    best = None
    # Each delimiter is a candidate as written and, where quoted values follow it after a space
    # (`a, "b; c", d`), also as `d ` with the space skipped: both readings are scored alike, so a
    # `;` inside every quoted value cannot win over the `, ` the file is written with.
    candidates = [(d, False) for d in choices]
    candidates += [(d, True) for d in choices if head.count(f"{d} {quotechar}") >= 2]
    for i, (d, spaced) in enumerate(candidates):
        rows = records(head, d, quotechar, spaced=spaced)
        consistency, width, fit, start = _shape(rows)
        # Prefer the reading whose table is consistent and covers the file's lines (a last line
        # 'Source: internal records' is one consistent row under ':', beside six under ','),
        # then many well-formed rows, then wide rows, then the usual delimiters.
        filled = sum(1 for r in rows if not is_blank(r)) or 1
        # A reading whose cells hold another delimiter is that much less a table: by `;` a comma
        # export whose every row says 'clip; type what you hear' reads as three regular columns
        # of comma-joined text, where by `,` it is nine columns of values with ragged ends.
        strays = _strays(rows[:201], d, quotechar)
        cells = sum(len(r) for r in rows[:201] if not is_blank(r)) or 1
        clean = 1.0 - strays / cells
        score = round(consistency * min(fit / filled, 1.0) * clean, 2) if width > 1 else 0.0
        # Among readings as good, the one whose cells hold no other delimiter: 'x;1,5' is 'x'
        # and '1,5' (a decimal comma), not 'x;1' and '5'; then the reading as written.
        key = (score, -strays, fit, width, not spaced, -i)
        if best is None or key > best[0]:
            best = (key, d, rows, width, start, spaced)
    assert best is not None, "no delimiter to try"  # `choices` is never empty
    return best[1:]


def _sniff(head: str, delimiter: str | None, header_rows: int | None, quotechar: str) -> Layout:
    choices = [delimiter] if delimiter else [d for d in DELIMITERS if d != ":" or not SPLITS_ON_COLON.search(head)]
    # Fields bounded by quote, delimiter, quote on every line: that delimiter and quote, whatever
    # the quoted text holds (a `;` in every line of a `"HITId","Title"` export).
    bounded = bounded_by_quotes(head, choices) if quotechar == '"' else None
    if bounded is not None:
        choices, quotechar = [bounded[0]], bounded[1]
    chosen, rows, width, start, spaced = _best_reading(head, choices, quotechar)
    # `"int", "number"`: quoted values each after a delimiter and a space, never right after one.
    if not spaced:
        spaced = head.count(f"{chosen} {quotechar}") >= 2 and f"{chosen}{quotechar}" not in head
    if spaced:
        rows = records(head, chosen, quotechar, spaced=True)
        _, width, _, start = _shape(rows)  # quoted cells holding `, ` split no more
    escape = _backslash_escaped(head, chosen, quotechar, rows) if width > 1 and not spaced else ""
    if escape:
        rows = records(head, chosen, quotechar, escapechar=escape)
        start = _shape(rows)[3]  # the same width (see _backslash_escaped), records that may differ
    elif width > 1 and not spaced:
        fitter = _quoting_that_fits(head, chosen, quotechar, rows)
        if fitter is not None:
            quotechar, escape = fitter
            rows = records(head, chosen, quotechar, escapechar=escape)
            _, width, _, start = _shape(rows)
    marks = chosen if width > 1 and not delimiter and _marks_in_numbers(head, chosen) else ""
    if marks or width > 1 and not delimiter and _a_list(rows, width, start):
        width = 1  # '12,5' under a header 'price', or 'Washington, D.C.' in a list: one column
    starts = _fixed_starts(head) if width <= 1 and not delimiter else ()
    if starts:
        rows = fixed_records(head, starts)
        body = [r for r in rows if not is_blank(r)]
        if header_rows is not None:
            return Layout(FIXED, quotechar, newline_of(head), 0, header_rows, len(starts), True, starts)
        named, clear = has_header(body[0], body[1:201])
        return Layout(FIXED, quotechar, newline_of(head), 0, 1 if named else 0, len(starts), clear, starts)
    if width <= 1:
        # One column: every line is a value; the first non-blank line may be a header. Read
        # with a delimiter the text does not hold, so no value is split.
        chosen = delimiter or next((d for d in (",", "|", ";", "\x1f") if d not in head), ",")
        rows = records(head, chosen, quotechar)
        start = next((i for i, r in enumerate(rows) if not is_blank(r)), 0)
        width = 1
    start = past_titles(rows, _past_a_title(rows, start, width), width)
    body = [r for r in rows[start:] if not is_blank(r) and not is_comment(r, width) and len(r) == width]
    below = [r for r in rows[start + 1 :] if not is_blank(r)]
    if len(body) == 1 and below and _names_over(body[0], below[:201], len(below[0])):
        # A header wider than every row (see _names_over): its rows, padded, are what it names.
        body += [r + [""] * (width - len(r)) for r in below if len(r) < width]
    if header_rows is None and 0 < start <= len(rows) and _names_narrower(rows[start - 1], body[:201], width):
        # A line of names right above rows wider than it: their header, not a preamble. Which
        # columns it names (the first, the last) the file does not say: asked, the first held.
        return Layout(chosen, quotechar, newline_of(head), start - 1, 1, width, False, spaced=spaced, escapechar=escape)
    if header_rows is not None:
        return Layout(
            chosen, quotechar, newline_of(head), start, header_rows, width, True, spaced=spaced, escapechar=escape
        )
    wider = _header_wider(rows, start, width, body[:201])
    if wider is not None:
        return replace(
            wider, delimiter=chosen, quotechar=quotechar, newline=newline_of(head), spaced=spaced, escapechar=escape
        )
    over = header_over_rows(body)
    if over is not None:
        stacked, joined = over
        # A group name over the names (or the header written twice, or units under it): one name
        # per column, joined as a person writes it, and asked (how many rows the header takes is a
        # judgement).
        said = (
            f"the header is written over {stacked} rows: each column's name joins them "
            "(a group over a name, a unit under it)",
        )
        return Layout(
            chosen,
            quotechar,
            newline_of(head),
            start,
            stacked,
            width,
            False,
            spaced=spaced,
            escapechar=escape,
            names=tuple(joined),
            said=said,
        )
    named, clear = has_header(body[0] if body else [], body[1:201])
    if named and body and body[0] in body[1:]:
        clear = False  # the header again further down: another table follows (or the same, repeated)
    if _sections(rows[:start], rows[start:]):
        clear = False
    # A preamble is titles and notes; rows of several filled cells before the table look like
    # another table (two sheets in one export): skipped, but a person is asked.
    tabled = sum(1 for r in rows[:start] if sum(1 for c in r if c.strip()) >= 2)
    data_lines = [line for line in _lines(head)[start + (1 if named else 0) :] if line.strip()]
    return Layout(
        chosen,
        quotechar,
        newline_of(head),
        start,
        1 if named else 0,
        width,
        clear and tabled < 2,
        spaced=spaced,
        escapechar=escape,
        comment_suffix=not escape and _comment_suffix(data_lines[:SNIFF_RECORDS], chosen, quotechar, width),
        marks_in_numbers=marks,
    )


# Another delimiter inside a cell, but not a mark between digits (12,5 or 1,250) nor a comma
# before a space ('Sep 16, 2000', 'Washington, D.C.'), which text holds.
_STRAY = {
    d: re.compile(
        "|".join([re.escape(o) for o in ";\t|" if o != d] + ([] if d == "," else [r"(?<!\d),(?! )|,(?!\d| )"]))
    )
    for d in DELIMITERS
}


def _strays(rows: list[list[str]], d: str, quotechar: str = '"') -> int:
    """How many cells of a reading by `d` hold another delimiter (_STRAY), or the quote mark
    (a quoted value the reading cut in two leaves its quote inside a cell: `1XK, "say`)."""
    stray = _STRAY[d]
    return sum(1 for row in rows for cell in row if stray.search(cell) or quotechar in cell or _joined_numbers(cell, d))


def _joined_numbers(cell: str, d: str) -> bool:
    """Whether a cell read by a delimiter other than ',' holds numbers joined by commas
    (`write 0,12,5`): two commas between digits, in a cell that is no number itself (`1,250,000`
    and `12,5` are numbers, `Größe 1,5 m` holds one)."""
    return d != "," and len(_DIGIT_COMMA.findall(cell)) >= 2 and quick_kind(cell) not in ("int", "number")


_DIGIT_COMMA = re.compile(r"(?<=\d),(?=\d)")


def _a_list(rows: list[list[str]], width: int, start: int) -> bool:
    """Whether a reading of `width` columns from row `start` is a list of one column whose few
    values hold the delimiter ('Washington, D.C.'): its table is one line under lines of one
    cell only, or more lines of one cell run among its rows than it has rows. (A preamble is lines
    before the table; a table's ragged rows still hold the delimiter.)"""
    filled = [r for r in rows[start:] if not is_blank(r) and not is_comment(r, width)]
    fit = sum(1 for r in filled if len(r) == width)
    single = sum(1 for r in filled if len(r) == 1)
    before = [len(r) for r in rows[:start] if not is_blank(r) and not is_comment(r, width)]
    return (fit <= 1 and bool(before) and max(before) == 1) or single > fit


def _marks_in_numbers(head: str, d: str) -> bool:
    """Whether `d` stands only between two digits, on every line that holds it, under a first
    line that holds none (a header narrower than every row): then it is a decimal or thousands
    mark inside one column of numbers ('12,5', '1,250,000.75'), not a delimiter. Without such
    a header, only where every line is a value that holds it (_whole_values)."""
    lines = [line for line in _lines(head) if line.strip()]
    if d != "," or len(lines) < 2:
        return False  # of the delimiters, only ',' is also a number's mark
    if d in lines[0]:
        return _whole_values(lines)
    between = re.compile(rf"(?<=\d){re.escape(d)}(?=\d)")
    held = [line for line in lines[1:] if d in line]
    if held and all(line.count(d) == len(between.findall(line)) for line in held):
        return True
    return bool(held) and _whole_values(held)


# Thousands groups: a ',' before three digits and then no more digits ('$62,792.74', '1,250');
# or one decimal comma after digits grouped by another mark ('123 456,78', '1.234,5').
_GROUPED = re.compile(r"(?<=\d),\d{3}(?!\d)")
_DECIMAL_AFTER_GROUPS = re.compile(r"[^\d,]*\d{1,3}(?:[ .\u00a0\u202f']\d{3})+,\d+[^\d,]*")


def _whole_values(lines: list[str]) -> bool:
    """Whether a list with no header is one column whose every line holds a ',' as a value does:
    every line is a date ('Mar 13, 2009'), a number whose every ',' groups thousands, or one
    whose one ',' is a decimal mark after digits grouped by another mark ('123 456,78')."""
    kinds = {quick_kind(line.strip()) for line in lines}
    if kinds == {"date"}:
        return True
    if all(_DECIMAL_AFTER_GROUPS.fullmatch(line.strip()) for line in lines):
        return True
    return kinds <= {"int", "number"} and all(line.count(",") == len(_GROUPED.findall(line)) for line in lines)


def _backslash_escaped(head: str, delimiter: str, quotechar: str, plain: list[list[str]]) -> str:
    """ "\\" when the text writes quotes inside quoted cells as \" (`"\"Likwit\""`), which an RFC 4180
    reading leaves as stray backslashes and quotes in the cells; "" otherwise. Chosen only where
    the escaped reading is as regular as the plain one and leaves no such cell."""
    mark = "\\" + quotechar
    if head.count(mark) < 2:
        return ""
    stray = sum(1 for row in plain for cell in row if mark in cell or cell.startswith("\\"))
    if not stray:
        return ""
    escaped = records(head, delimiter, quotechar, escapechar="\\")
    before, after = _shape(plain), _shape(escaped)
    left = sum(1 for row in escaped for cell in row if mark in cell)
    return "\\" if after[1] == before[1] and after[0] >= before[0] and left < stray else ""


def _quoting_that_fits(head: str, delimiter: str, quotechar: str, plain: list[list[str]]) -> tuple[str, str] | None:
    """(quote, escape) of another way of quoting the text writes, when it reads the head as a more
    regular table: values in single quotes (`'Smith, John'`), or a delimiter escaped with a
    backslash (`Smith\\, John`). More regular: as consistent or more, and either more so or with
    fewer lines before the table (a header the plain reading splits differently from its rows
    was taken for a preamble). None when the plain reading is as good."""
    tried = []
    lines = _lines(head)
    opened = head.count(f"{delimiter}'") + sum(1 for line in lines if line.startswith("'"))
    closed = head.count(f"'{delimiter}") + sum(1 for line in lines if line.endswith("'"))
    if opened >= 2 and closed >= 2:
        tried.append(("'", ""))
    # Values each wrapped whole in single quotes ('Lager Süd') and no value opened by one it does
    # not close ('tis): the quotes are the file's quoting, even where the plain reading splits
    # the rows as well (no delimiter inside them), and are not part of the values.
    wrapped = sum(1 for r in plain for c in r if len(c) >= 2 and c[0] == c[-1] == "'")
    half = sum(1 for r in plain for c in r if (c[:1] == "'") != (c[-1:] == "'"))
    quoted_whole = wrapped >= 2 and half == 0
    if head.count("\\" + delimiter) >= 2:
        tried.append((quotechar, "\\"))
    before = _shape(plain)
    best = None
    for quote, escape in tried:
        read = records(head, delimiter, quote, escapechar=escape)
        if quote == "'" and any("\n" in c or "\r" in c for r in read for c in r):
            continue  # an apostrophe ('tis … James') quoting across lines: rows swallowed, not values
        after = _shape(read)
        better = after[0] > before[0] + 0.01 or (after[0] >= before[0] and after[3] < before[3])
        if quote == "'" and quoted_whole and after[:2] == before[:2]:
            better = True  # as regular a table, with the quotes out of the values
        if after[1] > 1 and better and (best is None or after[:3] > best[0][:3]):
            best = (after, (quote, escape))
    return best[1] if best else None


def _lines(text: str) -> list[str]:
    return re.split(r"\r\n|\r|\n", text)


def cut(line: str, starts: tuple[int, ...]) -> list[str]:
    """A fixed-width line cut at the column starts, each cell trimmed."""
    return [line[a:b].strip() for a, b in zip(starts, (*starts[1:], None))]


def fixed_records(text: str, starts: tuple[int, ...]) -> list[list[str]]:
    return [cut(line, starts) for line in _lines(text)[:SNIFF_RECORDS]]


def _runs_across(before: str, after: str) -> bool:
    """Whether one value seems to run across a column start: no space either side, and no
    change from a right-aligned number to the next column's text (1234.50first)."""
    if before == " " or after == " ":
        return False
    return not (before.isdigit() and after.isalpha())


def crosses(line: str, starts: tuple[int, ...]) -> bool:
    """Whether some value of a fixed-width line may run across a column start: cut there, it
    could be split in two, so the line is rejected rather than read."""
    return any(len(line) > s and _runs_across(line[s - 1], line[s]) for s in starts[1:])


def _fixed_starts(head: str) -> tuple[int, ...]:
    """Where the columns of a fixed-width text begin (Excel's "Formatted Text (Space delimited)"),
    read off its first line: names apart by two spaces or more, and below them, in nine lines of
    ten, no value across a column's start (see crosses: numbers are right-aligned) and values in
    two columns or more. () when the text is not laid out so."""
    lines = [line for line in _lines(head)[:SNIFF_RECORDS] if line.strip()]
    if len(lines) < 3:
        return ()
    starts = tuple(m.start() for m in FIXED_NAME.finditer(lines[0]))
    if len(starts) < 3:
        return ()
    data = lines[1:]
    need = 0.9 * len(data)
    if sum(1 for line in data if not crosses(line, starts)) < need:
        return ()
    filled = sum(1 for line in data if sum(1 for c in cut(line, starts) if c) >= 2)
    return starts if filled >= need else ()


def _sections(preamble: list[list[str]], rest: list[list[str]]) -> bool:
    """A separator line (`-------- 1 - Sheet1`) above the table comes again below it: the file
    holds several tables one after another."""

    def marks(rows: list[list[str]]) -> set[str]:
        lone = [r[0].strip() for r in rows if r and r[0].strip() and not "".join(r[1:]).strip()]
        return {m.group(0) for text in lone if (m := SEPARATOR.match(text))}

    above = marks(preamble)
    return bool(above and above & marks(rest))


def _header_wider(rows: list[list[str]], start: int, width: int, body: list[list[str]]) -> Layout | None:
    """The header right above the table when it is wider than its rows: one separator too many
    (an empty name, dropped and said) or more names than cells (kept over empty columns, said,
    asked where the rows' values do not tell). None when the line above is no such header (a
    title, a preamble). The Layout's dialect fields are the caller's to fill."""
    if start < 1 or is_blank(rows[start - 1]) or len(rows[start - 1]) <= width:
        return None
    line = rows[start - 1]
    gap = names_with_a_gap(line, body, width)
    if gap is not None:
        names, clear = gap
        empty = [str(j + 1) for j, c in enumerate(line) if not c.strip()]
        said = (
            f"the header has an empty name (column {', '.join(empty)}) where its rows have one cell fewer: "
            f"the empty name was dropped, the names kept in order",
        )
        return Layout("", "", "", start - 1, 1, width, clear, names=tuple(names), said=said)
    over = names_over_rows(line, body, width)
    if over is None:
        return None
    said = (
        f"the header names {len(line)} columns where its rows have {width} cells: the names past them are kept, their columns empty",
    )
    return Layout("", "", "", start - 1, 1, len(line), over, said=said)
