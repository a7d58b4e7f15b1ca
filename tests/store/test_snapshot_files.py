"""tabular/store/snapshot_files.py: a snapshot's file from new to sealed, settled or discarded,
read back attached, and a damaged one named to its own namespace only."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest

from planner.dialect import DIALECT
from tabular.errors import PreconditionFailed, StorageDamaged
from tabular.store import catalog as C
from tabular.store.home import Catalog


@pytest.fixture
def home(tmp_path):
    catalog = Catalog(str(tmp_path / "home"))
    yield catalog
    catalog.close()


def written(home, snapshot_id, rows=3, org="acme", namespace="fin"):
    files = home.snapshots
    files.new(snapshot_id, rows)
    cur = home.connections.cursor()
    cur.execute(
        f"CREATE TABLE {C.snapshot_table(snapshot_id).sql(dialect=DIALECT)} AS SELECT range AS n FROM range({rows})"
    )
    cur.execute(f"CREATE TABLE {C.rejected_table(snapshot_id).sql(dialect=DIALECT)} (row_id BIGINT)")
    files.seal(snapshot_id)
    with home.rows.change() as con:
        C.insert(
            con,
            "snapshots",
            snapshot_id=snapshot_id,
            org=org,
            namespace=namespace,
            source_uri="a.csv",
            revision=1,
            dataset_id="a",
            created_at=C.now(),
        )
    files.settled([snapshot_id])
    return files.path(snapshot_id)


def test_a_sealed_file_has_its_final_name_and_no_mark_once_settled(home):
    path = written(home, "s_1")
    assert sorted(p.name for p in home.snapshots.folder.iterdir()) == [path.name] == ["s_1.duckdb"]
    home.snapshots.attach(["s_1"])
    cur = home.connections.cursor()
    assert cur.execute(f"SELECT count(*) FROM {C.snapshot_table('s_1').sql(dialect=DIALECT)}").fetchone()[0] == 3


def test_a_small_snapshot_is_written_in_small_blocks(home):
    small, large = written(home, "s_small", rows=3), None
    home.snapshots.new("s_large", None)  # cells unknown: DuckDB's own block size
    cur = home.connections.cursor()
    cur.execute(f"CREATE TABLE {C.snapshot_table('s_large').sql(dialect=DIALECT)} AS SELECT 1 AS n")
    home.snapshots.seal("s_large")
    large = home.snapshots.path("s_large")
    assert small.stat().st_size < large.stat().st_size


def test_a_discarded_snapshot_leaves_nothing(home):
    home.snapshots.new("s_2", 3)
    home.connections.cursor().execute(f"CREATE TABLE {C.snapshot_table('s_2').sql(dialect=DIALECT)} AS SELECT 1 AS n")
    home.snapshots.seal("s_2")
    home.snapshots.discard("s_2")
    assert list(home.snapshots.folder.iterdir()) == []


def test_a_file_gone_is_409_and_a_damaged_one_is_named_relative_to_the_home(home):
    with pytest.raises(PreconditionFailed, match="s_gone"):
        home.snapshots.attach(["s_gone"])
    written(home, "s_bad").write_bytes(b"no DuckDB file" * 300)
    with pytest.raises(StorageDamaged) as caught:
        home.snapshots.attach(["s_bad"])
    assert caught.value.path == "snapshots/s_bad.duckdb"
    assert "dataset 'a' of 'a.csv', revision 1" in caught.value.message


def test_damaged_names_a_file_only_to_its_own_namespace(home):
    written(home, "s_mine").write_bytes(b"x" * 4096)
    err = duckdb.IOException(f"Corrupt database file {home.snapshots.folder}/s_mine.duckdb")
    assert isinstance(home.snapshots.damaged(err, "acme", "fin"), StorageDamaged)
    assert home.snapshots.damaged(err, "rival", "fin") is None
    assert home.snapshots.damaged(ValueError("Corrupt database file"), "acme", "fin") is None


def test_checked_refuses_a_stream_over_a_damaged_file_before_its_first_batch(home):
    written(home, "s_read").write_bytes(b"x" * 4096)
    schema = pa.schema([("n", pa.int64())])

    def failing():
        raise OSError(f"Corrupt database file {home.snapshots.folder}/s_read.duckdb")
        yield  # a generator

    reader = pa.RecordBatchReader.from_batches(schema, failing())
    with pytest.raises(StorageDamaged):
        home.snapshots.checked(reader, ["s_read"], "acme", "fin")
    sound = pa.RecordBatchReader.from_batches(schema, [pa.record_batch([pa.array([1, 2])], schema=schema)])
    assert home.snapshots.checked(sound, [], "acme", "fin").read_all().num_rows == 2
