"""A snapshot file that is not the database it should be (cut short, overwritten, no DuckDB file
at all): how DuckDB says so, how a file is read through to tell, and the STORAGE_DAMAGED error
that names it, relative to the home, with its dataset."""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

import duckdb

from ..errors import StorageDamaged
from . import sql
from .catalog import snapshot_owner

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
    return isinstance(err, duckdb.SerializationException) or bool(_DAMAGED.search(str(err)))


def unreadable(path: Path) -> bool:
    """Whether reading every row of a snapshot's file (apart from this process's attached copy)
    fails as a damaged file does."""
    scratch = duckdb.connect(":memory:")
    try:
        scratch.execute(sql.attach(path, "snap", read_only=True))
        for table in ("data", "rejected"):
            # Every value fetched (an aggregate over them may be answered without some blocks).
            for _ in scratch.sql(sql.every_row("snap", table)).to_arrow_reader(VERIFY_ROWS):
                pass
    except (duckdb.Error, OSError) as err:  # an Arrow stream says DuckDB's error as an OSError
        return looks_damaged(err)
    finally:
        scratch.close()
    return False


def damage(con: sqlite3.Connection, home: Path, path: Path, snapshot_id: str, err: BaseException) -> StorageDamaged:
    """The error that names a damaged snapshot file, relative to the home, and its dataset."""
    rel = path.relative_to(home).as_posix()
    owner = snapshot_owner(con, snapshot_id)
    what = f" (dataset {owner[4]!r} of {owner[2]!r}, revision {owner[3]})" if owner else ""
    said = str(err).splitlines()[0].replace(str(home) + os.sep, "") if str(err) else type(err).__name__
    return StorageDamaged(
        f"the snapshot file {rel}{what} is damaged and cannot be read ({said}); the home's other "
        "datasets keep serving; ingest the source again to write a new snapshot, or restore the file",
        rel,
    )
