"""Delimited text to an extraction: every cell as text, with its row id and file line.

The extraction is stored as Parquet (row id, line, one string column per table column) so a
table can be typed again without the file. Rows stream through in chunks: memory holds one
chunk, never the file.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from ..errors import IngestFailed
from ..models import Origin
from ..settings import Settings
from . import decode, duckcsv, sniff, tables
from .background import BackgroundWriter
from .header import join_headers
from .lines import (
    Crossing,
    FirstColumn,
    FixedReader,
    LineAccount,
    bounded_lines,
    comments_note,
    ends_in_words,
    header_records,
    is_note,
    note_text,
    nul_note,
    quotes_note,
    undecodable_note,
    without_comments,
)
from .quoting import EdgeQuotes, Scanning
from .totals import FIRST_LETTERS, is_total_cells, written

csv.field_size_limit(64 * 1024 * 1024)
# lz4 writes fastest; statistics only where a reader filters (row ids pick the typing sample).
PARQUET_OPTIONS = {"compression": "lz4", "write_statistics": ["__row_id"]}


@dataclass(frozen=True)
class Excluded:
    """A row kept out of the snapshot by extraction itself: a rejected data row (too many cells),
    or, in `Extraction.left_out`, a row that is no data (a table's Total row)."""

    row_id: int
    line: int
    text: str
    reason: str
    cells: tuple = ()  # a total row's cells, by column, for the check of its sums (infer/totals.py)


@dataclass
class Extraction:
    """One table read out of a file: headers, the Parquet of its cells, and how it was read."""

    name: str
    headers: list[str]
    path: Path
    rows: int  # extracted data rows, ragged ones included (row ids run 1..rows)
    origin: Origin
    excluded: list[Excluded] = field(default_factory=list)  # data rows rejected as they were read
    # Rows the reader left out as no data (a workbook table's Total row, which would double every
    # sum): not data rows, so neither counted in `rows` nor rejected; the dataset's warnings say so.
    left_out: list[Excluded] = field(default_factory=list)
    padded_rows: int = 0
    blank_rows: int = 0
    comment_lines: int = 0
    header_clear: bool = True
    forced: dict = field(default_factory=dict)  # cell column -> Reading the source itself settles
    # Cell columns where a quoted value was only whitespace (`" "`): such a cell is a value.
    quoted_blanks: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)  # warnings the reader found (error cells …)
    # The line (0-based) where another table begins after this one (read/tables.py): read on
    # from there as an extraction of its own (formats.read); 0 when this table runs to the end.
    rest_from: int = 0

    @property
    def width(self) -> int:
        return len(self.headers)

    @property
    def cell_columns(self) -> list[str]:
        return [f"c{i + 1}" for i in range(self.width)]


def cells_schema(width: int) -> pa.Schema:
    return pa.schema(
        [("__row_id", pa.int64()), ("__line", pa.int64())] + [(f"c{i + 1}", pa.string()) for i in range(width)]
    )


def read_delimited(
    path: Path,
    out: Path,
    name: str,
    options: dict,
    settings: Settings,
    progress=None,
    start_line: int = 0,
    split: bool = False,  # end the table where another begins (Extraction.rest_from)
) -> Extraction:
    """Read the table of a delimited text file that begins at `start_line` into `out` (Parquet),
    to its end or to where another table begins (Extraction.rest_from). Raises IngestFailed for
    bad input."""
    decoded = decode.detect(
        path,
        options.get("encoding"),
        decode.Budget(settings.max_inflated_bytes, settings.max_inflate_ratio),
        settings.max_zip_entries,
    )
    try:
        return _read(decoded, out, name, options, settings, progress, start_line, split)
    except UnicodeError:  # a decode error, or a codec's own refusal (UTF-16 without its BOM)
        if decoded.bom_bytes and not options.get("encoding"):
            # A BOM settles the encoding: bytes that do not decode under it are the rows they
            # are in (replaced and named), never a reason to read the whole file otherwise.
            return _read(decoded.lenient, out, name, options, settings, progress, start_line, split)
        if options.get("encoding") or decoded.reported != "utf-8":
            raise IngestFailed("encoding", f"the file does not decode as {decoded.reported}") from None
        # UTF-8 at its head, something else further on: UTF-8 with those bytes flagged, or a
        # legacy code page, by the whole file (decode.fallback_after).
        decoded = decode.fallback_after(
            path, decoded, decode.Budget(settings.max_inflated_bytes, settings.max_inflate_ratio)
        )
        try:
            return _read(decoded, out, name, options, settings, progress, start_line, split)
        except UnicodeError:
            raise IngestFailed("encoding", "the file mixes text encodings and cannot be read whole") from None


