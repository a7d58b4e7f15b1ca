"""The catalog and the snapshots of a home, shared by any number of processes.

Two stores, each built for what it holds:

- **The catalog** (sources, revisions, datasets, snapshots, jobs, questions, approvals, audit) is
  one SQLite file in WAL mode, `catalog.sqlite`, attached to every connection as the schema
  `catalog`. Readers never wait for a writer; writers, from any process, take turns with
  `BEGIN IMMEDIATE` and hold the file only for their catalog rows.
- **Each snapshot** is its own DuckDB file, `snapshots/<snapshot_id>.duckdb`, written once
  (as `<id>.<owner>.part`, then fsynced and renamed) before the catalog commit that makes it
  live, and from then on only attached READ_ONLY, under its id, by whichever process reads it.
  Its rows are the table `"<id>".main.data`, its rejected rows `"<id>".main.rejected`.

A revision is published by one catalog transaction, so a reader in any process sees all of it or
none of it. Each process queries through its own in-memory DuckDB, which attaches the snapshot
files a plan reads on first use.
"""

from __future__ import annotations

import collections
import datetime as dt
import fcntl
import json
import os
import re
import shutil
import sqlite3
import tempfile
import threading
import time
import uuid
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import duckdb
from sqlglot import exp

from ..deadline import Watchdog
from ..errors import Overloaded, PreconditionFailed, StorageDamaged

# SQLite column types the catalog's converters read back (module-wide names no one else uses).
TIME, FLAG = "tabular_time", "tabular_flag"

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS catalog.uploads (
  upload_id TEXT, org TEXT, namespace TEXT, filename TEXT, bytes INTEGER,
  sha256 TEXT, content_type TEXT, path TEXT, created_at {TIME});
CREATE TABLE IF NOT EXISTS catalog.jobs (
  ingestion_id TEXT PRIMARY KEY, org TEXT, namespace TEXT, source_uri TEXT, upload_id TEXT,
  state TEXT, stage TEXT, attempts INTEGER, error_code TEXT, error_message TEXT,
  format TEXT, coverage JSON, warnings JSON, revision INTEGER, expected_revision INTEGER,
  filename TEXT, progress JSON, cancel_requested {FLAG}, request JSON,
  created_at {TIME}, updated_at {TIME}, idempotency_key TEXT, owner TEXT);
CREATE INDEX IF NOT EXISTS catalog.jobs_state ON jobs (state);
CREATE TABLE IF NOT EXISTS catalog.sources (
  org TEXT, namespace TEXT, source_uri TEXT, live_revision INTEGER, last_revision INTEGER,
  title TEXT, description TEXT, tags JSON, metadata JSON,
  created_at {TIME}, updated_at {TIME}, PRIMARY KEY (org, namespace, source_uri));
CREATE TABLE IF NOT EXISTS catalog.revisions (
  org TEXT, namespace TEXT, source_uri TEXT, revision INTEGER, upload_id TEXT,
  filename TEXT, format TEXT, parser TEXT, coverage JSON, warnings JSON,
  extraction_dir TEXT, ingested_at {TIME}, state TEXT, PRIMARY KEY (org, namespace, source_uri, revision));
CREATE TABLE IF NOT EXISTS catalog.datasets (
  org TEXT, namespace TEXT, source_uri TEXT, revision INTEGER, dataset_id TEXT,
  name TEXT, idx INTEGER, extraction TEXT, headers JSON, names JSON, rows INTEGER,
  origin JSON, warnings JSON, options JSON, live_snapshot TEXT,
  PRIMARY KEY (org, namespace, source_uri, revision, dataset_id));
CREATE TABLE IF NOT EXISTS catalog.snapshots (
  snapshot_id TEXT PRIMARY KEY, org TEXT, namespace TEXT, source_uri TEXT, revision INTEGER,
  dataset_id TEXT, rows INTEGER, rows_rejected INTEGER, columns JSON, questions JSON,
  approved {FLAG}, approved_at {TIME}, approved_by TEXT, created_at {TIME});
CREATE INDEX IF NOT EXISTS catalog.snapshots_source ON snapshots (org, namespace, source_uri);
CREATE TABLE IF NOT EXISTS catalog.typings (snapshot_id TEXT PRIMARY KEY, typings JSON);
CREATE TABLE IF NOT EXISTS catalog.approvals (
  org TEXT, namespace TEXT, source_uri TEXT, revision INTEGER, dataset_id TEXT,
  old_snapshot TEXT, new_snapshot TEXT, approved_by TEXT, approved_at {TIME},
  retyped {FLAG}, changes JSON, settled JSON);
CREATE TABLE IF NOT EXISTS catalog.deletions (
  org TEXT, namespace TEXT, source_uri TEXT, revision INTEGER, deleted_at {TIME},
  deleted_by TEXT, restored_at {TIME});
CREATE TABLE IF NOT EXISTS catalog.exports (
  snapshot_id TEXT, location TEXT, rows INTEGER, bytes INTEGER, exported_at {TIME});
CREATE TABLE IF NOT EXISTS catalog.dropped (snapshot_id TEXT PRIMARY KEY, dropped_at {TIME});
CREATE TABLE IF NOT EXISTS catalog.links (
  link_id TEXT PRIMARY KEY, org TEXT, namespace TEXT, path TEXT, label TEXT, prefix TEXT,
  patterns JSON, recursive {FLAG}, created_at {TIME}, last_scanned_at {TIME}, missing {FLAG}, paused JSON);
CREATE TABLE IF NOT EXISTS catalog.link_files (
  link_id TEXT, rel_path TEXT, source_uri TEXT, size INTEGER, mtime_ns INTEGER, sha256 TEXT,
  state TEXT, error_code TEXT, error_message TEXT, revision INTEGER, ingestion_id TEXT,
  last_ingested_at {TIME}, PRIMARY KEY (link_id, rel_path));
"""

# The tables of the catalog, in the order a home made before this layout is copied over.
TABLES = (
    "uploads",
    "jobs",
    "sources",
    "revisions",
    "datasets",
    "snapshots",
    "typings",
    "approvals",
    "deletions",
    "exports",
    "links",
    "link_files",
)

# Snapshots of fewer than SMALL_CELLS cells are written in blocks of SMALL_BLOCK bytes.
SMALL_CELLS, SMALL_BLOCK = 200_000, 16384

# Files another process may still be writing are left alone this long by a sweep.
ORPHAN_SECONDS = 3600.0


def _read_time(raw: bytes) -> dt.datetime:
    return dt.datetime.fromisoformat(raw.decode())


sqlite3.register_converter(TIME, _read_time)
sqlite3.register_converter(FLAG, lambda raw: raw not in (b"0", b""))


# An exported file's name ends in its snapshot id: `<dataset>.<snapshot_id>.parquet`.
EXPORT_NAME = re.compile(r"(s_[0-9a-f]+)\.parquet(\.partial)?$")


def snapshot_table(snapshot_id: str) -> exp.Table:
    """The snapshot's rows: the table `data` of its own file, attached under its id."""
    return exp.table_("data", db="main", catalog=snapshot_id, quoted=True)


