"""One table of formats: what knowledge.formats lists is what a file's name decides."""

import struct
import zipfile

import pytest
from conftest import ROOT
from openpyxl import Workbook

import tabular
from tabular.errors import IngestFailed
from tabular.read.decode import CFB_MAGIC
from tabular.read.formats import FORMATS, REFUSED, file_format


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
def test_every_listed_extension_is_read_as_its_format(fmt):
    for ext in fmt.extensions:
        if ext == ".gz":
            continue  # a bare .gz is delimited text, listed under csv
        assert file_format(f"Sales Report{ext.upper()}", {}) == fmt.name


@pytest.mark.parametrize(
    "name, expected",
    [
        ("a.tsv.gz", "tsv"),
        ("a.csv.gz", "csv"),
        ("data", "csv"),
        ("x.tab", "tsv"),
        ("dump.gz", "csv"),
        ("v1.2.json", "json"),
    ],
)
def test_the_longest_ending_decides(name, expected):
    assert file_format(name, {}) == expected


def test_refused_and_unknown_names_say_why():
    for ext in REFUSED:
        with pytest.raises(IngestFailed) as refused:
            file_format(f"old{ext}", {})
        assert refused.value.error_code == "format_unavailable"
    with pytest.raises(IngestFailed, match=r"\.pdf"):
        file_format("scan.pdf", {})
    assert file_format("scan.pdf", {"format": "csv"}) == "csv"


def test_first_bytes_overrule_the_name_where_they_cannot_be_mistaken(tmp_path):
    ole, zipped = tmp_path / "ole", tmp_path / "zipped"
    ole.write_bytes(CFB_MAGIC + bytes(504))
    zipped.write_bytes(b"PK\x03\x04" + bytes(60))
    # An OLE2 container is an .xls (or an encrypted workbook, which the xls reader refuses as such).
    assert (
        file_format("data.csv", {}, ole)
        == file_format("report.xlsx", {}, ole)
        == file_format("report", {}, ole)
        == "xls"
    )
    assert file_format("report.xls", {}, zipped) == "xlsx"  # an .xlsx under the old name
    assert file_format("report.xls", {"format": "csv"}, ole) == "csv"  # options.format still wins
    assert file_format("data.csv", {}, tmp_path / "missing") == "csv"
    with pytest.raises(IngestFailed):
        file_format("letter.doc", {}, ole)  # Word files are OLE2 too: refused by name first


# --------------------------------------------------------------------------------------------
# A zip's listing is bounded before it is parsed (issue 30): the end-of-central-directory record
# gives the entry count, so 3 million entries are refused without 1.4 GB spent listing them.


def _zip(path, names, text="x,y\n1,2\n"):
    with zipfile.ZipFile(path, "w") as z:
        for name in names:
            z.writestr(name, text)
    return path


def _zip64_claiming(path, entries: int):
    """A one-file zip whose ZIP64 end records declare `entries` entries and a listing to match,
    as an archive of millions of entries does (the classic record saturates at 0xFFFF)."""
    data = _zip(path, ["a.csv"]).read_bytes()
    eocd = data.rfind(b"PK\x05\x06")
    body, classic = data[:eocd], bytearray(data[eocd:])
    listing, offset = struct.unpack("<II", classic[12:20])
    record = b"PK\x06\x06" + struct.pack("<QHHIIQQQQ", 44, 45, 45, 0, 0, entries, entries, entries * 60, offset)
    locator = b"PK\x06\x07" + struct.pack("<IQI", 0, len(body), 1)
    classic[8:12] = struct.pack("<HH", 0xFFFF, 0xFFFF)
    path.write_bytes(body + record + locator + bytes(classic))
    return path


def _failed(tmp_path, path, **settings):
    with tabular.connect(str(tmp_path / "home"), **settings) as engine:
        status = engine.namespace("acme", "finance").ingest_file(path, source_uri=path.name)
    return status


def test_a_zip_listing_more_entries_than_allowed_is_too_large_before_it_is_listed(tmp_path):
    path = _zip(tmp_path / "many.csv", [f"d{i}.csv" for i in range(50)])
    status = _failed(tmp_path, path, max_zip_entries=10)
    assert status.state == "failed" and status.error_code == "too_large"
    assert "lists 50 entries; at most 10 are read (max_zip_entries)" in status.error_message


def test_a_zip64_record_claiming_millions_of_entries_is_refused_by_its_count(tmp_path):
    status = _failed(tmp_path, _zip64_claiming(tmp_path / "huge.csv", 3_000_000))
    assert status.error_code == "too_large" and "3000000 entries" in status.error_message


def test_a_listing_longer_than_its_count_allows_is_refused(tmp_path):
    # The classic record says 1 entry, the listing holds 2,000: zipfile reads the listing by its
    # size, never its count, so the size is bounded too.
    data = bytearray(_zip(tmp_path / "liar.csv", [f"{'n' * 200}{i}.csv" for i in range(2000)]).read_bytes())
    eocd = data.rfind(b"PK\x05\x06")
    data[eocd + 8 : eocd + 12] = struct.pack("<HH", 1, 1)
    (tmp_path / "liar.csv").write_bytes(bytes(data))
    status = _failed(tmp_path, tmp_path / "liar.csv", max_zip_entries=100)
    assert status.error_code == "too_large" and "max_zip_entries" in status.error_message