def _read(
    decoded: decode.Decoded,
    out: Path,
    name: str,
    options: dict,
    settings: Settings,
    progress,
    start_line: int,
    split: bool,
) -> Extraction:
    with decoded.open_text(decode.Budget(settings.max_inflated_bytes, settings.max_inflate_ratio)) as text:
        tables.skip_lines(text, start_line, settings.max_line_bytes)
        head = text.read(settings.sniff_bytes)
        head = head.replace("\x00", "")
        whole = len(head) < settings.sniff_bytes
        sample = head if whole else head[: head.rfind("\n") + 1] or head
        layout = sniff.sniff(sample, options.get("delimiter"), options.get("header_rows"))
    if layout.width > settings.max_columns:
        raise IngestFailed(
            "too_large", f"the table has {layout.width} columns; at most {settings.max_columns} are read (max_columns)"
        )
    rest = tables.after(sample, layout) if split else 0
    if rest:  # the table's own lines settle its header (the next table's names are no data of its)
        layout = sniff.sniff(tables.first_lines(sample, rest), options.get("delimiter"), options.get("header_rows"))
    fast = None if rest or start_line else _fast(decoded, layout, sample, out, name, settings, progress)
    if fast is not None:
        return fast
    # The csv module holds a field whole in memory: one past the setting is refused, not read.
    csv.field_size_limit(settings.max_cell_bytes)
    with decoded.open_text(decode.Budget(settings.max_inflated_bytes, settings.max_inflate_ratio)) as text:
        damaged: list[int] = []
        nuls: list[int] = []
        # A stray NUL inside a value is looked for on every line (bounded_lines): one past the
        # head (sniff_bytes) was kept in its value without a word where the head's were taken out.
        account = LineAccount()
        tables.skip_lines(text, start_line, settings.max_line_bytes)
        lines = bounded_lines(
            text, settings.max_line_bytes, damaged if decoded.errors != "strict" else None, nuls, account
        )
        if rest:
            lines = islice(lines, rest)  # the next table is read on its own (Extraction.rest_from)
        commented: list[int] = []
        if layout.comment_suffix:
            lines = without_comments(lines, commented, layout.quotechar)
        reader = (
            FixedReader(lines, layout.starts)
            if layout.starts
            else EdgeQuotes(
                lines,
                layout.delimiter,
                layout.quotechar,
                layout.width,
                doublequote=True,
                skipinitialspace=layout.spaced,
                escapechar=layout.escapechar or None,
            )
        )
        try:
            extraction = _stream(reader, layout, decoded, out, name, settings, progress, account, start_line)
        except csv.Error as err:
            if "field larger than field limit" in str(err):
                raise IngestFailed(
                    "too_large",
                    f"a cell near line {reader.line_num} is over max_cell_bytes ({settings.max_cell_bytes} bytes)",
                ) from None
            raise IngestFailed("format_unavailable", f"the file cannot be read as delimited text: {err}") from None
    account.check(name)
    extraction.rest_from = start_line + rest if rest else 0
    if damaged:
        extraction.notes.append(undecodable_note([n + start_line for n in damaged], decoded.reported))
    if nuls:
        extraction.notes.append(nul_note([n + start_line for n in nuls]))
    if commented:
        extraction.notes.append(comments_note([n + start_line for n in commented]))
    if isinstance(reader, EdgeQuotes):  # a fixed-width reader has no quotes to mend
        if reader.mended:
            extraction.notes.append(quotes_note(reader.mended, layout.quotechar))
        extraction.quoted_blanks = {f"c{k + 1}" for k in reader.quoted_blanks if k < extraction.width}
    return extraction


