"""What a workbook's first rows say of each column that fastexcel's cells do not (text cells,
dates, times of day, elapsed times, number formats and their units): from an .xlsx's sheet XML
and styles, from an .xls's typed values (python-calamine); and the one check, over every cell
as the container check reads the sheet, that a column's unit holds below those rows."""

from __future__ import annotations

import datetime as dt
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import defusedxml.ElementTree as ET

from .markup import GuardedStream
from .rules import column_letter, column_number, unit_of
from .typed import HEAD_ROWS, Head

HINT_ROWS = 200
# The number formats Excel numbers without writing them in styles.xml (numFmtId 0-49), and which
# of them show a date or a time: openpyxl's table and rule (openpyxl.styles.numbers), kept here
# so that the fast reader does not import openpyxl (0.3 s on its path).
BUILTIN_FORMATS = {
    0: "General", 1: "0", 2: "0.00", 3: "#,##0", 4: "#,##0.00",
    5: '"$"#,##0_);("$"#,##0)', 6: '"$"#,##0_);[Red]("$"#,##0)',
    7: '"$"#,##0.00_);("$"#,##0.00)', 8: '"$"#,##0.00_);[Red]("$"#,##0.00)',
    9: "0%", 10: "0.00%", 11: "0.00E+00", 12: "# ?/?", 13: "# ??/??",
    14: "mm-dd-yy", 15: "d-mmm-yy", 16: "d-mmm", 17: "mmm-yy", 18: "h:mm AM/PM", 19: "h:mm:ss AM/PM",
    20: "h:mm", 21: "h:mm:ss", 22: "m/d/yy h:mm",
    37: "#,##0_);(#,##0)", 38: "#,##0_);[Red](#,##0)", 39: "#,##0.00_);(#,##0.00)", 40: "#,##0.00_);[Red](#,##0.00)",
    41: r'_(* #,##0_);_(* \(#,##0\);_(* "-"_);_(@_)',
    42: r'_("$"* #,##0_);_("$"* \(#,##0\);_("$"* "-"_);_(@_)',
    43: r'_(* #,##0.00_);_(* \(#,##0.00\);_(* "-"??_);_(@_)',
    44: r'_("$"* #,##0.00_)_("$"* \(#,##0.00\)_("$"* "-"??_)_(@_)',
    45: "mm:ss", 46: "[h]:mm:ss", 47: "mmss.0", 48: "##0.0E+0", 49: "@",
}  # fmt: skip
# Quoted text, and [brackets] other than [h], [mm], [ss] (colors, locales), are no date parts.
_NOT_DATE_PARTS = re.compile(r'".*?"|\[(?!hh?\]|mm?\]|ss?\])[^\]]*\]')


def is_date_format(fmt: str | None) -> bool:
    """Whether a number format shows a date or a time (its first section holds d, m, h, y or s
    outside quotes and brackets, not escaped): openpyxl's is_date_format."""
    if fmt is None:
        return False
    return re.search(r"(?<![_\\])[dmhysDMHYS]", _NOT_DATE_PARTS.sub("", fmt.split(";")[0])) is not None


_TIME_IN_FORMAT = re.compile(r"[hHs]")
# A format that shows a date: a year, a day, or a month (m after h or before s is minutes).
_DATE_IN_FORMAT = re.compile(r"[yYdD]|(?<![hH:mM])[mM]+(?![mM]*:?[sS])")
# Elapsed time: [h]:mm, [mm]:ss.
_ELAPSED = re.compile(r"\[(?:h+|m+|s+)\]", re.IGNORECASE)
# Quoted text, escaped characters, [colors and locales], and AM/PM, before looking for a date.
_QUOTED = re.compile(r'"[^"]*"|\\.|\[[^\]]*\]|AM/PM|A/P', re.IGNORECASE)


