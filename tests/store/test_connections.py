"""tabular/store/connections.py: this process's DuckDB, its cursors by thread, the memory its
statements hold, and the settings it starts with."""

from __future__ import annotations

import threading

import duckdb
import pytest

from tabular.store.connections import Connections, as_bytes, memory_size


@pytest.fixture
def connections(tmp_path):
    made = Connections(tmp_path / "tmp" / "me", "256MB", 0.5)
    yield made
    made.close()


def test_a_thread_keeps_its_reader_and_reads_in_utc(connections):
    assert connections.reader() is connections.reader()
    assert connections.cursor().execute("SELECT current_setting('TimeZone')").fetchone()[0] == "UTC"
    other: list = []
    thread = threading.Thread(target=lambda: other.append(connections.reader()))
    thread.start()
    thread.join()
    assert other[0] is not connections.reader()


def test_interrupting_a_thread_stops_only_its_own_cursors(connections):
    stopped: list[str] = []
    started = threading.Event()

    def long_query() -> None:
        cur = connections.cursor()
        started.set()
        try:
            cur.execute("SELECT count(*) FROM range(10000000000) a")
        except duckdb.InterruptException:
            stopped.append("stopped")

    neighbour: list[object] = []

    def neighbours_query() -> None:
        # Another thread's statement, running while the interrupts are sent: it must finish.
        try:
            neighbour.append(connections.cursor().execute("SELECT count(*) FROM range(300000000)").fetchone()[0])
        except duckdb.InterruptException:
            neighbour.append("interrupted")

    thread = threading.Thread(target=long_query)
    thread.start()
    started.wait()
    other = threading.Thread(target=neighbours_query)
    other.start()
    mine = connections.cursor()
    for _ in range(2000):  # until the statement has started and is stopped (bounded)
        if stopped:
            break
        connections.interrupt(thread.ident)
        thread.join(0.05)
    thread.join()
    other.join()
    assert stopped == ["stopped"]
    assert mine.execute("SELECT 42").fetchone()[0] == 42
    assert neighbour == [300000000]


def test_memory_used_is_a_count_of_bytes(connections):
    assert connections.memory_used() >= 0
    # A result held, not yet read: DuckDB keeps its rows (COLUMN_DATA), what the watchdog counts.
    held = connections.cursor().execute("SELECT range AS n, range::VARCHAR AS s FROM range(3000000) ORDER BY s DESC")
    assert connections.memory_used() > 0
    held.close()


def test_memory_settings_in_duckdbs_units():
    assert as_bytes("512MB") == 512 * 10**6
    assert as_bytes("2GiB") == 2 * 2**30
    assert as_bytes(" 3 kb ") == 3000
    assert memory_size("4GB") == "4GB"
    assert memory_size("50%").endswith("MB") and int(memory_size("50%")[:-2]) > 0
    with pytest.raises(ValueError, match="lots"):
        as_bytes("lots")
