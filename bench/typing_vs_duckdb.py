"""Compare tabular's column typing with DuckDB's `read_csv` auto-detection on the shared corpus.

    python bench/typing_vs_duckdb.py [--corpus ../shared/corpus] [--dump typing.json] [--check] [--damage-only]

Every delimited-text file of the corpus (.csv .tsv .txt .prn, recursively; `_meta/` is left
out) goes through tabular (`ingest_file` on one throwaway engine) and through DuckDB
(`read_csv` with its defaults, `sniff_csv` for the delimiter and header). The columns of the two
reads are paired (by position when the counts match, else by name) and their type *families*
compared. The report gives the counts, a confusion table of families, the files whose shape
differs, every disagreement with a few of its values, and a check against the human verdicts of
tests/typing_real/verdicts.json (see `load_verdicts`). `--dump` writes the disagreements and a
seeded sample of agreements as JSON, for people to judge; `--check` exits 1 when tabular misses
the targets on the judged verdicts.

Beside them, a damage count per reader (`--damage-only` for it alone; in `--dump` too): the file
is read again, apart from both readers, with the dialect each reported, and every typed value
is compared with its raw cell under the column's type and format; rows lost or merged are the
raw data rows against the rows the reader gave (see "damage" below and bench/README.md).
"""

from __future__ import annotations

import argparse
import difflib
import gzip
import io
import json
import math
import random
import re
import sys
import tempfile
import threading
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

from common import ROOT, use_working_tree

EXTENSIONS = {".csv", ".tsv", ".txt", ".prn"}
FAMILIES = ("string", "integer", "decimal", "float", "bool", "date", "datetime", "time", "duration", "empty")
MAX_BYTES = 50 * 1024 * 1024  # larger files are skipped, for both readers
TABULAR_WAIT = 30.0  # seconds to wait for one ingest
DUCKDB_TIMEOUT = 30.0  # seconds before one DuckDB read is interrupted
SAMPLE_VALUES = 8
AGREEMENTS_DUMPED = 60
SEED = 13
COLUMN_TARGET = 0.97  # tabular right on >= 97 % of the judged column verdicts (issue 34's target)
SHAPE_TARGET = 0.97  # and on >= 97 % of the shape verdicts
INTEGERS = {
    "TINYINT",
    "SMALLINT",
    "INTEGER",
    "BIGINT",
    "HUGEINT",
    "UTINYINT",
    "USMALLINT",
    "UINTEGER",
    "UBIGINT",
    "UHUGEINT",
}
TABULAR_TYPES = {
    "string": "string",
    "bool": "bool",
    "date": "date",
    "datetime": "datetime",
    "time": "time",
    "duration": "duration",
}


# --- what one reader saw ------------------------------------------------------------------------


@dataclass
class Column:
    name: str
    family: str
    physical: str  # the DuckDB type (tabular: the storage type it chose)
    header: str = ""  # tabular only: the header text the file had
    format: str = ""  # tabular only: how the text was read
    questions: list[str] = field(default_factory=list)  # tabular only: the open questions on it
    samples: list[str] = field(default_factory=list)  # a few distinct values
    rejected: list[str] = field(default_factory=list)  # tabular only: values of rejected rows


@dataclass
class Read:
    """One reader's view of a file: its shape and columns, or the error that stopped it."""

    error: str | None = None
    header: bool | None = None
    columns: list[Column] = field(default_factory=list)
    rows: int | None = None
    delimiter: str | None = None
    extra: dict = field(default_factory=dict)  # facts only this reader has (encoding, skipped lines …)

    def shape(self) -> dict:
        return {"header": self.header, "columns": len(self.columns), "rows": self.rows, "delimiter": self.delimiter}


def physical_family(physical: str) -> str:
    """The family of a DuckDB type name: BIGINT → integer, DECIMAL(9,2) → decimal …"""
    base = physical.upper().split("(")[0].strip()
    if base in INTEGERS:
        return "integer"
    if base == "DECIMAL":
        return "decimal"
    if base in ("DOUBLE", "FLOAT", "REAL"):
        return "float"
    if base == "BOOLEAN":
        return "bool"
    if base.startswith("TIMESTAMP"):
        return "datetime"
    if base.startswith("TIME"):
        return "time"
    if base == "DATE":
        return "date"
    if base == "INTERVAL":
        return "duration"
    if base in ('"NULL"', "NULL", "SQLNULL"):
        return "empty"
    return "string"


# --- tabular ------------------------------------------------------------------------------------


def tabular_family(column, rows: int) -> str:
    """A number's family is its storage type's; a column with no value at all is `empty`."""
    if column.nulls >= rows:
        return "empty"
    if column.type == "number":
        return physical_family(column.physical)
    return TABULAR_TYPES.get(column.type, column.type)


def first_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[0][:200]


def distinct_values(values, limit: int = SAMPLE_VALUES) -> list[str]:
    out: list[str] = []
    for value in values:
        text = value if isinstance(value, str) else json.dumps(value)
        if value is not None and text not in out:
            out.append(text)
    return out[:limit]


def read_tabular(ns, path: Path, source_uri: str) -> Read:
    """tabular's ingest of the file and the one dataset it gives."""
    try:
        status = ns.ingest_file(path, source_uri=source_uri, wait=TABULAR_WAIT)
    except Exception as err:  # a crash is a finding, not a reason to stop the run
        return Read(error=f"crash: {type(err).__name__}: {first_line(str(err))}")
    if status.state != "ready":
        return Read(error=f"{status.state} {status.error_code or ''}: {first_line(status.error_message or '')}".strip())
    datasets = ns.dataset_get(source_uri, sample_rows=20).datasets
    if len(datasets) != 1:
        return Read(error=f"{len(datasets)} datasets")
    d = datasets[0]
    asked = {}
    for q in d.questions:
        asked.setdefault(q.column, []).append(q.kind)
    columns = [
        Column(
            name=c.name,
            family=tabular_family(c, d.rows),
            header=c.header,
            physical=c.physical,
            format=c.format,
            questions=asked.get(c.name, []),
            samples=distinct_values(row.get(c.name) for row in d.sample or []),
            rejected=distinct_values(r.value for r in d.rejected if r.column == c.name),
        )
        for c in d.columns
    ]
    extra = {
        "encoding": d.origin.encoding,
        "header_rows": d.origin.header_rows,
        "rows_rejected": d.rows_rejected,
        "file_questions": asked.get("", []),
    }
    extra.update(
        {k: v for k, v in d.origin.model_dump().items() if k in ("preamble_lines", "quote", "newline", "compression")}
    )
    return Read(
        header=d.origin.header_rows > 0,
        columns=columns,
        rows=d.rows + d.rows_rejected,
        delimiter=d.origin.delimiter,
        extra=extra,
    )