def test_a_one_file_zip_and_a_workbook_within_their_limits_are_read(tmp_path):
    path = _zip(tmp_path / "one.csv", ["data/", "data/a.csv"])
    with tabular.connect(str(tmp_path / "home")) as engine:
        ns = engine.namespace("acme", "finance")
        assert ns.ingest_file(path, source_uri="one.csv").state == "ready"
        book = Workbook()
        book.active.append(["a", "b"])
        book.active.append([1, 2])
        book.save(tmp_path / "book.xlsx")
        assert ns.ingest_file(tmp_path / "book.xlsx", source_uri="book.xlsx").state == "ready"


def test_a_workbook_listing_more_parts_than_allowed_is_too_large(tmp_path):
    book = Workbook()
    for i in range(30):
        book.create_sheet(f"s{i}").append(["a", 1])
    book.save(tmp_path / "parts.xlsx")
    status = _failed(tmp_path, tmp_path / "parts.xlsx", max_workbook_entries=20)
    assert status.error_code == "too_large" and "(max_workbook_entries)" in status.error_message


FIXTURES = ROOT / "fixtures"
PARSED = [
    ("sheets/typed_cells.xlsx", {}, "openpyxl"),
    ("sheets/typed_cells.xlsx", {"sheet_fast_bytes": 0}, "fastexcel"),
    ("sheets/wide_types.ods", {}, "calamine"),
    ("sheets/typed_cells.xls", {}, "calamine"),
    ("records/people.json", {}, "json"),
    ("records/people.ndjson", {}, "json"),
    ("records/typed.parquet", {}, "duckdb"),
]


@pytest.mark.parametrize(("fixture", "settings", "parser"), PARSED)
def test_knowledge_get_names_the_parser_its_datasets_origins_name(tmp_path, fixture, settings, parser):
    """The revision's parser is what read the cells, as each dataset's origin says; never one
    guessed from the format (an .xlsx read by fastexcel said openpyxl)."""
    with tabular.connect(str(tmp_path / "home"), **settings) as engine:
        ns = engine.namespace("acme", "files")
        path = FIXTURES / fixture
        assert ns.ingest_file(path, source_uri=path.name).state == "ready"
        got = ns.call("knowledge.get", {"source_uri": path.name})
        origins = {d.origin.parser for d in ns.dataset_get(path.name).datasets}
    assert (got["parser"], origins) == (parser, {parser})


@pytest.mark.parametrize("one_pass", [True, False])
def test_delimited_text_names_the_reader_that_read_it(tmp_path, one_pass):
    """Regular text read in one pass says arrow (Arrow's CSV reader); text the careful way reads
    says csv (Python's csv module): ragged rows go the careful way (fast_path_bytes=0: a small file
    is read the fast way too)."""
    text = "a,b\n1,2\n3,4\n" if one_pass else "a,b\n1,2\n3,4,5\n"
    path = tmp_path / "t.csv"
    path.write_text(text)
    with tabular.connect(str(tmp_path / "home"), fast_path_bytes=0) as engine:
        ns = engine.namespace("acme", "files")
        assert ns.ingest_file(path, source_uri="t.csv").state == "ready"
        got = ns.call("knowledge.get", {"source_uri": "t.csv"})
        (dataset,) = ns.dataset_get("t.csv").datasets
    expected = "arrow" if one_pass else "csv"
    assert (got["parser"], dataset.origin.parser, bool(dataset.origin.one_pass)) == (expected, expected, one_pass)


def test_a_forced_format_that_is_none_of_the_table_is_refused_at_its_path(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,2\n")
    with tabular.connect(str(tmp_path / "home")) as engine:
        ns = engine.namespace("acme", "files")
        upload = ns.upload_file(path)
        with pytest.raises(tabular.TabularError) as refused:
            ns.call(
                "knowledge.ingest",
                {"upload_id": upload["upload_id"], "source_uri": "t.csv", "options": {"format": "xslx"}},
            )
    (item,) = refused.value.errors
    assert (refused.value.code, item.path, item.received, item.did_you_mean[0]) == (
        "VALIDATION_FAILED",
        "options.format",
        "xslx",
        "xlsx",
    )


@pytest.mark.parametrize(
    ("name", "text", "forced", "columns"),
    [
        ("t.txt", "a\tb\n1\t2\n", "tsv", ["a", "b"]),  # forced tsv: tab-separated, as a .tsv is
        ("t.txt", "a\tb\n1\t2\n", "TSV", ["a", "b"]),  # a format's name whatever its case
        ("t.dat", "a;b\n1;2\n", "Csv", ["a", "b"]),
        ("t.tsv", "a,b\n1,2\n", "csv", ["a", "b"]),  # forced csv over the name's tsv: its delimiter sniffed
    ],
)
def test_a_forced_format_reads_as_that_format_does(tmp_path, name, text, forced, columns):
    path = tmp_path / name
    path.write_text(text)
    with tabular.connect(str(tmp_path / "home")) as engine:
        ns = engine.namespace("acme", "files")
        status = ns.ingest_file(path, source_uri=name, options={"format": forced})
        assert status.state == "ready", status.error_message
        (dataset,) = ns.dataset_get(name).datasets
    assert [c.name for c in dataset.columns] == columns
    assert dataset.origin.format == ("tsv" if forced.lower() == "tsv" else "csv")