def rejected_table(snapshot_id: str) -> exp.Table:
    """The snapshot's rejected rows (row_id, line, column_name, value, reason), kept beside it in
    its file: a snapshot and its rejected rows are one immutable unit, made and dropped together."""
    return exp.table_("rejected", db="main", catalog=snapshot_id, quoted=True)


class Catalog:
    """A home: the catalog, the snapshot files, and this process's DuckDB that reads them."""

    def __init__(
        self,
        home: str,
        memory_limit: str = "60%",
        wait_seconds: float = 30.0,
        dropped_grace: float = 60.0,
        query_memory_share: float = 0.5,
    ):
        self.memory = home == ":memory:"
        self.home = Path(tempfile.mkdtemp(prefix="tabular-")) if self.memory else Path(home)
        self.home.mkdir(parents=True, exist_ok=True)
        self.uploads_dir = self.home / "uploads"
        self.extractions_dir = self.home / "extractions"
        self.snapshots_dir = self.home / "snapshots"
        self.exports_dir = self.home / "exports"  # made by the first export there
        self.owners_dir = self.home / "owners"
        for folder in (self.uploads_dir, self.extractions_dir, self.snapshots_dir, self.owners_dir):
            folder.mkdir(exist_ok=True)
        self.wait_seconds, self.dropped_grace = wait_seconds, dropped_grace
        # Who this open home is: files it is writing and jobs it runs carry this name, and a lock
        # held on owners/<owner>.lock while it is open tells other processes it is alive.
        self.owner = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        # Locked before it has its name: another process that looks for it finds it locked or not at all.
        forming = self.owners_dir / f".{self.owner}.forming"
        self._owner_file = open(forming, "w")
        fcntl.flock(self._owner_file, fcntl.LOCK_EX)
        os.replace(forming, self.owners_dir / f"{self.owner}.lock")
        self.path = self.home / "catalog.sqlite"
        self._local = threading.local()
        self._conns: weakref.WeakSet = weakref.WeakSet()
        self._conns_lock = threading.Lock()
        self._writer = self._connect()
        self._watch = self._connect()  # never writes: its data_version moves with every commit
        self._watch_lock = threading.Lock()
        self.publish_lock = threading.Lock()
        with self.publish_lock:
            self._writer.execute("PRAGMA catalog.journal_mode = WAL")  # kept by the file from then on
        with self.change() as con:
            for statement in SCHEMA.split(";"):  # (executescript would commit first)
                con.execute(statement)
        # This process's query engine: in memory, reading snapshot files attached on demand.
        self.db = duckdb.connect(":memory:")
        self.temp_dir = self.home / "tmp" / self.owner
        self.db.execute("SET TimeZone = 'UTC'")
        self.db.execute(f"SET temp_directory = {exp.Literal.string(str(self.temp_dir)).sql(dialect='duckdb')}")
        with suppress(duckdb.Error):
            self.db.execute(f"SET memory_limit = '{_memory(memory_limit)}'")
        self.cursors: dict[int, weakref.WeakSet] = {}  # by the thread that made them
        self.cursors_lock = threading.Lock()
        self.attached: set[str] = set()
        self._reads = threading.local()  # per thread, the snapshots it asked for last (see damaged)
        self._attacher = self.db.cursor()
        self._attach_lock = threading.Lock()
        self.schema_cache: dict[tuple, list] = {}
        # Compiled statements by plan shape (ops/query.py): bounded by settings.compiled_cache_entries.
        self.compiled_cache: collections.OrderedDict = collections.OrderedDict()
        self._memory_cursor = self.db.cursor()  # the watchdog's own
        # A query is stopped (413) when DuckDB holds more than this share of its limit: the one
        # that has run longest, so a plan that explodes never fails the others (deadline.py).
        self.watchdog = Watchdog(self._memory_used, int(_bytes(_memory(memory_limit)) * query_memory_share))
        # Query engines beside DuckDB (tabular/clickhouse.py), connected on first use.
        self.backends: dict[str, object] = {}
        _move_home(self)
        self.sweep()

    # -- the catalog (SQLite) ---------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        con = sqlite3.connect(
            ":memory:",
            isolation_level=None,
            check_same_thread=False,
            detect_types=sqlite3.PARSE_DECLTYPES,
            factory=_Connection,
        )
        con.row_factory = sqlite3.Row
        con.execute(f"PRAGMA busy_timeout = {int(self.wait_seconds * 1000)}")
        con.execute("ATTACH DATABASE ? AS catalog", [str(self.path)])
        # Durable across a killed process (every commit is in the WAL); a power cut may lose the
        # last commits, never half of one.
        con.execute("PRAGMA catalog.synchronous = NORMAL")
        with self._conns_lock:
            self._conns.add(con)
        return con

    def conn(self) -> sqlite3.Connection:
        """This thread's connection to the catalog. Each statement outside `change()` is its own
        transaction and sees the latest commit of any process."""
        con = getattr(self._local, "conn", None)
        if con is None:
            con = self._local.conn = self._connect()
        return con

    @contextmanager
    def change(self) -> Iterator[sqlite3.Connection]:
        """One writer at a time, across processes, one transaction: everything done with the
        connection becomes live at once when the block ends, or, if it raises, none of it does.
        Snapshot files are written before it (see `new_snapshot`), so the wait is short."""
        with self.publish_lock:
            con = self._writer
            try:
                con.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as err:
                raise _busy(err) from None
            try:
                yield con
            except BaseException:
                con.execute("ROLLBACK")
                raise
            try:
                con.execute("COMMIT")
            except sqlite3.OperationalError as err:
                with suppress(sqlite3.Error):
                    con.execute("ROLLBACK")
                raise _busy(err) from None

    @property
    def generation(self) -> int:
        """Moves with every catalog commit of any process: readers cache schemas per generation."""
        with self._watch_lock:
            return self._watch.execute("PRAGMA catalog.data_version").fetchone()[0]

    # -- the snapshots (DuckDB) -------------------------------------------------------------

    def reader(self) -> duckdb.DuckDBPyConnection:
        """This thread's own cursor for queries, made once (a new one costs a connection setup)."""
        cur = getattr(self._local, "reader", None)
        if cur is None:
            cur = self._local.reader = self.cursor()
        return cur

    def cursor(self) -> duckdb.DuckDBPyConnection:
        cur = self.db.cursor()
        cur.execute("SET TimeZone = 'UTC'")
        with self.cursors_lock:
            if len(self.cursors) > 256:  # threads that ended leave empty sets
                self.cursors = {ident: made for ident, made in self.cursors.items() if len(made)}
            self.cursors.setdefault(threading.get_ident(), weakref.WeakSet()).add(cur)
        return cur

    def snapshot_path(self, snapshot_id: str) -> Path:
        return self.snapshots_dir / f"{snapshot_id}.duckdb"

    def _part_path(self, snapshot_id: str) -> Path:
        return self.snapshots_dir / f"{snapshot_id}.{self.owner}.part"

    def attach(self, snapshot_ids: Iterable[str]) -> None:
        """Make these snapshots readable by this process's cursors (each file attached READ_ONLY
        under its id, once). One no longer on disk was dropped since it was read: 409; one that
        is no readable DuckDB file is STORAGE_DAMAGED, naming it."""
        wanted = list(snapshot_ids)
        recent = getattr(self._reads, "ids", [])
        self._reads.ids = (wanted + [s for s in recent if s not in wanted])[:RECENT_READS]
        missing = [s for s in wanted if s not in self.attached]
        if not missing:
            return
        with self._attach_lock:
            for snapshot_id in missing:
                if snapshot_id in self.attached:
                    continue
                path = self.snapshot_path(snapshot_id)
                if not path.exists():
                    raise PreconditionFailed(f"snapshot {snapshot_id!r} no longer serves: read again")
                try:
                    self._attacher.execute(f"ATTACH IF NOT EXISTS {_literal(path)} AS {_name(snapshot_id)} (READ_ONLY)")
                except duckdb.Error as err:
                    if not looks_damaged(err):
                        raise
                    raise self._damage(snapshot_id, err) from None
                self.attached.add(snapshot_id)

    def damaged(
        self, err: BaseException, org: str, namespace: str, snapshot_ids: Iterable[str] = ()
    ) -> StorageDamaged | None:
        """STORAGE_DAMAGED naming the snapshot file behind a DuckDB error, when the error is one
        of a damaged file and the file is one of the caller's snapshots: the one the error names,
        else the first of `snapshot_ids` and those this thread attached last that fails a read of
        every row (DuckDB's checksum errors name no file). None for any other error."""
        if not isinstance(err, (duckdb.Error, OSError)) or not looks_damaged(err):
            return None
        named = re.findall(re.escape(str(self.snapshots_dir)) + r"[/\\]([A-Za-z0-9_]+)\.duckdb", str(err))
        seen: set[str] = set()
        for snapshot_id in [*named, *snapshot_ids, *getattr(self._reads, "ids", [])]:
            if snapshot_id in seen:
                continue
            seen.add(snapshot_id)
            owner = (
                self.conn()
                .execute("SELECT org, namespace FROM catalog.snapshots WHERE snapshot_id = ?", [snapshot_id])
                .fetchone()
            )
            if owner is None or tuple(owner) != (org, namespace):
                continue  # another namespace's file is never named to this caller
            if snapshot_id in named or self._unreadable(snapshot_id):
                return self._damage(snapshot_id, err)
        return None

    def checked(self, reader, receipt, org: str, namespace: str):
        """A whole result's record batches with a damaged snapshot met on the way raised as
        STORAGE_DAMAGED; its first batch is read now, so that a stream over a damaged file is
        refused before an answer starts (a query_export's status is sent with its first byte)."""
        import pyarrow as pa

        ids = [d.snapshot_id for d in receipt.datasets]

        def batches(first: list):
            yield from first
            try:
                yield from reader
            except (duckdb.Error, OSError) as err:  # through Arrow's stream DuckDB's errors are OSErrors
                raise self.damaged(err, org, namespace, ids) or err from None

        try:
            first = [reader.read_next_batch()]
        except StopIteration:
            first = []
        except (duckdb.Error, OSError) as err:
            raise self.damaged(err, org, namespace, ids) or err from None
        return pa.RecordBatchReader.from_batches(reader.schema, batches(first))

    def _unreadable(self, snapshot_id: str) -> bool:
        """Whether reading every row of the snapshot's file (apart from this process's attached
        copy) fails as a damaged file does."""
        scratch = duckdb.connect(":memory:")
        try:
            scratch.execute(f"ATTACH {_literal(self.snapshot_path(snapshot_id))} AS snap (READ_ONLY)")
            for table in ("data", "rejected"):
                # Every value fetched (an aggregate over them may be answered without some blocks).
                for _ in scratch.sql(f"SELECT * FROM snap.main.{table}").to_arrow_reader(VERIFY_ROWS):
                    pass
        except (duckdb.Error, OSError) as err:  # an Arrow stream says DuckDB's error as an OSError
            return looks_damaged(err)
        finally:
            scratch.close()
        return False

    def _damage(self, snapshot_id: str, err: BaseException) -> StorageDamaged:
        """The error that names a damaged snapshot file, relative to the home, and its dataset."""
        rel = self.snapshot_path(snapshot_id).relative_to(self.home).as_posix()
        row = (
            self.conn()
            .execute(
                "SELECT source_uri, dataset_id, revision FROM catalog.snapshots WHERE snapshot_id = ?", [snapshot_id]
            )
            .fetchone()
        )
        what = f" (dataset {row[1]!r} of {row[0]!r}, revision {row[2]})" if row else ""
        said = str(err).splitlines()[0].replace(str(self.home) + os.sep, "") if str(err) else type(err).__name__
        return StorageDamaged(
            f"the snapshot file {rel}{what} is damaged and cannot be read ({said}); the home's other "
            "datasets keep serving; ingest the source again to write a new snapshot, or restore the file",
            rel,
        )

    def new_snapshot(self, snapshot_id: str, cells: int | None) -> None:
        """Attach a new snapshot's file for writing: `snapshot_table(id)` and `rejected_table(id)`
        are then created by any cursor of this process, and `seal` finishes it. Its `cells` (rows
        × columns; None when not known before the writing) pick the block size: DuckDB's default 256 KiB blocks make even a
        three-row snapshot a 270 KB file, 16 KiB ones a 28 KB file, but compress a large table
        several times worse."""
        blocks = f" (BLOCK_SIZE {SMALL_BLOCK})" if cells is not None and cells < SMALL_CELLS else ""
        with self._attach_lock:
            self._attacher.execute(f"ATTACH {_literal(self._part_path(snapshot_id))} AS {_name(snapshot_id)}{blocks}")

    def _sealed_path(self, snapshot_id: str) -> Path:
        return self.snapshots_dir / f"{snapshot_id}.{self.owner}.sealed"

    def seal(self, snapshot_id: str) -> None:
        """Close a new snapshot's file, fsync it and give it its final name; from then on it is
        only read. Not yet live: the catalog commit that names it makes it so, and until then an
        empty `<id>.<owner>.sealed` beside it says whose it is (see `sweep`; `settled` removes it)."""
        part = self._part_path(snapshot_id)
        # Its own cursor, outside the attach lock: the checkpoint of a large snapshot takes a
        # while, and readers attaching other snapshots meanwhile need not wait for it.
        detaching = self.db.cursor()
        try:
            detaching.execute(f"DETACH {_name(snapshot_id)}")  # checkpoints: every row in the file
        finally:
            detaching.close()
        _fsync(part)
        self._sealed_path(snapshot_id).touch()
        os.replace(part, self.snapshot_path(snapshot_id))
        _fsync(self.snapshots_dir)

    def settled(self, snapshot_ids: Iterable[str]) -> None:
        """After the commit that named them: the files are the catalog's now."""
        for snapshot_id in snapshot_ids:
            self._sealed_path(snapshot_id).unlink(missing_ok=True)

    def discard(self, snapshot_id: str) -> None:
        """Undo `new_snapshot` (and `seal`) of a snapshot no commit named."""
        with self._attach_lock:
            with suppress(duckdb.Error):
                self._attacher.execute(f"DETACH DATABASE IF EXISTS {_name(snapshot_id)}")
            self.attached.discard(snapshot_id)
        for path in (self._part_path(snapshot_id), self.snapshot_path(snapshot_id)):
            path.unlink(missing_ok=True)
            Path(f"{path}.wal").unlink(missing_ok=True)
        self._sealed_path(snapshot_id).unlink(missing_ok=True)  # last: see sweep

    def _memory_used(self) -> int:
        """What running statements hold: hash tables, sorts, materialized rows. Not the cached
        blocks of snapshot files (BASE_TABLE, METADATA), which DuckDB lets go when it must."""
        return int(
            self._memory_cursor.execute(
                "SELECT sum(memory_usage_bytes) FROM duckdb_memory() WHERE tag IN ('HASH_TABLE', 'ORDER_BY', 'COLUMN_DATA', 'OVERFLOW_STRINGS', 'ALLOCATOR')"
            ).fetchall()[0][0]
            or 0
        )

    def interrupt(self, thread: int | None = None) -> None:
        """Interrupt whatever the open cursors run: every one (closing the engine), or those one
        thread made (a job cancelled or out of time)."""
        with self.cursors_lock:  # other threads open cursors meanwhile
            cursors = [cur for ident, made in self.cursors.items() if thread in (None, ident) for cur in list(made)]
        for cur in cursors:
            with suppress(duckdb.Error):
                cur.interrupt()

    # -- upkeep -----------------------------------------------------------------------------

    def alive(self, owner: str | None) -> bool:
        """Whether the open home `owner` (a process, see `self.owner`) still runs."""
        if not owner:
            return False
        if owner == self.owner:
            return True
        path = self.owners_dir / f"{owner}.lock"
        try:
            with open(path, "a") as handle:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except FileNotFoundError:
            return False
        except OSError:
            return True  # its owner holds the lock
        path.unlink(missing_ok=True)  # ours now, and its owner is gone
        return False

    def sweep(self) -> None:
        """Remove what an interrupted process left and what retention let go: snapshot files no
        commit named, extraction folders nobody names, (in the default exports folder) Parquet
        files nobody recorded, and dropped snapshots' files past their grace. What another live
        process may still be writing is left alone."""
        con = self.conn()
        # The snapshot files are listed before the catalog is read: a file whose `.sealed` mark
        # was already gone at the listing was named by a commit the reading then sees.
        listed = list(self.snapshots_dir.iterdir())
        for lock in self.owners_dir.glob("*.lock"):
            self.alive(lock.stem)  # a dead owner's lock file is removed
        old = time.time() - ORPHAN_SECONDS
        live, dropped, exported, named = named_files(con)
        for file in self.exports_dir.rglob("*.parquet*") if self.exports_dir.is_dir() else ():
            # Unrecorded: a dropped snapshot's file goes; one of a kept snapshot may be an export
            # another process is finishing, so only an old one goes. The snapshot id ends the name.
            owner = EXPORT_NAME.search(file.name)
            if str(file) not in exported and (owner is None or owner.group(1) not in live or _mtime(file) < old):
                file.unlink(missing_ok=True)
        for folder in self.extractions_dir.iterdir():
            if folder.name not in named and self._orphan(folder, old):
                shutil.rmtree(folder, ignore_errors=True)
        for folder in (self.home / "tmp").glob("*"):
            if not self.alive(folder.name):
                shutil.rmtree(folder, ignore_errors=True)
        for part in self.uploads_dir.glob("*.part"):
            if self._orphan(part, old):
                part.unlink(missing_ok=True)
        marks = {f.name.split(".")[0]: f for f in listed if f.suffix == ".sealed"}
        for file in listed:
            snapshot_id = file.name.split(".")[0]
            if file.suffix in (".part", ".wal"):
                if self._orphan(file, old):
                    file.unlink(missing_ok=True)
            elif file.suffix == ".duckdb" and snapshot_id not in live and snapshot_id not in dropped:
                mark = marks.get(snapshot_id) or next(self.snapshots_dir.glob(f"{snapshot_id}.*.sealed"), None)
                if mark is None and _one(con, "SELECT 1 FROM catalog.snapshots WHERE snapshot_id = ?", [snapshot_id]):
                    continue  # committed since the catalog was read (a listing may miss a mark made meanwhile)
                if mark is None or self._orphan(mark, old):
                    file.unlink(missing_ok=True)  # sealed, then its commit never came
                    if mark is not None:
                        mark.unlink(missing_ok=True)
            elif file.suffix == ".sealed" and (snapshot_id in live or self._orphan(file, old)):
                file.unlink(missing_ok=True)
        self.collect()

    def collect(self) -> None:
        """Delete the files of snapshots retention dropped more than `dropped_grace` ago (a reader
        that resolved one just before its drop still finds it meanwhile)."""
        con = self.conn()
        for snapshot_id in dropped_before(con, now() - dt.timedelta(seconds=self.dropped_grace)):
            self._detach(snapshot_id)
            self.snapshot_path(snapshot_id).unlink(missing_ok=True)
            forget_dropped(con, snapshot_id)

    def _detach(self, snapshot_id: str) -> None:
        """Let go of a snapshot this process read (a statement still on it keeps it: then later)."""
        with self._attach_lock:
            if snapshot_id in self.attached:
                try:
                    self._attacher.execute(f"DETACH DATABASE IF EXISTS {_name(snapshot_id)}")
                    self.attached.discard(snapshot_id)
                except duckdb.Error:
                    pass

    def expire_uploads(self, seconds: float) -> int:
        """Delete uploads no ingest named within `seconds` of being made; answers how many."""
        con = self.conn()
        gone = unused_uploads(con, now() - dt.timedelta(seconds=seconds))
        for upload_id, path in gone:
            forget_upload(con, upload_id)  # first: a file without its row is swept, a row without its file is not
            Path(path).unlink(missing_ok=True)
        return len(gone)

    def _orphan(self, path: Path, old: float) -> bool:
        """A part file or folder named `<id>.<owner>…` whose owner is gone (or, without an owner
        in its name, one older than ORPHAN_SECONDS)."""
        parts = path.name.split(".")
        owner = parts[1] if len(parts) > 1 and "-" in parts[1] else None
        return not self.alive(owner) if owner else _mtime(path) < old

    def close(self) -> None:
        """Close this process's connections and release the home (its owner lock)."""
        self.watchdog.close()
        with suppress(duckdb.Error):
            self.db.close()
        with self._conns_lock:
            conns = list(self._conns)
        for con in conns:
            with suppress(sqlite3.Error):
                con.close()
        shutil.rmtree(self.temp_dir, ignore_errors=True)
        with suppress(OSError):
            (self.owners_dir / f"{self.owner}.lock").unlink(missing_ok=True)
            self._owner_file.close()
        if self.memory:
            shutil.rmtree(self.home, ignore_errors=True)


