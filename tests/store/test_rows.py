"""tabular/store/rows.py: the catalog's rows in one SQLite file, shared by two opens of it: a
change is all or nothing, seen by the other open at once, and moves the generation."""

from __future__ import annotations

import pytest

from tabular.store import catalog as C
from tabular.store.rows import CatalogRows


@pytest.fixture
def two(tmp_path):
    first, second = CatalogRows(tmp_path / "catalog.sqlite", 5), CatalogRows(tmp_path / "catalog.sqlite", 5)
    yield first, second
    first.close()
    second.close()


def test_a_change_is_seen_by_another_open_and_moves_its_generation(two):
    first, second = two
    before = second.generation
    with first.change() as con:
        C.insert(con, "sources", org="acme", namespace="fin", source_uri="a.csv", live_revision=1)
    assert C.live_source_uris(second.conn(), "acme", "fin") == ["a.csv"]
    assert second.generation != before


def test_a_change_that_raises_leaves_no_row_and_frees_the_writer(two):
    first, second = two
    with pytest.raises(RuntimeError):
        with first.change() as con:
            C.insert(con, "sources", org="acme", namespace="fin", source_uri="a.csv", live_revision=1)
            raise RuntimeError("stop")
    assert C.source_count(second.conn()) == 0
    with first.change() as con:
        C.insert(con, "sources", org="acme", namespace="fin", source_uri="b.csv", live_revision=1)
    assert C.live_source_uris(second.conn(), "acme", "fin") == ["b.csv"]


def test_the_file_is_in_wal_mode_for_readers_that_never_wait(two):
    first, _ = two
    assert first.conn().execute("PRAGMA catalog.journal_mode").fetchone()[0] == "wal"