@dataclass
class Hint:
    """What the first rows of a sheet column say about its cells."""

    kinds: set[str] = field(default_factory=set)  # "s", "n", "d", "b" below the first filled cell
    time: bool = False
    clock: bool = True  # every date cell's format shows a time of day alone (hh:mm), no date
    elapsed: bool = False  # a date cell's format shows elapsed time ([h]:mm): a duration
    units: set = field(default_factory=set)  # each number cell's unit (None: no unit)
    header: int = 0  # the sheet row (1-based) of the column's first filled cell

    def see(self, kind: str, fmt: str) -> None:
        """Count one cell below the header: its kind (t=) and its number format."""
        if kind in ("s", "str", "inlineStr"):
            self.kinds.add("s")
        elif kind == "b":
            self.kinds.add("b")
        elif kind == "n" and is_date_format(fmt):
            self.kinds.add("d")
            self.time = self.time or bool(_TIME_IN_FORMAT.search(fmt))
            self.clock = self.clock and not _DATE_IN_FORMAT.search(_QUOTED.sub("", fmt))
            self.elapsed = self.elapsed or bool(_ELAPSED.search(fmt))
        elif kind == "n":
            self.kinds.add("n")
            self.units.add(unit_of(fmt))

    @property
    def unit(self) -> str | None:
        """The one unit every number cell shows (% or a currency); None for none, or several."""
        return next(iter(self.units)) if len(self.units) == 1 else None

    @property
    def mixed(self) -> bool:
        """Number cells of several units ($ and €, % and plain): one unit for all would change values."""
        return len(self.units) > 1


_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_CELL_REF = re.compile(r"([A-Z]+)(\d+)")


def styles(archive: zipfile.ZipFile) -> list[str]:
    """The number format of each cell style (cellXfs), by index."""
    try:
        root = ET.fromstring(archive.read("xl/styles.xml"))
    except KeyError:
        return []
    custom = {int(f.get("numFmtId")): f.get("formatCode", "") for f in root.iter(f"{_NS}numFmt")}
    xfs = root.find(f"{_NS}cellXfs")
    formats = []
    for xf in xfs if xfs is not None else []:
        number = int(xf.get("numFmtId", "0"))
        formats.append(custom.get(number, BUILTIN_FORMATS.get(number, "General")))
    return formats


def sheet_parts(archive: zipfile.ZipFile) -> list[tuple[str, str, str]]:
    """(name, state, part path) of each sheet, in the workbook's order."""
    book = ET.fromstring(archive.read("xl/workbook.xml"))
    rels = ET.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
    targets = {r.get("Id"): r.get("Target", "") for r in rels}
    out = []
    for sheet in book.iter(f"{_NS}sheet"):
        target = targets.get(sheet.get(_REL), "")
        part = target.lstrip("/") if target.startswith("/") else "xl/" + target
        out.append((sheet.get("name", ""), sheet.get("state", "visible"), part))
    return out


def workbook_hints(
    path: Path, known: dict[str, tuple[dict[int, Hint], Head]] | None = None
) -> tuple[dict[str, dict[int, Hint]], dict[str, str], dict[str, Head]]:
    """Per sheet and column: cell kinds and units from the first HINT_ROWS rows; sheet states;
    per sheet, its first HEAD_ROWS rows' cells (typed.Head).

    Read from the sheet XML directly: openpyxl would load every shared string first, which on
    a large workbook costs more than reading all of it with fastexcel."""
    known = known or {}
    out: dict[str, dict[int, Hint]] = {}
    states: dict[str, str] = {}
    heads: dict[str, Head] = {}
    formats: list[str] | None = None  # styles.xml, read only for a sheet the check did not hint
    with zipfile.ZipFile(path) as archive:
        for name, state, part in sheet_parts(archive):
            states[name] = state
            if part in known:
                out[name], heads[name] = known[part]
                continue
            formats = styles(archive) if formats is None else formats
            out[name], heads[name] = sheet_hints(archive, part, formats)
    return out, states, heads