class _Connection(sqlite3.Connection):
    """A connection that can be weakly referenced (closed with the catalog, if its thread has not ended)."""


def _busy(err: sqlite3.OperationalError) -> Exception:
    if "locked" in str(err) or "busy" in str(err):
        return Overloaded("the catalog is busy with another process's write; try again shortly", retry_after=2)
    return err


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return time.time()


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# Snapshots a thread remembers having asked for, newest first: where to look when DuckDB's
# error about a damaged block names no file.
RECENT_READS = 16
VERIFY_ROWS = 65_536  # rows fetched at a time when a snapshot file is read through to check it
# DuckDB's words for a file that is not the database it should be: cut short, overwritten, or
# no DuckDB file at all.
_DAMAGED = re.compile(
    r"Corrupt database file|checksum|Could not read enough bytes|not a valid DuckDB database file"
    r"|Failed to deserialize|Serialization Error|file is too small",
    re.I,
)


def looks_damaged(err: BaseException) -> bool:
    """Whether a DuckDB error is one a damaged database file gives."""
    return isinstance(err, (duckdb.SerializationException)) or bool(_DAMAGED.search(str(err)))


def _literal(path: Path) -> str:
    return exp.Literal.string(str(path)).sql(dialect="duckdb")


def _name(snapshot_id: str) -> str:
    return exp.to_identifier(snapshot_id, quoted=True).sql(dialect="duckdb")


