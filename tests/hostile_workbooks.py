"""XLSX files written part by part, to put hostile markup where a reader will meet it (a DTD, a
long comment, padding). Made in tmp_path by the tests that use them; none is committed."""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

from openpyxl.utils import get_column_letter

CONTENT_TYPES = (
    '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>'
)
ROOT_RELS = (
    '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>'
)
WORKBOOK = (
    '<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>'
)
WORKBOOK_RELS = (
    '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>'
)
SHEET_OPEN = (
    b'<?xml version="1.0"?>%s<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
)
ROWS = b'<row r="1"><c r="A1" t="inlineStr"><is><t>%s</t></is></c><c r="B1" t="inlineStr"><is><t>b</t></is></c></row><row r="2"><c r="A2"><v>1</v></c><c r="B2"><v>2</v></c></row>'
SHEET_CLOSE = b"</sheetData></worksheet>"
LAUGHS = (
    b'<!DOCTYPE lolz [<!ENTITY lol "lol">'
    + b"".join(
        b'<!ENTITY lol%d "%s">' % (k, b"".join([b"&lol%d;" % (k - 1) if k > 1 else b"&lol;"] * 10))
        for k in range(1, 10)
    )
    + b"]>"
)


def workbook(path: Path, sheet_parts: list[bytes], book: str = WORKBOOK) -> Path:
    """An XLSX whose one sheet's XML is the parts, written one after another (streamed)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", CONTENT_TYPES)
        z.writestr("_rels/.rels", ROOT_RELS)
        z.writestr("xl/workbook.xml", book)
        z.writestr("xl/_rels/workbook.xml.rels", WORKBOOK_RELS)
        with z.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as f:
            for part in sheet_parts:
                f.write(part)
    return path


def padding(total: int, chunk: bytes = b" ") -> list[bytes]:
    block = chunk * (1 << 20)
    return [block] * (total >> 20)


# Sparse sheets (issue 53): a few values whose extent, counted from repeat counts or far cell
# references, passes max_sheet_cells. Each shape holds a small table at the top (a header and
# two rows) and values far from it; built in memory, a few hundred bytes zipped.
ODS_OPEN = (
    b'<?xml version="1.0" encoding="UTF-8"?><office:document-content'
    b' xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"'
    b' xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"'
    b' xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"'
    b' xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">'
)
ODS_MANIFEST = (
    '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest'
    ' xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
    '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>'
    '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>'
)


def ods_text(text: str) -> bytes:
    return b'<table:table-cell office:value-type="string"><text:p>%s</text:p></table:table-cell>' % text.encode()


def ods_number(value: float) -> bytes:
    v = repr(value).encode()
    return b'<table:table-cell office:value-type="float" office:value="%s"><text:p>%s</text:p></table:table-cell>' % (
        v,
        v,
    )


def ods_gap(columns: int) -> bytes:
    """Empty cells, `columns` of them, as one repeated cell."""
    return b'<table:table-cell table:number-columns-repeated="%d"/>' % columns


def ods_row(*cells: bytes, repeated: int = 1) -> bytes:
    attr = b' table:number-rows-repeated="%d"' % repeated if repeated > 1 else b""
    return b"<table:table-row%s>%s</table:table-row>" % (attr, b"".join(cells))


def ods(path: Path, sheets: dict[str, list[bytes]], styles: bytes = b"") -> Path:
    """An ODS whose sheets hold these rows (ods_row); `styles`: automatic styles (table:display)."""
    body = b"".join(
        b'<table:table table:name="%s"%s>%s</table:table>'
        % (name.encode(), b' table:style-name="hidden"' if name.startswith("hidden") else b"", b"".join(rows))
        for name, rows in sheets.items()
    )
    hidden = b'<style:style style:name="hidden" style:family="table"><style:table-properties table:display="false"/></style:style>'
    content = (
        ODS_OPEN
        + b"<office:automatic-styles>%s%s</office:automatic-styles>" % (hidden, styles)
        + b"<office:body><office:spreadsheet>%s</office:spreadsheet></office:body></office:document-content>" % body
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet", compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/manifest.xml", ODS_MANIFEST)
        z.writestr("content.xml", content)
    return path


TOP_ODS = [
    ods_row(ods_text("name"), ods_text("n")),
    ods_row(ods_text("a"), ods_number(1)),
    ods_row(ods_text("b"), ods_number(2)),
]


# Where each shape puts its far value by default: (empty rows after the table, its column).
SHAPES = {"rows": (300_000, 100), "columns": (1_997, 16_384), "far": (300_000, 100), "sheets": (50_000, 100)}


def sparse_ods(path: Path, shape: str, down: int | None = None, right: int | None = None) -> Path:
    """The table at the top (name, n: a 1, b 2) and, after `down` empty rows (one repeated
    row), a value (9) in column `right` (after one repeated empty cell), by shape: `rows`, the
    issue's file (300,000 rows down, column 100); `columns`, 16,384 columns right, 2,000 rows
    down; `far`, that value alone, no table; `sheets`, five sheets of the table and a value
    50,000 rows down (each under max_sheet_cells, together over it: calamine holds them all);
    `dense`, 300,000 rows of values repeated (no sparse sheet: refused)."""
    default_down, default_right = SHAPES.get(shape, (300_000, 100))
    down, right = down or default_down, right or default_right
    gap = ods_row(ods_gap(right), repeated=down)
    far = ods_row(ods_gap(right - 1), ods_number(9))
    if shape in ("rows", "columns"):
        return ods(path, {"S": [*TOP_ODS, gap, far]})
    if shape == "far":
        return ods(path, {"S": [gap, far]})
    if shape == "sheets":
        return ods(path, {f"S{k}": [*TOP_ODS, gap, far] for k in range(1, 6)})
    if shape == "dense":
        return ods(path, {"S": [*TOP_ODS, ods_row(ods_text("x"), ods_gap(99), ods_number(9), repeated=down)]})
    raise ValueError(shape)


def xlsx_cell(ref: str, value: str | int) -> bytes:
    if isinstance(value, int):
        return b'<c r="%s"><v>%d</v></c>' % (ref.encode(), value)
    return b'<c r="%s" t="inlineStr"><is><t>%s</t></is></c>' % (ref.encode(), value.encode())


def xlsx_row(number: int, *cells: bytes) -> bytes:
    return b'<row r="%d">%s</row>' % (number, b"".join(cells))


TOP_XLSX = (
    xlsx_row(1, xlsx_cell("A1", "name"), xlsx_cell("B1", "n"))
    + xlsx_row(2, xlsx_cell("A2", "a"), xlsx_cell("B2", 1))
    + xlsx_row(3, xlsx_cell("A3", "b"), xlsx_cell("B3", 2))
)


def workbook_of(path: Path, sheets: dict[str, bytes]) -> Path:
    """An XLSX of these sheets, each given as its worksheet XML."""
    names = list(sheets)
    types = "".join(
        f'<Override PartName="/xl/worksheets/sheet{k}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
        for k in range(1, len(names) + 1)
    )
    book = WORKBOOK.replace(
        '<sheet name="S" sheetId="1" r:id="rId1"/>',
        "".join(f'<sheet name="{n}" sheetId="{k}" r:id="rId{k}"/>' for k, n in enumerate(names, 1)),
    )
    rels = WORKBOOK_RELS.replace(
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>',
        "".join(
            f'<Relationship Id="rId{k}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet{k}.xml"/>'
            for k in range(1, len(names) + 1)
        ),
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(
            "[Content_Types].xml",
            CONTENT_TYPES.replace(
                CONTENT_TYPES[CONTENT_TYPES.index('<Override PartName="/xl/worksheets') : -len("</Types>")], types
            ),
        )
        z.writestr("_rels/.rels", ROOT_RELS)
        z.writestr("xl/workbook.xml", book)
        z.writestr("xl/_rels/workbook.xml.rels", rels)
        for k, name in enumerate(names, 1):
            z.writestr(f"xl/worksheets/sheet{k}.xml", sheets[name])
    return path


def sparse_xlsx(path: Path, shape: str, down: int | None = None, right: int | None = None) -> Path:
    """sparse_ods's shapes as XLSX: the far value's row far from the table's
    (`<row r="300004">`), its reference far (`r="CV300004"`); `sheets`, five sheets (parts of
    their own, read one at a time); and `dimension`, the table alone under a
    `<dimension ref="A1:CV300000">` that lies."""
    default_down, default_right = SHAPES.get(shape, (300_000, 100))
    down, right = down or default_down, right or default_right
    ref = f"{get_column_letter(right)}{4 + down}"
    far = xlsx_row(4 + down, xlsx_cell(ref, 9))
    open_ = b'<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'

    def sheet(rows: bytes, head: bytes = b"") -> bytes:
        return open_ + head + b"<sheetData>" + rows + b"</sheetData></worksheet>"

    if shape == "sheets":
        return workbook_of(path, {f"S{k}": sheet(TOP_XLSX + far) for k in range(1, 6)})
    if shape == "dimension":
        return workbook_of(path, {"S": sheet(TOP_XLSX, b'<dimension ref="A1:CV300000"/>')})
    return workbook_of(path, {"S": sheet(far if shape == "far" else TOP_XLSX + far)})


XLS_FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "sheets" / "typed_cells.xls"
_BIFF_CELLS = (0x0006, 0x0203, 0x0204, 0x0205, 0x027E, 0x00FD)  # formula, number, label, bool, rk, label sst


def sparse_xls(path: Path, shape: str, row: int = 65535, column: int = 255) -> Path:
    """fixtures/sheets/typed_cells.xls (xlwt writes no .xls here: none is installed) with the last
    cell of its first sheet (`far`: Sales' I7, `true`) or of each of its four sheets (`sheets`)
    moved to (row, column), 0-based: by default IV65536, the last cell of an .xls sheet, so a
    sheet spans 65,536 × 256 cells (16.7 million, the most BIFF8 holds) for its few values. The workbook stream lies whole after the header's 512
    bytes (xlwt writes it so), so its records are walked in the file's own bytes."""
    data = bytearray(XLS_FIXTURE.read_bytes())
    pos, sheets = 512, []
    while pos + 4 <= len(data):
        kind, length = struct.unpack_from("<HH", data, pos)
        if kind == 0x0809:
            sheets.append(None)
        elif kind in _BIFF_CELLS:
            sheets[-1] = pos
        elif kind == 0x000A and len(sheets) == 5:  # the fourth sheet's EOF
            break
        pos += 4 + length
    for at in sheets[1:2] if shape == "far" else sheets[1:]:
        struct.pack_into("<HH", data, at + 4, row, column)
    path.write_bytes(bytes(data))
    return path
