"""tabular/store/owners.py: an open home is an owner, alive while its lock is held."""

from __future__ import annotations

from tabular.store.owners import Owners


def test_an_owner_is_alive_until_it_releases_its_lock(tmp_path):
    first, second = Owners(tmp_path), Owners(tmp_path)
    assert first.me != second.me
    assert second.alive(first.me) and first.alive(first.me)
    first.release()
    assert not second.alive(first.me)
    assert not (tmp_path / f"{first.me}.lock").exists()
    second.release()


def test_no_name_and_a_stale_lock_file_are_no_owner(tmp_path):
    mine = Owners(tmp_path)
    assert not mine.alive("") and not mine.alive(None)
    stale = tmp_path / "12345-deadbeef.lock"
    stale.touch()  # left by a process that was killed: nobody holds it
    assert not mine.alive("12345-deadbeef")
    assert not stale.exists()  # removed by whoever found it unheld
    mine.release()
