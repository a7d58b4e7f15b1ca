"""Whole results written out as they stream: Arrow IPC, CSV, Parquet or NDJSON, batch by batch,
so memory stays flat in the result's size (SPEC §4 "Whole results")."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator

import pyarrow as pa

from .jsonval import ARROW_DECIMAL_SCALE, iso_text, json_column, json_columns

FORMATS = {
    "arrow": "application/vnd.apache.arrow.stream",
    "csv": "text/csv",
    "parquet": "application/vnd.apache.parquet",
    "ndjson": "application/x-ndjson",
}


def format_of(path: str) -> str | None:
    """The format a file name asks for by its extension (.arrow/.feather, .csv, .parquet, .ndjson/.jsonl)."""
    suffix = path.lower().rsplit(".", 1)[-1]
    return {
        "arrow": "arrow",
        "feather": "arrow",
        "arrows": "arrow",
        "csv": "csv",
        "parquet": "parquet",
        "ndjson": "ndjson",
        "jsonl": "ndjson",
    }.get(suffix)


def _as_text(t: pa.DataType, fmt: str) -> bool:
    """Whether a column of type `t` is written to `fmt` as its SPEC §3 JSON text (jsonval.json_column)
    rather than as Arrow holds it. Arrow and Parquet keep every type but DuckDB's INTERVAL (a month
    is no fixed count of days, and Parquet readers differ on its parts); CSV takes the text for
    every value Arrow's writer would write otherwise: dates and times (ISO, any year: Arrow writes
    "<value out of range>" past 9999), decimals of more than six places (Arrow writes 0E-8) and
    bytes (not UTF-8)."""
    if pa.types.is_interval(t) or pa.types.is_duration(t):
        return fmt != "arrow"
    if fmt != "csv":
        return False
    return (
        pa.types.is_date(t)
        or pa.types.is_timestamp(t)
        or pa.types.is_time(t)
        or pa.types.is_binary(t)
        or pa.types.is_large_binary(t)
        or (pa.types.is_decimal(t) and t.scale > ARROW_DECIMAL_SCALE)
    )


def _text_array(column: pa.Array | pa.ChunkedArray) -> pa.Array:
    if pa.types.is_date(column.type) or pa.types.is_timestamp(column.type) or pa.types.is_time(column.type):
        return iso_text(column)
    return pa.array(json_column(column), pa.string())


def _schema(schema: pa.Schema, fmt: str) -> pa.Schema:
    """The schema `fmt` is written with: its text columns as strings, no field's metadata (a
    stream's DuckDB types, duckdb_types, are for the conversion here, not for the file)."""
    return pa.schema([(f.with_type(pa.string()) if _as_text(f.type, fmt) else f).remove_metadata() for f in schema])


def duckdb_types(schema: pa.Schema) -> list[str]:
    """Each field's DuckDB type where a stream names it in the field's metadata (backends.duckdb's
    Stream: a HUGEINT and a DECIMAL(38,0) are one Arrow type), else ''."""
    return [(f.metadata or {}).get(b"duckdb_type", b"").decode() for f in schema]


def portable(batch: pa.RecordBatch, fmt: str) -> pa.RecordBatch:
    """The batch as `fmt` writes it: a column of a type `fmt` does not keep as Arrow holds it as
    its SPEC §3 text (_as_text), converted a column at a time; every other column as it is."""
    columns = [_text_array(c) if _as_text(c.type, fmt) else c for c in batch.columns]
    return pa.RecordBatch.from_arrays(columns, schema=_schema(batch.schema, fmt))


# The days and microseconds (since 1970) Polars's Date and Datetime hold: years -262143 to
# 262142 (chrono's); a value past them (DuckDB's reach ±5.8 M years, and its 'infinity') panics
# Polars when it is shown or read, and a time of 24:00:00 becomes null.
_POLARS_DAYS = (-96_465_292, 95_026_236)
_POLARS_MICROS = (-8_334_601_228_800_000_000, 8_210_266_876_799_999_999)
_DAY_MICROS = 86_400_000_000


