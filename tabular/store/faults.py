"""A write the home's disk refused, told apart from any other error: a full disk (or a file size
limit, or a quota) and a home that cannot be written (a read-only file system, permission
denied, SQLite's I/O error). One reading for every path that writes (an ingest job, an op, an
export), whichever library met it: Python's errno, DuckDB's words, SQLite's result code.

A full disk keeps the codes it had (an ingest `too_large`, an op 503 OVERLOADED, an upload 413);
a home that cannot be written is STORAGE_UNWRITABLE (503) for an op and `storage_unwritable` for
an ingest (docs/guarantees.md: the SPEC names no code for it)."""

from __future__ import annotations

import errno
import os
import sqlite3

import duckdb

from ..errors import Overloaded, StorageUnwritable

# What a full disk, a file size limit (RLIMIT_FSIZE) or a disk quota raises on a write.
NO_SPACE = (errno.ENOSPC, errno.EFBIG, errno.EDQUOT)
# What a write into a home that cannot be written raises (a read-only mount, a folder or file
# whose permissions refuse this process).
READ_ONLY = (errno.EROFS, errno.EACCES, errno.EPERM)

# SQLite's primary result codes (sqlite3 names them from Python 3.11).
_SQLITE_FULL, _SQLITE_READONLY, _SQLITE_IOERR, _SQLITE_CANTOPEN = 13, 8, 10, 14


# DuckDB's errors whose words may quote a cell or a name a user wrote.
_QUOTING = (duckdb.ConversionException, duckdb.InvalidInputException, duckdb.BinderException, duckdb.ParserException)


class CatalogRefused(OSError):
    """A catalog write SQLite could not make for want of room or of a writable disk (its result
    code read as the errno it stands for), raised where the write was (store/catalog.py's
    `busy`), so every caller that knows a full disk's OSError knows this one."""


def catalog_refused(err: sqlite3.Error) -> CatalogRefused | None:
    """SQLite's full disk (SQLITE_FULL), read-only file (SQLITE_READONLY, SQLITE_CANTOPEN) or
    failed write (SQLITE_IOERR: SQLite keeps the errno to itself) as a CatalogRefused; None
    for any other error."""
    code = getattr(err, "sqlite_errorcode", None)
    if code is None:
        return None
    number = {
        _SQLITE_FULL: errno.ENOSPC,
        _SQLITE_READONLY: errno.EROFS,
        _SQLITE_CANTOPEN: errno.EACCES,
        _SQLITE_IOERR: errno.EIO,
    }.get(code & 0xFF)
    if number is None:
        return None
    return CatalogRefused(number, f"the catalog could not be written ({err})")


def busy(err: sqlite3.OperationalError) -> Exception:
    """A write the busy catalog refused, as 503 Overloaded (retry shortly); one a full or unwritable
    disk refused, as a CatalogRefused (an OSError); any other error as it was."""
    if "locked" in str(err) or "busy" in str(err):
        return Overloaded("the catalog is busy with another process's write; try again shortly", retry_after=2)
    return catalog_refused(err) or err


def refused(err: BaseException) -> tuple[str, str] | None:
    """("full" | "unwritable", why in the system's words) for a write the disk refused, else None.

    An OSError by its errno; pyarrow's carry none, and are read by their words, as DuckDB's are
    (a write at a transaction's commit is a TransactionException), but not DuckDB's errors that
    quote a value or a name (a conversion, a bad input, a binding): a cell may say anything.
    An EIO counts only from the catalog (elsewhere it is a read of a damaged disk as well)."""
    number = getattr(err, "errno", None) if isinstance(err, OSError) else None
    if number in NO_SPACE:
        return "full", os.strerror(number)
    if number in READ_ONLY or (isinstance(err, CatalogRefused) and number == errno.EIO):
        return "unwritable", os.strerror(number)
    if number is None and isinstance(err, (OSError, duckdb.Error)) and not isinstance(err, _QUOTING):
        said = str(err)
        for kind, numbers in (("full", NO_SPACE), ("unwritable", READ_ONLY)):
            found = next((os.strerror(n) for n in numbers if os.strerror(n) in said), None)
            if found:
                return kind, found
    return None


def unwritable(err: BaseException, done: str = "nothing was changed") -> StorageUnwritable | None:
    """STORAGE_UNWRITABLE for a write into a home that cannot be written; None otherwise (a full
    disk included: its code is the caller's)."""
    found = refused(err)
    if found is None or found[0] != "unwritable":
        return None
    return StorageUnwritable(f"the server's home could not be written ({found[1]}); {done}")
