"""tabular/store/home.py: a home in a tmp_path: its folders and owner lock, the catalog's one
transaction per change, snapshot files written, sealed, attached and discarded, and a sweep that
removes only what a dead process left."""

from __future__ import annotations

import os

import duckdb
import pytest

from planner.dialect import DIALECT
from tabular.errors import PreconditionFailed, StorageDamaged
from tabular.store import catalog as C
from tabular.store.damage import looks_damaged
from tabular.store.home import Catalog


@pytest.fixture
def home(tmp_path):
    catalog = Catalog(str(tmp_path / "home"))
    yield catalog
    catalog.close()


def write_snapshot(home, snapshot_id, rows=3, org="acme", namespace="fin"):
    """A snapshot file with `rows` rows, sealed and named by a catalog commit."""
    home.new_snapshot(snapshot_id, rows)
    cur = home.cursor()
    cur.execute(
        f"CREATE TABLE {C.snapshot_table(snapshot_id).sql(dialect=DIALECT)} AS SELECT range AS n FROM range({rows})"
    )
    cur.execute(
        f"CREATE TABLE {C.rejected_table(snapshot_id).sql(dialect=DIALECT)} (row_id BIGINT, line BIGINT, column_name VARCHAR, value VARCHAR, reason VARCHAR)"
    )
    home.seal(snapshot_id)
    with home.change() as con:
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
    home.settled([snapshot_id])


def count(home, snapshot_id):
    home.attach([snapshot_id])
    return (
        home.cursor()
        .execute(f"SELECT count(*) FROM {C.snapshot_table(snapshot_id).sql(dialect=DIALECT)}")
        .fetchone()[0]
    )


def test_a_new_home_makes_its_folders_its_catalog_and_its_owner_lock(home):
    for folder in (home.uploads_dir, home.extractions_dir, home.snapshots_dir, home.owners_dir):
        assert folder.is_dir()
    assert home.path.name == "catalog.sqlite" and home.path.is_file()
    assert (home.owners_dir / f"{home.owner}.lock").is_file()
    assert home.alive(home.owner)


def test_a_second_open_of_the_same_home_sees_the_first_as_alive_until_it_closes(tmp_path):
    first = Catalog(str(tmp_path / "home"))
    second = Catalog(str(tmp_path / "home"))
    try:
        assert first.owner != second.owner
        assert second.alive(first.owner)
        first.close()
        assert not second.alive(first.owner)
        assert not second.alive("") and not second.alive(None)
    finally:
        second.close()


def test_a_commit_in_one_open_home_is_seen_by_another_and_moves_the_generation(tmp_path):
    first = Catalog(str(tmp_path / "home"))
    second = Catalog(str(tmp_path / "home"))
    try:
        before = second.rows.generation
        with first.change() as con:
            C.insert(con, "sources", org="acme", namespace="fin", source_uri="a.csv", live_revision=1)
        assert C.live_source_uris(second.conn(), "acme", "fin") == ["a.csv"]
        assert second.rows.generation != before
    finally:
        first.close()
        second.close()


def test_a_change_that_raises_commits_nothing(home):
    with pytest.raises(ValueError):
        with home.change() as con:
            C.insert(con, "sources", org="acme", namespace="fin", source_uri="a.csv", live_revision=1)
            raise ValueError("stop")
    assert C.source_count(home.conn()) == 0
    with home.change() as con:  # the writer is free again
        C.insert(con, "sources", org="acme", namespace="fin", source_uri="b.csv", live_revision=1)
    assert C.live_source_uris(home.conn(), "acme", "fin") == ["b.csv"]


def test_a_sealed_snapshot_is_one_file_read_back_by_any_later_open(tmp_path):
    home = Catalog(str(tmp_path / "home"))
    write_snapshot(home, "s_1", rows=5)
    assert sorted(p.name for p in home.snapshots_dir.iterdir()) == ["s_1.duckdb"]
    assert count(home, "s_1") == 5
    home.close()
    again = Catalog(str(tmp_path / "home"))
    try:
        assert count(again, "s_1") == 5
    finally:
        again.close()


