"""tabular/deadline.py: the one watchdog interrupts a statement past its deadline, or the oldest
one when memory passes its budget, and leaves alone one released in time."""

from __future__ import annotations

import threading

import pytest

from tabular.deadline import Watchdog


class Cursor:
    """Stands in for a DuckDB cursor: records that it was interrupted."""

    def __init__(self) -> None:
        self.interrupted = threading.Event()

    def interrupt(self) -> None:
        self.interrupted.set()


@pytest.fixture
def watchdog():
    dog = Watchdog()
    yield dog
    dog.close()


def test_a_statement_past_its_deadline_is_interrupted_and_release_says_why(watchdog):
    cursor = Cursor()
    token = watchdog.watch(cursor, 0)
    assert cursor.interrupted.wait(10)
    assert watchdog.release(token) == "deadline"


def test_a_statement_released_in_time_is_never_interrupted(watchdog):
    cursor = Cursor()
    token = watchdog.watch(cursor, 3600)
    assert watchdog.release(token) is None
    assert not cursor.interrupted.is_set()


def test_one_past_its_deadline_leaves_the_others_running(watchdog):
    slow, quick = Cursor(), Cursor()
    slow_token = watchdog.watch(slow, 3600)
    quick_token = watchdog.watch(quick, 0)
    assert quick.interrupted.wait(10)
    assert watchdog.release(quick_token) == "deadline"
    assert watchdog.release(slow_token) is None
    assert not slow.interrupted.is_set()


def test_each_watch_answers_its_own_token(watchdog):
    tokens = [watchdog.watch(Cursor(), 3600) for _ in range(3)]
    assert len(set(tokens)) == 3
    assert [watchdog.release(t) for t in tokens] == [None, None, None]


def test_past_the_memory_budget_the_statement_running_longest_is_stopped():
    oldest, newest = Cursor(), Cursor()
    # memory stays over budget until the oldest statement is stopped, as its memory would go
    dog = Watchdog(memory_used=lambda: 0 if oldest.interrupted.is_set() else 10**9, memory_budget=1000)
    try:
        oldest_token = dog.watch(oldest, 3600)
        newest_token = dog.watch(newest, 3600)
        assert oldest.interrupted.wait(10)
        assert dog.release(oldest_token) == "memory"
        assert dog.release(newest_token) is None
        assert not newest.interrupted.is_set()
    finally:
        dog.close()


def test_a_memory_probe_that_fails_stops_nothing():
    def probe():
        raise RuntimeError("database closing")

    dog = Watchdog(memory_used=probe, memory_budget=0)
    try:
        cursor = Cursor()
        token = dog.watch(cursor, 3600)
        assert not cursor.interrupted.wait(0.5)
        assert dog.release(token) is None
    finally:
        dog.close()
