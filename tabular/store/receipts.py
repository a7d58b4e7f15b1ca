"""Receipts of whole results, kept for knowledge.receipt (SPEC §4): a query_export's answer starts
before its receipt could ride in a header whole (a plan's `in` of 1,000 long values made headers
no client reads), so the headers carry its id and this file answers the rest.

Kept under the home in a SQLite file of its own (`receipts.sqlite`), so a CLI call, a notebook
and `tabular serve` sharing one home answer each other's ids; by org and namespace, so an id
another tenant's export made answers as nothing would. A receipt is answered for
`receipt_seconds`; every write drops the expired ones, and the oldest past `receipts_max_bytes`.
The catalog is untouched: a receipt is no part of what a revision publishes."""

from __future__ import annotations

import errno
import secrets
import sqlite3
import time
from contextlib import closing
from pathlib import Path

from ..errors import Overloaded

FILE = "receipts.sqlite"
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS receipts (receipt_id TEXT PRIMARY KEY, org TEXT NOT NULL, "
    "namespace TEXT NOT NULL, kept_at REAL NOT NULL, bytes INTEGER NOT NULL, body TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS receipts_kept_at ON receipts (kept_at)",
)


def new_id() -> str:
    """A receipt's id: unguessable (a tenant check stands behind it all the same)."""
    return "r_" + secrets.token_hex(16)


def _open(home: Path, wait_seconds: float) -> sqlite3.Connection:
    con = sqlite3.connect(home / FILE, timeout=wait_seconds, isolation_level=None)
    con.execute("PRAGMA journal_mode = WAL")
    con.execute("PRAGMA synchronous = NORMAL")
    for statement in SCHEMA:
        con.execute(statement)
    return con


def _refused(err: sqlite3.Error) -> Exception:
    """A write SQLite could not make: busy (503, retry shortly), or a full or read-only disk as
    the OSError the engine answers for any write the disk refused; else the error as it was."""
    words = str(err).lower()
    if "locked" in words or "busy" in words:
        return Overloaded("the receipts file is busy with another process's write; try again shortly", retry_after=2)
    if "full" in words:
        return OSError(errno.ENOSPC, f"the receipt could not be kept ({err})")
    if "readonly" in words or "read-only" in words or "unable to open" in words:
        return OSError(errno.EROFS, f"the receipt could not be kept ({err})")
    return err


def keep(
    home: Path,
    receipt_id: str,
    org: str,
    namespace: str,
    body: str,
    seconds: float,
    max_bytes: int,
    wait_seconds: float = 30.0,
) -> None:
    """Keep (or replace) one receipt, dropping the expired ones and the oldest past `max_bytes`."""
    now = time.time()
    size = len(body.encode())
    try:
        with closing(_open(home, wait_seconds)) as con:
            con.execute("BEGIN IMMEDIATE")
            try:
                con.execute("DELETE FROM receipts WHERE kept_at < ? OR receipt_id = ?", [now - seconds, receipt_id])
                (held,) = con.execute("SELECT coalesce(sum(bytes), 0) FROM receipts").fetchone()
                if held + size > max_bytes:
                    # The oldest first, until this one fits (one past max_bytes alone is kept alone).
                    con.execute(
                        "DELETE FROM receipts WHERE receipt_id IN (SELECT receipt_id FROM (SELECT receipt_id, "
                        "sum(bytes) OVER (ORDER BY kept_at DESC, receipt_id) AS newer FROM receipts) WHERE newer > ?)",
                        [max(max_bytes - size, 0)],
                    )
                con.execute(
                    "INSERT INTO receipts (receipt_id, org, namespace, kept_at, bytes, body) VALUES (?, ?, ?, ?, ?, ?)",
                    [receipt_id, org, namespace, now, size, body],
                )
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
    except sqlite3.Error as err:
        raise _refused(err) from None


def find(
    home: Path, receipt_id: str, org: str, namespace: str, seconds: float, wait_seconds: float = 30.0
) -> str | None:
    """The receipt's JSON kept under this id for this org and namespace in the last `seconds`, or None."""
    if not (home / FILE).exists():
        return None
    try:
        with closing(_open(home, wait_seconds)) as con:
            row = con.execute(
                "SELECT body FROM receipts WHERE receipt_id = ? AND org = ? AND namespace = ? AND kept_at >= ?",
                [receipt_id, org, namespace, time.time() - seconds],
            ).fetchone()
    except sqlite3.Error as err:
        raise _refused(err) from None
    return str(row[0]) if row else None
