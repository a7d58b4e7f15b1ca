"""Whether a line names the columns of the rows below it: a header's votes, and the titles and
names around a table (issue 54)."""

from __future__ import annotations

import re

from ..readings import quick_kind

YEAR = re.compile(r"1[0-9]{3}|2[0-9]{3}")
# What quick_kind calls a value (not text) when telling a header from data.
VALUE_KINDS = ("int", "number", "date", "time")


# What makes a line blank: ASCII whitespace only. A cell of a no-break space or another Unicode
# space (U+00A0, U+2000…) is something written there: its row is kept, not skipped as blank.
BLANK = " \t\r\n\f\v"


def is_blank(row: list[str]) -> bool:
    return not "".join(row).strip(BLANK)


def distinct_words(cells: list[str]) -> bool:
    """Whether every cell holds text, none empty, no two alike: a line that could name columns."""
    names = [c.strip() for c in cells]
    return all(names) and len(set(names)) == len(names) and all(quick_kind(c) == "text" for c in names)


def _years(data: list[list[str]], j: int) -> bool:
    """Whether the values below are years themselves (Alice,1990 over Bob,1985: data)."""
    values = [r[j].strip() for r in data if j < len(r) and r[j].strip()]
    return bool(values) and all(YEAR.fullmatch(v) for v in values)


def _numbers_rows(data: list[list[str]]) -> bool:
    """The first column counts the rows: 1, 2, 3 … (or 1., 2., 3.) down the data."""
    firsts = [r[0].strip().rstrip(".") if r else "" for r in data]
    return (
        bool(firsts)
        and all(f.isdigit() for f in firsts)
        and [int(f) for f in firsts] == list(range(int(firsts[0]), int(firsts[0]) + len(firsts)))
    )


# Rows below a header candidate under which, with no column's values voting, the header is asked.
TINY_FILE_ROWS = 5


def has_header(first: list[str], data: list[list[str]]) -> tuple[bool, bool]:
    """Is `first` a header? Returns (decision, whether it is clear enough to need no question)."""
    if not first:
        return False, True
    if not data:
        # One line only: a line of numbers or dates is data. A line of words is a header (a file
        # of no rows, as an empty export writes it) or a row of text: asked either way.
        kinds = {quick_kind(c) for c in first} - {"empty"}
        if kinds and kinds <= {"text"}:
            return True, False
        return False, "text" not in kinds
    votes_for = votes_against = 0
    for j, cell in enumerate(first):
        kinds = {quick_kind(r[j]) for r in data if j < len(r) and r[j].strip()}
        kinds.discard("empty")
        if kinds == {"int", "number"}:  # 1987 above 14718.2: both numbers
            kinds = {"number"}
        if len(kinds) != 1 or kinds == {"text"}:
            continue
        (kind,) = kinds
        head_kind = quick_kind(cell)
        if head_kind == "text":
            votes_for += 1
        elif head_kind == "int" and kind in ("int", "number") and YEAR.fullmatch(cell.strip()) and not _years(data, j):
            continue  # 2011 over 23.824 or 1200: a year is a common label over amounts
        elif head_kind == kind or (head_kind == "int" and kind == "number"):
            votes_against += 1
    if votes_for:
        return True, True
    if votes_against:
        return False, True
    below = data[0] if len(data) == 1 else []
    filled = [j for j, c in enumerate(first) if c.strip()]
    if filled and all(j < len(below) and quick_kind(below[j]) == "text" for j in filled):
        # Text over one line of text, cell for cell: nothing tells a header from a row. Read as
        # a row (no line is lost from the data) and asked.
        return False, False
    cells = [c.strip() for c in first]
    # Mostly values over columns that hold such values: a row of data (to be confirmed). A year
    # is a common label (2019, 2020 over amounts), and a number over flags is a label.
    values = sum(
        1
        for j, c in enumerate(cells)
        if quick_kind(c) in VALUE_KINDS
        and not YEAR.fullmatch(c)
        and any(j < len(r) and quick_kind(r[j]) in VALUE_KINDS for r in data)
    )
    if values * 2 > sum(1 for c in cells if c):
        return False, False
    named = [c for c in cells if c]
    # A blank over a column of row numbers (1, 2, 3: an index, as pandas writes one) names nothing
    # and says nothing against a header; any other blank leaves it open.
    index = not cells[0] and all(c for c in cells[1:]) and _numbers_rows(data)
    if (not all(cells) and not index) or len(set(named)) != len(named):
        return False, False
    seen_below = any(any(j < len(r) and r[j].strip() == c for r in data) for j, c in enumerate(cells))
    if len(cells) == 1 and _shape_of(cells[0]) in {_shape_of(r[0].strip()) for r in data if r}:
        # A list of one column, its first line written as its values are ('Ann' over 'Bob'):
        # a name of the list or its first value. Taken as the header, and asked.
        return True, False
    # In a tiny file (a few lines below the first) nothing voted: taken as the header, and asked.
    return True, not seen_below and len(data) >= TINY_FILE_ROWS


