"""The extent a worksheet's cells span (its last row and its widest column), found in its XML as
the container check reads it, before calamine makes a grid of that extent.

calamine places a cell by the cell's own reference, read leniently: `r='c7'`, `r = "C007"` and
`<qq:c r="C7">` are all C7, and of two `r` attributes the last counts. So the extent is taken
from every reference, not from the rows': a cell `C300000` in `<row r="3">` is on row 300,000.

Most sheets write every reference ` r="B12"`, in capitals. A chunk of such references is
checked by one regex at C speed for one past the extent seen so far or written otherwise; only a
chunk where one is found is read tag by tag (where a cell without a reference stands after the
one before it, as calamine places it). A chunk read at C speed does not see such cells: their
columns are not counted there (a known gap: no spreadsheet writes them past another cell's
reference; closing it costs two more passes over every chunk).

"""

from __future__ import annotations

import re
from functools import lru_cache

from ...errors import IngestFailed
from .markup import LONG_TOKEN
from .rules import column_letter, column_number

# Any tag of a cell or a row, with or without a prefix, its attributes read with their quotes
# (a `>` may stand in a quoted value); group 3 is empty where the tag does not end in the text.
_TAG = re.compile(rb"""<(?:[A-Za-z_][\w.-]*:)?(row|c)(?=[\s/>])((?:[^"'>]|"[^"]*"|'[^']*')*)(>?)""")
_R = re.compile(rb"""(?:^|\s)r\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_REF = re.compile(rb"\s*([A-Za-z]*)\s*([0-9]*)")
# A reference this long is past any sheet (XFD is 3 letters, 1,048,576 is 7 digits), whatever the
# limits: refused by its length.
_REF_LETTERS, _REF_DIGITS = 3, 7
_LAST_REF = re.compile(rb' r="([A-Z]{0,3})([1-9][0-9]{0,6})"')  # at most XFD and 7 digits
# An `r` attribute a chunk read at C speed holds none of: a tab or a line break before it, a space
# before or after its `=`, a single quote. Only the attribute is looked at: a line break between
# rows, or an `=` in a formula or a text, leaves the chunk on the fast path.
_ODD_R = re.compile(rb"\sr\s+=|\sr=\s|\sr='|[\t\n\r]r=\"")
# Every odd `r` holds an `r=` not written ` r="`, or a white space just before an `=`: two counts
# and a find rule out most chunks at C speed before _ODD_R looks (it starts at every white space).
_SPACES = bytes.maketrans(b"\t\n\r\x0b\x0c", b"     ")


def _at_most(bound: str, alphabet: str, first: str) -> bytes:
    """A regex of the strings over `alphabet` (in order) no greater than `bound` read as a number
    in that alphabet, shorter ones first: `first` is the alphabet a string may start with."""
    high = alphabet[-1]
    parts = []
    if len(bound) > 1:
        parts.append(f"[{first[0]}-{first[-1]}][{alphabet[0]}-{high}]{{0,{len(bound) - 2}}}")
    for i, ch in enumerate(bound):
        lower = first if i == 0 else alphabet
        if ch != lower[0]:
            below = lower[: lower.index(ch)]
            rest = len(bound) - i - 1
            parts.append(
                bound[:i] + f"[{below[0]}-{below[-1]}]" + (f"[{alphabet[0]}-{high}]{{{rest}}}" if rest else "")
            )
    parts.append(bound)
    return "|".join(parts).encode()


@lru_cache(maxsize=64)
def _outside(columns: str, rows: str) -> re.Pattern:
    """A reference ` r="…"` that is not capitals within `columns` (none, for a row's) and a
    number within `rows`, without leading zeros."""
    letters = _at_most(columns, "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "ABCDEFGHIJKLMNOPQRSTUVWXYZ") if columns else b"(?!)"
    digits = _at_most(rows, "0123456789", "123456789") if rows != "0" else b"(?!)"
    return re.compile(rb' r="(?!(?:' + letters + rb")?(?:" + digits + rb')")')


def _odd_r(text: bytes, end: int) -> bool:
    """Whether text[:end] holds an `r` attribute _ODD_R finds."""
    if text.count(b"r=", 0, end) == text.count(b' r="', 0, end) and text.translate(_SPACES).find(b" =", 0, end) < 0:
        return False
    return _ODD_R.search(text, 0, end) is not None


class Extent:
    """Fed a worksheet's XML a chunk at a time (cut anywhere); `rows` and `columns`: the last row
    and the widest column its cells reach (1-based), as calamine places them; an empty cell
    (`<c r="X9"/>`, which calamine makes no cell of) is counted too, to be safe."""

    def __init__(self, part: str = ""):
        self.part = part
        self.rows = self.columns = 0
        self.row = 0  # the row the cells read last stand in (a cell without a reference goes there)
        self.column = 0  # the column of the cell read last in that row
        self.tail = b""

    def feed(self, chunk: bytes, final: bool = False) -> None:
        """Read the next chunk; `final` once the part has ended."""
        text, self.tail = self.tail + chunk, b""
        cut = len(text) if final else text.rfind(b"<")  # no needle this reads holds a `<` but its first
        cut = len(text) if cut < 0 else cut
        self.tail = text[cut:] if self._plain(text, cut) else self._cell_by_cell(text, final)
        if len(self.tail) > LONG_TOKEN:  # a tag, then text: read the tag, and the text holds no cell
            self.tail = self._cell_by_cell(self.tail, True, refuse=True)

    def _plain(self, text: bytes, end: int) -> bool:
        """Read text[:end] at C speed where its every `r` attribute is written ` r="…"`, in
        capitals, within the extent seen so far; False, with nothing read, where one is not (a
        tab or a line break between attributes, `r='…'`, `r = "…"`, a reference past the extent,
        `c7` or `C007`), and the chunk is read tag by tag. A reference of any element counts: a
        prefixed cell's, a second one's. Each look is one C-speed pass; most sheets pass all."""
        if _odd_r(text, end):  # r='…', r = "…", a tab or a line break before r="…"
            return False
        last = _LAST_REF.match(text, max(0, text.rfind(b' r="', 0, end)), end)
        rows, columns = self.rows, self.columns
        if last:
            rows = max(rows, int(last.group(2)))
            columns = max(columns, column_number(last.group(1).decode()) if last.group(1) else 0)
        if _outside(column_letter(columns), str(rows)).search(text, 0, end):
            return False
        self.rows, self.columns = rows, columns
        if last:
            self.row = int(last.group(2))
            self.column = column_number(last.group(1).decode()) if last.group(1) else 0
        return True

    def _cell_by_cell(self, text: bytes, final: bool, refuse: bool = False) -> bytes:
        """Every cell and row tag of the text, as calamine places them; answers the rest of the
        text, from a tag the text does not end, for the next chunk."""
        end = len(text)
        if not final:  # a tag cut short by the chunk's end, found by its `<`
            near = text.rfind(b"<", max(0, end - 64))
            end = near if near >= 0 else end
        for tag in _TAG.finditer(text, 0, end):
            if not tag.group(3) and (refuse or not final):
                if refuse:
                    raise IngestFailed(
                        "format_unavailable",
                        f"the workbook part {self.part} holds a tag over {LONG_TOKEN} bytes long, "
                        "which no spreadsheet writes",
                    )
                return text[tag.start() :]
            refs = _R.findall(tag.group(2))
            value = (refs[-1][0] or refs[-1][1]) if refs else None
            ref = _REF.match(value) if value is not None else None  # _REF matches any text, if only emptily
            letters, digits = ref.groups() if ref is not None else (b"", b"")
            digits = digits.lstrip(b"0") or (b"0" if digits else b"")
            if len(letters) > _REF_LETTERS or len(digits) > _REF_DIGITS:
                # Past any sheet's extent (XFD, 1,048,576) by its length alone: refused before a
                # number is made of it (a megabyte of letters would take minutes to add up, and
                # int() refuses over 4,300 digits).
                raise IngestFailed(
                    "too_large",
                    f"the workbook part {self.part} places a cell at a reference of "
                    f"{len(letters)} letters and {len(digits)} digits, past any sheet's extent",
                )
            if tag.group(1) == b"row":
                self.row = int(digits) if digits else self.row + 1
                self.column = 0
                continue  # a row makes no cell: its cells do
            row = int(digits) if digits else max(self.row, 1)
            column = column_number(letters.upper().decode()) if letters else self.column + 1
            self.row, self.column = row, column
            self.rows, self.columns = max(self.rows, row), max(self.columns, column)
        return text[end:]
