"""The names a workbook gives its tables: an Excel table's own name (a ListObject, `users`; not
a name Excel made up, `Table1`) and a named range (`Sheet1!$A$1:$C$9` named `prices`), each a
rectangle of one sheet. A table the
readers find (read/sheets/workbooks.py, columnar.py) that such a rectangle covers takes its name,
so its dataset is `users`, not `sheet1`; a table no name covers keeps the sheet's name.

Read from the archive's XML (the workbook, each sheet's relationships, its table parts), after
the container's checks, by every reader alike. Names are a help, never a reason to refuse a
file: a part that cannot be read names nothing."""

from __future__ import annotations

import posixpath
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

import defusedxml.ElementTree as ET

from .hints import sheet_parts
from .rules import column_number

_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_RELS = "{http://schemas.openxmlformats.org/package/2006/relationships}"
# A part larger than this is no table definition (they are a few hundred bytes): not read.
PART_BYTES = 1 << 20
# The names Excel (and LibreOffice) give a table nobody named, in a few languages: such a name
# does not replace the sheet's, which a person chose.
DEFAULT_TABLE = re.compile(r"(?i)(table|tabelle|tableau|tabla|tabela|tabel|tabella|taulukko)_?\d+")
# A reference: A1, $A$1, A1:C9, $A$1:$C$9.
_REF = re.compile(r"\$?([A-Z]{1,3})\$?(\d{1,7})(?::\$?([A-Z]{1,3})\$?(\d{1,7}))?")
# A named range's formula: one area of one sheet ('My sheet'!$A$1:$C$9, Sheet1!A1:C9).
_AREA = re.compile(r"(?:'((?:[^']|'')+)'|([^'!:,\s()]+))!" + _REF.pattern)


@dataclass(frozen=True)
class Region:
    """A named rectangle of a sheet: 0-based rows and columns, both ends inclusive."""

    name: str
    kind: str  # "table" (an Excel table) or "range" (a named range)
    top: int
    left: int
    bottom: int
    right: int

    @property
    def cells(self) -> int:
        return (self.bottom - self.top + 1) * (self.right - self.left + 1)


def _rect(found: re.Match, at: int = 1) -> tuple[int, int, int, int]:
    c0, r0, c1, r1 = found.group(at, at + 1, at + 2, at + 3)
    c1, r1 = c1 or c0, r1 or r0
    top, bottom = sorted((int(r0) - 1, int(r1) - 1))
    left, right = sorted((column_number(c0) - 1, column_number(c1) - 1))
    return top, left, bottom, right


def workbook_regions(path: Path) -> dict[str, list[Region]]:
    """Per sheet name, its Excel tables then its named ranges ({} for a workbook that names
    none, or that is no OOXML archive)."""
    try:
        with zipfile.ZipFile(path) as archive:
            return _regions(archive)
    except Exception:  # a name is a help; the readers say what is wrong with the file
        return {}


def _xml(archive: zipfile.ZipFile, part: str):
    info = archive.getinfo(part)
    if info.file_size > PART_BYTES:
        raise ValueError(f"{part} is too large for a table definition")
    return ET.fromstring(archive.read(part))


def _regions(archive: zipfile.ZipFile) -> dict[str, list[Region]]:
    listed = set(archive.namelist())
    sheets = sheet_parts(archive)
    out: dict[str, list[Region]] = {name: [] for name, _, _ in sheets}
    for name, _, part in sheets:
        rels = posixpath.join(posixpath.dirname(part), "_rels", posixpath.basename(part) + ".rels")
        if rels not in listed:
            continue
        for rel in _xml(archive, rels).iter(f"{_RELS}Relationship"):
            if not rel.get("Type", "").endswith("/table"):
                continue
            target = rel.get("Target", "")
            table_part = (
                target.lstrip("/")
                if target.startswith("/")
                else posixpath.normpath(posixpath.join(posixpath.dirname(part), target))
            )
            if table_part not in listed:
                continue
            table = _xml(archive, table_part)
            found = _REF.fullmatch(table.get("ref", ""))
            title = table.get("displayName") or table.get("name")
            if found and title and not DEFAULT_TABLE.fullmatch(title):
                out[name].append(Region(title, "table", *_rect(found)))
    book = _xml(archive, "xl/workbook.xml")
    names = [n for n, _, _ in sheets]
    for defined in book.iter(f"{_NS}definedName"):
        title = defined.get("name", "")
        if not title or title.startswith("_xlnm.") or defined.get("hidden") in ("1", "true"):
            continue  # a print area, a filter's range, a name Excel keeps for itself
        found = _AREA.fullmatch((defined.text or "").strip())
        if not found:
            continue  # a constant, a formula, several areas: no table
        sheet = (found.group(1) or "").replace("''", "'") or found.group(2)
        local = defined.get("localSheetId")
        if local is not None and local.isdigit() and int(local) < len(names) and names[int(local)] != sheet:
            continue
        region = Region(title, "range", *_rect(found, 3))
        if sheet in out and region.bottom > region.top:  # a single row names a header, not a table
            out[sheet].append(region)
    return out


def _overlap(a: tuple[int, int, int, int], b: Region) -> int:
    rows = min(a[2], b.bottom) - max(a[0], b.top) + 1
    cols = min(a[3], b.right) - max(a[1], b.left) + 1
    return rows * cols if rows > 0 and cols > 0 else 0


def names_of(blocks: list[tuple[int, int, int, int]], regions: list[Region]) -> list[str | None]:
    """Per table found (top, left, bottom, right on the sheet, 0-based), the name of the region
    that covers it: one that holds at least half of the table's cells and the table at least
    half of its own (a named range of the data under a header names the table; one of a single
    column inside it does not). An Excel table comes before a named range; each names one table;
    a table found over two Excel tables keeps its own name."""
    named: list[str | None] = [None] * len(blocks)
    # A table found over two Excel tables (side by side, no empty column between) is neither: named by none.
    merged = {k for k, b in enumerate(blocks) if sum(1 for r in regions if r.kind == "table" and _overlap(b, r)) > 1}
    for region in sorted(regions, key=lambda r: r.kind != "table"):
        best, best_k = 0, None
        for k, block in enumerate(blocks):
            if named[k] is not None or k in merged:
                continue
            shared = _overlap(block, region)
            size = (block[2] - block[0] + 1) * (block[3] - block[1] + 1)
            if 2 * shared >= size and 2 * shared >= region.cells and shared > best:
                best, best_k = shared, k
        if best_k is not None:
            named[best_k] = region.name
    return named


def name_tables(extractions: list, regions: dict[str, list[Region]]) -> None:
    """Each table a region covers takes the region's name (names_of), on every sheet; the others
    keep theirs (the sheet's name, `Sheet 2` for its second table)."""
    if not any(regions.values()):
        return
    by_sheet: dict[str, list] = {}
    for ex in extractions:
        by_sheet.setdefault(ex.origin.sheet or "", []).append(ex)
    for sheet, tables in by_sheet.items():
        found = [_REF.fullmatch(ex.origin.range or "") for ex in tables]
        placed = [(ex, _rect(f)) for ex, f in zip(tables, found) if f]
        for (ex, _), name in zip(placed, names_of([r for _, r in placed], regions.get(sheet, []))):
            if name:
                ex.name = name