def _polars_holds(column: pa.ChunkedArray) -> bool:
    t = column.type
    if pa.types.is_date32(t):
        low, high = _POLARS_DAYS
    elif pa.types.is_timestamp(t) and t.unit == "us":
        low, high = _POLARS_MICROS
    elif pa.types.is_time64(t) and t.unit == "us":
        low, high = 0, _DAY_MICROS - 1
    else:
        return not (pa.types.is_interval(t) or pa.types.is_duration(t))
    import pyarrow.compute as pc  # heavy: Arrow's compute functions, for a date or time column only

    ends = pc.min_max(column.cast(pa.int32() if pa.types.is_date32(t) else pa.int64()))
    return ends["min"].as_py() is None or (low <= ends["min"].as_py() and ends["max"].as_py() <= high)


def polars_ready(table: pa.Table) -> pa.Table:
    """The table as Polars takes it whole: every column typed as it is, except intervals (Polars
    has no type that keeps a month a month) and a date, timestamp or time column holding a value
    Polars's type cannot (a year past ±262,142, 'infinity', 24:00:00), which are their SPEC §3
    text, so no value is lost or panics Polars."""
    if all(_polars_holds(c) for c in table.columns):
        return table
    columns = [c if _polars_holds(c) else _text_array(c) for c in table.columns]
    return pa.Table.from_arrays(columns, names=table.schema.names)


# Characters that are a line's end to some readers (Python's splitlines, JavaScript) but that JSON
# leaves as they are inside a string: escaped, so an NDJSON row is one line to every reader.
_LINE_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def chunks(reader: pa.RecordBatchReader, fmt: str) -> Iterator[bytes]:
    """The result as `fmt`, in pieces of about one record batch each, made as the batches come."""
    if fmt not in FORMATS:
        raise ValueError(f"no result format {fmt!r}: one of {', '.join(FORMATS)}")
    buffer = io.BytesIO()

    def taken() -> bytes:
        piece = buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        return piece

    if fmt == "ndjson":
        # Values as knowledge.query's rows carry them (SPEC §3), converted a column at a time.
        names, types = reader.schema.names, duckdb_types(reader.schema)
        for batch in reader:
            rows = zip(*json_columns(batch, types)) if batch.num_columns else ([] for _ in range(batch.num_rows))
            text = "".join(json.dumps(dict(zip(names, row)), ensure_ascii=False) + "\n" for row in rows)
            yield text.translate(_LINE_BREAKS).encode()
        return
    schema = _schema(reader.schema, fmt)
    if fmt == "arrow":
        writer = pa.ipc.new_stream(buffer, schema)
    elif fmt == "parquet":
        import pyarrow.parquet as pq  # heavy: only a Parquet result loads its writer

        writer = pq.ParquetWriter(buffer, schema, compression="zstd")
    else:
        import pyarrow.csv as pacsv  # heavy: only a CSV result loads its writer

        writer = pacsv.CSVWriter(buffer, schema)
    written = 0
    for batch in reader:
        writer.write_batch(portable(batch, fmt))
        written += batch.num_rows
        yield taken()
    if fmt == "parquet" and written == 0:
        writer.write_table(schema.empty_table())
    writer.close()
    yield taken()


def write(reader: pa.RecordBatchReader, path: str, fmt: str) -> int:
    """Write every batch of `reader` to the file at `path` as `fmt` (whole or not at all: it is
    written beside, then renamed); answers the rows written."""
    counted = _Counted(reader)
    partial = f"{path}.partial"
    try:
        with open(partial, "wb") as out:
            for piece in chunks(counted.reader, fmt):
                out.write(piece)
        os.replace(partial, path)
    finally:
        if os.path.exists(partial):
            os.unlink(partial)
    return counted.rows


class _Counted:
    """A reader that counts the rows it hands on."""

    def __init__(self, reader: pa.RecordBatchReader):
        self.rows = 0

        def counting():
            for batch in reader:
                self.rows += batch.num_rows
                yield batch

        self.reader = pa.RecordBatchReader.from_batches(reader.schema, counting())
