"""tabular/results.py: whole results written as they stream, batch by batch: Arrow IPC, CSV,
Parquet or NDJSON, durations as ISO 8601 where the format has no interval, a file whole or not
at all."""

from __future__ import annotations

import datetime as dt
import io
import json
from decimal import Decimal

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from tabular.results import FORMATS, chunks, format_of, portable, write

SCHEMA = pa.schema([("id", pa.int64()), ("amount", pa.decimal128(10, 2)), ("took", pa.duration("us"))])


def reader(batches=2):
    data = [
        pa.record_batch(
            [
                pa.array([i * 2 + 1, i * 2 + 2]),
                pa.array([Decimal("12.50"), None], pa.decimal128(10, 2)),
                pa.array([dt.timedelta(hours=1, minutes=30), dt.timedelta(seconds=5)], pa.duration("us")),
            ],
            schema=SCHEMA,
        )
        for i in range(batches)
    ]
    return pa.RecordBatchReader.from_batches(SCHEMA, iter(data))


@pytest.mark.parametrize(
    ("path", "fmt"),
    [
        ("out.arrow", "arrow"),
        ("OUT.Feather", "arrow"),
        ("a.csv", "csv"),
        ("a.parquet", "parquet"),
        ("a.jsonl", "ndjson"),
        ("a.ndjson", "ndjson"),
        ("a.xlsx", None),
        ("noext", None),
    ],
)
def test_a_file_name_asks_for_its_format_by_extension(path, fmt):
    assert format_of(path) == fmt


def test_ndjson_carries_values_as_query_rows_do():
    lines = b"".join(chunks(reader(1), "ndjson")).decode().splitlines()
    assert [json.loads(line) for line in lines] == [
        {"id": 1, "amount": "12.50", "took": "PT1H30M"},
        {"id": 2, "amount": None, "took": "PT5S"},
    ]


def test_csv_has_every_row_with_durations_as_iso_text():
    table = pacsv.read_csv(io.BytesIO(b"".join(chunks(reader(), "csv"))))
    assert table.column("id").to_pylist() == [1, 2, 3, 4]
    assert table.column("took").to_pylist() == ["PT1H30M", "PT5S"] * 2


def test_arrow_keeps_the_types_as_they_are():
    got = pa.ipc.open_stream(b"".join(chunks(reader(), "arrow"))).read_all()
    assert got.schema == SCHEMA
    assert got.num_rows == 4


def test_an_empty_result_is_still_a_readable_parquet_file(tmp_path):
    empty = pa.RecordBatchReader.from_batches(SCHEMA, iter([]))
    assert write(empty, str(tmp_path / "e.parquet"), "parquet") == 0
    table = pq.read_table(tmp_path / "e.parquet")
    assert (table.num_rows, table.column_names) == (0, ["id", "amount", "took"])


def test_the_result_streams_in_pieces_as_batches_come():
    pieces = list(chunks(reader(3), "csv"))
    assert len(pieces) >= 3 and all(isinstance(p, bytes) for p in pieces)


def test_write_answers_the_rows_and_leaves_no_partial_file(tmp_path):
    path = tmp_path / "out.parquet"
    assert write(reader(), str(path), "parquet") == 4
    assert pq.read_table(path).column("id").to_pylist() == [1, 2, 3, 4]
    assert [p.name for p in tmp_path.iterdir()] == ["out.parquet"]


def test_a_result_that_fails_midway_leaves_no_file(tmp_path):
    def failing():
        yield next(iter(reader(1)))
        raise OSError("the snapshot file went away")

    broken = pa.RecordBatchReader.from_batches(SCHEMA, failing())
    with pytest.raises(OSError):
        write(broken, str(tmp_path / "out.csv"), "csv")
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_format_is_refused_naming_the_formats():
    with pytest.raises(ValueError, match="xlsx"):
        list(chunks(reader(), "xlsx"))
    assert set(FORMATS) == {"arrow", "csv", "parquet", "ndjson"}


def test_a_month_interval_is_months_not_thirty_days():
    interval = pa.array(
        [pa.scalar((14, 2, 3_600_000_000_000), pa.month_day_nano_interval()).as_py()], pa.month_day_nano_interval()
    )
    batch = pa.record_batch([interval], names=["span"])
    assert portable(batch).column(0).to_pylist() == ["P1Y2M2DT1H"]