# --- DuckDB -------------------------------------------------------------------------------------


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def guarded(con, sql: str, params: list):
    """Run one statement, interrupted after DUCKDB_TIMEOUT seconds."""
    timer = threading.Timer(DUCKDB_TIMEOUT, con.interrupt)
    timer.start()
    try:
        return con.execute(sql, params).fetchall()
    finally:
        timer.cancel()


def read_duckdb(con, path: Path) -> Read:
    """DuckDB's default `read_csv` into the temp table `typed`, the same file as text into `text`
    (with the sniffed dialect, so the columns line up) and `sniff_csv`'s dialect."""
    try:
        guarded(con, "CREATE OR REPLACE TEMP TABLE typed AS SELECT * FROM read_csv(?)", [str(path)])
        sniff = con.execute(
            "SELECT Delimiter, Quote, Escape, SkipRows, HasHeader, Comment, DateFormat, TimestampFormat FROM sniff_csv(?)",
            [str(path)],
        ).fetchone()
    except Exception as err:
        return Read(error=f"{type(err).__name__}: {first_line(str(err))}")
    delimiter, quote, escape, skip, header, comment, date_format, timestamp_format = (
        "" if v == "(empty)" else v
        for v in sniff  # sniff_csv's word for none
    )
    described = con.execute("DESCRIBE typed").fetchall()
    names = [row[0] for row in described]
    counts = (
        con.execute(f"SELECT count(*), {', '.join(f'count({quoted(n)})' for n in names)} FROM typed").fetchone()
        if names
        else (0,)
    )
    columns = [
        Column(name=n, family="empty" if filled == 0 else physical_family(t), physical=t)
        for (n, t, *_), filled in zip(described, counts[1:])
    ]
    dialect = {
        "quote": quote,
        "escape": escape,
        "comment": comment or "",
        "date_format": date_format or "",
        "timestamp_format": timestamp_format or "",
    }
    extra = {"skip_rows": skip, "dialect": dialect}
    read = Read(header=bool(header), columns=columns, rows=counts[0], delimiter=delimiter, extra=extra)
    text_read(con, path, read, [header, delimiter, quote, escape, skip])
    return read


def text_read(con, path: Path, read: Read, dialect: list) -> None:
    """`all_varchar` read of the file, to sample the text behind each column; when its columns
    do not line up with the typed read's, the typed table is sampled instead."""
    sql = "CREATE OR REPLACE TEMP TABLE text AS SELECT * FROM read_csv(?, all_varchar=true, header=?, delim=?, quote=?, escape=?, skip=?)"
    try:
        guarded(con, sql, [str(path), *dialect])
        names = [row[0] for row in con.execute("DESCRIBE text").fetchall()]
    except Exception:
        names = []
    read.extra["samples_from"] = "all_varchar" if names == [c.name for c in read.columns] else "typed"
    if read.extra["samples_from"] == "typed":
        con.execute("CREATE OR REPLACE TEMP TABLE text AS SELECT * FROM typed")


def duckdb_samples(con, column: str) -> list[str]:
    """Up to SAMPLE_VALUES distinct non-null values of a column of `text`, in file order."""
    name = quoted(column)
    sql = f"SELECT CAST({name} AS VARCHAR) FROM text WHERE {name} IS NOT NULL GROUP BY 1 ORDER BY min(rowid) LIMIT {SAMPLE_VALUES}"
    return [row[0] for row in con.execute(sql).fetchall()]


# --- damage: does each typed value still say what its raw cell said? ----------------------------

DAMAGE_ROWS = 10_000  # rows compared per file (a query answers row ids for at most this many)
DAMAGE_EXAMPLES = 3  # (raw → typed) pairs kept per file and kind of damage
DAMAGE_FILES_SHOWN = 15
DUCKDB_NULLS = ("",)  # read_csv's default null string
TRUE_TEXT = ("true", "t", "yes", "y", "1")
FALSE_TEXT = ("false", "f", "no", "n", "0")
ISO_DATE = re.compile(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})")
ISO_STAMP = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?"
    r"\s*(Z|z|[+-]\d{2}(?::?\d{2})?|UTC|GMT|[A-Za-z]+/[A-Za-z_]+)?"
)
CLOCK = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:\s*([AaPp])\.?[Mm]\.?)?")
ISO_PERIOD = re.compile(r"P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?")


@dataclass
class RawRecord:
    line: int  # the file line the record starts on
    cells: list[str]
    quoted: list[bool]  # whether each cell was written in quotes
    written: dict[int, str] = field(default_factory=dict)  # quoted cells with a quote inside, as written


def raw_records(text: str, delimiter: str, quote: str | None, escape: str | None) -> list[RawRecord]:
    """The records of delimited text, read apart from both readers by the edge rule: a quote opens
    a quoted value only at a field's start and closes it only before a delimiter, a line end or
    the end of the text ("" inside it is one quote); every other quote is a character of the value,
    and a quote that never closes at an edge is kept as written."""
    escape = escape if escape and escape != quote else None
    specials = re.escape(delimiter) + "\r\n" + (re.escape(escape) if escape else "")
    stop = re.compile(f"[{specials}]")
    inner = re.compile("[" + re.escape(quote or "") + (re.escape(escape) if escape else "") + "]") if quote else None
    records: list[RawRecord] = []
    n, pos, line = len(text), 0, 1
    cells: list[str] = []
    quoted: list[bool] = []
    written: dict[int, str] = {}
    start = 1
    while True:
        value, was_quoted, end = None, False, pos
        if quote and pos < n and text[pos] == quote:
            parts, j, literal, crossed = [], pos + 1, False, False
            while (m := inner.search(text, j)) is not None:
                k = m.start()
                crossed = crossed or "\n" in text[j:k] or "\r" in text[j:k]
                if literal and crossed:
                    break  # a quote inside the value and a line break: no quoting, as written
                if text[k] == escape:
                    parts.append(text[j:k] + text[k + 1 : k + 2])
                    j = k + 2
                elif text[k + 1 : k + 2] == quote:
                    parts.append(text[j : k + 1])
                    j = k + 2
                elif k + 1 >= n or text[k + 1] in (delimiter, "\r", "\n"):
                    value, was_quoted, end = "".join(parts) + text[j:k], True, k + 1
                    if literal:
                        written[len(cells)] = text[pos:end]  # either reading of it is the text's
                    break
                else:
                    literal = True
                    parts.append(text[j : k + 1])
                    j = k + 1
        if value is None:  # unquoted, or a quote that never closes at an edge: as written
            parts, j = [], pos
            while (m := stop.search(text, j)) is not None and text[m.start()] == escape:
                parts.append(text[j : m.start()] + text[m.start() + 1 : m.start() + 2])
                j = m.start() + 2
            end = m.start() if m is not None else n
            value = "".join(parts) + text[j:end]
        line += text.count("\n", pos, end) + text.count("\r", pos, end) - text.count("\r\n", pos, end)
        cells.append(value)
        quoted.append(was_quoted)
        if end < n and text[end] == delimiter:
            pos = end + 1
            continue
        records.append(RawRecord(start, cells, quoted, written))
        if end >= n:
            break
        pos = end + (2 if text.startswith("\r\n", end) else 1)
        line += 1
        start, cells, quoted, written = line, [], [], {}
        if pos >= n:
            break
    return records


