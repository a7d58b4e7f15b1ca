"""The formats ingest reads, in one table: what `knowledge.formats` lists and what a file's name
decides are the same entries. A file's first bytes overrule its name where they cannot be
mistaken: an OLE2 container is an old binary workbook (.xls), a zip named .xls is an .xlsx."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePath

from ..errors import IngestFailed


@dataclass(frozen=True)
class Format:
    name: str
    extensions: tuple[str, ...]  # the name's ending, lowercased; compressed forms included
    media_types: tuple[str, ...]


FORMATS = (
    Format(
        "csv",
        (".csv", ".txt", ".prn", ".dat", ".psv", ".csv.gz", ".txt.gz", ".gz"),
        ("text/csv", "text/plain", "application/gzip"),
    ),
    Format("tsv", (".tsv", ".tab", ".tsv.gz"), ("text/tab-separated-values",)),
    Format("xlsx", (".xlsx",), ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",)),
    Format("xlsm", (".xlsm",), ("application/vnd.ms-excel.sheet.macroEnabled.12",)),
    Format("ods", (".ods",), ("application/vnd.oasis.opendocument.spreadsheet",)),
    Format("xls", (".xls",), ("application/vnd.ms-excel",)),
    Format("json", (".json",), ("application/json",)),
    Format("ndjson", (".ndjson", ".jsonl"), ("application/x-ndjson",)),
    Format("parquet", (".parquet",), ("application/vnd.apache.parquet",)),
)
DEFAULT = "csv"  # a name with no extension is read as delimited text
REFUSED = {
    ".doc": "Word documents are not tables",
    ".ppt": "PowerPoint files are not tables",
}


# An OLE2 / Compound File Binary container: an .xls workbook, and also an encrypted
# (password-protected) .xlsx, which the xls reader tells apart and refuses as such.
CFB_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ZIP_MAGIC = b"PK\x03\x04"


def file_format(filename: str, options: dict, path: Path | None = None) -> str:
    """The format `options.format` names, else the one the file's first bytes show (an OLE2
    container is xls whatever its name, a zip named .xls is xlsx), else the one the file's name
    ends with (the longest matching ending wins: `x.tsv.gz` is tsv); raises IngestFailed for a
    refused or unknown one."""
    if options.get("format"):
        return options["format"]
    name = PurePath(filename).name.lower()
    suffix = PurePath(name).suffix
    if suffix in REFUSED:
        raise IngestFailed("format_unavailable", REFUSED[suffix])
    head = _head(path)
    if head.startswith(CFB_MAGIC):
        return "xls"
    if suffix == ".xls" and head.startswith(ZIP_MAGIC):
        return "xlsx"  # an .xlsx saved under the old name, as web exports often are
    if not suffix:
        return DEFAULT
    matches = [(len(ext), f.name) for f in FORMATS for ext in f.extensions if name.endswith(ext)]
    if matches:
        return max(matches)[1]
    raise IngestFailed(
        "format_unavailable", f"files ending {suffix} are not read yet (read: {', '.join(f.name for f in FORMATS)})"
    )


def _head(path: Path | None) -> bytes:
    if path is None:
        return b""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(CFB_MAGIC))
    except OSError:  # the reader that opens it says what is wrong
        return b""
