"""Upkeep of a home: what an interrupted process left (part files, extraction folders, spill
folders, unrecorded exports), the files of snapshots retention dropped past their grace, and
uploads no ingest named in time. What another live process may still be writing is left alone."""

from __future__ import annotations

import datetime as dt
import re
import shutil
import time
from pathlib import Path

from .catalog import dropped_before, forget_dropped, forget_upload, named_files, now, snapshot_known, unused_uploads
from .owners import Owners
from .rows import CatalogRows
from .snapshot_files import SnapshotFiles

# Files another process may still be writing are left alone this long by a sweep.
ORPHAN_SECONDS = 3600.0

# An exported file's name ends in its snapshot id: `<dataset>.<snapshot_id>.parquet`.
EXPORT_NAME = re.compile(r"(s_[0-9a-f]+)\.parquet(\.partial)?$")


class Sweeper:
    """Removes what nobody names any more from a home's folders."""

    def __init__(
        self, home: Path, rows: CatalogRows, snapshots: SnapshotFiles, owners: Owners, dropped_grace: float
    ) -> None:
        self.home, self.dropped_grace = home, dropped_grace
        self._rows, self._snapshots, self._owners = rows, snapshots, owners

    def sweep(self) -> None:
        """Remove what an interrupted process left and what retention let go: snapshot files no
        commit named, extraction folders nobody names, (in the default exports folder) Parquet
        files nobody recorded, and dropped snapshots' files past their grace."""
        con = self._rows.conn()
        folder = self._snapshots.folder
        # The snapshot files are listed before the catalog is read: a file whose `.sealed` mark
        # was already gone at the listing was named by a commit the reading then sees.
        listed = list(folder.iterdir())
        for lock in self._owners.folder.glob("*.lock"):
            self._owners.alive(lock.stem)  # a dead owner's lock file is removed
        old = time.time() - ORPHAN_SECONDS
        live, dropped, exported, named = named_files(con)
        exports = self.home / "exports"
        for file in exports.rglob("*.parquet*") if exports.is_dir() else ():
            # Unrecorded: a dropped snapshot's file goes; one of a kept snapshot may be an export
            # another process is finishing, so only an old one goes. The snapshot id ends the name.
            owner = EXPORT_NAME.search(file.name)
            if str(file) not in exported and (owner is None or owner.group(1) not in live or _mtime(file) < old):
                file.unlink(missing_ok=True)
        for extraction in (self.home / "extractions").iterdir():
            if extraction.name not in named and self._orphan(extraction, old):
                shutil.rmtree(extraction, ignore_errors=True)
        for spill in (self.home / "tmp").glob("*"):
            if not self._owners.alive(spill.name):
                shutil.rmtree(spill, ignore_errors=True)
        for part in (self.home / "uploads").glob("*.part"):
            if self._orphan(part, old):
                part.unlink(missing_ok=True)
        marks = {f.name.split(".")[0]: f for f in listed if f.suffix == ".sealed"}
        for file in listed:
            snapshot_id = file.name.split(".")[0]
            if file.suffix in (".part", ".wal"):
                if self._orphan(file, old):
                    file.unlink(missing_ok=True)
            elif file.suffix == ".duckdb" and snapshot_id not in live and snapshot_id not in dropped:
                mark = marks.get(snapshot_id) or next(folder.glob(f"{snapshot_id}.*.sealed"), None)
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
        con = self._rows.conn()
        for snapshot_id in dropped_before(con, now() - dt.timedelta(seconds=self.dropped_grace)):
            self._snapshots.detach(snapshot_id)
            self._snapshots.path(snapshot_id).unlink(missing_ok=True)
            forget_dropped(con, snapshot_id)

    def expire_uploads(self, seconds: float) -> int:
        """Delete uploads no ingest named within `seconds` of being made; answers how many."""
        con = self._rows.conn()
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
        return not self._owners.alive(owner) if owner else _mtime(path) < old


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return time.time()
