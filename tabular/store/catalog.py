"""The catalog's SQL, by named operations: its schema (one SQLite file in WAL mode, attached to
every connection as `catalog`), and every question asked of it and every row written to it.
The only module that speaks catalog SQL, with store/links.py (the linked folders' rows);
store/home.py holds the connections it runs on."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3

from sqlglot import exp

from .faults import busy

# SQLite column types the catalog's converters read back (module-wide names no one else uses).
TIME, FLAG = "tabular_time", "tabular_flag"


def _read_time(raw: bytes) -> dt.datetime:
    return dt.datetime.fromisoformat(raw.decode())


sqlite3.register_converter(TIME, _read_time)
sqlite3.register_converter(FLAG, lambda raw: raw not in (b"0", b""))


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


def snapshot_table(snapshot_id: str) -> exp.Table:
    """The snapshot's rows: the table `data` of its own file, attached under its id."""
    return exp.table_("data", db="main", catalog=snapshot_id, quoted=True)


def rejected_table(snapshot_id: str) -> exp.Table:
    """The snapshot's rejected rows (row_id, line, column_name, value, reason), kept beside it in
    its file: a snapshot and its rejected rows are one immutable unit, made and dropped together."""
    return exp.table_("rejected", db="main", catalog=snapshot_id, quoted=True)


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
    write(cur, stmt.sql(dialect="sqlite"), [_stored(v) for v in values.values()])


