"""A home: the catalog and the snapshots, shared by any number of processes.

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
files a plan reads on first use. The catalog's SQL itself is store/catalog.py's, by named
operations; this module holds the connections, the snapshot files, the owners and the sweep.
"""

from __future__ import annotations

import datetime as dt
import fcntl
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
from ..errors import PreconditionFailed, StorageDamaged
from .catalog import (
    SCHEMA,
    dropped_before,
    forget_dropped,
    forget_upload,
    named_files,
    now,
    snapshot_known,
    unused_uploads,
)
from .faults import busy
from .migrate import move_old_home

# Snapshots of fewer than SMALL_CELLS cells are written in blocks of SMALL_BLOCK bytes.
SMALL_CELLS, SMALL_BLOCK = 200_000, 16384

# Files another process may still be writing are left alone this long by a sweep.
ORPHAN_SECONDS = 3600.0


# An exported file's name ends in its snapshot id: `<dataset>.<snapshot_id>.parquet`.
EXPORT_NAME = re.compile(r"(s_[0-9a-f]+)\.parquet(\.partial)?$")


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
        # DuckDB makes the last folder itself when it first spills, not the ones above it.
        self.temp_dir.parent.mkdir(parents=True, exist_ok=True)
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
        self._memory_cursor = self.db.cursor()  # the watchdog's own
        # A query is stopped (413) when DuckDB holds more than this share of its limit: the one
        # that has run longest, so a plan that explodes never fails the others (deadline.py).
        self.watchdog = Watchdog(self._memory_used, int(_bytes(_memory(memory_limit)) * query_memory_share))
        # Query engines beside DuckDB (tabular/clickhouse.py), connected on first use.
        self.backends: dict[str, object] = {}
        move_old_home(self)
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
                raise busy(err) from None
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
                raise busy(err) from None

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
                if mark is None and snapshot_known(con, snapshot_id):
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