def _stream(
    reader,
    layout: sniff.Layout,
    decoded: decode.Decoded,
    out: Path,
    name: str,
    settings: Settings,
    progress,
    account: LineAccount,
    offset: int = 0,  # the lines before this table, in the file (read/tables.py)
) -> Extraction:
    width = layout.width
    records = iter(reader)
    header_cells = header_records(records, reader, layout, account)
    last_line = reader.line_num
    headers = list(layout.names) or join_headers(header_cells, width)

    writer = pq.ParquetWriter(out, cells_schema(width), **PARQUET_OPTIONS)
    extraction = Extraction(name, headers, out, 0, _origin(layout, decoded, "fixed-width" if layout.starts else "csv"))
    chunk: list[list[str | None]] = []
    row_ids: list[int] = []
    lines: list[int] = []
    row_id = 0

    def flush() -> None:
        columns: Sequence[Sequence[str | None]] = list(zip(*chunk)) if chunk else [[] for _ in range(width)]
        arrays = [pa.array(row_ids, pa.int64()), pa.array(lines, pa.int64())]
        arrays += [pa.array(col, pa.string()) for col in columns]
        writer.write_table(pa.Table.from_arrays(arrays, schema=cells_schema(width)))
        del chunk[:], row_ids[:], lines[:]
        if progress:
            progress(row_id)

    first = FirstColumn()
    # Lines that may be a note after the table (note_text): rows after all once a row follows.
    pending: list[tuple[list[str], int, str]] = []

    last_kept = 0  # the line of the last row kept: a note set apart from it by a blank line is surer
    # A row shaped as a total (read/totals.py), held until the table ends: left out there (with
    # the notes after it), kept as a row where a row follows. Only a row whose first cell is empty
    # or starts as a total word does is asked (one lookup per row).
    total: tuple[list[str], int] | None = None

    def keep(row, line: int) -> None:
        nonlocal row_id, last_kept
        row_id += 1
        last_kept = line
        if isinstance(row, Crossing):
            extraction.excluded.append(Excluded(row_id, line, row.line, "a value runs across a column start"))
            return
        n = len(row)
        if n > width:
            if "".join(row[width:]).strip():
                reason = f"too many cells: {n} where the table has {width}"
                extraction.excluded.append(Excluded(row_id, line, layout.delimiter.join(row), reason))
                return
            row = row[:width]
        elif n < width:
            row = row + [None] * (width - n)
            extraction.padded_rows += 1
        first.add(row[0])
        chunk.append(row)
        row_ids.append(row_id)
        lines.append(line)
        if len(chunk) >= settings.csv_chunk_rows:
            flush()

    joined = 0  # lines past a record's first (a quoted value over several lines)
    try:
        for row in records:
            line, last_line = last_line + 1, reader.line_num
            joined += last_line - line
            line += offset  # the file's line, past the tables before this one
            if sniff.is_blank(row):
                extraction.blank_rows += 1
                continue
            if sniff.is_comment(row, width):
                extraction.comment_lines += 1
                continue
            note = None if isinstance(row, Crossing) else note_text(row, width, layout.delimiter)
            if note is not None:
                pending.append((row, line, note))
                continue
            if total is not None:
                keep(*total)
                total = None
            for held, held_line, _ in pending:
                keep(held, held_line)
            pending.clear()
            if (
                row_id
                and (not row[0] or row[0].lstrip()[:1].lower() in FIRST_LETTERS)
                and not isinstance(row, Crossing)
                and is_total_cells(row)
            ):
                total = (row, line)
                continue
            keep(row, line)
        apart = bool(pending) and pending[0][1] > last_kept + 1
        if total is not None and not all(is_note(note, first, apart) for _, _, note in pending):
            keep(*total)  # a row after it: the total is not the table's last row
            total = None
        if total is not None:
            said = written(total[0], layout.delimiter)
            extraction.left_out.append(Excluded(row_id + 1, total[1], said, "total", tuple(total[0][:width])))
        for held, held_line, note in pending:
            if is_note(note, first, apart):
                extraction.left_out.append(Excluded(row_id + 1, held_line, note, "note"))
            else:
                keep(held, held_line)
        flush()
    finally:
        writer.close()
    extraction.rows = row_id
    account.rows, account.left_out = row_id, len(extraction.left_out)
    account.joined += joined
    account.blank += extraction.blank_rows
    account.comment += extraction.comment_lines
    _finish(extraction, layout, decoded)
    return extraction


def _origin(layout: sniff.Layout, decoded: decode.Decoded, parser: str) -> Origin:
    """How the text was read: its dialect, its encoding, its container, by which parser."""
    return Origin(
        parser=parser,
        format="tsv" if layout.delimiter == "\t" else "csv",
        header_rows=layout.header_rows,
        delimiter=layout.delimiter,
        encoding=decoded.reported,
        newline={"\r\n": "CRLF", "\n": "LF", "\r": "CR"}[layout.newline],
        quote=layout.quotechar,
        escape=layout.escapechar or None,
        preamble_lines=layout.skip_records,
        compression=decoded.container.split(":")[0] or None,
    )