def _move_home(catalog: Catalog) -> None:
    """A home made before the catalog moved to SQLite (one `tabular.duckdb` holding the catalog
    and every snapshot): copy it into this layout once, then rename the old file aside."""
    old = catalog.home / "tabular.duckdb"
    if not old.exists():
        return
    cur = catalog.cursor()
    try:
        cur.execute(f"ATTACH {_literal(old)} AS __old (READ_ONLY)")
    except duckdb.IOException as err:
        raise Overloaded(
            f"the home {str(catalog.home)!r} is open in an older tabular process ({str(err).splitlines()[0]}); close it there",
            retry_after=2,
        ) from None
    made = []
    try:
        with catalog.change() as con:
            if _one(con, "SELECT count(*) FROM catalog.sources", [])[0]:
                # Moved already (the process that moved it stopped before the rename below, or
                # another process moved it first): only the rename is left.
                raise _Moved()
            for table in TABLES:
                columns = [
                    r[0]
                    for r in cur.execute(
                        "SELECT column_name FROM duckdb_columns() WHERE database_name = '__old' AND schema_name = 'catalog' AND table_name = ?"
                        " ORDER BY column_index",
                        [table],
                    ).fetchall()
                ]
                for row in cur.execute(f'SELECT * FROM __old.catalog."{table}"').fetchall() if columns else ():
                    insert(con, table, **dict(zip(columns, row)))
            for (snapshot_id,) in cur.execute("SELECT snapshot_id FROM __old.catalog.snapshots").fetchall():
                catalog.new_snapshot(snapshot_id, None)
                made.append(snapshot_id)
                for table, legacy in (
                    (snapshot_table(snapshot_id), snapshot_id),
                    (rejected_table(snapshot_id), snapshot_id + ".rejected"),
                ):
                    source = exp.table_(legacy, db="snapshots", catalog="__old", quoted=True).sql(dialect="duckdb")
                    if (
                        table.name == "rejected"
                        and not cur.execute(
                            "SELECT 1 FROM duckdb_tables() WHERE database_name = '__old' AND schema_name = 'snapshots' AND table_name = ?",
                            [legacy],
                        ).fetchall()
                    ):
                        source = "(SELECT NULL::BIGINT AS row_id, NULL::BIGINT AS line, NULL AS column_name, NULL AS value, NULL AS reason LIMIT 0)"
                    cur.execute(f"CREATE TABLE {table.sql(dialect='duckdb')} AS SELECT * FROM {source}")
                catalog.seal(snapshot_id)
    except _Moved:
        pass
    except BaseException:
        for snapshot_id in made:
            catalog.discard(snapshot_id)
        raise
    finally:
        cur.execute("DETACH DATABASE IF EXISTS __old")
    with suppress(FileNotFoundError):  # another process renamed it first
        old.rename(old.with_name("tabular.duckdb.moved"))


