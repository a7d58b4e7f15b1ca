"""A workbook's container checked before any parser reads it: its zip listing and sizes against
the limits, each part's XML as markup.py allows, the extent its sheets claim, formulas saved
without their values (Uncached), and whether it is large enough for the columnar reader.
Refusals carry SPEC codes."""

from __future__ import annotations

import re
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

from ...errors import IngestFailed
from ...settings import Settings
from ..decode import CFB_MAGIC, check_zip_listing
from .extent import Extent
from .markup import LONG_TOKEN, MarkupGuard
from .odsxml import GridBound


def check_container(
    path: Path,
    fmt: str,
    settings: Settings,
    formulas: dict | None = None,
    watch: Callable | None = None,
    sparse: dict | None = None,
) -> int:
    """Refuse what is not a readable workbook with SPEC codes before any parser sees it, and
    answer the bytes its members inflate to. With `formulas`, each worksheet part's formula
    cells with no saved value are counted into it, by part name (an Uncached each). With
    `watch`, each part's chunks are also fed to what `watch(archive, part, fast)` answers for it
    (hints.UnitWatch, hints.OdsFormats), the worksheets after every other part was checked.

    A grid past max_sheet_cells (the extent a sheet's values span, which the dense readers
    allocate) is refused, unless `sparse` is given and the caller reads the sheet from its
    filled cells: an XLSX's worksheet part not read by the fast reader (openpyxl holds filled
    cells only), an ODS's content.xml (read/sheets/odsxml.py); `sparse` then maps the part to
    its (rows, columns), or for an ODS to its GridBound."""
    with path.open("rb") as fh:
        head = fh.read(8)
    if not head:
        raise IngestFailed("no_text", "the file is empty")
    if head.startswith(CFB_MAGIC):
        # Named a zip workbook by options.format: an OLE2 file otherwise goes to read_xls.
        raise IngestFailed(
            "format_unavailable",
            f"the file is not a {fmt} workbook but an OLE2 container: an encrypted (password-protected) workbook, "
            "or an old binary .xls (ingest it without options.format); save it unprotected as .xlsx",
        )
    if not zipfile.is_zipfile(path):
        raise IngestFailed("format_unavailable", f"the file is not a {fmt} workbook (not a zip archive)")
    check_zip_listing(path, settings.max_workbook_entries, "max_workbook_entries", "the workbook's zip")
    try:
        with zipfile.ZipFile(path) as archive:
            inflated = sum(i.file_size for i in archive.infolist())
            if inflated > settings.max_workbook_xml_bytes:
                # From the sizes the zip declares, before any member is inflated: a bomb is refused unread.
                raise IngestFailed(
                    "too_large",
                    f"the workbook's parts inflate to {inflated} bytes, over max_workbook_xml_bytes ({settings.max_workbook_xml_bytes})",
                )
            fast = uses_fast_reader(path, inflated, settings)
            # The sheets last: what a watch parses of their first rows (the styles) is checked by then.
            for info in sorted(archive.infolist(), key=lambda i: i.filename.startswith("xl/worksheets/")):
                # On the fast path calamine alone parses the sheets, and read/sheets/columnar.py reads
                # their first rows through a MarkupGuard itself.
                sheet = info.filename.startswith("xl/worksheets/")
                repeats = _OdsRepeats() if fmt == "ods" and info.filename == "content.xml" else None
                uncached = formulas.setdefault(info.filename, Uncached()) if sheet and formulas is not None else None
                feed = watch(archive, info.filename, fast) if watch else None
                tables = GridBound() if repeats else None
                if tables:
                    feed = _both(feed, tables.feed)
                extent = _scan_part(
                    archive, info, not (fast and sheet), extent=sheet, repeats=repeats, uncached=uncached, feed=feed
                )
                if tables:
                    tables.feed(b"", final=True)
                if repeats and repeats.cells > settings.max_sheet_cells:
                    # calamine expands repeated rows that hold values: 842 bytes made 30 million cells.
                    raise IngestFailed(
                        "too_large",
                        f"its repeated rows make {repeats.cells} cells, over max_sheet_cells ({settings.max_sheet_cells})",
                    )
                if tables:
                    _ods_grids(tables, settings, sparse)
                if extent and extent[0] * extent[1] > settings.max_sheet_cells:
                    if sparse is not None and not fast:  # openpyxl holds the filled cells alone
                        sparse[info.filename] = extent
                        continue
                    # The fast reader holds a sheet as a dense grid: A1 and CV1048576 make 100 million cells.
                    raise IngestFailed(
                        "too_large",
                        f"{info.filename} spans {extent[0]} rows by {extent[1]} columns, over max_sheet_cells "
                        f"({settings.max_sheet_cells}) as a grid, which a workbook this large is read as "
                        "(sheet_fast_bytes); a cell far from the tables makes such a span: delete it, or save "
                        "the sheet alone",
                    )
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error, NotImplementedError) as err:
        raise IngestFailed("format_unavailable", f"the workbook is damaged: {err}") from None
    if fmt == "ods" and "content.xml" not in names:
        raise IngestFailed("format_unavailable", "the zip archive is not an ODS spreadsheet (no content.xml)")
    if fmt in ("xlsx", "xlsm") and "xl/workbook.xml" not in names:
        raise IngestFailed("format_unavailable", f"the zip archive is not a {fmt} workbook (no xl/workbook.xml)")
    return inflated


