"""tabular/store/sweep.py: a sweep removes what a dead owner left and keeps what is named or
still being written; collect lets dropped snapshots go after their grace; uploads expire."""

from __future__ import annotations

import pytest

from tabular.store import catalog as C
from tabular.store.home import Catalog


@pytest.fixture
def home(tmp_path):
    catalog = Catalog(str(tmp_path / "home"), dropped_grace=0)
    yield catalog
    catalog.close()


def test_a_sweep_removes_what_a_dead_owner_left_and_keeps_what_a_live_one_writes(home):
    folder = home.snapshots.folder
    dead = "99999-deadbeef"
    (folder / f"s_half.{dead}.part").write_bytes(b"half written")
    (folder / "s_never.duckdb").write_bytes(b"sealed, its commit never came")
    (folder / f"s_never.{dead}.sealed").touch()
    mine = folder / f"s_writing.{home.owner}.part"
    mine.write_bytes(b"being written by a live owner")
    (home.extractions_dir / f"x_1.{dead}").mkdir()
    (home.home / "tmp" / dead).mkdir(parents=True)
    home.sweeper.sweep()
    assert sorted(p.name for p in folder.iterdir()) == [mine.name]
    assert list(home.extractions_dir.iterdir()) == []
    assert not (home.home / "tmp" / dead).exists()


def test_collect_deletes_a_dropped_snapshots_file_past_its_grace(home):
    path = home.snapshots.path("s_old")
    path.write_bytes(b"a dropped snapshot's file")
    with home.rows.change() as con:
        C.insert(con, "dropped", snapshot_id="s_old", dropped_at=C.now())
    home.sweeper.collect()
    assert not path.exists()


def test_an_upload_nobody_named_expires(home):
    upload = home.uploads_dir / "u_1"
    upload.write_bytes(b"a,b\n1,2\n")
    with home.rows.change() as con:
        C.insert(
            con,
            "uploads",
            upload_id="u_1",
            org="acme",
            namespace="fin",
            path=str(upload),
            filename="a.csv",
            bytes=8,
            sha256="x",
            created_at=C.now(),
        )
    assert home.sweeper.expire_uploads(-1) == 1
    assert not upload.exists()
