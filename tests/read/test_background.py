"""The fast reader's Parquet writer on its own thread (read/background.py)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from tabular.read.background import BackgroundWriter


def test_the_tables_put_are_written_in_order(tmp_path):
    schema = pa.schema([("x", pa.int64())])
    with BackgroundWriter(tmp_path / "out.parquet", schema) as writer:
        for k in range(3):
            writer.put(pa.table({"x": [k, k + 10]}, schema=schema))
    assert pq.read_table(tmp_path / "out.parquet").column("x").to_pylist() == [0, 10, 1, 11, 2, 12]
