"""The catalog's rows: one SQLite file in WAL mode, `catalog.sqlite`, attached to every
connection as the schema `catalog`. Readers never wait for a writer; writers, from any process,
take turns with `BEGIN IMMEDIATE` and hold the file only for their rows. What the rows say is
store/catalog.py's, by named operations; this module holds the connections."""

from __future__ import annotations

import sqlite3
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from . import sql
from .catalog import SCHEMA
from .faults import busy


class CatalogRows:
    """The catalog's connections: one per thread for reading, one writer shared by turns."""

    def __init__(self, path: Path, wait_seconds: float) -> None:
        self.path, self.wait_seconds = path, wait_seconds
        self._local = threading.local()
        self._conns: weakref.WeakSet[sqlite3.Connection] = weakref.WeakSet()
        self._conns_lock = threading.Lock()
        self._writer = self._connect()
        self._watch = self._connect()  # never writes: its data_version moves with every commit
        self._watch_lock = threading.Lock()
        self.publish_lock = threading.Lock()
        with self.publish_lock:
            self._writer.execute(sql.WAL)
        with self.change() as con:
            for statement in SCHEMA.split(";"):  # (executescript would commit first)
                con.execute(statement)

    def _connect(self) -> sqlite3.Connection:
        con = sqlite3.connect(
            ":memory:",
            isolation_level=None,
            check_same_thread=False,
            detect_types=sqlite3.PARSE_DECLTYPES,
            factory=_Connection,
            timeout=self.wait_seconds,  # SQLite's busy timeout, set without a statement
        )
        con.row_factory = sqlite3.Row
        con.execute(sql.ATTACH_CATALOG, [str(self.path)])
        con.execute(sql.SYNCHRONOUS)
        with self._conns_lock:
            self._conns.add(con)
        return con

    def conn(self) -> sqlite3.Connection:
        """This thread's connection to the catalog. Each statement outside `change()` is its own
        transaction and sees the latest commit of any process."""
        con: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if con is None:
            con = self._local.conn = self._connect()
        return con

    @contextmanager
    def change(self) -> Iterator[sqlite3.Connection]:
        """One writer at a time, across processes, one transaction: everything done with the
        connection becomes live at once when the block ends, or, if it raises, none of it does.
        Snapshot files are written before it (see `SnapshotFiles.new`), so the wait is short."""
        with self.publish_lock:
            con = self._writer
            try:
                con.execute(sql.BEGIN)
            except sqlite3.OperationalError as err:
                raise busy(err) from None
            try:
                yield con
            except BaseException:
                con.execute(sql.ROLLBACK)
                raise
            try:
                con.execute(sql.COMMIT)
            except sqlite3.OperationalError as err:
                with suppress(sqlite3.Error):
                    con.execute(sql.ROLLBACK)
                raise busy(err) from None

    @property
    def generation(self) -> int:
        """Moves with every catalog commit of any process: readers cache schemas per generation."""
        with self._watch_lock:
            return int(self._watch.execute(sql.DATA_VERSION).fetchone()[0])

    def close(self) -> None:
        """Close every connection still open (those of threads that have not ended too)."""
        with self._conns_lock:
            conns = list(self._conns)
        for con in conns:
            with suppress(sqlite3.Error):
                con.close()


class _Connection(sqlite3.Connection):
    """A connection that can be weakly referenced (closed with the catalog, if its thread has not ended)."""