def is_blank(record: RawRecord) -> bool:
    """Only ASCII spaces and tabs are blank: a row of no-break spaces holds values."""
    return not any(c.strip(" \t") for c in record.cells)


def is_comment(record: RawRecord, width: int, mark: str) -> bool:
    """tabular's rule for a `#` line (read/sniff.is_comment), with the reader's own mark."""
    if not mark or not record.cells[0].lstrip().startswith(mark):
        return False
    return len(record.cells) != width or not "".join(record.cells[1:]).strip()


@dataclass
class RawTable:
    records: list[RawRecord]  # the data rows: after the preamble and header, blank and comment rows left out
    blank: int = 0
    comments: int = 0


def raw_table(path: Path, dialect: dict, width: int) -> RawTable:
    """The file's data records as the dialect a reader reported would give them: `encoding`,
    `delimiter`, `quote`, `escape`, `skip` (records before the header), `header_rows`, `comment`."""
    data = path.read_bytes()
    if dialect.get("compression") == "gzip":
        data = gzip.decompress(data)
    elif dialect.get("compression") == "zip":
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            data = z.read(z.namelist()[0])
    text = data.decode(dialect["encoding"], errors="replace").removeprefix("\ufeff")
    records = raw_records(text, dialect["delimiter"], dialect["quote"] or None, dialect["escape"] or None)
    if records and records[-1].cells == [""]:
        records.pop()
    table = RawTable([])
    rest = records[dialect["skip"] :]
    headers = 0
    for record in rest:
        if headers < dialect["header_rows"]:
            if not (is_blank(record) or is_comment(record, width, dialect["comment"])):
                headers += 1
            continue
        if is_blank(record):
            table.blank += 1
        elif is_comment(record, width, dialect["comment"]):
            table.comments += 1
        else:
            table.records.append(record)
    return table


def format_options(fmt: str) -> dict[str, str]:
    return dict(part.split("=", 1) for part in fmt.split(";") if "=" in part)


def number_of(text: str, fmt: str) -> Decimal:
    """A number's text read by its format: the unit and group marks dropped, the decimal mark made '.'."""
    opts = format_options(fmt)
    mark, group, unit = opts.get("decimal_mark", "."), opts.get("group_mark"), opts.get("unit")
    # negative=brackets|trailing: (250.00) and 250.00- are minus 250 (a leading minus reads too).
    minus = opts.get("negative") in ("brackets", "trailing") and (
        "-" in text or (opts.get("negative") == "brackets" and "(" in text)
    )
    if minus:
        text = text.replace("(", "").replace(")", "").replace("-", "").strip()
    if unit:
        text = re.sub(r"\s", "", text.replace(unit, ""))
    for g in {" ": " \u00a0\u202f", "'": "'\u2019"}.get(group, group or ""):
        text = text.replace(g, "")
    if mark == ",":
        text = text.replace(".", "#").replace(",", ".")  # a '.' left over must not pass as the mark
    if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(nan|inf|infinity)", text, re.IGNORECASE):
        raise ValueError(text)
    return -Decimal(text) if minus else Decimal(text)


def iso_datetime(text: str) -> datetime:
    m = ISO_STAMP.fullmatch(text)
    if m is None:
        raise ValueError(text)
    y, mo, d, h, mi, s, frac, zone = m.groups()
    micro = round(int((frac or "0").ljust(9, "0")[:9]) / 1000)
    value = datetime(int(y), int(mo), int(d), int(h or 0), int(mi or 0), int(s or 0)) + timedelta(microseconds=micro)
    if zone in (None, ""):
        return value
    if zone in ("Z", "z", "UTC", "GMT"):
        return value.replace(tzinfo=UTC)
    if "/" in zone:
        return value.replace(tzinfo=ZoneInfo(zone))
    sign = -1 if zone[0] == "-" else 1
    digits = zone[1:].replace(":", "").ljust(4, "0")
    return value.replace(tzinfo=timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))))


def clock_of(text: str) -> timedelta:
    m = CLOCK.fullmatch(text)
    if m is None:
        raise ValueError(text)
    h, mi, s, frac, half = m.groups()
    hours = int(h)
    if half:
        hours = hours % 12 + (12 if half.lower() == "p" else 0)
    micro = round(int((frac or "0").ljust(9, "0")[:9]) / 1000)
    return timedelta(hours=hours, minutes=int(mi), seconds=int(s or 0), microseconds=micro)


def parsed(text: str, kind: str, fmt: str):
    """What trimmed, non-null text says under a column's type and format (ValueError when it cannot)."""
    if kind == "number":
        return number_of(text, fmt)
    if kind == "bool":
        low = text.lower()
        if low in TRUE_TEXT or low in FALSE_TEXT:
            return low in TRUE_TEXT
        raise ValueError(text)
    if kind == "date":
        if not fmt:
            m = ISO_DATE.fullmatch(text)
            if m is None:
                raise ValueError(text)
            return date(*map(int, m.groups()))
        return datetime.strptime(text, fmt).date()
    if kind == "datetime":
        if not fmt or fmt.startswith("%Y-%m-%dT%H:%M:%S"):
            return iso_datetime(text)
        return datetime.strptime(text, fmt)
    if kind == "time":
        clock = clock_of(text)
        return (datetime.min + clock).time()
    if kind == "duration":
        if fmt == "ISO 8601":
            m = ISO_PERIOD.fullmatch(text)
            if m is None:
                raise ValueError(text)
            w, d, h, mi, s = (float(g or 0) for g in m.groups())
            return timedelta(weeks=w, days=d, hours=h, minutes=mi, seconds=s)
        if fmt == "m:ss.f" and (m := re.fullmatch(r"(\d+):(\d{2}(?:\.\d+)?)", text)):
            return timedelta(minutes=int(m[1]), seconds=float(m[2]))
        parts = text.split(":")
        if len(parts) == 3 and parts[0].isdigit():  # hours may pass 23
            return timedelta(hours=int(parts[0])) + clock_of("0:" + ":".join(parts[1:]))
        return clock_of(text)
    return text