class _Moved(Exception):
    """The old home's rows are in the catalog already."""


def _table(table: str) -> exp.Table:
    return exp.table_(exp.to_identifier(table, quoted=True), db="catalog")


def _where(key: dict) -> exp.Expression:
    """Every column of `key` equal to its value (bound), or NULL where the value is None."""
    return exp.and_(
        *[
            exp.Is(this=exp.column(k, quoted=True), expression=exp.null())
            if v is None
            else exp.EQ(this=exp.column(k, quoted=True), expression=exp.Placeholder())
            for k, v in key.items()
        ]
    )


def insert(cur, table: str, **values) -> None:
    """One row into catalog.<table>, by column name (columns left out are NULL)."""
    names = [exp.to_identifier(k, quoted=True) for k in values]
    stmt = exp.insert(exp.values([tuple(exp.Placeholder() for _ in values)]), _table(table), columns=names)
    _write(cur, stmt.sql(dialect="sqlite"), [_stored(v) for v in values.values()])


def update(cur, table: str, key: dict, **values) -> None:
    """Set `values` on the catalog.<table> rows matching every column of `key`."""
    stmt = exp.update(
        _table(table), {exp.to_identifier(k, quoted=True): exp.Placeholder() for k in values}, where=_where(key)
    )
    _write(
        cur,
        stmt.sql(dialect="sqlite"),
        [*map(_stored, values.values()), *(_stored(v) for v in key.values() if v is not None)],
    )


