"""An ODS's content.xml read with expat: the extent its values span counted from repeat counts
(never made), and, for a workbook whose grids pass max_sheet_cells, its values read as
calamine reads them (the same datasets)."""

import zipfile
from pathlib import Path

import pytest
from conftest import ROOT
from hostile_workbooks import ODS_OPEN, TOP_ODS, ods, ods_gap, ods_number, ods_row, ods_text

import tabular
from tabular.errors import IngestFailed
from tabular.read.sheets.odsxml import GridBound, OdsSheets
from tabular.settings import Settings


def ingested(tmp_path, path, **settings):
    with tabular.connect(str(tmp_path / "home"), **settings) as engine:
        ns = engine.namespace("acme", "sheets")
        status = ns.ingest_file(path, source_uri=path.name)
        return status, ns.dataset_get(path.name, sample_rows=20).datasets if status.state == "ready" else []


def scanned(tables: bytes, styles: bytes = b"", opening: bytes = ODS_OPEN) -> tuple[list, GridBound]:
    """What expat (OdsSheets) finds of each sheet, and the GridBound, both fed in pieces."""
    sheets, bound = OdsSheets(Settings()), GridBound()
    content = (
        opening
        + b"<office:automatic-styles>%s</office:automatic-styles>" % styles
        + b"<office:body><office:spreadsheet>%s</office:spreadsheet></office:body></office:document-content>" % tables
    )
    for k in range(0, len(content), 100):  # fed in pieces, as the container check reads it
        sheets.feed(content[k : k + 100])
        bound.feed(content[k : k + 100])
    sheets.feed(b"", final=True)
    bound.feed(b"", final=True)
    return [(s.name, s.hidden, s.rows, s.columns, s.values) for s in sheets.sheets], bound


def test_the_extent_of_a_sheets_values_is_counted_from_its_repeats():
    table = b"".join(
        [
            b'<table:table table:name="S" table:style-name="ta2">',
            b'<table:table-column table:number-columns-repeated="1024"/>',
            *TOP_ODS,
            ods_row(ods_gap(100), repeated=300_000),
            # A value two cells wide, in a row repeated twice; a cell holding a comment alone.
            ods_row(
                ods_gap(98),
                b'<table:table-cell table:number-columns-repeated="2" office:value-type="float" office:value="9"/>',
                b"<table:table-cell><office:annotation><text:p>a note</text:p></office:annotation></table:table-cell>",
                repeated=2,
            ),
            # What LibreOffice writes after the last row: empty rows to the sheet's end.
            ods_row(ods_gap(1024), repeated=1_048_000),
            b"</table:table>",
            b'<table:table table:name="T">',
            ods_row(ods_text("x")),
            b"</table:table>",
        ]
    )
    hidden = b'<style:style style:name="ta2" style:family="table"><style:table-properties table:display="false"/></style:style>'
    found, bound = scanned(table, hidden)
    assert found == [("S", True, 300_005, 100, 6 + 4), ("T", False, 1, 1, 1)]
    # The bound the container check takes (a step per row): the comment's cell counts as a column.
    assert (bound.cells, bound.unsure) == (300_005 * 101 + 1, False)


def test_markup_the_bound_cannot_read_is_left_to_expat():
    nested = b'<table:table table:name="S"><table:table-row><table:table-cell><table:table table:name="in"/></table:table-cell></table:table-row></table:table>'
    assert scanned(nested)[1].unsure
    other = ODS_OPEN.replace(b"xmlns:table=", b'xmlns:t="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:table=')
    assert scanned(b'<table:table table:name="S"/>', opening=other)[1].unsure
    assert not scanned(b'<table:table table:name="S"/>')[1].unsure


def test_content_that_is_not_xml_is_refused_naming_a_password():
    sheets = OdsSheets(Settings())
    with pytest.raises(IngestFailed) as refused:
        sheets.feed(b"\x9c\x01encrypted bytes", final=True)
    assert refused.value.error_code == "format_unavailable" and "password" in refused.value.message


