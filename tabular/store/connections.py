"""This process's DuckDB: in memory, reading the snapshot files attached on demand. Its cursors
(one reader per thread, and any made for a stream or a write), the memory its running
statements hold, and the watchdog that interrupts one past its deadline or its memory share."""

from __future__ import annotations

import os
import re
import threading
import weakref
from contextlib import suppress
from pathlib import Path

import duckdb

from ..deadline import Watchdog
from . import sql

# Threads that ended leave empty sets of cursors behind; past this many, they are dropped.
CURSOR_THREADS = 256


class Connections:
    """The DuckDB connection of this process and the cursors made from it, by thread."""

    def __init__(self, temp_dir: Path, memory_limit: str = "60%", query_memory_share: float = 0.5) -> None:
        self.db = duckdb.connect(":memory:")
        self.temp_dir = temp_dir
        # DuckDB makes the last folder itself when it first spills, not the ones above it.
        temp_dir.parent.mkdir(parents=True, exist_ok=True)
        self.db.execute(sql.UTC)
        self.db.execute(sql.TEMP_DIRECTORY, [str(temp_dir)])
        with suppress(duckdb.Error):
            self.db.execute(sql.MEMORY_LIMIT, [memory_size(memory_limit)])
        self.cursors: dict[int, weakref.WeakSet[duckdb.DuckDBPyConnection]] = {}  # by the thread that made them
        self.cursors_lock = threading.Lock()
        self._local = threading.local()
        self._memory_cursor = self.db.cursor()  # the watchdog's own
        # A query is stopped (413) when DuckDB holds more than this share of its limit: the one
        # that has run longest, so a plan that explodes never fails the others (deadline.py).
        self.watchdog = Watchdog(self.memory_used, int(as_bytes(memory_size(memory_limit)) * query_memory_share))

    def reader(self) -> duckdb.DuckDBPyConnection:
        """This thread's own cursor for queries, made once (a new one costs a connection setup)."""
        cur: duckdb.DuckDBPyConnection | None = getattr(self._local, "reader", None)
        if cur is None:
            cur = self._local.reader = self.cursor()
        return cur

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A new cursor, interrupted with the others of its thread (see `interrupt`)."""
        cur = self.db.cursor()
        cur.execute(sql.UTC)
        with self.cursors_lock:
            if len(self.cursors) > CURSOR_THREADS:  # pruned in place: service/calls.py reads the dict
                for ident in [ident for ident, made in self.cursors.items() if not len(made)]:
                    del self.cursors[ident]
            self.cursors.setdefault(threading.get_ident(), weakref.WeakSet()).add(cur)
        return cur

    def memory_used(self) -> int:
        """What running statements hold (sql.MEMORY_USED), in bytes."""
        row = self._memory_cursor.execute(sql.MEMORY_USED).fetchall()[0]
        return int(row[0] or 0)

    def interrupt(self, thread: int | None = None) -> None:
        """Interrupt whatever the open cursors run: every one (closing the engine), or those one
        thread made (a job cancelled or out of time)."""
        with self.cursors_lock:  # other threads open cursors meanwhile
            cursors = [cur for ident, made in self.cursors.items() if thread in (None, ident) for cur in list(made)]
        for cur in cursors:
            with suppress(duckdb.Error):
                cur.interrupt()

    def close(self) -> None:
        """Stop the watchdog, then the engine (the watchdog asks it for its memory)."""
        self.watchdog.close()
        with suppress(duckdb.Error):
            self.db.close()


def memory_size(setting: str) -> str:
    """DuckDB's memory_limit from the setting: a share of the machine's memory ('60%') in MB, or
    the setting itself ('4GB')."""
    if setting.endswith("%"):
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        return f"{int(total * float(setting[:-1]) / 100 / 2**20)}MB"
    return setting


# DuckDB's units: KB/MB/GB are powers of 1000, KiB… of 1024.
_UNITS = {
    "": 1,
    "B": 1,
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "TB": 10**12,
    "KIB": 2**10,
    "MIB": 2**20,
    "GIB": 2**30,
    "TIB": 2**40,
}


def as_bytes(setting: str) -> int:
    """'512MB', '4GB', '2GiB' as bytes."""
    found = re.fullmatch(r"\s*([0-9.]+)\s*([A-Za-z]*)\s*", setting)
    if found is None:
        raise ValueError(f"not a memory size: {setting!r}")
    number, unit = found.groups()
    return int(float(number) * _UNITS[unit.upper()])
