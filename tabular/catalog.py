"""The catalog: sources, revisions, datasets, snapshots and rejected rows, in the DuckDB file.

Snapshot tables live in the `snapshots` schema; the catalog's own tables in `catalog`. A
revision is published in one transaction, so a reader sees all of it or none of it.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import threading
import weakref
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Iterator

import duckdb
from sqlglot import exp

from .deadline import Watchdog
from .errors import Overloaded

SCHEMA = """
CREATE SCHEMA IF NOT EXISTS catalog;
CREATE SCHEMA IF NOT EXISTS snapshots;
CREATE TABLE IF NOT EXISTS catalog.uploads (
  upload_id VARCHAR, org VARCHAR, namespace VARCHAR, filename VARCHAR, bytes BIGINT,
  sha256 VARCHAR, content_type VARCHAR, path VARCHAR, created_at TIMESTAMPTZ);
CREATE TABLE IF NOT EXISTS catalog.jobs (
  ingestion_id VARCHAR, org VARCHAR, namespace VARCHAR, source_uri VARCHAR, upload_id VARCHAR,
  state VARCHAR, stage VARCHAR, attempts INTEGER, error_code VARCHAR, error_message VARCHAR,
  format VARCHAR, coverage JSON, warnings JSON, revision INTEGER, expected_revision INTEGER,
  filename VARCHAR, progress JSON, cancel_requested BOOLEAN, request JSON,
  created_at TIMESTAMPTZ, updated_at TIMESTAMPTZ);
CREATE TABLE IF NOT EXISTS catalog.sources (
  org VARCHAR, namespace VARCHAR, source_uri VARCHAR, live_revision INTEGER, last_revision INTEGER,
  title VARCHAR, description VARCHAR, tags JSON, metadata JSON,
  created_at TIMESTAMPTZ, updated_at TIMESTAMPTZ);
CREATE TABLE IF NOT EXISTS catalog.revisions (
  org VARCHAR, namespace VARCHAR, source_uri VARCHAR, revision INTEGER, upload_id VARCHAR,
  filename VARCHAR, format VARCHAR, parser VARCHAR, coverage JSON, warnings JSON,
  extraction_dir VARCHAR, ingested_at TIMESTAMPTZ, state VARCHAR);
CREATE TABLE IF NOT EXISTS catalog.datasets (
  org VARCHAR, namespace VARCHAR, source_uri VARCHAR, revision INTEGER, dataset_id VARCHAR,
  name VARCHAR, idx INTEGER, extraction VARCHAR, headers JSON, names JSON, rows BIGINT,
  origin JSON, warnings JSON, options JSON, live_snapshot VARCHAR);
CREATE TABLE IF NOT EXISTS catalog.snapshots (
  snapshot_id VARCHAR, org VARCHAR, namespace VARCHAR, source_uri VARCHAR, revision INTEGER,
  dataset_id VARCHAR, rows BIGINT, rows_rejected BIGINT, columns JSON, questions JSON,
  approved BOOLEAN, approved_at TIMESTAMPTZ, approved_by VARCHAR, created_at TIMESTAMPTZ);
CREATE TABLE IF NOT EXISTS catalog.typings (snapshot_id VARCHAR, typings JSON);
CREATE TABLE IF NOT EXISTS catalog.approvals (
  org VARCHAR, namespace VARCHAR, source_uri VARCHAR, revision INTEGER, dataset_id VARCHAR,
  old_snapshot VARCHAR, new_snapshot VARCHAR, approved_by VARCHAR, approved_at TIMESTAMPTZ,
  retyped BOOLEAN, changes JSON, settled JSON);
CREATE TABLE IF NOT EXISTS catalog.deletions (
  org VARCHAR, namespace VARCHAR, source_uri VARCHAR, revision INTEGER, deleted_at TIMESTAMPTZ,
  deleted_by VARCHAR, restored_at TIMESTAMPTZ);
ALTER TABLE catalog.jobs ADD COLUMN IF NOT EXISTS idempotency_key VARCHAR;
CREATE TABLE IF NOT EXISTS catalog.exports (
  snapshot_id VARCHAR, location VARCHAR, rows BIGINT, bytes BIGINT, exported_at TIMESTAMPTZ);