VALUES = [
    ods_row(*(ods_text(t) for t in ("text", "when", "at", "long", "share", "paid", "note"))),
    ods_row(
        b'<table:table-cell office:value-type="string"><text:p>two<text:s text:c="2"/>spaces</text:p>'
        b"<text:p>and a line</text:p></table:table-cell>",
        b'<table:table-cell office:value-type="date" office:date-value="2024-01-05"><text:p>5 Jan</text:p></table:table-cell>',
        b'<table:table-cell office:value-type="date" office:date-value="2024-01-05T09:30:00"><text:p>x</text:p></table:table-cell>',
        b'<table:table-cell office:value-type="time" office:time-value="PT36H15M00S"><text:p>36:15</text:p></table:table-cell>',
        b'<table:table-cell office:value-type="percentage" office:value="0.125"><text:p>12.5%</text:p></table:table-cell>',
        b'<table:table-cell office:value-type="boolean" office:boolean-value="true"><text:p>TRUE</text:p></table:table-cell>',
        b"<table:table-cell><office:annotation><text:p>a comment</text:p></office:annotation></table:table-cell>",
    ),
    ods_row(
        ods_text("plain"),
        b'<table:table-cell office:value-type="date" office:date-value="2024-02-29"><text:p>29 Feb</text:p></table:table-cell>',
        b'<table:table-cell office:value-type="date" office:date-value="2024-02-02T00:00:00"><text:p>x</text:p></table:table-cell>',
        b'<table:table-cell office:value-type="time" office:time-value="PT00H00M30S"><text:p>0:00:30</text:p></table:table-cell>',
        b'<table:table-cell office:value-type="percentage" office:value="1"><text:p>100%</text:p></table:table-cell>',
        b'<table:table-cell office:value-type="boolean" office:boolean-value="false"><text:p>FALSE</text:p></table:table-cell>',
        ods_text("n"),
    ),
]


def with_hidden(source: Path, out: Path, far: bool) -> Path:
    """The ODS with a hidden sheet added, whose one value is 300,000 rows down (`far`: the
    workbook's grids pass max_sheet_cells, so it is read from its values) or in A1."""
    with zipfile.ZipFile(source) as z:
        parts = {name: z.read(name) for name in z.namelist()}
    rows = (
        [ods_row(ods_gap(100), repeated=300_000), ods_row(ods_gap(99), ods_number(9))]
        if far
        else [ods_row(ods_number(9))]
    )
    sheet = b'<table:table table:name="hidden" table:style-name="hid">%s</table:table>' % b"".join(rows)
    style = b'<style:style style:name="hid" style:family="table"><style:table-properties table:display="false"/></style:style>'
    content = parts["content.xml"].replace(b"</office:automatic-styles>", style + b"</office:automatic-styles>", 1)
    parts["content.xml"] = content.replace(b"</office:spreadsheet>", sheet + b"</office:spreadsheet>", 1)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, data, compress_type=zipfile.ZIP_STORED if name == "mimetype" else zipfile.ZIP_DEFLATED)
    return out


@pytest.mark.parametrize("fixture", ["wide_types", "values"])
def test_an_ods_read_from_its_values_reads_as_calamine_does(tmp_path, fixture):
    if fixture == "wide_types":
        source = ROOT / "fixtures" / "sheets" / "wide_types.ods"
    else:
        source = ods(tmp_path / "values.ods", {"S": VALUES, "T": TOP_ODS})

    def outcome(far: bool):
        path = with_hidden(source, tmp_path / f"{fixture}-{far}.ods", far)
        status, found = ingested(tmp_path / str(far), path)
        assert status.state == "ready", status.error_message
        assert {d.origin.parser for d in found} == {"expat" if far else "calamine"}
        return [
            (
                d.dataset_id,
                d.origin.range,
                d.origin.hidden_sheets,
                d.rows,
                [(c.name, c.type, c.physical, c.format) for c in d.columns],
                d.sample,
                d.warnings,
            )
            for d in found
        ]

    # The far hidden sheet sends the workbook to the sparse reader (expat), not calamine.
    assert outcome(far=True) == outcome(far=False)


GROUPED = [
    *TOP_ODS,
    b"<table:table-row-group><table:table-row-group>",
    ods_row(ods_number(7), ods_gap(3), ods_number(8), repeated=2),
    b"</table:table-row-group></table:table-row-group>",
    ods_row(ods_gap(16_384)),
    b"<table:table-header-rows>" + ods_row(ods_gap(2), ods_text("h"), ods_gap(16_381)) + b"</table:table-header-rows>",
    b'<table:table-row><table:covered-table-cell table:number-columns-repeated="9"/>'
    b"<table:table-cell><text:p>t</text:p></table:table-cell></table:table-row>",
    ods_row(ods_gap(1024), repeated=1_048_000),
]


@pytest.mark.parametrize("rows", [TOP_ODS, GROUPED], ids=["plain", "grouped"])
def test_the_bound_is_never_below_calamines_grids(tmp_path, rows):
    import python_calamine

    path = ods(tmp_path / "shape.ods", {"S": rows, "T": TOP_ODS})
    book = python_calamine.CalamineWorkbook.from_path(str(path))
    grids = sum(
        (s.end[0] + 1) * (s.end[1] + 1) for s in map(book.get_sheet_by_name, book.sheet_names) if s.end is not None
    )
    bound = GridBound()
    bound.feed(zipfile.ZipFile(path).read("content.xml"), final=True)
    assert grids <= bound.cells and not bound.unsure
