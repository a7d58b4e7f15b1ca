"""A home: the catalog and the snapshots, shared by any number of processes.

Two stores, each built for what it holds:

- **The catalog** (sources, revisions, datasets, snapshots, jobs, questions, approvals, audit) is
  one SQLite file in WAL mode, `catalog.sqlite` (rows.py; its SQL is catalog.py's).
- **Each snapshot** is its own DuckDB file, `snapshots/<snapshot_id>.duckdb`, written once before
  the catalog commit that makes it live, and from then on only read (snapshot_files.py).

A revision is published by one catalog transaction, so a reader in any process sees all of it or
none of it. Each process queries through its own in-memory DuckDB (connections.py), which
attaches the snapshot files a plan reads on first use. Each open home is an owner (owners.py),
and a sweep removes what a process that is gone left (sweep.py). `Catalog` opens the home and
owns these parts; it holds no state of its own beyond the home's folders.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from .connections import Connections
from .migrate import move_old_home
from .owners import Owners
from .rows import CatalogRows
from .snapshot_files import SnapshotFiles
from .sweep import Sweeper


class Catalog:
    """A home: the catalog's rows, the snapshot files, this process's DuckDB that reads them,
    its owner lock and its sweep, each a part of its own.

    The attributes after the parts (`conn`, `attach`, `new_snapshot` …) are the parts' own
    methods under the names callers outside store/ use."""

    def __init__(
        self,
        home: str,
        memory_limit: str = "60%",
        wait_seconds: float = 30.0,
        dropped_grace: float = 60.0,
        query_memory_share: float = 0.5,
    ) -> None:
        self.memory = home == ":memory:"
        self.home = Path(tempfile.mkdtemp(prefix="tabular-")) if self.memory else Path(home)
        self.home.mkdir(parents=True, exist_ok=True)
        self.uploads_dir = self.home / "uploads"
        self.extractions_dir = self.home / "extractions"
        self.exports_dir = self.home / "exports"  # made by the first export there
        self.owners_dir = self.home / "owners"
        for folder in (self.uploads_dir, self.extractions_dir, self.owners_dir):
            folder.mkdir(exist_ok=True)
        # Who this open home is: files it is writing and jobs it runs carry this name.
        self.owners = Owners(self.owners_dir)
        self.owner = self.owners.me
        self.path = self.home / "catalog.sqlite"
        self.rows = CatalogRows(self.path, wait_seconds)
        self.connections = Connections(self.home / "tmp" / self.owner, memory_limit, query_memory_share)
        self.snapshots = SnapshotFiles(self.home, self.owner, self.connections, self.rows)
        self.snapshots_dir = self.snapshots.folder
        self.sweeper = Sweeper(self.home, self.rows, self.snapshots, self.owners, dropped_grace)

        # The parts' methods under the names callers outside store/ use.
        self.conn, self.change = self.rows.conn, self.rows.change
        self.reader, self.cursor, self.interrupt = (
            self.connections.reader,
            self.connections.cursor,
            self.connections.interrupt,
        )
        self.attach, self.damaged, self.snapshot_path = (
            self.snapshots.attach,
            self.snapshots.damaged,
            self.snapshots.path,
        )
        self.new_snapshot, self.seal = self.snapshots.new, self.snapshots.seal
        self.settled, self.discard = self.snapshots.settled, self.snapshots.discard
        self.alive = self.owners.alive
        self.collect, self.expire_uploads = self.sweeper.collect, self.sweeper.expire_uploads

        move_old_home(self.home, self.rows, self.connections, self.snapshots)
        self.sweeper.sweep()

    def close(self) -> None:
        """Close this process's connections and release the home (its owner lock)."""
        self.connections.close()
        self.rows.close()
        shutil.rmtree(self.connections.temp_dir, ignore_errors=True)
        self.owners.release()
        if self.memory:
            shutil.rmtree(self.home, ignore_errors=True)