def _finish(extraction: Extraction, layout: sniff.Layout, decoded: decode.Decoded) -> None:
    extraction.header_clear = layout.header_clear
    extraction.notes += layout.said  # what the sniffer judged: a title left out, a name dropped
    if layout.marks_in_numbers:
        mark = layout.marks_in_numbers
        extraction.notes.append(
            f"read as one column: every '{mark}' stands inside a value (a number's or a date's), not between columns; "
            f"if '{mark}' separates columns here, ingest again with options.delimiter"
        )
    if decoded.rival:
        extraction.notes.append(
            f"the text was read as {decoded.reported}; {decoded.rival}: if names look wrong, ingest again with options.encoding"
        )
    if decoded.mixed:
        extraction.notes.append(decoded.mixed)
    if decoded.encoding in decode.ALPHABETS:
        # Greek and Cyrillic pages share their bytes: the choice is a judgement, so it is said.
        extraction.notes.append(
            f"the text was read as {decoded.reported}, chosen among look-alike Greek and Cyrillic code pages; "
            "if names look wrong, ingest again with options.encoding"
        )


class Irregular(Exception):
    """The fast reader met something only the careful one handles (ragged, blank, comment rows)."""


def int64_range(start: int, count: int) -> pa.Array:
    """start, start + 1, … as an Arrow int64 array, made on numpy's buffer: pa.array of a range or
    of a numpy array, or arithmetic with a Python int, would import pandas (0.2-0.3 s of CPU) in a
    read that converts no Python value."""
    return pa.Array.from_buffers(
        pa.int64(), count, [None, pa.py_buffer(np.arange(start, start + count, dtype=np.int64))]
    )


@dataclass
class FastRead:
    """A regular UTF-8 file opened for Arrow's parallel CSV reader: the extraction's headers and
    origin, and its rows as record batches of `__row_id`, `__line` and one string column per
    table column, read as they are asked for. `bytes_read` follows the rows through the file."""

    extraction: Extraction
    reader: pacsv.CSVStreamingReader
    source: io.BufferedReader
    first_line: int
    size: int
    layout: sniff.Layout
    scan: Scanning  # the look at every byte: see `regular` and `lines`

    @property
    def schema(self) -> pa.Schema:
        return cells_schema(self.extraction.width)

    consumed: int = 0  # bytes of the file behind the rows handed out so far (see batches)

    @property
    def bytes_read(self) -> int:
        """How far the rows handed out reach into the file, in bytes: their cells' text and
        one separator per cell (quotes and CRs uncounted, so it never overshoots)."""
        return min(self.consumed, self.size)

    def close(self) -> None:
        self.scan.close()
        self.source.close()

    @property
    def path(self) -> Path:
        return Path(self.source.name)

    @property
    def regular(self) -> bool:
        """Whether the fast reader may read the file at all (quoting.ByteScan); waits
        for the look at every byte. Nothing the fast reader gives counts until this is True."""
        return not self.scan.result().irregular

    @property
    def lines(self) -> int | None:
        """The file's lines (quoting.ByteScan), None where a value may hold a line break."""
        return self.scan.result().lines

    def batches(self) -> Iterator[pa.RecordBatch]:
        """Every row, in file order; raises Irregular where the careful reader must take over,
        and counts the rows into `extraction.rows` as they go."""
        schema, rows = self.schema, 0
        try:
            for batch in self.reader:
                if duckcsv.irregular_batch(batch):
                    raise Irregular()
                ids = int64_range(rows + 1, batch.num_rows)
                lines = int64_range(rows + self.first_line, batch.num_rows)
                rows += batch.num_rows
                self.extraction.rows = rows
                self.consumed += batch.num_rows * batch.num_columns + sum(
                    pc.sum(pc.binary_length(c)).as_py() or 0 for c in batch.columns
                )
                yield pa.RecordBatch.from_arrays([ids, lines, *batch.columns], schema=schema)
        except (pa.ArrowInvalid, UnicodeDecodeError):
            raise Irregular() from None


def open_fast(path: Path, name: str, options: dict, settings: Settings) -> FastRead | None:
    """The file opened for the fast reader, or None when only the careful reader can read it
    (a container, an encoding other than UTF-8, a file under fast_path_bytes, a quoted line
    break or a blank header in its head). Raises IngestFailed for a file nobody can read."""
    decoded = decode.detect(
        path,
        options.get("encoding"),
        decode.Budget(settings.max_inflated_bytes, settings.max_inflate_ratio),
        settings.max_zip_entries,
    )
    if (
        decoded.container
        or decoded.encoding != "utf-8"
        or decoded.errors != "strict"
        or path.stat().st_size < settings.fast_path_bytes
    ):
        return None
    try:
        with decoded.open_text(decode.Budget(settings.max_inflated_bytes, settings.max_inflate_ratio)) as text:
            head = text.read(settings.sniff_bytes)
    except UnicodeError:
        return None
    if "\x00" in head:
        return None
    whole = len(head) < settings.sniff_bytes
    sample = head if whole else head[: head.rfind("\n") + 1] or head
    layout = sniff.sniff(sample, options.get("delimiter"), options.get("header_rows"))
    if layout.width > settings.max_columns:
        return None
    return _open_fast(decoded, layout, sample, name, settings)


