"""One table of formats: what knowledge.formats lists is what a file's name decides."""

import pytest

from tabular.errors import IngestFailed
from tabular.formats import CFB_MAGIC, FORMATS, REFUSED, file_format


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
