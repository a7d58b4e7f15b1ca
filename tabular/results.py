"""Whole results written out as they stream: Arrow IPC, CSV, Parquet or NDJSON, batch by batch,
so memory stays flat in the result's size (SPEC §4 "Whole results")."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from .jsonval import to_json

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


def _portable_type(t: pa.DataType) -> pa.DataType:
    # Durations (DuckDB's INTERVAL) have no CSV or Parquet form every reader takes: ISO 8601 text.
    return pa.string() if pa.types.is_interval(t) or pa.types.is_duration(t) else t


def portable(batch: pa.RecordBatch) -> pa.RecordBatch:
    """The batch with its durations as ISO 8601 text (the only columns converted value by value)."""
    if not any(_portable_type(f.type) != f.type for f in batch.schema):
        return batch
    columns = []
    for column, field in zip(batch.columns, batch.schema):
        if _portable_type(field.type) == field.type:
            columns.append(column)
        else:
            columns.append(pa.array([None if v is None else to_json(v) for v in column.to_pylist()], pa.string()))
    return pa.RecordBatch.from_arrays(columns, names=batch.schema.names)


def months_kept(table: pa.Table) -> pa.Table:
    """The table with DuckDB's intervals (Arrow's month_day_nano) as ISO 8601 text, for Polars,
    which has no type that keeps a month a month (its Duration would make one 30 days)."""
    if not any(pa.types.is_interval(f.type) for f in table.schema):
        return table
    columns = [
        pa.array([None if v is None else to_json(v) for v in column.to_pylist()], pa.string())
        if pa.types.is_interval(column.type)
        else column
        for column in table.columns
    ]
    return pa.Table.from_arrays(columns, names=table.schema.names)


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
        # Values as knowledge.query's rows carry them (SPEC §3: decimals and big integers as text).
        names = reader.schema.names
        for batch in reader:
            columns = [column.to_pylist() for column in batch.columns]
            yield "".join(
                json.dumps(dict(zip(names, (to_json(c[i]) for c in columns))), ensure_ascii=False) + "\n"
                for i in range(batch.num_rows)
            ).encode()
        return
    schema = (
        reader.schema if fmt == "arrow" else pa.schema([f.with_type(_portable_type(f.type)) for f in reader.schema])
    )
    if fmt == "arrow":
        writer = pa.ipc.new_stream(buffer, schema)
    elif fmt == "parquet":
        writer = pq.ParquetWriter(buffer, schema, compression="zstd")
    else:
        writer = pacsv.CSVWriter(buffer, schema)
    rows = 0
    for batch in reader:
        writer.write_batch(batch if fmt == "arrow" else portable(batch))
        rows += batch.num_rows
        yield taken()
    if fmt == "parquet" and rows == 0:
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
