"""The formats ingest reads, in one table: what `knowledge.formats` lists, what a file's name
decides, how each is read and with which options are the same entries, and `read` is the one
dispatcher. A file's first bytes overrule its name where they cannot be mistaken: an OLE2
container is an old binary workbook (.xls), a zip named .xls is an .xlsx. A new format is one
entry here and its reader."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from ..errors import IngestFailed
from ..settings import Settings
from .decode import CFB_MAGIC, ZIP_MAGIC

if TYPE_CHECKING:  # each reader loads its own (Polars, openpyxl) when a file of its format is read
    from .extraction import Extraction

# A reader: (the file, a folder for its extractions, the table's name, the format, the options,
# the settings, a progress callback taking rows read) -> its extractions, and the coverage of a
# container of several tables (sheets) or None for one table.
Reader = Callable[[Path, Path, str, str, dict, Settings, Callable[[int], None]], tuple[list["Extraction"], dict | None]]


def _delimited(path, folder, name, fmt, options, settings, progress):
    """Every table of a delimited file, each an extraction (read/tables.py: a blank line, then a
    header of their own), at most max_tables_per_file (the last one read to the file's end); one
    in all for most files. Each says where it starts and where the next begins."""
    from .extraction import read_delimited  # heavy: the delimited reader (DuckDB's sniffer, Polars)

    more = settings.max_tables_per_file > 1
    extractions = [read_delimited(path, folder / "0.parquet", name, options, settings, progress, split=more)]
    while start := extractions[-1].rest_from:
        more = len(extractions) + 1 < settings.max_tables_per_file
        out = folder / f"{len(extractions)}.parquet"
        extractions[-1].notes.append(
            f"the file holds another table from line {start + 1} (a blank line, then a header of its own): "
            "it is read as another dataset of this source"
        )
        extractions.append(read_delimited(path, out, name, options, settings, progress, start, split=more))
        extractions[-1].notes.append(
            f"this table starts at line {start + 1} of the file, after another table (a blank line, then its header)"
        )
    return extractions, None


def _workbook(path, folder, name, fmt, options, settings, progress):
    from .sheets import workbooks  # heavy: the workbook readers (openpyxl, calamine, Polars)

    return workbooks.read_workbook(path, folder, fmt, options, settings)


def _spreadsheet(path, folder, name, fmt, options, settings, progress):
    from .sheets import workbooks  # heavy: the workbook readers (openpyxl, calamine, Polars)

    return workbooks.read_calamine(path, folder, fmt, options, settings)


def _xls(path, folder, name, fmt, options, settings, progress):
    from .sheets import workbooks  # heavy: the workbook readers (openpyxl, calamine, Polars)

    return workbooks.read_xls(path, folder, options, settings)


def _json(path, folder, name, fmt, options, settings, progress):
    from . import records  # heavy: the JSON and Parquet readers

    return [records.read_json(path, folder / "0.parquet", name, fmt, settings)], None


def _parquet(path, folder, name, fmt, options, settings, progress):
    from . import records  # heavy: the JSON and Parquet readers

    return [records.read_parquet(path, folder / "0.parquet", name, settings)], None


@dataclass(frozen=True)
class Format:
    name: str
    extensions: tuple[str, ...]  # the name's ending, lowercased; compressed forms included
    media_types: tuple[str, ...]
    reader: Reader
    # Delimited text: typed on its first rows and stored in one guarded pass where it is
    # regular (ingest/onepass), the reader above otherwise. Any other format's long tables are
    # typed on their sample once extracted.
    delimited: bool = False
    options: dict = field(default_factory=dict)  # what the format means when the caller does not say


FORMATS = (
    Format(
        "csv",
        (".csv", ".txt", ".prn", ".dat", ".psv", ".csv.gz", ".txt.gz", ".gz"),
        ("text/csv", "text/plain", "application/gzip"),
        _delimited,
        delimited=True,
    ),
    Format(
        "tsv",
        (".tsv", ".tab", ".tsv.gz"),
        ("text/tab-separated-values",),
        _delimited,
        delimited=True,
        options={"delimiter": "\t"},
    ),
    Format("xlsx", (".xlsx",), ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",), _workbook),
    Format("xlsm", (".xlsm",), ("application/vnd.ms-excel.sheet.macroEnabled.12",), _workbook),
    Format("ods", (".ods",), ("application/vnd.oasis.opendocument.spreadsheet",), _spreadsheet),
    Format("xls", (".xls",), ("application/vnd.ms-excel",), _xls),
    Format("json", (".json",), ("application/json",), _json),
    Format("ndjson", (".ndjson", ".jsonl"), ("application/x-ndjson",), _json),
    Format("parquet", (".parquet",), ("application/vnd.apache.parquet",), _parquet),
)
BY_NAME = {f.name: f for f in FORMATS}
DEFAULT = "csv"  # a name with no extension is read as delimited text
REFUSED = {
    ".doc": "Word documents are not tables",
    ".ppt": "PowerPoint files are not tables",
}


def with_defaults(fmt: str, options: dict) -> dict:
    """The caller's options, with the format's own where the caller left one unsaid (a .tsv is
    tab-separated unless `delimiter` says otherwise)."""
    out = dict(options)
    for key, value in BY_NAME[fmt].options.items():
        if not out.get(key):
            out[key] = value
    return out


def read(
    path: Path, folder: Path, name: str, fmt: str, options: dict, settings: Settings, progress=lambda rows: None
) -> tuple[list[Extraction], dict | None]:
    """A file of format `fmt` read into extractions by its entry's reader (`options` as
    with_defaults gives them)."""
    return BY_NAME[fmt].reader(path, folder, name, fmt, options, settings, progress)


def file_format(filename: str, options: dict, path: Path | None = None) -> str:
    """The format `options.format` names, else the one the file's first bytes show (an OLE2
    container is xls whatever its name, a zip named .xls is xlsx), else the one the file's name
    ends with (the longest matching ending wins: `x.tsv.gz` is tsv); raises IngestFailed for a
    refused or unknown one."""
    if options.get("format"):
        forced = options["format"].lower()  # CSV, Xlsx: a format's name whatever its case
        if forced not in BY_NAME:  # refused at knowledge.ingest; a job stored before that is failed here
            raise IngestFailed("format_unavailable", f"no format {options['format']!r} (read: {', '.join(BY_NAME)})")
        return forced
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