def _both(first: Callable | None, second: Callable) -> Callable:
    if first is None:
        return second

    def feed(chunk: bytes) -> None:
        first(chunk)
        second(chunk)

    return feed


def _ods_grids(bound: GridBound, settings: Settings, sparse: dict | None) -> None:
    """Refuse an ODS whose sheets' grids, as calamine allocates them all when it opens the file,
    may pass max_sheet_cells, unless the caller reads it from its filled cells (`sparse`)."""
    if bound.cells <= settings.max_sheet_cells and not bound.unsure:
        return
    if sparse is not None:
        sparse["content.xml"] = bound
        return
    raise IngestFailed(
        "too_large",
        f"its sheets span {bound.cells} cells or more as grids, over max_sheet_cells ({settings.max_sheet_cells})",
    )


class Uncached:
    """The formula cells of a worksheet's XML with no saved value (a workbook written by a
    program that does not calculate, openpyxl among them: `<c r="B2"><f>A2*2</f><v/></c>`), which
    every reader reads as empty: how many, and the first SHOWN references. Fed the part in chunks;
    found at C speed by how such a cell ends, then a step per cell found."""

    # The worksheet's root tag says the prefix every element carries (<x:worksheet>: <x:c>).
    ROOT = re.compile(rb"<(\w+:)?worksheet\b")
    REF = re.compile(rb'\sr="([A-Z]{1,3}[0-9]+)"')
    TEXT = re.compile(rb'\st="(?:str|inlineStr)"')  # an empty <v></v> is then a saved empty text
    SHOWN = 5

    def __init__(self) -> None:
        self.count = 0
        self.refs: list[str] = []
        self.tail = b""
        self.prefix: bytes | None = None

    def _learn(self, prefix: bytes) -> None:
        self.prefix = prefix
        p = re.escape(prefix)
        # A cell whose first child, its formula, has no value after it or an empty one.
        self.cell = re.compile(
            rb"<" + p + rb"c\b[^>]*>(?:<" + p + rb"f\b[^>]*/>|<" + p + rb"f\b[^>]*>[^<]*</" + p + rb"f>)"
            rb"(?:<" + p + rb"v\s*/>|(<" + p + rb"v>\s*</" + p + rb"v>))?</" + p + rb"c>"
        )
        self.ends = (
            b"</" + prefix + b"f></" + prefix + b"c>",
            b"/></" + prefix + b"c>",
            b"></" + prefix + b"v></" + prefix + b"c>",
        )
        self.starts = (b"<" + prefix + b"c ", b"<" + prefix + b"c>")
        self.opening = b"<" + prefix + b"c"  # how a cell's tag starts
        self.formula = b"<" + prefix + b"f"

    def feed(self, chunk: bytes, final: bool = False) -> None:
        """Count the cells of the next chunk; `final` once the part has ended."""
        text = self.tail + chunk
        if self.prefix is None:
            root = self.ROOT.search(text[:65536])
            if root is None and not final and len(text) < 65536:
                self.tail = text
                return
            self._learn(root.group(1) or b"" if root else b"")
        # Cells before the last one that starts in the text are whole in it: they are read now,
        # the last one with the next chunk (cells are short: looked for near the end first).
        near = max(0, len(text) - 65536)
        last = max(text.rfind(s, near) for s in self.starts)
        if last < 0:
            last = max(text.rfind(s) for s in self.starts)
        end = len(text) if final else last if last >= 0 else max(0, len(text) - 16)
        for needle in self.ends if self.formula in text else ():  # most sheets hold no formula: one look
            at = text.find(needle, 0, end)
            while at >= 0:
                stop = at + len(needle)
                self._cell(text[text.rfind(self.opening, 0, at) : stop])
                at = text.find(needle, stop, end)
        self.tail = text[end:]

    def _cell(self, cell: bytes) -> None:
        """Count one cell if it is a formula with no saved value."""
        found = self.cell.fullmatch(cell)
        if found is None:
            return
        tag = cell[: cell.find(b">") + 1]
        if found.group(1) and self.TEXT.search(tag):  # <v></v> in a text cell: a saved empty text
            return
        self.count += 1
        if len(self.refs) < self.SHOWN:
            ref = self.REF.search(tag)
            self.refs.append(ref.group(1).decode() if ref else "?")

    def note(self, sheet: str) -> str:
        """The warning a sheet's datasets carry."""
        shown = ", ".join(self.refs) + (", …" if self.count > len(self.refs) else "")
        one = self.count == 1
        return (
            f"sheet {sheet!r}: {self.count} formula {'cell has' if one else 'cells have'} no saved value ({shown}): "
            "read as empty; open and save the file in a spreadsheet program to keep their values"
        )