def sheet_hints(archive: zipfile.ZipFile, part: str, formats: list[str]) -> tuple[dict[int, Hint], Head]:
    """One sheet's hints per column and its head (workbook_hints)."""
    hints: dict[int, Hint] = {}
    seen: set[int] = set()
    head = Head(part=part)
    try:
        stream = archive.open(part)
    except KeyError:
        return hints, head
    with stream:
        for _, element in ET.iterparse(GuardedStream(stream, part)):
            if element.tag == f"{_NS}row":
                if int(element.get("r", "0")) >= HINT_ROWS:
                    break
                element.clear()
                continue
            if element.tag != f"{_NS}c" or element.find(f"{_NS}v") is None and element.find(f"{_NS}is") is None:
                continue
            match = _CELL_REF.match(element.get("r", ""))
            if not match:
                continue
            j = column_number(match.group(1)) - 1
            kind = element.get("t", "n")
            style = int(element.get("s", "0"))
            fmt = formats[style] if style < len(formats) else "General"
            if int(match.group(2)) <= HEAD_ROWS:
                head.add(int(match.group(2)) - 1, j, element, kind, is_date_format(fmt))
            hint = hints.setdefault(j, Hint())
            if j not in seen:  # the first filled cell is likely a header
                seen.add(j)
                hint.header = int(match.group(2))
                continue
            hint.see(kind, fmt)
    return hints, head


class UnitWatch:
    """Fed a worksheet's XML as the container check reads it (containers.check_container's
    `watch`), marks mixed (its units grown) each column whose number cells below the hint rows
    show another unit than its first rows do ($ among €, a plain number among %): one regex that
    matches only such cells, so a sheet is read once for the check and this. Keeps each sheet's
    hints and head, by part, for the reader after it."""

    def __init__(self) -> None:
        self.formats: list[str] | None = None
        self.hints: dict[str, tuple[dict[int, Hint], Head]] = {}

    def __call__(self, archive: zipfile.ZipFile, part: str, fast: bool = True):
        """The feeder of a worksheet part's chunks the fast reader reads, or None (another
        part, or no column shows a unit)."""
        if not fast or not part.startswith("xl/worksheets/"):
            return None
        try:
            if self.formats is None:
                self.formats = styles(archive)
            hints, head = sheet_hints(archive, part, self.formats)
        except Exception:  # damaged XML: the reader after the check reads it again, and says so
            return None
        self.hints[part] = hints, head
        pending = {j: h for j, h in hints.items() if h.unit and not h.mixed}
        return UnitFeeder(pending, self.formats) if pending else None


class UnitFeeder:
    """Fed one worksheet's XML a chunk at a time (cut anywhere), adds to each of `pending`'s
    columns the unit of its first number cell below its header whose style shows another."""

    def __init__(self, pending: dict[int, Hint], formats: list[str]):
        self.pending, self.formats = pending, formats
        self.pattern = _other_units(pending, formats)
        self.tail = b""

    def __call__(self, chunk: bytes) -> None:
        text = self.tail + chunk
        at = 0
        while self.pending and (match := self.pattern.search(text, at)):
            at = match.end()
            j = column_number(match.group(1).decode()) - 1
            if j in self.pending and int(match.group(2)) > self.pending[j].header:
                style = int(match.group(3) or 0)
                self.pending.pop(j).units.add(unit_of(self.formats[style] if style < len(self.formats) else "General"))
                if self.pending:
                    self.pattern = _other_units(self.pending, self.formats)
        self.tail = text[-4096:] if self.pending else b""