def test_a_discarded_snapshot_leaves_no_file(home):
    home.new_snapshot("s_2", 3)
    home.cursor().execute(f"CREATE TABLE {C.snapshot_table('s_2').sql(dialect=DIALECT)} AS SELECT 1 AS n")
    home.discard("s_2")
    assert list(home.snapshots_dir.iterdir()) == []


def test_a_snapshot_no_longer_on_disk_is_409_read_again(home):
    with pytest.raises(PreconditionFailed, match="s_gone"):
        home.attach(["s_gone"])


def test_a_damaged_snapshot_file_is_storage_damaged_naming_the_file(home):
    write_snapshot(home, "s_bad")
    path = home.snapshot_path("s_bad")
    path.write_bytes(b"this is no DuckDB file" * 100)
    with pytest.raises(StorageDamaged) as caught:
        home.attach(["s_bad"])
    assert caught.value.path == "snapshots/s_bad.duckdb"
    assert str(home.home) not in caught.value.message  # named relative to the home


def test_damaged_names_a_file_only_to_its_own_namespace(home):
    write_snapshot(home, "s_mine", org="acme")
    home.snapshot_path("s_mine").write_bytes(b"x" * 4096)
    err = duckdb.IOException(f"Corrupt database file {home.snapshots_dir}/s_mine.duckdb")
    assert isinstance(home.damaged(err, "acme", "fin"), StorageDamaged)
    assert home.damaged(err, "rival", "fin") is None
    assert home.damaged(ValueError("Corrupt database file"), "acme", "fin") is None


def test_a_sweep_removes_what_a_dead_owner_left_and_keeps_what_is_named(home):
    write_snapshot(home, "s_kept")
    dead = "99999-deadbeef"
    part = home.snapshots_dir / f"s_half.{dead}.part"
    part.write_bytes(b"half written")
    unnamed = home.snapshots_dir / "s_never.duckdb"
    unnamed.write_bytes(b"sealed, its commit never came")
    (home.snapshots_dir / f"s_never.{dead}.sealed").touch()
    mine = home.snapshots_dir / f"s_writing.{home.owner}.part"
    mine.write_bytes(b"being written by a live owner")
    home.sweeper.sweep()
    names = sorted(p.name for p in home.snapshots_dir.iterdir())
    assert names == sorted(["s_kept.duckdb", mine.name])


def test_close_releases_the_owner_lock(tmp_path):
    home = Catalog(str(tmp_path / "home"))
    lock = home.owners_dir / f"{home.owner}.lock"
    home.close()
    assert not lock.exists()


def test_a_memory_home_leaves_nothing_behind():
    home = Catalog(":memory:")
    where = home.home
    assert where.is_dir()
    home.close()
    assert not os.path.exists(where)


def test_looks_damaged_knows_duckdbs_words_for_a_broken_file():
    assert looks_damaged(duckdb.IOException("Corrupt database file: checksum mismatch"))
    assert looks_damaged(duckdb.IOException("The file is not a valid DuckDB database file!"))
    assert not looks_damaged(duckdb.BinderException("Referenced column x not found"))


def test_a_query_past_the_memory_limit_spills_to_the_homes_temp_folder_in_a_new_home(tmp_path):
    # DuckDB makes only the last folder of its temp_directory: the home's tmp/ must be there.
    catalog = Catalog(str(tmp_path / "home"), memory_limit="64MB")
    try:
        cur = catalog.cursor()
        cur.execute("SET preserve_insertion_order = true")
        # 1.5 million rows sorted by a hash spill past 64 MB (3 million took twice the time)
        rows = cur.execute(
            "SELECT count(*) FROM (SELECT i, md5(i::VARCHAR) AS h FROM range(1500000) t(i) ORDER BY h)"
        ).fetchall()
        assert rows == [(1_500_000,)]
        assert list((tmp_path / "home" / "tmp").iterdir()), "the sort spilled: DuckDB made the owner's folder"
    finally:
        catalog.close()
