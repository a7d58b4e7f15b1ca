"""The snapshot files of a home: each snapshot its own DuckDB file, `snapshots/<id>.duckdb`,
written once (as `<id>.<owner>.part`, then fsynced and renamed) before the catalog commit that
makes it live, and from then on only attached READ_ONLY, under its id, by whichever process
reads it. Its rows are the table `"<id>".main.data`, its rejected rows `"<id>".main.rejected`.
A file that is no readable DuckDB file is STORAGE_DAMAGED, naming it (damage.py)."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable, Iterator
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from ..errors import PreconditionFailed, StorageDamaged
from . import sql
from .catalog import snapshot_owner
from .connections import Connections
from .damage import RECENT_READS, damage, looks_damaged, unreadable
from .rows import CatalogRows

if TYPE_CHECKING:
    import pyarrow as pa

# Snapshots of fewer than SMALL_CELLS cells are written in blocks of SMALL_BLOCK bytes.
SMALL_CELLS, SMALL_BLOCK = 200_000, 16384


class SnapshotFiles:
    """Where each snapshot's file is, and its life: new, sealed, settled (or discarded),
    attached for reading, detached when retention lets it go."""

    def __init__(self, home: Path, owner: str, connections: Connections, rows: CatalogRows) -> None:
        self.home, self.owner = home, owner
        self.folder = home / "snapshots"
        self.folder.mkdir(exist_ok=True)
        self._connections, self._rows = connections, rows
        self.attached: set[str] = set()
        self._reads = threading.local()  # per thread, the snapshots it asked for last (see damaged)
        self._attacher = connections.db.cursor()
        self._attach_lock = threading.Lock()

    def path(self, snapshot_id: str) -> Path:
        return self.folder / f"{snapshot_id}.duckdb"

    def _part(self, snapshot_id: str) -> Path:
        return self.folder / f"{snapshot_id}.{self.owner}.part"

    def _sealed(self, snapshot_id: str) -> Path:
        return self.folder / f"{snapshot_id}.{self.owner}.sealed"

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
                path = self.path(snapshot_id)
                if not path.exists():
                    raise PreconditionFailed(f"snapshot {snapshot_id!r} no longer serves: read again")
                try:
                    self._attacher.execute(sql.attach(path, snapshot_id, read_only=True))
                except duckdb.Error as err:
                    if not looks_damaged(err):
                        raise
                    raise self._damage(snapshot_id, err) from None
                self.attached.add(snapshot_id)

    def new(self, snapshot_id: str, cells: int | None) -> None:
        """Attach a new snapshot's file for writing: `snapshot_table(id)` and `rejected_table(id)`
        are then created by any cursor of this process, and `seal` finishes it. Its `cells` (rows
        × columns; None when not known before the writing) pick the block size: DuckDB's default
        256 KiB blocks make even a three-row snapshot a 270 KB file, 16 KiB ones a 28 KB file,
        but compress a large table several times worse."""
        blocks = SMALL_BLOCK if cells is not None and cells < SMALL_CELLS else None
        with self._attach_lock:
            self._attacher.execute(sql.attach(self._part(snapshot_id), snapshot_id, block_size=blocks))

    def seal(self, snapshot_id: str) -> None:
        """Close a new snapshot's file, fsync it and give it its final name; from then on it is
        only read. Not yet live: the catalog commit that names it makes it so, and until then an
        empty `<id>.<owner>.sealed` beside it says whose it is (see `sweep`; `settled` removes it)."""
        part = self._part(snapshot_id)
        # Its own cursor, outside the attach lock: the checkpoint of a large snapshot takes a
        # while, and readers attaching other snapshots meanwhile need not wait for it.
        detaching = self._connections.db.cursor()
        try:
            detaching.execute(sql.detach(snapshot_id, exists=False))  # checkpoints: every row in the file
        finally:
            detaching.close()
        _fsync(part)
        self._sealed(snapshot_id).touch()
        os.replace(part, self.path(snapshot_id))
        _fsync(self.folder)

    def settled(self, snapshot_ids: Iterable[str]) -> None:
        """After the commit that named them: the files are the catalog's now."""
        for snapshot_id in snapshot_ids:
            self._sealed(snapshot_id).unlink(missing_ok=True)

    def discard(self, snapshot_id: str) -> None:
        """Undo `new` (and `seal`) of a snapshot no commit named."""
        with self._attach_lock:
            with suppress(duckdb.Error):
                self._attacher.execute(sql.detach(snapshot_id))
            self.attached.discard(snapshot_id)
        for path in (self._part(snapshot_id), self.path(snapshot_id)):
            path.unlink(missing_ok=True)
            Path(f"{path}.wal").unlink(missing_ok=True)
        self._sealed(snapshot_id).unlink(missing_ok=True)  # last: see sweep

    def detach(self, snapshot_id: str) -> None:
        """Let go of a snapshot this process read (a statement still on it keeps it: then later)."""
        with self._attach_lock:
            if snapshot_id in self.attached:
                try:
                    self._attacher.execute(sql.detach(snapshot_id))
                    self.attached.discard(snapshot_id)
                except duckdb.Error:
                    pass

    def damaged(
        self, err: BaseException, org: str, namespace: str, snapshot_ids: Iterable[str] = ()
    ) -> StorageDamaged | None:
        """STORAGE_DAMAGED naming the snapshot file behind a DuckDB error, when the error is one
        of a damaged file and the file is one of the caller's snapshots: the one the error names,
        else the first of `snapshot_ids` and those this thread attached last that fails a read of
        every row (DuckDB's checksum errors name no file). None for any other error."""
        if not isinstance(err, (duckdb.Error, OSError)) or not looks_damaged(err):
            return None
        named = re.findall(re.escape(str(self.folder)) + r"[/\\]([A-Za-z0-9_]+)\.duckdb", str(err))
        seen: set[str] = set()
        for snapshot_id in [*named, *snapshot_ids, *getattr(self._reads, "ids", [])]:
            if snapshot_id in seen:
                continue
            seen.add(snapshot_id)
            owner = snapshot_owner(self._rows.conn(), snapshot_id)
            if owner is None or (owner[0], owner[1]) != (org, namespace):
                continue  # another namespace's file is never named to this caller
            if snapshot_id in named or unreadable(self.path(snapshot_id)):
                return self._damage(snapshot_id, err)
        return None

    def checked(self, reader: pa.RecordBatchReader, snapshot_ids: list[str], org: str, namespace: str) -> Any:
        """A whole result's record batches with a damaged snapshot met on the way raised as
        STORAGE_DAMAGED; its first batch is read now, so that a stream over a damaged file is
        refused before an answer starts (a query_export's status is sent with its first byte)."""
        import pyarrow as pa  # only a whole result needs it, and the CLI starts faster without

        def batches(first: list[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            yield from first
            try:
                yield from reader
            except (duckdb.Error, OSError) as err:  # through Arrow's stream DuckDB's errors are OSErrors
                raise self.damaged(err, org, namespace, snapshot_ids) or err from None

        try:
            first = [reader.read_next_batch()]
        except StopIteration:
            first = []
        except (duckdb.Error, OSError) as err:
            raise self.damaged(err, org, namespace, snapshot_ids) or err from None
        return pa.RecordBatchReader.from_batches(reader.schema, batches(first))

    def _damage(self, snapshot_id: str, err: BaseException) -> StorageDamaged:
        return damage(self._rows.conn(), self.home, self.path(snapshot_id), snapshot_id, err)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