def _other_units(columns: dict[int, Hint], formats: list[str]) -> re.Pattern:
    """A number cell (no t="s", "str", "b", … ; a value, after any formula) of one of `columns`
    whose style shows another unit than the column's: (letters, row, style)."""
    alternatives = []
    for j, hint in columns.items():
        same = [k for k, f in enumerate(formats) if unit_of(f) == hint.unit] or [-1]
        styles = b"|".join(str(k).encode() for k in same)
        alternatives.append(
            rb"(?:" + column_letter(j + 1).encode() + rb')(?=[0-9]+"(?![^>]*\ss="(?:' + styles + rb')"))'
        )
    return re.compile(
        rb'<c r="(' + b"|".join(alternatives) + rb')([0-9]+)"(?![^>]*\st="(?:s|str|inlineStr|b|e|d)")'
        rb'(?:[^>]*?\ss="([0-9]+)")?[^>]*>(?:<f\b[^>]*/>|<f\b[^>]*>[^<]*</f>)?<v>'
    )


def _kind(value) -> tuple[str, bool]:
    """A typed cell's kind (as workbook_hints reads it from the XML), and whether it holds a time of day."""
    if isinstance(value, bool):
        return "b", False
    if isinstance(value, str):
        return "s", False
    if isinstance(value, dt.datetime):
        return "d", True  # calamine hands a datetime at 00:00 back as a date
    if isinstance(value, (dt.date, dt.time, dt.timedelta)):
        return "d", not isinstance(value, dt.date)
    return "n", False


def calamine_hints(path: Path) -> tuple[dict[str, dict[int, Hint]], dict[str, str]]:
    """What workbook_hints reads from an .xlsx's XML, for an .xls: per sheet and column, the kinds of
    the cells of the first HINT_ROWS rows, from the values calamine types (it gives no number
    formats, so no unit); and the sheets' states."""
    from python_calamine import CalamineWorkbook

    out: dict[str, dict[int, Hint]] = {}
    states: dict[str, str] = {}
    with path.open("rb") as fh:
        book = CalamineWorkbook.from_filelike(fh)
    try:
        for meta in book.sheets_metadata:
            states[meta.name] = "visible" if str(meta.visible).lower().endswith("visible") else "hidden"
            hints: dict[int, Hint] = {}
            for row in book.get_sheet_by_name(meta.name).to_python(skip_empty_area=False, nrows=HINT_ROWS):
                for j, value in enumerate(row):
                    if value is None or value == "":
                        continue
                    if j not in hints:  # the first filled cell is likely a header
                        hints[j] = Hint()
                        continue
                    kind, time = _kind(value)
                    hints[j].kinds.add(kind)
                    hints[j].time = hints[j].time or time
                    hints[j].elapsed = hints[j].elapsed or isinstance(value, dt.timedelta)
            out[meta.name] = hints
    finally:
        book.close()  # before fastexcel reads the workbook again: one copy of its cells at a time
    return out, states


class OdsFormats:
    """What an ODS's cells say that calamine's values do not, gathered as the container check
    reads content.xml: the currencies of its currency cells, and whether it holds percentages."""

    CURRENCY = re.compile(rb'office:currency="([^"]{1,16})"')

    def __init__(self) -> None:
        self.currencies: set[str] = set()
        self.percent = False
        self.tail = b""

    def __call__(self, archive: zipfile.ZipFile, part: str, fast: bool = True):
        return self._feed if part == "content.xml" else None

    def _feed(self, chunk: bytes) -> None:
        text = self.tail + chunk
        self.currencies.update(c.decode("utf-8", "replace") for c in set(self.CURRENCY.findall(text)))
        self.percent = self.percent or b'office:value-type="percentage"' in text
        self.tail = text[-64:]

    def notes(self) -> list[str]:
        """The warnings every dataset of the workbook carries."""
        out = []
        if len(self.currencies) > 1:
            out.append(
                f"the workbook's cells are in several currencies ({', '.join(sorted(self.currencies))}), which this "
                "reader does not tell apart: their numbers are read without a currency, so a sum may mix them"
            )
        if self.percent:
            out.append("percent cells are read as their fractions (5% as 0.05): this reader sees no number formats")
        return out
