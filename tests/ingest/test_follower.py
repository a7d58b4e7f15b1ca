"""tabular/ingest/follower.py: the thread that follows a home's linked folders, and the marker
that tells every process of the home someone follows (a dead process's marker is no follower)."""

from __future__ import annotations

import threading

from tabular.ingest.follower import Follower
from tabular.settings import Settings


class Home:
    """What the follower reads of a catalog: its owners' folder, its own owner, who is alive."""

    def __init__(self, path, alive: set[str]):
        self.owners_dir, self.owner, self._alive = path, "me", alive
        path.mkdir(parents=True, exist_ok=True)

    def alive(self, owner: str) -> bool:
        return owner in self._alive

    def conn(self):
        raise AssertionError("not started: no catalog read")


def follower(tmp_path, alive=()) -> Follower:
    home = Home(tmp_path / "owners", set(alive))
    return Follower(home, Settings(), lambda link_id: None, lambda path: False, threading.Event(), threading.Event())


def test_no_one_follows_until_a_live_process_leaves_its_marker(tmp_path):
    f = follower(tmp_path, alive={"other"})
    assert not f.followed() and not f.running()
    (tmp_path / "owners" / "other.watching").touch()
    assert f.followed()


def test_the_marker_of_a_process_that_died_is_no_follower_and_is_removed(tmp_path):
    f = follower(tmp_path, alive=())
    dead = tmp_path / "owners" / "gone.watching"
    dead.touch()
    assert not f.followed()
    assert not dead.exists()


def test_a_halted_follower_starts_no_thread(tmp_path):
    f = follower(tmp_path)
    f.halt()
    f.start()
    assert f.thread is None and not f.running()
    assert not (tmp_path / "owners" / "me.watching").exists()