def same_value(said, value, kind: str) -> bool:
    if kind == "number":
        if isinstance(value, float) or said.is_nan() or said.is_infinite():
            if math.isnan(float(value)) and said.is_nan():
                return True
            return math.isclose(float(said), float(value), rel_tol=1e-12, abs_tol=0.0)
        return said == Decimal(str(value))
    if kind == "datetime" and isinstance(value, datetime):
        if (value.tzinfo is None) != (said.tzinfo is None):
            # an offset-free value in a zoned column is read as UTC (and asked about)
            said = said.replace(tzinfo=UTC) if said.tzinfo is None else said
            value = value.replace(tzinfo=UTC) if value.tzinfo is None else value
        return said == value
    if kind == "date" and isinstance(value, datetime):
        value = value.date()
    return said == value


def as_text(value) -> str:
    return "null" if value is None else (value if isinstance(value, str) else str(value))


def damage_kind(raw: str, was_quoted: bool, value, kind: str, fmt: str, nulls: tuple, single_chars: bool) -> str | None:
    """None when the typed value says what the raw cell said under the column's type and format,
    else the kind of damage. Allowed: spaces around a value trimmed (every type but string, and a
    string only where trimming leaves the rest as written); an empty or blank cell, or one of the
    reader's null markers in a typed column, as null; a unit, group marks, a '+' and leading zeros
    dropped and a decimal comma read by a number's format; any text a date, time or duration
    pattern reads to the same instant. Not allowed: a space made null in a column of single
    characters or where it was quoted."""
    text = raw.strip()
    if value is None:
        if not text:
            return "null from a space" if raw and (was_quoted or single_chars) else None
        if kind != "string" and text in nulls:
            return None
        return "null from a value"
    if kind == "string":
        if value == raw or value == text:
            return None
        if text.startswith('"') and text.endswith('"') and value == text[1:-1].replace('""', '"'):
            return None  # quoted after a space: `a, "b"`
        if value.replace('"', "") == raw.replace('"', "").strip():
            return "quotes changed"
        return "text changed"
    if not was_quoted and len(text) > 1 and text[0] == text[-1] == '"' and raw[0] != '"':
        text = text[1:-1].strip()  # quoted after a space (`a, "2.3"`), a dialect both readers take
    if not text or text in nulls:
        return "value from nothing"
    try:
        said = parsed(text, kind, fmt)
    except (ValueError, ArithmeticError, KeyError):
        return f"{kind} not in its format"
    if same_value(said, value, kind):
        return None
    if kind == "number":
        digits = re.sub(r"\D", "", raw).lstrip("0")
        return (
            "decimal mark moved" if digits and digits == re.sub(r"\D", "", str(value)).lstrip("0") else "digits changed"
        )
    if kind == "date" and isinstance(value, (date, datetime)):
        day = value if not isinstance(value, datetime) else value.date()
        if said.day <= 12 and said.replace(day=said.month, month=said.day) == day:
            return "date order"
        return "century" if (said.month, said.day) == (day.month, day.day) else "date changed"
    return f"{kind} changed"


@dataclass
class Damage:
    """One reader's damage on one file."""

    checked: bool = False
    why_not: str = ""
    cells: int = 0  # cells compared
    kinds: Counter = field(default_factory=Counter)
    examples: dict = field(default_factory=dict)  # kind -> [{column, line, raw, typed}]
    raw_rows: int = 0  # data rows the raw text holds (blank, comment, preamble and header rows left out)
    reader_rows: int = 0  # the rows the reader gave, rejected ones included (they are said)
    rejected: int = 0
    said_left_out: int = 0  # rows the reader says it left out (a Total row, a note after the table)
    rows_compared: int = 0

    @property
    def damaged(self) -> int:
        return sum(self.kinds.values())

    @property
    def rows_off(self) -> int:
        """Raw data rows the reader lost or merged (> 0) or rows it gave beyond them (< 0)."""
        return self.raw_rows - self.reader_rows - self.said_left_out if self.checked else 0

    def note(self, kind: str, column: str, line: int, raw: str, typed) -> None:
        self.kinds[kind] += 1
        kept = self.examples.setdefault(kind, [])
        if len(kept) < DAMAGE_EXAMPLES:
            kept.append({"column": column, "line": line, "raw": raw[:80], "typed": as_text(typed)[:80]})

    def summary(self) -> dict:
        return {
            "checked": self.checked,
            "why_not": self.why_not,
            "cells": self.cells,
            "damaged": self.damaged,
            "kinds": dict(self.kinds),
            "examples": self.examples,
            "raw_rows": self.raw_rows,
            "reader_rows": self.reader_rows,
            "rejected": self.rejected,
            "said_left_out": self.said_left_out,
            "rows_off": self.rows_off,
            "rows_compared": self.rows_compared,
        }


@dataclass
class TypedColumn:
    name: str
    kind: str  # tabular's type words
    format: str


def row_key(cells: list, columns: list[TypedColumn], raw: bool, nulls: tuple) -> tuple:
    """What a row says, so raw records and typed rows can be lined up when their counts differ."""
    key = []
    for column, cell in zip(columns, cells):
        if raw:
            text = (cell or "").strip()
            if not text or (column.kind != "string" and text in nulls):
                key.append(None)
                continue
            try:
                cell = parsed(text, column.kind, column.format) if column.kind != "string" else text
            except (ValueError, ArithmeticError, KeyError):
                key.append(("?", text))
                continue
        elif isinstance(cell, str):
            cell = cell.strip() or None
        if column.kind == "number" and cell is not None:
            cell = f"{float(cell):.10g}"
        key.append(cell)
    return tuple(key)