def insert_snapshot(
    cur,
    snapshot_id: str,
    dataset: dict,
    built,
    questions: list[dict],
    typings: str,
    created_at: dt.datetime,
    approved_by: str | None = None,
) -> None:
    """A new snapshot's catalog rows, in the caller's transaction: its `snapshots` row, for the
    dataset `dataset` names (org, namespace, source_uri, revision, dataset_id) with the rows,
    rows_rejected and columns of `built` (what cast.build_snapshot answered), and its typings
    (retype.dump). With `approved_by`, it is that person's approval, made at `created_at`."""
    approved = approved_by is not None
    insert(
        cur,
        "snapshots",
        snapshot_id=snapshot_id,
        **dataset,
        rows=built.rows,
        rows_rejected=built.rows_rejected,
        columns=built.columns,
        questions=questions,
        approved=approved,
        approved_at=created_at if approved else None,
        approved_by=approved_by,
        created_at=created_at,
    )
    insert(cur, "typings", snapshot_id=snapshot_id, typings=typings)


def _write(con, sql: str, params: list):
    try:
        return con.execute(sql, params)
    except sqlite3.OperationalError as err:
        raise _busy(err) from None


def _stored(value):
    """Dicts and lists are held as JSON text, times as ISO text in UTC, flags as 0/1."""
    if isinstance(value, (dict, list)):
        return dumps(value)
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).isoformat()
    if isinstance(value, bool):
        return int(value)
    return value