def update(cur, table: str, key: dict, **values) -> None:
    """Set `values` on the catalog.<table> rows matching every column of `key`."""
    stmt = exp.update(
        _table(table), {exp.to_identifier(k, quoted=True): exp.Placeholder() for k in values}, where=_where(key)
    )
    write(
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


def write(con, sql: str, params: list):
    try:
        return con.execute(sql, params)
    except sqlite3.OperationalError as err:
        raise busy(err) from None


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


def now() -> dt.datetime:
    """The time catalog rows are stamped with (UTC)."""
    return dt.datetime.now(dt.UTC)


def dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


# -- every question asked of the catalog, by name ------------------------------------------
# (Rows are sqlite3.Row: read by position or by column name.)

_SOURCE = "org = ? AND namespace = ? AND source_uri = ?"


def one(con, sql: str, params: list):
    return con.execute(sql, params).fetchone()


def every(con, sql: str, params: list) -> list:
    return con.execute(sql, params).fetchall()


def source_row(con, org: str, namespace: str, source_uri: str):
    """The source's row (live_revision, last_revision, title, description, tags, metadata), or None."""
    return one(
        con,
        f"SELECT live_revision, last_revision, title, description, tags, metadata FROM catalog.sources WHERE {_SOURCE}",
        [org, namespace, source_uri],
    )


def live_source_uris(con, org: str, namespace: str) -> list[str]:
    """The namespace's sources with a live revision."""
    return [
        r[0]
        for r in every(
            con,
            "SELECT source_uri FROM catalog.sources WHERE org = ? AND namespace = ? AND live_revision IS NOT NULL",
            [org, namespace],
        )
    ]


def source_uris(con, org: str, namespace: str, live: bool | None = None) -> list[str]:
    """The namespace's sources: the live ones (`live`), the deleted ones (not `live`), or all."""
    state = {True: " AND live_revision IS NOT NULL", False: " AND live_revision IS NULL", None: ""}[live]
    return [
        r[0]
        for r in every(
            con, f"SELECT source_uri FROM catalog.sources WHERE org = ? AND namespace = ?{state}", [org, namespace]
        )
    ]


def source_page(con, org: str, namespace: str, after: str, prefix: str, limit: int) -> list:
    """Sources after `after` whose uri starts with `prefix`, in uri order: (source_uri, title, tags,
    live_revision, ingested_at of the live revision)."""
    return every(
        con,
        "SELECT s.source_uri, s.title, s.tags, s.live_revision, r.ingested_at FROM catalog.sources s"
        " LEFT JOIN catalog.revisions r ON r.org = s.org AND r.namespace = s.namespace AND r.source_uri = s.source_uri AND r.revision = s.live_revision"
        " WHERE s.org = ? AND s.namespace = ? AND s.source_uri > ? AND substr(s.source_uri, 1, length(?)) = ? ORDER BY s.source_uri LIMIT ?",
        [org, namespace, after, prefix, prefix, limit],
    )


def restorable_revision(con, org: str, namespace: str, source_uri: str) -> int | None:
    """The revision the source's latest unrestored deletion took down, or None."""
    row = one(
        con,
        f"SELECT revision FROM catalog.deletions WHERE {_SOURCE} AND restored_at IS NULL ORDER BY deleted_at DESC LIMIT 1",
        [org, namespace, source_uri],
    )
    return row[0] if row else None


def approvals(con, org: str, namespace: str, source_uri: str) -> list:
    """Every approval of the source, oldest first."""
    return every(
        con,
        "SELECT dataset_id, revision, approved_by, approved_at, old_snapshot, new_snapshot, retyped, changes, settled FROM catalog.approvals"
        f" WHERE {_SOURCE} ORDER BY approved_at, revision, dataset_id",
        [org, namespace, source_uri],
    )


def revision_row(con, org: str, namespace: str, source_uri: str, number: int):
    """The revision's row (ingested_at, format, parser, coverage, state, upload_id), or None."""
    return one(
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
    return every(con, sql + " ORDER BY d.idx", params)


def live_typings(con, org: str, namespace: str, source_uri: str, dataset_id: str):
    """The live snapshot of the dataset: (revision, names, typings, approved_by), or None."""
    return one(
        con,
        "SELECT d.revision, d.names, t.typings, s.approved_by FROM catalog.sources src"
        " JOIN catalog.datasets d ON d.org = src.org AND d.namespace = src.namespace AND d.source_uri = src.source_uri AND d.revision = src.live_revision"
        " JOIN catalog.snapshots s ON s.snapshot_id = d.live_snapshot JOIN catalog.typings t ON t.snapshot_id = d.live_snapshot"
        " WHERE src.org = ? AND src.namespace = ? AND src.source_uri = ? AND d.dataset_id = ?",
        [org, namespace, source_uri, dataset_id],
    )


def snapshot_typings(con, snapshot_id: str) -> str | None:
    """The snapshot's typings as stored (retype.dump), or None for one published before they were."""
    row = one(con, "SELECT typings FROM catalog.typings WHERE snapshot_id = ?", [snapshot_id])
    return row[0] if row else None


def extraction_of(con, org: str, namespace: str, source_uri: str, number: int, dataset_id: str):
    """What a dataset is typed again from: (extraction, name, options, rows, the upload's path)."""
    return one(
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
        for r in every(
            con,
            "SELECT d.live_snapshot FROM catalog.datasets d JOIN catalog.sources s ON s.org = d.org AND s.namespace = d.namespace"
            " AND s.source_uri = d.source_uri AND s.live_revision = d.revision"
            " WHERE (? IS NULL OR d.org = ?) AND (? IS NULL OR d.namespace = ?) ORDER BY d.org, d.namespace, d.source_uri, d.idx",
            [org, org, namespace, namespace],
        )
    ]


def snapshot_owner(con, snapshot_id: str) -> tuple[str, str, str, int, str] | None:
    """(org, namespace, source_uri, revision, dataset_id) of a snapshot, or None."""
    return one(
        con,
        "SELECT org, namespace, source_uri, revision, dataset_id FROM catalog.snapshots WHERE snapshot_id = ?",
        [snapshot_id],
    )


def snapshots_past(con, org: str, namespace: str, source_uri: str, kept: int) -> list[str]:
    """The source's snapshots past the newest `kept` of each dataset."""
    return [
        r[0]
        for r in every(
            con,
            "SELECT snapshot_id FROM (SELECT snapshot_id, row_number() OVER (PARTITION BY dataset_id ORDER BY created_at DESC, snapshot_id) AS k"
            f" FROM catalog.snapshots WHERE {_SOURCE}) WHERE k > ?",
            [org, namespace, source_uri, kept],
        )
    ]


def snapshot_known(con, snapshot_id: str) -> bool:
    return one(con, "SELECT 1 FROM catalog.snapshots WHERE snapshot_id = ?", [snapshot_id]) is not None


def source_count(con) -> int:
    return one(con, "SELECT count(*) FROM catalog.sources", [])[0]


def drop_snapshot(con, snapshot_id: str) -> None:
    """Forget a snapshot (its row, typings, export records); its file goes later (Catalog.collect)."""
    for table in ("snapshots", "typings", "exports"):
        write(con, f"DELETE FROM catalog.{table} WHERE snapshot_id = ?", [snapshot_id])
    insert(con, "dropped", snapshot_id=snapshot_id, dropped_at=now())


def export_of(con, snapshot_id: str, location: str | None = None):
    """The snapshot's latest recorded export (or the one at `location`): (snapshot_id, location, rows, bytes), or None."""
    return one(
        con,
        "SELECT snapshot_id, location, rows, bytes FROM catalog.exports WHERE snapshot_id = ? AND (? IS NULL OR location = ?)"
        " ORDER BY exported_at DESC LIMIT 1",
        [snapshot_id, location, location],
    )


def upload_row(con, upload_id: str, org: str, namespace: str):
    """The upload's (path, filename) in this namespace, or None."""
    return one(
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
    row = one(
        con,
        f"SELECT {', '.join(JOB_STATUS)} FROM catalog.jobs WHERE ingestion_id = ? AND org = ? AND namespace = ?",
        [ingestion_id, org, namespace],
    )
    return dict(zip(JOB_STATUS, row)) if row else None


def job_by_key(con, org: str, namespace: str, idempotency_key: str):
    """The job an idempotency key started: (ingestion_id, state, request), or None."""
    return one(
        con,
        "SELECT ingestion_id, state, request FROM catalog.jobs WHERE org = ? AND namespace = ? AND idempotency_key = ?",
        [org, namespace, idempotency_key],
    )


def job_state(con, ingestion_id: str, org: str, namespace: str) -> str | None:
    row = one(
        con,
        "SELECT state FROM catalog.jobs WHERE ingestion_id = ? AND org = ? AND namespace = ?",
        [ingestion_id, org, namespace],
    )
    return row[0] if row else None


def job_to_run(con, ingestion_id: str):
    """What a worker needs: (org, namespace, source_uri, request, state, upload path, filename, upload_id, attempts)."""
    return one(
        con,
        "SELECT j.org, j.namespace, j.source_uri, j.request, j.state, u.path, u.filename, j.upload_id, j.attempts"
        " FROM catalog.jobs j JOIN catalog.uploads u USING (upload_id) WHERE ingestion_id = ?",
        [ingestion_id],
    )


def cancel_requested(con, ingestion_id: str) -> bool:
    row = one(con, "SELECT cancel_requested FROM catalog.jobs WHERE ingestion_id = ?", [ingestion_id])
    return bool(row and row[0])


def open_job_ids(con, org: str, namespace: str) -> list[str]:
    """A namespace's jobs pending or processing, oldest first."""
    return [
        r[0]
        for r in every(
            con,
            "SELECT ingestion_id FROM catalog.jobs WHERE org = ? AND namespace = ? AND state IN ('pending', 'processing')"
            " ORDER BY created_at, ingestion_id",
            [org, namespace],
        )
    ]


def unfinished_jobs(con) -> list:
    """Jobs pending or processing, oldest first: (ingestion_id, state, attempts, cancel_requested, org)."""
    return every(
        con,
        "SELECT ingestion_id, state, attempts, cancel_requested, org FROM catalog.jobs WHERE state IN ('pending', 'processing') ORDER BY created_at",
        [],
    )


def job_owner(con, ingestion_id: str) -> tuple[bool, str | None]:
    """(whether the job exists, the open home that owns it)."""
    row = one(con, "SELECT owner FROM catalog.jobs WHERE ingestion_id = ?", [ingestion_id])
    return (row is not None, row[0] if row else None)


def take_job(con, ingestion_id: str, owner: str, was: str | None) -> bool:
    """Make the job `owner`'s if it still belongs to `was` (of two takers at once, one wins)."""
    return (
        write(
            con, "UPDATE catalog.jobs SET owner = ? WHERE ingestion_id = ? AND owner IS ?", [owner, ingestion_id, was]
        ).rowcount
        == 1
    )


def cancel_pending(con, ingestion_id: str) -> bool:
    """Cancel the job if it is still pending (a worker of any process may claim it meanwhile)."""
    return (
        write(
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
        write(
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
        {r[0] for r in every(con, "SELECT snapshot_id FROM catalog.snapshots", [])},
        {r[0] for r in every(con, "SELECT snapshot_id FROM catalog.dropped", [])},
        {r[0] for r in every(con, "SELECT location FROM catalog.exports", [])},
        {r[0] for r in every(con, "SELECT extraction_dir FROM catalog.revisions", [])},
    )


def stored_bytes(con, org: str) -> int:
    """The bytes of the org's uploads kept (what org_storage_bytes counts)."""
    return int(one(con, "SELECT coalesce(sum(bytes), 0) FROM catalog.uploads WHERE org = ?", [org])[0])


def unused_uploads(con, before: dt.datetime) -> list:
    """Uploads made before `before` that no ingest names: (upload_id, path)."""
    return every(
        con,
        "SELECT u.upload_id, u.path FROM catalog.uploads u WHERE u.created_at < ?"
        " AND NOT EXISTS (SELECT 1 FROM catalog.jobs j WHERE j.upload_id = u.upload_id)",
        [_stored(before)],
    )


def forget_upload(con, upload_id: str) -> None:
    write(con, "DELETE FROM catalog.uploads WHERE upload_id = ?", [upload_id])


def upload_ids(con) -> set[str]:
    """Every upload the catalog names (ingest.uploads.sweep_uploads removes the files it does not)."""
    return {row[0] for row in every(con, "SELECT upload_id FROM catalog.uploads", [])}


def dropped_before(con, when: dt.datetime) -> list[str]:
    return [r[0] for r in every(con, "SELECT snapshot_id FROM catalog.dropped WHERE dropped_at < ?", [_stored(when)])]


def forget_dropped(con, snapshot_id: str) -> None:
    write(con, "DELETE FROM catalog.dropped WHERE snapshot_id = ?", [snapshot_id])