def paired_rows(raw: list[RawRecord], typed: list[tuple[int | None, tuple]], columns, nulls) -> list:
    """(raw record, typed row) pairs: by row id when the reader numbered its rows as the raw text
    does, else lined up by what the rows say (unmatched stretches of equal length paired in order)."""
    if all(rid is not None for rid, _ in typed):
        return [(raw[rid - 1], row) for rid, row in typed if 0 < rid <= len(raw)]
    raw_keys = [row_key(r.cells, columns, True, nulls) for r in raw]
    typed_keys = [row_key(list(row), columns, False, nulls) for _, row in typed]
    pairs = []
    matcher = difflib.SequenceMatcher(None, raw_keys, typed_keys, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op in ("equal", "replace"):
            pairs += [(raw[i], typed[j][1]) for i, j in zip(range(i1, i2), range(j1, j2))]
    return pairs


def count_damage(
    damage: Damage, raw: RawTable, typed: list[tuple[int | None, tuple]], columns: list[TypedColumn], nulls: tuple
) -> None:
    """Compare every paired cell and note each one whose value did not survive."""
    single = []
    for i in range(len(columns)):
        values = {r.cells[i] for r in raw.records[:DAMAGE_ROWS] if i < len(r.cells) and r.cells[i].strip(" \t")}
        single.append(bool(values) and all(len(v) == 1 for v in values))
    pairs = paired_rows(raw.records, typed, columns, nulls)
    damage.rows_compared = len(pairs)
    for record, row in pairs:
        cells = record.cells + [""] * (len(columns) - len(record.cells))
        for i, column in enumerate(columns):
            damage.cells += 1
            was_quoted = record.quoted[i] if i < len(record.quoted) else False
            kind = damage_kind(cells[i], was_quoted, row[i], column.kind, column.format, nulls, single[i])
            if kind is not None and i in record.written and row[i] == record.written[i]:
                kind = None  # a quoted cell with a quote inside, kept as written
            if kind is None:
                continue
            for j in (i - 1, i + 1):
                if 0 <= j < len(cells) and cells[j].strip() and row[i] is not None:
                    if damage_kind(cells[j], False, row[i], column.kind, column.format, nulls, False) is None:
                        kind = "value shifted to another column"
                        break
            damage.note(kind, column.name, record.line, cells[i], row[i])
        for extra in cells[len(columns) :]:
            if extra.strip():
                damage.cells += 1
                damage.note("value beyond the columns", "", record.line, extra, None)


def tabular_damage(ns, path: Path, source_uri: str, read: Read) -> Damage:
    """tabular's damage on the file: its origin's dialect for the raw text, its typed rows with their row ids."""
    from tabular.settings import DEFAULT_NULL_MARKERS

    damage = Damage()
    if read.error:
        damage.why_not = "not read"
        return damage
    d = ns.dataset_get(source_uri).datasets[0]
    o = d.origin
    if o.parser not in ("csv", "arrow") or not o.delimiter:
        damage.why_not = f"parser {o.parser}"
        return damage
    columns = [TypedColumn(c.name, c.type, c.format) for c in d.columns]
    dialect = {
        "encoding": o.encoding or "utf-8",
        "delimiter": o.delimiter,
        "quote": o.quote,
        "escape": o.escape,
        "skip": o.preamble_lines or 0,
        "header_rows": o.header_rows,
        "comment": "#",
        "compression": o.compression,
    }
    try:
        raw = raw_table(path, dialect, len(columns))
    except LookupError as err:
        damage.why_not = f"encoding: {err}"
        return damage
    frame = ns.read(source_uri, d.dataset_id)
    ids = ns.query({"datasets": [{"source_uri": source_uri, "dataset_id": d.dataset_id}], "limit": DAMAGE_ROWS}).row_ids
    rows = frame.head(DAMAGE_ROWS).rows()
    typed = [(rid[0] if rid else None, row) for rid, row in zip(ids or [None] * len(rows), rows)]
    damage.checked = True
    damage.raw_rows = len(raw.records)
    damage.reader_rows = d.rows + d.rows_rejected
    damage.rejected = d.rows_rejected
    damage.said_left_out = sum("(a Total row:" in w or "(a note after the table:" in w for w in d.warnings)
    if damage.rows_off:  # numbered rows no longer line up with the raw text's
        typed = [(None, row) for _, row in typed]
    count_damage(damage, raw, typed, columns, DEFAULT_NULL_MARKERS)
    return damage


def duckdb_kind(physical: str) -> str:
    family = physical_family(physical)
    return {"integer": "number", "decimal": "number", "float": "number", "empty": "string"}.get(family, family)


def duckdb_damage(con, path: Path, read: Read) -> Damage:
    """DuckDB's damage on the file: sniff_csv's dialect and date formats, read_csv's typed rows (`typed`)."""
    damage = Damage()
    if read.error:
        damage.why_not = "not read"
        return damage
    sniffed = read.extra.get("dialect", {})
    columns = []
    for c in read.columns:
        kind = duckdb_kind(c.physical)
        fmt = {
            "number": "decimal_mark=.",
            "date": sniffed.get("date_format", ""),
            "datetime": sniffed.get("timestamp_format", ""),
        }.get(kind, "")
        columns.append(TypedColumn(c.name, kind, fmt))
    dialect = {
        "encoding": "utf-8",
        "delimiter": read.delimiter or ",",
        "quote": sniffed.get("quote"),
        "escape": sniffed.get("escape"),
        "skip": read.extra.get("skip_rows") or 0,
        "header_rows": 1 if read.header else 0,
        "comment": sniffed.get("comment", ""),
    }
    raw = raw_table(path, dialect, len(columns))
    rows = con.execute(f"SELECT * FROM typed LIMIT {DAMAGE_ROWS}").fetchall()
    damage.checked = True
    damage.raw_rows = len(raw.records)
    damage.reader_rows = read.rows or 0
    typed = [(k + 1 if damage.raw_rows == damage.reader_rows else None, row) for k, row in enumerate(rows)]
    count_damage(damage, raw, typed, columns, DUCKDB_NULLS)
    return damage


# --- comparing the two reads --------------------------------------------------------------------


@dataclass
class FileResult:
    file: str
    tabular: Read
    duckdb: Read
    pairs: list[tuple[Column, Column]] = field(default_factory=list)
    unpaired_tabular: list[str] = field(default_factory=list)
    unpaired_duckdb: list[str] = field(default_factory=list)
    damage: dict[str, Damage] = field(default_factory=dict)  # per reader

    @property
    def both_read(self) -> bool:
        return self.tabular.error is None and self.duckdb.error is None

    def shape_differences(self) -> list[str]:
        """The shape facts where the two reads differ (both must have read the file)."""
        if not self.both_read:
            return []
        mine, theirs = self.tabular.shape(), self.duckdb.shape()
        differ = [key for key in mine if mine[key] != theirs[key]]
        return differ + (["unpaired columns"] if self.unpaired_tabular or self.unpaired_duckdb else [])

    def shape_facts(self) -> dict:
        return {
            "tabular": {**self.tabular.shape(), **self.tabular.extra, "error": self.tabular.error},
            "duckdb": {**self.duckdb.shape(), **self.duckdb.extra, "error": self.duckdb.error},
            "differs": self.shape_differences(),
            "unpaired_tabular": self.unpaired_tabular,
            "unpaired_duckdb": self.unpaired_duckdb,
        }


def normalised(name: str) -> str:
    return name.strip().lower()


def pair_columns(result: FileResult) -> None:
    """By position when both reads have as many columns, else by normalised name (tabular's
    name or the file's header text)."""
    mine, theirs = result.tabular.columns, result.duckdb.columns
    if len(mine) == len(theirs):
        result.pairs = list(zip(mine, theirs))
        return
    by_name = {normalised(c.name): c for c in reversed(theirs)}
    taken: set[str] = set()
    for column in mine:
        keys = (normalised(column.name), normalised(column.header))
        match = next((by_name[k] for k in keys if k in by_name and k not in taken), None)
        if match is None:
            result.unpaired_tabular.append(column.name)
            continue
        taken.add(normalised(match.name))
        result.pairs.append((column, match))
    result.unpaired_duckdb = [c.name for c in theirs if normalised(c.name) not in taken]


def compare_file(ns, con, path: Path, corpus: Path, damage_only: bool = False) -> FileResult:
    rel = path.relative_to(corpus).as_posix()
    result = FileResult(rel, read_tabular(ns, path, rel), read_duckdb(con, path))
    for reader, count in (
        ("tabular", lambda: tabular_damage(ns, path, rel, result.tabular)),
        ("duckdb", lambda: duckdb_damage(con, path, result.duckdb)),
    ):
        try:
            result.damage[reader] = count()
        except Exception as err:  # the comparer's own failure: said, never counted as damage
            result.damage[reader] = Damage(why_not=f"comparer: {type(err).__name__}: {first_line(str(err))}")
    if result.both_read and not damage_only:
        pair_columns(result)
        for _, theirs in result.pairs:
            theirs.samples = duckdb_samples(con, theirs.name)
    return result


def corpus_files(corpus: Path) -> tuple[list[Path], list[Path]]:
    """The delimited files to read, and those skipped for size."""
    found = sorted(
        p
        for p in corpus.rglob("*")
        if p.is_file() and p.suffix.lower() in EXTENSIONS and "_meta" not in p.relative_to(corpus).parts
    )
    return [p for p in found if p.stat().st_size <= MAX_BYTES], [p for p in found if p.stat().st_size > MAX_BYTES]


def run_all(files: list[Path], corpus: Path, damage_only: bool = False) -> list[FileResult]:
    use_working_tree()
    import duckdb

    import tabular

    con = duckdb.connect()
    results = []
    progress = sys.stderr.isatty()
    with tempfile.TemporaryDirectory(prefix="typing-") as home, tabular.connect(home) as engine:
        ns = engine.namespace("bench", "typing")
        for k, path in enumerate(files, 1):
            if progress:
                print(
                    f"\r  {k}/{len(files)} {path.relative_to(corpus)}"[:100].ljust(100),
                    end="",
                    file=sys.stderr,
                    flush=True,
                )
            results.append(compare_file(ns, con, path, corpus, damage_only))
    if progress:
        print(file=sys.stderr)
    con.close()
    return results


# --- the entries people judge -------------------------------------------------------------------


def column_entry(result: FileResult, mine: Column, theirs: Column) -> dict:
    return {
        "file": result.file,
        "column": mine.name,
        "duckdb_column": theirs.name,
        "tabular": {
            "family": mine.family,
            "physical": mine.physical,
            "format": mine.format,
            "question": bool(mine.questions),
            "question_kinds": mine.questions,
        },
        "duckdb": {"type": theirs.physical, "family": theirs.family},
        "samples": theirs.samples,
        "tabular_samples": mine.samples,
        "tabular_rejected": mine.rejected,
        "shape": result.shape_facts(),
    }


def file_entry(result: FileResult) -> dict:
    return {"file": result.file, "column": None, "shape": result.shape_facts()}


def split_entries(results: list[FileResult]) -> tuple[list[dict], list[dict]]:
    """(disagreements: file-level and column-level, agreements)."""
    disagreements, agreements = [], []
    for r in results:
        if not r.both_read or r.shape_differences():
            disagreements.append(file_entry(r))
        for mine, theirs in r.pairs:
            (agreements if mine.family == theirs.family else disagreements).append(column_entry(r, mine, theirs))
    return disagreements, agreements


# --- verdicts -----------------------------------------------------------------------------------


def load_verdicts(path: Path) -> list[dict]:
    """The human verdicts: [{"file": path relative to the corpus, "column": tabular's name or null
    for a file-level verdict, "expected": a family or "question" ("no_table": the file holds no
    table, and refusing it is right), or a list of them when a careful
    analyst would accept any (["decimal", "float"] for measurements), "shape": {"header": bool,
    "columns": int, "delimiter": str} (optional), "why": text}]."""
    return json.loads(path.read_text()) if path.exists() else []


def family_matches(column: Column | None, expected: str | list[str], can_ask: bool, header_asked: bool = False) -> bool:
    """Whether a column matches its verdict; a question on it counts where the verdict accepts one,
    and so does a `header_row` question on its file (it asks about every column's first value)."""
    if column is None:
        return False
    wanted = [expected] if isinstance(expected, str) else expected
    asked = bool(column.questions) or header_asked
    return column.family in wanted or (can_ask and "question" in wanted and asked)


def shape_matches(read: Read, shape: dict, expected: str | None, can_ask: bool) -> bool:
    if expected == "no_table":  # an empty file: refusing it is the right answer
        return bool(read.error)
    if read.error:
        return False
    facts = read.shape()
    asked = can_ask and expected == "question" and bool(read.extra.get("file_questions"))
    return all(facts[k] == v for k, v in shape.items() if k in facts) and (expected != "question" or asked)


def judge(verdicts: list[dict], results: list[FileResult]) -> dict:
    """For each verdict, whether tabular and DuckDB match it; verdicts on files not in this run
    are `stale` and left out."""
    by_file = {r.file: r for r in results}
    columns, shapes, stale = [], [], []
    for v in verdicts:
        r = by_file.get(v["file"])
        if r is None:
            stale.append(v)
        elif v.get("column") is None:
            shapes.append(
                {
                    **v,
                    "tabular_ok": shape_matches(r.tabular, v.get("shape", {}), v.get("expected"), True),
                    "duckdb_ok": shape_matches(r.duckdb, v.get("shape", {}), v.get("expected"), False),
                }
            )
        else:
            mine = next((c for c in r.tabular.columns if c.name == v["column"]), None)
            theirs = next((t for m, t in r.pairs if m.name == v["column"]), None)
            columns.append(
                {
                    **v,
                    "tabular_ok": family_matches(
                        mine, v["expected"], True, "header_row" in r.tabular.extra.get("file_questions", [])
                    ),
                    "duckdb_ok": family_matches(theirs, v["expected"], False),
                }
            )
    return {"columns": columns, "shapes": shapes, "stale": stale}


# --- the report ---------------------------------------------------------------------------------


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "n/a"


def print_counts(results: list[FileResult], skipped: list[Path]) -> None:
    both = [r for r in results if r.both_read]
    only_tab = [r for r in results if r.tabular.error is None and r.duckdb.error]
    only_duck = [r for r in results if r.duckdb.error is None and r.tabular.error]
    neither = [r for r in results if r.tabular.error and r.duckdb.error]
    pairs = [p for r in results for p in r.pairs]
    same = sum(m.family == t.family for m, t in pairs)
    numeric = {"decimal", "float"}
    loose = sum(m.family == t.family or {m.family, t.family} <= numeric for m, t in pairs)
    print(f"files: {len(results)} read, {len(skipped)} skipped (> {MAX_BYTES // 2**20} MiB)")
    print(
        f"  both read {len(both)}, only tabular {len(only_tab)}, only DuckDB {len(only_duck)}, neither {len(neither)}"
    )
    print(f"  shape differs in {sum(bool(r.shape_differences()) for r in results)} of the {len(both)} both read")
    print(
        f"paired columns: {len(pairs)} (unpaired: tabular {sum(len(r.unpaired_tabular) for r in results)}, "
        f"DuckDB {sum(len(r.unpaired_duckdb) for r in results)})"
    )
    print(
        f"  family agreement {pct(same, len(pairs))} ({same}/{len(pairs)}); "
        f"counting decimal and float as one: {pct(loose, len(pairs))} ({loose})"
    )
    print(f"  open questions on {sum(bool(m.questions) for m, _ in pairs)} paired columns")


def print_confusion(results: list[FileResult]) -> None:
    pairs = [p for r in results for p in r.pairs]
    cells = Counter((m.family, t.family) for m, t in pairs)
    asked = Counter(t.family for m, t in pairs if m.questions)
    cols = [f for f in FAMILIES if any(t == f for _, t in cells)]
    rows = [f for f in FAMILIES if any(m == f for m, _ in cells)] + sorted({m for m, _ in cells} - set(FAMILIES))
    width = 9
    print("\nfamilies (rows: tabular, columns: DuckDB; 'question' counts the columns with an open question again)")
    print(f"{'':<10}" + "".join(f"{c:>{width}}" for c in cols) + f"{'total':>{width}}")
    for row in rows:
        counts = [cells[(row, c)] for c in cols]
        print(f"{row:<10}" + "".join(f"{n or '.':>{width}}" for n in counts) + f"{sum(counts):>{width}}")
    print(
        f"{'question':<10}" + "".join(f"{asked[c] or '.':>{width}}" for c in cols) + f"{sum(asked.values()):>{width}}"
    )


def print_files(results: list[FileResult], skipped: list[Path], corpus: Path) -> None:
    print("\nfiles only one reader read (or neither):")
    for r in results:
        if not r.both_read:
            print(f"  {r.file}\n      tabular: {r.tabular.error or 'ok'}\n      DuckDB:  {r.duckdb.error or 'ok'}")
    for path in skipped:
        print(f"  {path.relative_to(corpus)}: skipped, {path.stat().st_size / 2**20:,.0f} MiB")
    print("\nshape differences (tabular / DuckDB):")
    for r in results:
        differ = r.shape_differences()
        if differ:
            mine, theirs = r.tabular.shape(), r.duckdb.shape()
            facts = [f"{k} {mine[k]!r}/{theirs[k]!r}" for k in differ if k in mine]
            if "unpaired columns" in differ:
                facts.append(f"unpaired {r.unpaired_tabular}/{r.unpaired_duckdb}"[:120])
            print(f"  {r.file}: {'; '.join(facts)}")


def print_disagreements(disagreements: list[dict]) -> None:
    columns = [d for d in disagreements if d["column"] is not None]
    print(f"\ncolumn disagreements: {len(columns)} (tabular family[physical format ?question] vs DuckDB type: values)")
    groups = Counter((d["tabular"]["family"], d["duckdb"]["family"]) for d in columns)
    for (mine, theirs), n in sorted(groups.items(), key=lambda g: -g[1]):
        print(f"\n  {mine} vs {theirs}: {n}")
        for d in columns:
            if (d["tabular"]["family"], d["duckdb"]["family"]) == (mine, theirs):
                t = d["tabular"]
                how = " ".join(
                    x
                    for x in (t["physical"], t["format"], "?" + ",".join(t["question_kinds"]) if t["question"] else "")
                    if x
                )
                values = ", ".join(repr(v) for v in d["samples"])
                print(f"    {d['file']} :: {d['column']}  [{how}] vs {d['duckdb']['type']}: {values}"[:220])


def print_verdicts(judged: dict) -> None:
    columns, shapes = judged["columns"], judged["shapes"]
    print(
        f"\nverdicts: {len(columns)} on columns, {len(shapes)} on file shapes, {len(judged['stale'])} stale (file not in this run)"
    )
    mine, theirs = sum(v["tabular_ok"] for v in columns), sum(v["duckdb_ok"] for v in columns)
    either = sum(v["tabular_ok"] and v["duckdb_ok"] for v in columns)
    print(
        f"  judged column disagreements {len(columns)}: tabular right {pct(mine, len(columns))}, "
        f"DuckDB right {pct(theirs, len(columns))}, either way (both right) {pct(either, len(columns))}"
    )
    print(
        f"  shape verdicts: tabular matched {pct(sum(v['tabular_ok'] for v in shapes), len(shapes))}, "
        f"DuckDB matched {pct(sum(v['duckdb_ok'] for v in shapes), len(shapes))}"
    )
    for v in columns + shapes:
        if not v["tabular_ok"]:
            expected = " ".join(str(x) for x in (v.get("expected"), v.get("shape")) if x)
            print(f"  tabular misses: {v['file']} :: {v.get('column') or '(file)'} expected {expected}")
    for v in judged["stale"]:
        print(f"  stale: {v['file']} :: {v.get('column')}")


def check_targets(judged: dict) -> bool:
    """Whether tabular meets the targets on the verdicts there are; False when there are none."""
    checked = []
    for label, verdicts, target in (
        ("column verdicts", judged["columns"], COLUMN_TARGET),
        ("shape verdicts", judged["shapes"], SHAPE_TARGET),
    ):
        if not verdicts:
            print(f"  {label:<16} not checked (no verdicts)")
            continue
        share = sum(v["tabular_ok"] for v in verdicts) / len(verdicts)
        checked.append(share >= target)
        print(f"  {label:<16} {'PASS' if checked[-1] else 'MISS'}  (tabular right {share:.1%}, target {target:.0%})")
    return bool(checked) and all(checked)


def damage_entries(results: list[FileResult]) -> dict:
    """Per reader: the totals and each file's damage, as JSON."""
    out = {}
    for reader in ("tabular", "duckdb"):
        found = {r.file: r.damage[reader] for r in results if reader in r.damage}
        out[reader] = {**damage_totals(list(found.values())), "files": {f: d.summary() for f, d in found.items()}}
    return out


def write_dump(path: Path, disagreements: list[dict], agreements: list[dict], judged: dict, damage: dict) -> None:
    rng = random.Random(SEED)
    sample = rng.sample(agreements, min(AGREEMENTS_DUMPED, len(agreements)))
    body = {"disagreements": disagreements, "agreements": sample, "verdicts": judged, "damage": damage}
    path.write_text(json.dumps(body, indent=1, default=str))
    print(f"\nwrote {len(disagreements)} disagreements and {len(sample)} agreements to {path}")


def damage_totals(damages: list[Damage]) -> dict:
    checked = [d for d in damages if d.checked]
    kinds = Counter()
    for d in checked:
        kinds.update(d.kinds)
    return {
        "files_checked": len(checked),
        "files_not_checked": len(damages) - len(checked),
        "cells_compared": sum(d.cells for d in checked),
        "cells_damaged": sum(d.damaged for d in checked),
        "files_damaged": sum(bool(d.damaged) for d in checked),
        "rows_lost_or_merged": sum(max(d.rows_off, 0) for d in checked),
        "files_rows_lost": sum(d.rows_off > 0 for d in checked),
        "rows_extra": sum(max(-d.rows_off, 0) for d in checked),
        "files_rows_extra": sum(d.rows_off < 0 for d in checked),
        "rows_rejected_said": sum(d.rejected for d in checked),
        "kinds": dict(kinds.most_common()),
    }


def print_damage(results: list[FileResult]) -> None:
    print("\ndamage: typed values that no longer say what the raw cell said, and rows lost or merged")
    for reader, label in (("tabular", "tabular"), ("duckdb", "DuckDB")):
        found = [(r.file, r.damage[reader]) for r in results if reader in r.damage]
        t = damage_totals([d for _, d in found])
        print(
            f"\n  {label}: {t['files_checked']} files checked ({t['files_not_checked']} not), "
            f"{t['cells_compared']:,} cells compared, {t['cells_damaged']:,} damaged in {t['files_damaged']} files; "
            f"rows lost or merged {t['rows_lost_or_merged']:,} in {t['files_rows_lost']} files, "
            f"rows beyond the raw ones {t['rows_extra']:,} in {t['files_rows_extra']} files; "
            f"rows rejected and said {t['rows_rejected_said']:,}"
        )
        for kind, n in t["kinds"].items():
            files = sum(kind in d.kinds for _, d in found)
            print(f"    {kind}: {n:,} cells in {files} files")
        shown = sorted(
            (x for x in found if x[1].damaged or x[1].rows_off), key=lambda x: -(x[1].damaged + abs(x[1].rows_off))
        )
        for file, d in shown[:DAMAGE_FILES_SHOWN]:
            print(
                f"    {file}: {d.damaged} cells of {d.cells}; rows raw {d.raw_rows} / read {d.reader_rows}"
                + (f" (+{d.said_left_out} said left out)" if d.said_left_out else "")
            )
            for kind, examples in d.examples.items():
                pairs = "; ".join(f"{e['column']}@{e['line']}: {e['raw']!r} → {e['typed']!r}" for e in examples)
                print(f"      {kind} ({d.kinds[kind]}): {pairs}"[:300])
        if len(shown) > DAMAGE_FILES_SHOWN:
            print(f"    … and {len(shown) - DAMAGE_FILES_SHOWN} more files (--dump has them all)")
        for file, d in found:
            if d.why_not.startswith("comparer"):
                print(f"    not checked: {file}: {d.why_not}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--verdicts", type=Path, default=ROOT / "tests" / "typing_real" / "verdicts.json")
    parser.add_argument("--dump", type=Path, help="write the disagreements (and a sample of agreements) as JSON")
    parser.add_argument(
        "--check",
        action="store_true",
        # argparse formats help with %: a share's sign is written %%
        help=f"exit 1 unless tabular is right on >= {100 * COLUMN_TARGET:.0f}%% "
        f"of the column verdicts and >= {100 * SHAPE_TARGET:.0f}%% of the shape verdicts",
    )
    parser.add_argument(
        "--damage-only", action="store_true", help="count damage only: no column pairing, samples or judged shares"
    )
    args = parser.parse_args()
    corpus = args.corpus.resolve()
    if not corpus.is_dir():
        sys.exit(f"no corpus at {corpus}")

    files, skipped = corpus_files(corpus)
    print(f"reading {len(files)} delimited files of {corpus} with tabular and DuckDB ...", file=sys.stderr)
    results = run_all(files, corpus, args.damage_only)
    print(f"corpus {corpus}")
    if args.damage_only:
        print_damage(results)
        if args.dump:
            args.dump.write_text(json.dumps({"damage": damage_entries(results)}, indent=1, default=str))
            print(f"\nwrote the damage to {args.dump}")
        return
    disagreements, agreements = split_entries(results)
    judged = judge(load_verdicts(args.verdicts), results)

    print_counts(results, skipped)
    print_confusion(results)
    print_files(results, skipped, corpus)
    print_disagreements(disagreements)
    print_verdicts(judged)
    print_damage(results)
    if args.dump:
        write_dump(args.dump, disagreements, agreements, judged, damage_entries(results))
    print("\ntargets:")
    ok = check_targets(judged)
    if args.check and not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