def _shape_of(text: str) -> str:
    """How a value is written, its letters and digits as classes: 'Ann' → 'Aa', 'city' → 'a',
    'B-12' → 'A-9' (each run of a class written once)."""
    out: list[str] = []
    for ch in text:
        mark = "A" if ch.isupper() else "a" if ch.isalpha() else "9" if ch.isdigit() else ch
        if not out or out[-1] != mark:
            out.append(mark)
    return "".join(out)


def filled(row: list[str]) -> int:
    return sum(1 for c in row if c.strip())


def past_titles(rows: list[list[str]], start: int, width: int) -> int:
    """Where the table starts when its first lines are titles padded with delimiters to its width
    (`Department for Work and Pensions,,,,,,`): lines of one filled cell of text, before a line
    of several filled cells that is a header over the rows below it. `start` otherwise."""
    i = start
    while i < len(rows) and (is_blank(rows[i]) or filled(rows[i]) == 1 and quick_kind(rows[i][0]) == "text"):
        i += 1
    if i == start or i >= len(rows) or len(rows[i]) != width or filled(rows[i]) < 2:
        return start
    data = [r for r in rows[i + 1 : i + 202] if len(r) == width and not is_blank(r)]
    return i if data and has_header(rows[i], data)[0] else start


def names_with_a_gap(line: list[str], rows: list[list[str]], width: int) -> tuple[list[str], bool] | None:
    """(names, clear) of a header one separator too many wide (`DATE,TIME,Qty,,PRODUCTID` over
    rows of four cells): its filled cells are as many as the rows' cells, distinct words that vote
    a header; the empty names are dropped. None otherwise."""
    names = [c.strip() for c in line if c.strip()]
    if len(line) <= width or len(names) != width or not distinct_words(names):
        return None
    named, clear = has_header(names, rows)
    return (names, clear) if named else None


def names_over_rows(line: list[str], rows: list[list[str]], width: int) -> bool | None:
    """Whether a header with more names than its rows have cells (`a,b,c,d` over `1,2,x`) is
    clear: None when `line` is no such header. Its names past the rows' width are words written
    as names are (no digit, no space before them: `, February 11 2017` ends a title, not a
    header), and those within it vote a header over the rows' values."""
    if len(line) <= width or not distinct_words([c for c in line if c.strip()]) or not distinct_words(line[:width]):
        return None
    if any(c != c.lstrip() or any(ch.isdigit() for ch in c) for c in line[width:] if c.strip()):
        return None
    named, clear = has_header(line[:width], rows)
    return clear if named else None