def uses_fast_reader(path: Path, inflated: int, settings: Settings) -> bool:
    """Whether a workbook this large (on disk, or inflated) is read by fastexcel (read/sheets/columnar.py)."""
    return path.stat().st_size >= settings.sheet_fast_bytes or inflated >= settings.sheet_fast_inflated_bytes


class _OdsRepeats:
    """The cells an ODS's repeated rows with values make when expanded (calamine expands them;
    empty repeated rows, such as the rest of a sheet LibreOffice writes, it does not)."""

    ROW = re.compile(
        rb'<table:table-row\b[^>]*?table:number-rows-repeated="([0-9]+)"[^>]*>(.{0,8192}?)</table:table-row>', re.S
    )
    COLUMNS = re.compile(rb'table:number-columns-repeated="([0-9]+)"')
    # A cell repeated across columns (only such cells are looked at one by one).
    WIDE_CELL = re.compile(rb'<table:table-cell\b[^>]*?table:number-columns-repeated="([0-9]+)"[^>]*>')

    def __init__(self):
        self.repeated = 0  # cells of repeated rows with values
        self.rows = 0  # row elements
        self.widest = 0  # the most columns one valued cell repeats across
        self.tail = b""

    @property
    def cells(self) -> int:
        """At least the cells calamine makes: the repeated rows', and every row as wide as the
        widest repeated valued cell."""
        return self.repeated + self.rows * self.widest

    def feed(self, chunk: bytes) -> None:
        self.rows += chunk.count(b"<table:table-row")
        for cell in self.WIDE_CELL.finditer(chunk):
            if b"office:value-type" in cell.group(0):
                self.widest = max(self.widest, int(cell.group(1)))
        text = self.tail + chunk
        end = 0
        for row in self.ROW.finditer(text):
            body = row.group(2)
            if b"office:value-type" in body or b"<text:p" in body:
                width = sum(int(n) for n in self.COLUMNS.findall(body)) or body.count(b"<table:table-cell")
                self.repeated += int(row.group(1)) * max(width, 1)
            end = row.end()
        self.tail = text[max(end, len(text) - 16384) :]  # a row cut by the chunk's end is read whole next time


def _scan_part(
    archive: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    markup: bool,
    extent: bool = False,
    repeats: _OdsRepeats | None = None,
    uncached: Uncached | None = None,
    feed: Callable[[bytes], None] | None = None,
) -> tuple[int, int] | None:
    """Read one member to its end (zipfile checks its CRC and its declared size there); with
    `markup`, check its XML as markup.py says before a Python parser may read it. With `extent`
    (a worksheet), answer the (rows, columns) its cells span as calamine places them: the last
    row and the widest column (extent.py), found without a Python step per cell."""
    guard = MarkupGuard(info.filename) if markup and info.filename.lower().endswith((".xml", ".rels", ".vml")) else None
    spans = Extent(info.filename) if extent else None
    with archive.open(info) as stream:
        while chunk := stream.read(LONG_TOKEN):
            if guard:
                guard.feed(chunk)
            if repeats:
                repeats.feed(chunk)
            if uncached:
                uncached.feed(chunk)
            if feed:
                feed(chunk)
            if spans:
                spans.feed(chunk)
    if uncached:
        uncached.feed(b"", final=True)
    if spans:
        spans.feed(b"", final=True)
        return spans.rows, spans.columns
    return None
