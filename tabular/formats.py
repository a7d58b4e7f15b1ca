"""The formats ingest reads, in one table: what `knowledge.formats` lists and what a file's name
decides are the same entries."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

from .errors import IngestFailed


@dataclass(frozen=True)
class Format:
    name: str
    extensions: tuple[str, ...]  # the name's ending, lowercased; compressed forms included
    media_types: tuple[str, ...]


FORMATS = (
    Format("csv", (".csv", ".txt", ".prn", ".dat", ".psv", ".csv.gz", ".txt.gz", ".gz"), ("text/csv", "text/plain", "application/gzip")),
    Format("tsv", (".tsv", ".tab", ".tsv.gz"), ("text/tab-separated-values",)),
    Format("xlsx", (".xlsx",), ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",)),
    Format("xlsm", (".xlsm",), ("application/vnd.ms-excel.sheet.macroEnabled.12",)),
    Format("ods", (".ods",), ("application/vnd.oasis.opendocument.spreadsheet",)),
    Format("json", (".json",), ("application/json",)),
    Format("ndjson", (".ndjson", ".jsonl"), ("application/x-ndjson",)),
    Format("parquet", (".parquet",), ("application/vnd.apache.parquet",)),
)
DEFAULT = "csv"  # a name with no extension is read as delimited text
REFUSED = {
    ".xls": "old binary Excel (.xls) is not read: save it as .xlsx",
    ".doc": "Word documents are not tables",
    ".ppt": "PowerPoint files are not tables",
}


def file_format(filename: str, options: dict) -> str:
    """The format `options.format` names, else the one the file's name ends with (the longest
    matching ending wins: `x.tsv.gz` is tsv); raises IngestFailed for a refused or unknown one."""
    if options.get("format"):
        return options["format"]
    name = PurePath(filename).name.lower()
    suffix = PurePath(name).suffix
    if suffix in REFUSED:
        raise IngestFailed("format_unavailable", REFUSED[suffix])
    if not suffix:
        return DEFAULT
    matches = [(len(ext), f.name) for f in FORMATS for ext in f.extensions if name.endswith(ext)]
    if matches:
        return max(matches)[1]
    raise IngestFailed("format_unavailable", f"files ending {suffix} are not read yet (read: {', '.join(f.name for f in FORMATS)})")