def stacked_names(uppers: list[list[str]], lower: list[str], data: list[list[str]]) -> list[str] | None:
    """One name per column of a header written over two or three rows, joined as a person writes
    it: group names over the names they span (`Water consumption,,` over `Total consumption
    (m3),Per head (l)`: "Water consumption Total consumption (m3)", "Water consumption Per head
    (l)"), or the header written again. `lower` is a clear header over `data`; each upper row
    holds only words and is no header of its own (a group leaves cells empty, or it is `lower`
    again). None otherwise."""
    # The tests on the header's own rows first: they read a row's cells, the two after them read
    # every row of the sample (a plain header fails here, never paying for those).
    if filled(lower) < 2 or not distinct_words([c for c in lower if c.strip()]):
        return None
    for upper in uppers:
        if len(upper) != len(lower) or not filled(upper):
            return None
        if any(quick_kind(c) != "text" for c in upper if c.strip()) or (upper != lower and filled(upper) == len(upper)):
            return None
    if has_header(lower, data) != (True, True) or not _over_values(lower, data):
        return None
    parts: list[list[str]] = [[] for _ in lower]
    for upper in uppers:
        group = ""
        for j, (above, name) in enumerate(zip(upper, lower)):
            above, name = above.strip(), name.strip()
            group = above or group  # a group name spans the empty cells to its right
            if group and group != name and group not in parts[j]:
                parts[j].append(group)
            if above and above == name:
                group = ""  # `Site` over `Site`: a name written again, no group
    names = [" ".join([*p, name.strip()]).strip() for p, name in zip(parts, lower)]
    return names if len(set(names)) == len(names) else None


def _over_values(names: list[str], data: list[list[str]]) -> bool:
    """Whether some name of text stands over a column of values (numbers, dates, times) only: the
    rows' values, not the lack of them, say `names` is a header."""
    for j, cell in enumerate(names):
        kinds = {quick_kind(r[j]) for r in data if j < len(r) and r[j].strip()} - {"empty"}
        if kinds and kinds <= set(VALUE_KINDS) and quick_kind(cell) == "text":
            return True
    return False


# A unit written under a column's name: in brackets (`(mV)`, `[EUR]`), or one of the symbols and
# codes a units row holds bare.
BRACKETED_UNIT = re.compile(r"[(\[][^()\[\]]{1,16}[)\]]")
BARE_UNITS = frozenset(
    "% ‰ € $ £ ¥ eur usd gbp chf jpy kg g mg t m cm mm km m2 m3 m² m³ km2 km² l ml hl s ms min h d "
    "mv v w kw kwh mwh °c °f k pa kpa hpa bar km/h m/s pcs units stück stk".split()
)


def is_unit(cell: str) -> bool:
    text = cell.strip()
    return bool(BRACKETED_UNIT.fullmatch(text)) or text.lower() in BARE_UNITS


def _units_over_values(units: list[str], data: list[list[str]]) -> bool:
    """Whether `units` is a row of units over the data: some cell filled, every filled cell a
    unit (is_unit) standing over a column of values (a unit says what a number counts)."""
    if not filled(units):
        return False
    for j, cell in enumerate(units):
        if not cell.strip():
            continue
        kinds = {quick_kind(r[j]) for r in data if j < len(r) and r[j].strip()} - {"empty"}
        if not is_unit(cell) or not kinds or not kinds <= set(VALUE_KINDS):
            return False
    return True


def header_over_rows(body: list[list[str]]) -> tuple[int, list[str]] | None:
    """(rows, names) of a header written over two or three rows at the top of `body`: group names
    over the names (stacked_names), or the header written twice, and under the names a row of
    their units (`Time,Reading` over `(s),(mV)`: "Time (s)", "Reading (mV)"), each name joined as
    a person writes it. None when the first row alone is the header (or no header)."""
    for n in (3, 2):  # the most rows that read as one header
        if len(body) <= n:
            continue
        data = body[n : n + 200]
        units = body[n - 1]
        if len(units) == len(body[n - 2]) and _units_over_values(units, data):
            names = stacked_names(body[: n - 2], body[n - 2], data)
            if names is not None:
                return n, [f"{name} {unit.strip()}".strip() for name, unit in zip(names, units)]
        names = stacked_names(body[: n - 1], body[n - 1], data)
        if names is not None:
            return n, names
    return None


def join_headers(rows: list[list[str]], width: int) -> list[str]:
    """One header text per column; two header rows are joined as `upper / lower`."""
    if not rows:
        return [""] * width
    out = []
    for j in range(width):
        parts = [r[j].strip() for r in rows if j < len(r) and r[j].strip()]
        out.append(" / ".join(parts))
    return out
