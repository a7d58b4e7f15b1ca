"""tabular/results.py: whole results written as they stream, batch by batch: Arrow IPC, CSV,
Parquet or NDJSON, durations as ISO 8601 where the format has no interval, a file whole or not
at all."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from decimal import Decimal

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from tabular.results import FORMATS, chunks, format_of, polars_ready, portable, write

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
    assert portable(batch, "parquet").column(0).to_pylist() == ["P1Y2M2DT1H"]


def edge_reader() -> pa.RecordBatchReader:
    """Two batches; the second holds what Python's date cannot (a year past 9999, DuckDB's infinity)."""
    schema = pa.schema(
        [
            ("day", pa.date32()),
            ("at", pa.timestamp("us", tz="UTC")),
            ("small", pa.decimal128(38, 10)),
            ("raw", pa.binary()),
        ]
    )
    first = pa.record_batch(
        [
            pa.array([0], pa.int32()).view(pa.date32()),
            pa.array([0], pa.int64()).view(pa.timestamp("us", tz="UTC")),
            pa.array([Decimal("0")], pa.decimal128(38, 10)),
            pa.array([b"\xaa"], pa.binary()),
        ],
        schema=schema,
    )
    second = pa.record_batch(
        [
            pa.array([2_932_897, 2**31 - 1], pa.int32()).view(pa.date32()),
            pa.array([253_402_304_400_000_000, -(2**63 - 1)], pa.int64()).view(pa.timestamp("us", tz="UTC")),
            pa.array([Decimal("-0.0000000001"), None], pa.decimal128(38, 10)),
            pa.array([b"\x00\xff", None], pa.binary()),
        ],
        schema=schema,
    )
    return pa.RecordBatchReader.from_batches(schema, iter([first, second]))


EDGE_ROWS = [
    {"day": "1970-01-01", "at": "1970-01-01T00:00:00+00:00", "small": "0.0000000000", "raw": "aa"},
    {"day": "+10000-01-01", "at": "+10000-01-01T01:00:00+00:00", "small": "-0.0000000001", "raw": "00ff"},
    {"day": "infinity", "at": "-infinity", "small": None, "raw": None},
]


def test_ndjson_and_csv_write_every_value_past_what_python_holds():
    """The NDJSON stream ended at the second batch (OverflowError); CSV wrote '<value out of
    range: 2932897>', 0E-10 for a decimal zero, and refused bytes that are not UTF-8."""
    lines = b"".join(chunks(edge_reader(), "ndjson")).decode().split("\n")
    assert [json.loads(line) for line in lines[:-1]] == EDGE_ROWS
    text = b"".join(chunks(edge_reader(), "csv")).decode()
    assert "out of range" not in text
    got = [{k: v or None for k, v in row.items()} for row in csv.DictReader(io.StringIO(text))]
    assert got == EDGE_ROWS


def test_arrow_and_parquet_keep_dates_past_9999_typed(tmp_path):
    for fmt, read in (("arrow", lambda b: pa.ipc.open_stream(b).read_all()), ("parquet", pq.read_table)):
        table = read(io.BytesIO(b"".join(chunks(edge_reader(), fmt))))
        assert table.schema.field("day").type == pa.date32()
        assert table.column("day").cast(pa.int32()).to_pylist() == [0, 2_932_897, 2**31 - 1]


def test_an_ndjson_row_is_one_line_to_every_reader():
    """U+2028, U+2029 and NEL are a line's end to Python's splitlines and JavaScript: escaped."""
    schema = pa.schema([("text", pa.string())])
    batch = pa.record_batch([pa.array(["a\u2028b\u2029c\x85d\ne\x1ff"])], schema=schema)
    text = b"".join(chunks(pa.RecordBatchReader.from_batches(schema, iter([batch])), "ndjson")).decode()
    assert len(text.splitlines()) == 1 and json.loads(text) == {"text": "a\u2028b\u2029c\x85d\ne\x1ff"}


def test_polars_gets_every_column_typed_unless_its_type_cannot_hold_a_value():
    import polars as pl

    table = pa.table(
        {
            "near": pa.array([2_932_897], pa.int32()).view(pa.date32()),
            "beyond": pa.array([2**31 - 1], pa.int32()).view(pa.date32()),
            "midnight": pa.array([86_400_000_000], pa.int64()).view(pa.time64("us")),
        }
    )
    frame = pl.from_arrow(polars_ready(table))
    assert frame.schema == pl.Schema({"near": pl.Date, "beyond": pl.String, "midnight": pl.String})
    assert frame["near"].cast(pl.Int32).to_list() == [2_932_897]
    assert (frame["beyond"].to_list(), frame["midnight"].to_list()) == (["infinity"], ["24:00:00"])
    assert str(frame)  # shown without a panic
