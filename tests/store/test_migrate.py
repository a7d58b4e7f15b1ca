"""tabular/store/migrate.py: a home made before the catalog moved to SQLite (one tabular.duckdb
holding the catalog and every snapshot) is copied into today's layout once, when first opened."""

from __future__ import annotations

import duckdb
import pytest

from tabular.store import catalog as C
from tabular.store.home import Catalog


@pytest.fixture
def old_home(tmp_path):
    """An old home: its catalog rows and two snapshots (one without a rejected table) in one file."""
    home = tmp_path / "home"
    home.mkdir()
    con = duckdb.connect(str(home / "tabular.duckdb"))
    con.execute("CREATE SCHEMA catalog")
    con.execute("CREATE SCHEMA snapshots")
    con.execute(
        "CREATE TABLE catalog.sources (org VARCHAR, namespace VARCHAR, source_uri VARCHAR, live_revision INTEGER, title VARCHAR)"
    )
    con.execute("INSERT INTO catalog.sources VALUES ('acme', 'fin', 'a.csv', 1, 'Sales')")
    con.execute(
        "CREATE TABLE catalog.snapshots (snapshot_id VARCHAR, org VARCHAR, namespace VARCHAR, source_uri VARCHAR, rows INTEGER)"
    )
    con.execute(
        "INSERT INTO catalog.snapshots VALUES ('s_1', 'acme', 'fin', 'a.csv', 3), ('s_2', 'acme', 'fin', 'a.csv', 1)"
    )
    con.execute('CREATE TABLE snapshots."s_1" AS SELECT range AS __row_id, range * 10 AS amount FROM range(3)')
    con.execute(
        "CREATE TABLE snapshots.\"s_1.rejected\" AS SELECT 9::BIGINT AS row_id, 10::BIGINT AS line, 'amount' AS column_name, 'x' AS value, 'not a number' AS reason"
    )
    con.execute('CREATE TABLE snapshots."s_2" AS SELECT 1 AS __row_id')
    con.close()
    return home


def read(home, sql):
    return home.cursor().execute(sql).fetchall()


def test_an_old_home_is_copied_into_the_catalog_and_one_file_per_snapshot(old_home):
    home = Catalog(str(old_home))
    try:
        row = C.source_row(home.conn(), "acme", "fin", "a.csv")
        assert (row["live_revision"], row["title"]) == (1, "Sales")
        assert C.snapshot_known(home.conn(), "s_1") and C.snapshot_known(home.conn(), "s_2")
        assert sorted(p.name for p in home.snapshots_dir.iterdir()) == ["s_1.duckdb", "s_2.duckdb"]
        home.attach(["s_1", "s_2"])
        assert read(home, 'SELECT amount FROM "s_1".main.data ORDER BY 1') == [(0,), (10,), (20,)]
        assert read(home, 'SELECT row_id, reason FROM "s_1".main.rejected') == [(9, "not a number")]
        assert read(home, 'SELECT count(*) FROM "s_2".main.rejected') == [(0,)]
    finally:
        home.close()


def test_the_old_file_is_renamed_aside_and_a_second_open_copies_nothing_again(old_home):
    Catalog(str(old_home)).close()
    assert not (old_home / "tabular.duckdb").exists()
    assert (old_home / "tabular.duckdb.moved").exists()
    again = Catalog(str(old_home))
    try:
        assert C.source_count(again.conn()) == 1
    finally:
        again.close()


def test_a_move_stopped_before_its_rename_only_renames_on_the_next_open(old_home):
    home = Catalog(str(old_home))
    home.close()
    (old_home / "tabular.duckdb.moved").rename(old_home / "tabular.duckdb")  # as if stopped before the rename
    again = Catalog(str(old_home))
    try:
        assert C.source_count(again.conn()) == 1
        assert not (old_home / "tabular.duckdb").exists()
    finally:
        again.close()


def test_a_home_without_an_old_file_is_left_alone(tmp_path):
    home = Catalog(str(tmp_path / "home"))
    try:
        assert C.source_count(home.conn()) == 0
        assert not (tmp_path / "home" / "tabular.duckdb.moved").exists()
    finally:
        home.close()