def _open_fast(
    decoded: decode.Decoded, layout: sniff.Layout, head: str, name: str, settings: Settings
) -> FastRead | None:
    """Arrow's parallel CSV reader, when the file is regular enough that every record is one
    line: then line numbers follow from row numbers. Anything irregular (a ragged, blank or
    comment row, a quoted line break) hands the file to the careful reader, which is the
    reference: tests check both give the same extraction."""
    if (
        decoded.container
        or decoded.encoding != "utf-8"
        or decoded.errors != "strict"
        or decoded.path.stat().st_size < settings.fast_path_bytes
        or layout.starts
        or layout.spaced
        or layout.escapechar
        or layout.comment_suffix
        or tables.after(head, layout)  # another table after this one: each is read on its own
    ):
        return None
    head_records = sniff.records(head, layout.delimiter, layout.quotechar)
    if any("\n" in cell or "\r" in cell for row in head_records for cell in row):
        return None
    if ends_in_words(decoded.path, layout):
        return None  # a note after the table, perhaps: the careful reader weighs it (lines.is_note)
    skipped = layout.skip_records + layout.header_rows
    header_records = list(head_records[layout.skip_records : skipped])
    if len(header_records) < layout.header_rows or any(sniff.is_blank(r) for r in header_records):
        return None
    width = layout.width
    names = [f"c{i + 1}" for i in range(width)]

    def refuse(row) -> str:
        return "error"

    # Arrow would drop a quote that closes mid-field, which the careful reader keeps: the look
    # at every byte that tells (FastRead.regular) runs while the file is read.
    scan = Scanning(decoded.path, layout.delimiter, layout.quotechar, layout.newline)
    source = decoded.path.open("rb")
    try:
        reader = pacsv.open_csv(
            source,
            read_options=pacsv.ReadOptions(
                column_names=names, skip_rows=skipped, block_size=_block_bytes(head, head_records, settings)
            ),
            parse_options=pacsv.ParseOptions(
                delimiter=layout.delimiter,
                quote_char=layout.quotechar,
                double_quote=True,
                newlines_in_values=False,
                ignore_empty_lines=False,
                invalid_row_handler=refuse,
            ),
            convert_options=pacsv.ConvertOptions(
                column_types={n: pa.string() for n in names},
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, UnicodeDecodeError):
        source.close()
        return None
    origin = _origin(layout, decoded, "arrow")
    extraction = Extraction(name, list(layout.names) or join_headers(header_records, width), Path(), 0, origin)
    _finish(extraction, layout, decoded)
    return FastRead(extraction, reader, source, skipped + 1, decoded.path.stat().st_size, layout, scan)


# A table wider than WIDE_COLUMNS is read in blocks of about BLOCK_ROWS rows.
WIDE_COLUMNS = 64
BLOCK_ROWS = 8192


def _block_bytes(head: str, records: list, settings: Settings) -> int:
    """Bytes the fast reader parses at a time: csv_block_bytes, or more for a wide table's long
    rows, so that a batch holds some thousands of rows (what DuckDB does per batch costs per
    column, and 1,000 columns would otherwise come in batches of a hundred rows)."""
    if not records or max(len(r) for r in records) <= WIDE_COLUMNS:
        return settings.csv_block_bytes
    row_bytes = len(head.encode("utf-8")) // len(records)
    return max(settings.csv_block_bytes, min(BLOCK_ROWS * row_bytes, 64 << 20))


def _fast(
    decoded: decode.Decoded, layout: sniff.Layout, head: str, out: Path, name: str, settings: Settings, progress
) -> Extraction | None:
    """The fast reader's rows written to `out` (Parquet), or None for the careful reader."""
    fast = _open_fast(decoded, layout, head, name, settings)
    if fast is None:
        return None
    if not fast.regular:
        fast.close()
        return None
    try:
        with BackgroundWriter(out, fast.schema, **PARQUET_OPTIONS) as writer:
            for batch in fast.batches():
                writer.put(pa.Table.from_batches([batch]))
                if progress:
                    progress(fast.extraction.rows)
    except Irregular:
        out.unlink(missing_ok=True)
        return None
    finally:
        fast.close()
    fast.extraction.path = out
    return fast.extraction