def live_datasets(cur, org: str, namespace: str, source_uri: str) -> list:
    """The datasets of a source's live revision, in the file's order ([] when none is live), each
    with the snapshot it serves: dataset_id, live_snapshot, revision, name, extraction, names,
    headers, extracted (rows), options, then the snapshot's rows, rows_rejected, columns and
    questions, and the revision's state. The one place this join is written."""
    return cur.execute(
        "SELECT d.dataset_id, d.live_snapshot, d.revision, d.name, d.extraction, d.names, d.headers, d.rows AS extracted, d.options,"
        " s.rows, s.rows_rejected, s.columns, s.questions, r.state FROM catalog.sources src"
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


def _bytes(setting: str) -> int:
    """'512MB', '4GB', '2GiB' as bytes (DuckDB's units: KB/MB/GB are powers of 1000, KiB… of 1024)."""
    number, unit = re.fullmatch(r"\s*([0-9.]+)\s*([A-Za-z]*)\s*", setting).groups()
    scale = {
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
    }[unit.upper()]
    return int(float(number) * scale)


def now() -> dt.datetime:
    """The time catalog rows are stamped with (UTC)."""
    return dt.datetime.now(dt.UTC)


def dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


# -- every question asked of the catalog, by name ------------------------------------------
# (Rows are sqlite3.Row: read by position or by column name.)

_SOURCE = "org = ? AND namespace = ? AND source_uri = ?"


def _one(con, sql: str, params: list):
    return con.execute(sql, params).fetchone()


def _all(con, sql: str, params: list) -> list:
    return con.execute(sql, params).fetchall()


def source_row(con, org: str, namespace: str, source_uri: str):
    """The source's row (live_revision, last_revision, title, description, tags, metadata), or None."""
    return _one(
        con,
        f"SELECT live_revision, last_revision, title, description, tags, metadata FROM catalog.sources WHERE {_SOURCE}",
        [org, namespace, source_uri],
    )


def live_source_uris(con, org: str, namespace: str) -> list[str]:
    """The namespace's sources with a live revision."""
    return [
        r[0]
        for r in _all(
            con,
            "SELECT source_uri FROM catalog.sources WHERE org = ? AND namespace = ? AND live_revision IS NOT NULL",
            [org, namespace],
        )
    ]


def source_page(con, org: str, namespace: str, after: str, prefix: str, limit: int) -> list:
    """Sources after `after` whose uri starts with `prefix`, in uri order: (source_uri, title, tags,
    live_revision, ingested_at of the live revision)."""
    return _all(
        con,
        "SELECT s.source_uri, s.title, s.tags, s.live_revision, r.ingested_at FROM catalog.sources s"
        " LEFT JOIN catalog.revisions r ON r.org = s.org AND r.namespace = s.namespace AND r.source_uri = s.source_uri AND r.revision = s.live_revision"
        " WHERE s.org = ? AND s.namespace = ? AND s.source_uri > ? AND substr(s.source_uri, 1, length(?)) = ? ORDER BY s.source_uri LIMIT ?",
        [org, namespace, after, prefix, prefix, limit],
    )


def restorable_revision(con, org: str, namespace: str, source_uri: str) -> int | None:
    """The revision the source's latest unrestored deletion took down, or None."""
    row = _one(
        con,
        f"SELECT revision FROM catalog.deletions WHERE {_SOURCE} AND restored_at IS NULL ORDER BY deleted_at DESC LIMIT 1",
        [org, namespace, source_uri],
    )
    return row[0] if row else None


def approvals(con, org: str, namespace: str, source_uri: str) -> list:
    """Every approval of the source, oldest first."""
    return _all(
        con,
        "SELECT dataset_id, revision, approved_by, approved_at, old_snapshot, new_snapshot, retyped, changes, settled FROM catalog.approvals"
        f" WHERE {_SOURCE} ORDER BY approved_at, revision, dataset_id",
        [org, namespace, source_uri],
    )


def revision_row(con, org: str, namespace: str, source_uri: str, number: int):
    """The revision's row (ingested_at, format, parser, coverage, state, upload_id), or None."""
    return _one(
        con,
        f"SELECT ingested_at, format, parser, coverage, state, upload_id FROM catalog.revisions WHERE {_SOURCE} AND revision = ?",
        [org, namespace, source_uri, number],
    )


def revision_datasets(con, org: str, namespace: str, source_uri: str, number: int, dataset_id: str = "") -> list:
    """The revision's datasets (one when `dataset_id` is given), in the file's order, with the
    snapshot each serves: dataset_id, name, idx, live_snapshot, origin, headers, warnings,
    extracted rows, then the snapshot's rows, rows_rejected, columns, questions, approved,
    approved_at, approved_by."""
    sql = (
        "SELECT d.dataset_id, d.name, d.idx, d.live_snapshot, d.origin, d.headers, d.warnings, d.rows AS extracted,"
        " s.rows, s.rows_rejected, s.columns, s.questions, s.approved, s.approved_at, s.approved_by"
        " FROM catalog.datasets d JOIN catalog.snapshots s ON s.snapshot_id = d.live_snapshot"
        " WHERE d.org = ? AND d.namespace = ? AND d.source_uri = ? AND d.revision = ?"
    )
    params = [org, namespace, source_uri, number]
    if dataset_id:
        sql += " AND d.dataset_id = ?"
        params.append(dataset_id)
    return _all(con, sql + " ORDER BY d.idx", params)


def live_typings(con, org: str, namespace: str, source_uri: str, dataset_id: str):
    """The live snapshot of the dataset: (revision, names, typings, approved_by), or None."""
    return _one(
        con,
        "SELECT d.revision, d.names, t.typings, s.approved_by FROM catalog.sources src"
        " JOIN catalog.datasets d ON d.org = src.org AND d.namespace = src.namespace AND d.source_uri = src.source_uri AND d.revision = src.live_revision"
        " JOIN catalog.snapshots s ON s.snapshot_id = d.live_snapshot JOIN catalog.typings t ON t.snapshot_id = d.live_snapshot"
        " WHERE src.org = ? AND src.namespace = ? AND src.source_uri = ? AND d.dataset_id = ?",
        [org, namespace, source_uri, dataset_id],
    )


def snapshot_typings(con, snapshot_id: str) -> str | None:
    """The snapshot's typings as stored (retype.dump), or None for one published before they were."""
    row = _one(con, "SELECT typings FROM catalog.typings WHERE snapshot_id = ?", [snapshot_id])
    return row[0] if row else None


def extraction_of(con, org: str, namespace: str, source_uri: str, number: int, dataset_id: str):
    """What a dataset is typed again from: (extraction, name, options, rows, the upload's path)."""
    return _one(
        con,
        "SELECT d.extraction, d.name, d.options, d.rows, u.path FROM catalog.datasets d"
        " JOIN catalog.revisions r USING (org, namespace, source_uri, revision) JOIN catalog.uploads u ON u.upload_id = r.upload_id"
        " WHERE d.org = ? AND d.namespace = ? AND d.source_uri = ? AND d.revision = ? AND d.dataset_id = ?",
        [org, namespace, source_uri, number, dataset_id],
    )


def serving_snapshots(con, org: str | None = None, namespace: str | None = None) -> list[str]:
    """Every snapshot that serves a live revision (of one org / namespace when given)."""
    return [
        r[0]
        for r in _all(
            con,
            "SELECT d.live_snapshot FROM catalog.datasets d JOIN catalog.sources s ON s.org = d.org AND s.namespace = d.namespace"
            " AND s.source_uri = d.source_uri AND s.live_revision = d.revision"
            " WHERE (? IS NULL OR d.org = ?) AND (? IS NULL OR d.namespace = ?) ORDER BY d.org, d.namespace, d.source_uri, d.idx",
            [org, org, namespace, namespace],
        )
    ]


def snapshot_owner(con, snapshot_id: str) -> tuple[str, str, str, int, str] | None:
    """(org, namespace, source_uri, revision, dataset_id) of a snapshot, or None."""
    return _one(
        con,
        "SELECT org, namespace, source_uri, revision, dataset_id FROM catalog.snapshots WHERE snapshot_id = ?",
        [snapshot_id],
    )


def snapshots_past(con, org: str, namespace: str, source_uri: str, kept: int) -> list[str]:
    """The source's snapshots past the newest `kept` of each dataset."""
    return [
        r[0]
        for r in _all(
            con,
            "SELECT snapshot_id FROM (SELECT snapshot_id, row_number() OVER (PARTITION BY dataset_id ORDER BY created_at DESC, snapshot_id) AS k"
            f" FROM catalog.snapshots WHERE {_SOURCE}) WHERE k > ?",
            [org, namespace, source_uri, kept],
        )
    ]


def drop_snapshot(con, snapshot_id: str) -> None:
    """Forget a snapshot (its row, typings, export records); its file goes later (Catalog.collect)."""
    for table in ("snapshots", "typings", "exports"):
        _write(con, f"DELETE FROM catalog.{table} WHERE snapshot_id = ?", [snapshot_id])
    insert(con, "dropped", snapshot_id=snapshot_id, dropped_at=now())


def export_of(con, snapshot_id: str, location: str | None = None):
    """The snapshot's latest recorded export (or the one at `location`): (snapshot_id, location, rows, bytes), or None."""
    return _one(
        con,
        "SELECT snapshot_id, location, rows, bytes FROM catalog.exports WHERE snapshot_id = ? AND (? IS NULL OR location = ?)"
        " ORDER BY exported_at DESC LIMIT 1",
        [snapshot_id, location, location],
    )


def upload_row(con, upload_id: str, org: str, namespace: str):
    """The upload's (path, filename) in this namespace, or None."""
    return _one(
        con,
        "SELECT path, filename FROM catalog.uploads WHERE upload_id = ? AND org = ? AND namespace = ?",
        [upload_id, org, namespace],
    )


# -- jobs -------------------------------------------------------------------------------------

JOB_STATUS = (
    "ingestion_id",
    "source_uri",
    "state",
    "stage",
    "attempts",
    "error_code",
    "error_message",
    "format",
    "coverage",
    "warnings",
    "revision",
    "expected_revision",
    "filename",
    "progress",
    "cancel_requested",
    "created_at",
    "updated_at",
)


def job_status(con, ingestion_id: str, org: str, namespace: str) -> dict | None:
    """The job's JOB_STATUS columns by name, or None when the namespace has no such job."""
    row = _one(
        con,
        f"SELECT {', '.join(JOB_STATUS)} FROM catalog.jobs WHERE ingestion_id = ? AND org = ? AND namespace = ?",
        [ingestion_id, org, namespace],
    )
    return dict(zip(JOB_STATUS, row)) if row else None


def job_by_key(con, org: str, namespace: str, idempotency_key: str):
    """The job an idempotency key started: (ingestion_id, state, request), or None."""
    return _one(
        con,
        "SELECT ingestion_id, state, request FROM catalog.jobs WHERE org = ? AND namespace = ? AND idempotency_key = ?",
        [org, namespace, idempotency_key],
    )


def job_state(con, ingestion_id: str, org: str, namespace: str) -> str | None:
    row = _one(
        con,
        "SELECT state FROM catalog.jobs WHERE ingestion_id = ? AND org = ? AND namespace = ?",
        [ingestion_id, org, namespace],
    )
    return row[0] if row else None


def job_to_run(con, ingestion_id: str):
    """What a worker needs: (org, namespace, source_uri, request, state, upload path, filename, upload_id, attempts)."""
    return _one(
        con,
        "SELECT j.org, j.namespace, j.source_uri, j.request, j.state, u.path, u.filename, j.upload_id, j.attempts"
        " FROM catalog.jobs j JOIN catalog.uploads u USING (upload_id) WHERE ingestion_id = ?",
        [ingestion_id],
    )


def cancel_requested(con, ingestion_id: str) -> bool:
    row = _one(con, "SELECT cancel_requested FROM catalog.jobs WHERE ingestion_id = ?", [ingestion_id])
    return bool(row and row[0])


def unfinished_jobs(con) -> list:
    """Jobs pending or processing, oldest first: (ingestion_id, state, attempts, cancel_requested, org)."""
    return _all(
        con,
        "SELECT ingestion_id, state, attempts, cancel_requested, org FROM catalog.jobs WHERE state IN ('pending', 'processing') ORDER BY created_at",
        [],
    )


def job_owner(con, ingestion_id: str) -> tuple[bool, str | None]:
    """(whether the job exists, the open home that owns it)."""
    row = _one(con, "SELECT owner FROM catalog.jobs WHERE ingestion_id = ?", [ingestion_id])
    return (row is not None, row[0] if row else None)


def take_job(con, ingestion_id: str, owner: str, was: str | None) -> bool:
    """Make the job `owner`'s if it still belongs to `was` (of two takers at once, one wins)."""
    return (
        _write(
            con, "UPDATE catalog.jobs SET owner = ? WHERE ingestion_id = ? AND owner IS ?", [owner, ingestion_id, was]
        ).rowcount
        == 1
    )


def cancel_pending(con, ingestion_id: str) -> bool:
    """Cancel the job if it is still pending (a worker of any process may claim it meanwhile)."""
    return (
        _write(
            con,
            "UPDATE catalog.jobs SET state = 'cancelled', cancel_requested = 1, updated_at = ? WHERE ingestion_id = ? AND state = 'pending'",
            [now().isoformat(), ingestion_id],
        ).rowcount
        == 1
    )


def claim_job(con, ingestion_id: str, owner: str) -> bool:
    """Start the owner's pending job (pending → processing, one more attempt); False when it is
    no longer pending or no longer the owner's."""
    return (
        _write(
            con,
            "UPDATE catalog.jobs SET state = 'processing', stage = 'parse', attempts = attempts + 1, updated_at = ?"
            " WHERE ingestion_id = ? AND state = 'pending' AND owner = ?",
            [now().isoformat(), ingestion_id, owner],
        ).rowcount
        == 1
    )


# -- upkeep -------------------------------------------------------------------------------------


def named_files(con) -> tuple[set[str], set[str], set[str], set[str]]:
    """What the catalog names on disk: (snapshot ids, dropped snapshot ids, export locations, extraction folders)."""
    return (
        {r[0] for r in _all(con, "SELECT snapshot_id FROM catalog.snapshots", [])},
        {r[0] for r in _all(con, "SELECT snapshot_id FROM catalog.dropped", [])},
        {r[0] for r in _all(con, "SELECT location FROM catalog.exports", [])},
        {r[0] for r in _all(con, "SELECT extraction_dir FROM catalog.revisions", [])},
    )


def stored_bytes(con, org: str) -> int:
    """The bytes of the org's uploads kept (what org_storage_bytes counts)."""
    return int(_one(con, "SELECT coalesce(sum(bytes), 0) FROM catalog.uploads WHERE org = ?", [org])[0])


def unused_uploads(con, before: dt.datetime) -> list:
    """Uploads made before `before` that no ingest names: (upload_id, path)."""
    return _all(
        con,
        "SELECT u.upload_id, u.path FROM catalog.uploads u WHERE u.created_at < ?"
        " AND NOT EXISTS (SELECT 1 FROM catalog.jobs j WHERE j.upload_id = u.upload_id)",
        [_stored(before)],
    )


def forget_upload(con, upload_id: str) -> None:
    _write(con, "DELETE FROM catalog.uploads WHERE upload_id = ?", [upload_id])


def upload_ids(con) -> set[str]:
    """Every upload the catalog names (ingest.uploads.sweep_uploads removes the files it does not)."""
    return {row[0] for row in _all(con, "SELECT upload_id FROM catalog.uploads", [])}


def dropped_before(con, when: dt.datetime) -> list[str]:
    return [r[0] for r in _all(con, "SELECT snapshot_id FROM catalog.dropped WHERE dropped_at < ?", [_stored(when)])]


def forget_dropped(con, snapshot_id: str) -> None:
    _write(con, "DELETE FROM catalog.dropped WHERE snapshot_id = ?", [snapshot_id])


# -- linked folders (links.py) ---------------------------------------------------------------

LINK = "link_id, org, namespace, path, label, prefix, patterns, recursive, created_at, last_scanned_at, missing, paused"
LINK_FILE = "link_id, rel_path, source_uri, size, mtime_ns, sha256, state, error_code, error_message, revision, ingestion_id, last_ingested_at"


def link_row(con, link_id: str):
    return _one(con, f"SELECT {LINK} FROM catalog.links WHERE link_id = ?", [link_id])


def links_of(con, org: str | None = None, namespace: str | None = None) -> list:
    """The links of a namespace (every link when org is None), oldest first."""
    return _all(
        con,
        f"SELECT {LINK} FROM catalog.links WHERE (? IS NULL OR org = ?) AND (? IS NULL OR namespace = ?) ORDER BY created_at, link_id",
        [org, org, namespace, namespace],
    )


def link_files(con, link_id: str, state: str | None = None) -> list:
    return _all(
        con,
        f"SELECT {LINK_FILE} FROM catalog.link_files WHERE link_id = ? AND (? IS NULL OR state = ?) ORDER BY rel_path",
        [link_id, state, state],
    )


def forget_link(con, link_id: str) -> None:
    for table in ("link_files", "links"):
        _write(con, f"DELETE FROM catalog.{table} WHERE link_id = ?", [link_id])


def forget_link_file(con, link_id: str, rel_path: str) -> None:
    _write(con, "DELETE FROM catalog.link_files WHERE link_id = ? AND rel_path = ?", [link_id, rel_path])