"""


# The suffix of a snapshot's rejected-rows table.
REJECTED = ".rejected"


def rejected_table(snapshot_id: str) -> exp.Table:
    """The snapshot's rejected rows (row_id, line, column_name, value, reason), kept beside it:
    a snapshot and its rejected rows are one immutable unit, made and dropped together."""
    return exp.table_(snapshot_id + REJECTED, db="snapshots", quoted=True)


class Catalog:
    """One DuckDB database file (or memory) and the directory beside it for extractions."""

    def __init__(self, home: str, memory_limit: str = "60%"):
        self.memory = home == ":memory:"
        if self.memory:
            import tempfile

            self.home = Path(tempfile.mkdtemp(prefix="tabular-"))
            self.db = duckdb.connect(":memory:")
        else:
            self.home = Path(home)
            self.home.mkdir(parents=True, exist_ok=True)
            try:
                self.db = duckdb.connect(str(self.home / "tabular.duckdb"))
            except duckdb.IOException as err:
                if "lock" not in str(err).lower():
                    raise
                # One process at a time holds a home's DuckDB file (issue 15 moves the catalog).
                held = re.search(r"PID (\d+)", str(err))
                raise Overloaded(
                    f"the home {str(self.home)!r} is open in another process"
                    + (f" (PID {held.group(1)})" if held else "")
                    + "; close it there, or send this call to that process (tabular serve)",
                    retry_after=2,
                ) from None
        self.uploads_dir = self.home / "uploads"
        self.extractions_dir = self.home / "extractions"
        self.exports_dir = self.home / "exports"  # made by the first export there
        self.uploads_dir.mkdir(exist_ok=True)
        self.extractions_dir.mkdir(exist_ok=True)
        self.cursors: weakref.WeakSet = weakref.WeakSet()
        self.cursors_lock = threading.Lock()
        self.db.execute("SET TimeZone = 'UTC'")
        try:
            self.db.execute(f"SET memory_limit = '{_memory(memory_limit)}'")
        except duckdb.Error:
            pass
        self.db.execute(SCHEMA)
        _move_rejected(self.db)
        self.publish_lock = threading.Lock()
        # Bumped by every commit that changes what is live: readers cache schemas per generation.
        self.generation = 0
        self.schema_cache: dict[tuple, list] = {}
        self._local = threading.local()
        self.watchdog = Watchdog()
        # Query engines beside DuckDB (tabular/clickhouse.py), connected on first use.
        self.backends: dict[str, object] = {}
        self.sweep()

    def reader(self) -> duckdb.DuckDBPyConnection:
        """This thread's own cursor for queries, made once (a new one costs a connection setup)."""
        cur = getattr(self._local, "reader", None)
        if cur is None:
            cur = self._local.reader = self.cursor()
        return cur

    @contextmanager
    def change(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """One writer at a time, one transaction: everything done with the cursor becomes live at
        once when the block ends, or, if it raises, none of it does. Readers then see a new
        generation (their cached schemas are stale)."""
        with self.publish_lock:
            cur = self.cursor()
            cur.execute("BEGIN TRANSACTION")
            try:
                yield cur
            except BaseException:
                cur.execute("ROLLBACK")
                raise
            try:
                cur.execute("COMMIT")
            except duckdb.Error:
                # DuckDB ends a transaction whose commit failed (a full disk: the WAL write); a
                # ROLLBACK then fails too and would hide why. Make sure, and raise the commit's error.
                with suppress(duckdb.Error):
                    cur.execute("ROLLBACK")
                raise
            self.generation += 1

    def cursor(self) -> duckdb.DuckDBPyConnection:
        cur = self.db.cursor()
        cur.execute("SET TimeZone = 'UTC'")
        with self.cursors_lock:
            self.cursors.add(cur)
        return cur

    def interrupt(self) -> None:
        """Interrupt whatever every open cursor is running (closing the engine)."""
        with self.cursors_lock:  # other threads open cursors meanwhile
            cursors = list(self.cursors)
        for cur in cursors:
            with suppress(duckdb.Error):
                cur.interrupt()

    def sweep(self) -> None:
        """Remove what an interrupted ingest left, and what retention let go: extraction folders,
        snapshot tables and (in the default exports folder) Parquet files nobody names."""
        cur = self.cursor()
        exported = {r[0] for r in cur.execute("SELECT location FROM catalog.exports").fetchall()}
        for file in self.exports_dir.glob("*.parquet*") if self.exports_dir.is_dir() else ():
            if str(file) not in exported:
                file.unlink(missing_ok=True)
        named = {r[0] for r in cur.execute("SELECT extraction_dir FROM catalog.revisions").fetchall()}
        for folder in self.extractions_dir.iterdir():
            if folder.name not in named:
                shutil.rmtree(folder, ignore_errors=True)
        live = {r[0] for r in cur.execute("SELECT snapshot_id FROM catalog.snapshots").fetchall()}
        tables = cur.execute("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'snapshots'").fetchall()
        for (table,) in tables:
            if table.removesuffix(REJECTED) not in live:  # a snapshot, or its rejected rows
                cur.execute(exp.Drop(tables=[exp.table_(table, db="snapshots", quoted=True)], kind="TABLE", exists=True).sql(dialect="duckdb"))


def _move_rejected(db) -> None:
    """A home made before rejected rows lived beside their snapshot: move them there, once."""
    if not db.execute("SELECT 1 FROM duckdb_tables() WHERE schema_name = 'catalog' AND table_name = 'rejected'").fetchall():
        return
    db.execute("BEGIN TRANSACTION")
    for (snapshot_id,) in db.execute("SELECT snapshot_id FROM catalog.snapshots").fetchall():
        table = rejected_table(snapshot_id).sql(dialect="duckdb")
        db.execute(
            f"CREATE TABLE IF NOT EXISTS {table} AS SELECT row_id, line, column_name, value, reason FROM catalog.rejected WHERE snapshot_id = ?",
            [snapshot_id],
        )
    db.execute("DROP TABLE catalog.rejected")
    db.execute("COMMIT")


def _table(table: str) -> exp.Table:
    return exp.table_(exp.to_identifier(table, quoted=True), db="catalog")


def _where(key: dict) -> exp.Expression:
    """Every column of `key` equal to its value (bound), or NULL where the value is None."""
    return exp.and_(*[
        exp.Is(this=exp.column(k, quoted=True), expression=exp.null()) if v is None else exp.EQ(this=exp.column(k, quoted=True), expression=exp.Placeholder())
        for k, v in key.items()
    ])


def insert(cur, table: str, **values) -> None:
    """One row into catalog.<table>, by column name (columns left out are NULL)."""
    names = [exp.to_identifier(k, quoted=True) for k in values]
    stmt = exp.insert(exp.values([tuple(exp.Placeholder() for _ in values)]), _table(table), columns=names)
    cur.execute(stmt.sql(dialect="duckdb"), [_stored(v) for v in values.values()])


def update(cur, table: str, key: dict, **values) -> None:
    """Set `values` on the catalog.<table> rows matching every column of `key`."""
    stmt = exp.update(_table(table), {exp.to_identifier(k, quoted=True): exp.Placeholder() for k in values}, where=_where(key))
    cur.execute(stmt.sql(dialect="duckdb"), [*map(_stored, values.values()), *(v for v in key.values() if v is not None)])


def _stored(value):
    """Dicts and lists are held as JSON text."""
    return dumps(value) if isinstance(value, (dict, list)) else value


def live_datasets(cur, org: str, namespace: str, source_uri: str, columns: str = "d.dataset_id, d.live_snapshot") -> list[tuple]:
    """`columns` of the datasets of a source's live revision (d: catalog.datasets, s: the live
    snapshot's catalog.snapshots row, r: the revision), in the file's order; [] when none is live.
    The one place this join is written."""
    return cur.execute(
        f"SELECT {columns} FROM catalog.sources src"
        " JOIN catalog.datasets d ON d.org = src.org AND d.namespace = src.namespace AND d.source_uri = src.source_uri AND d.revision = src.live_revision"
        " JOIN catalog.snapshots s ON s.snapshot_id = d.live_snapshot"
        " JOIN catalog.revisions r ON r.org = d.org AND r.namespace = d.namespace AND r.source_uri = d.source_uri AND r.revision = d.revision"
        " WHERE src.org = ? AND src.namespace = ? AND src.source_uri = ? ORDER BY d.idx",
        [org, namespace, source_uri],
    ).fetchall()


def _memory(setting: str) -> str:
    if setting.endswith("%"):
        import os

        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        return f"{int(total * float(setting[:-1]) / 100 / 2**20)}MB"
    return setting


def now() -> dt.datetime:
    """The time catalog rows are stamped with (UTC)."""
    return dt.datetime.now(dt.timezone.utc)


def dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)
