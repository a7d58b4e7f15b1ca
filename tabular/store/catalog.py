"""The catalog's SQL, by named operations: its schema (one SQLite file in WAL mode, attached to
every connection as `catalog`), and every question asked of it and every row written to it.
The only module that speaks catalog SQL, with store/links.py (the linked folders' rows);
store/home.py holds the connections it runs on."""

from __future__ import annotations

import datetime as dt
import functools
import json
import sqlite3
from typing import TYPE_CHECKING, Any

from .catalog_tables import SCHEMA as SCHEMA  # the schema rows.py makes
from .catalog_tables import TABLES as TABLES  # the tables migrate.py copies
from .faults import busy

if TYPE_CHECKING:  # the statements are built on first use: a command that runs none loads no sqlglot
    from sqlglot import exp

# What catalog operations are handed: a connection to the catalog (rows.py's `conn`, `change`).
Con = sqlite3.Connection


def snapshot_table(snapshot_id: str) -> exp.Table:
    """The snapshot's rows: the table `data` of its own file, attached under its id."""
    from sqlglot import exp  # heavy: sqlglot, for a statement naming the snapshot

    return exp.table_("data", db="main", catalog=snapshot_id, quoted=True)


def rejected_table(snapshot_id: str) -> exp.Table:
    """The snapshot's rejected rows (row_id, line, column_name, value, reason), kept beside it in
    its file: a snapshot and its rejected rows are one immutable unit, made and dropped together."""
    from sqlglot import exp  # heavy: sqlglot, for a statement naming the snapshot

    return exp.table_("rejected", db="main", catalog=snapshot_id, quoted=True)


def _table(table: str) -> exp.Table:
    from sqlglot import exp  # heavy: sqlglot, for a statement's SQL on first use

    return exp.table_(exp.to_identifier(table, quoted=True), db="catalog")


@functools.cache
def _insert_sql(table: str, columns: tuple[str, ...]) -> str:
    """INSERT INTO catalog.<table> (columns) VALUES (?, …): built once per table and columns."""
    from sqlglot import exp  # heavy: sqlglot, for a statement's SQL on first use

    names = [exp.to_identifier(k, quoted=True) for k in columns]
    values = exp.values([tuple(exp.Placeholder() for _ in columns)])
    return exp.insert(values, _table(table), columns=names).sql(dialect="sqlite")


@functools.cache
def _update_sql(table: str, columns: tuple[str, ...], key: tuple[tuple[str, bool], ...]) -> str:
    """UPDATE catalog.<table> SET column = ?, … WHERE each key column = ? (IS NULL where its
    flag says the value is None): built once per table, columns and key."""
    from sqlglot import exp  # heavy: sqlglot, for a statement's SQL on first use

    assignments = [exp.EQ(this=exp.column(k, quoted=True), expression=exp.Placeholder()) for k in columns]
    where = exp.and_(
        *[
            exp.Is(this=exp.column(k, quoted=True), expression=exp.null())
            if null
            else exp.EQ(this=exp.column(k, quoted=True), expression=exp.Placeholder())
            for k, null in key
        ]
    )
    return exp.Update(this=_table(table), expressions=assignments, where=exp.Where(this=where)).sql(dialect="sqlite")


@functools.cache
def _delete_sql(table: str, column: str) -> str:
    """DELETE FROM catalog.<table> WHERE column = ?: built once per table and column."""
    from sqlglot import exp  # heavy: sqlglot, for a statement's SQL on first use

    where = exp.EQ(this=exp.column(column), expression=exp.Placeholder())
    return exp.delete(_table(table), where=where).sql(dialect="sqlite")


def insert(cur: Con, table: str, **values: Any) -> None:
    """One row into catalog.<table>, by column name (columns left out are NULL)."""
    write(cur, _insert_sql(table, tuple(values)), [_stored(v) for v in values.values()])


def update(cur: Con, table: str, key: dict[str, Any], **values: Any) -> None:
    """Set `values` on the catalog.<table> rows matching every column of `key` (its value bound,
    or NULL where the value is None)."""
    write(
        cur,
        _update_sql(table, tuple(values), tuple((k, v is None) for k, v in key.items())),
        [*map(_stored, values.values()), *(_stored(v) for v in key.values() if v is not None)],
    )


def insert_snapshot(
    cur: Con,
    snapshot_id: str,
    dataset: dict[str, Any],
    built: Any,
    questions: list[dict[str, Any]],
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


def write(con: Con, sql: str, params: list[Any]) -> sqlite3.Cursor:
    try:
        return con.execute(sql, params)
    except sqlite3.OperationalError as err:
        raise busy(err) from None


def _stored(value: Any) -> Any:
    """Dicts and lists are held as JSON text, times as ISO text in UTC, flags as 0/1."""
    if isinstance(value, (dict, list)):
        return dumps(value)
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).isoformat()
    if isinstance(value, bool):
        return int(value)
    return value


def live_datasets(cur: Con, org: str, namespace: str, source_uri: str) -> list[Any]:
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


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


# -- every question asked of the catalog, by name ------------------------------------------
# (Rows are sqlite3.Row: read by position or by column name.)


def one(con: Con, sql: str, params: list[Any]) -> Any:
    return con.execute(sql, params).fetchone()


def every(con: Con, sql: str, params: list[Any]) -> list[Any]:
    return con.execute(sql, params).fetchall()


def source_row(con: Con, org: str, namespace: str, source_uri: str) -> Any:
    """The source's row (live_revision, last_revision, title, description, tags, metadata), or None."""
    return one(
        con,
        "SELECT live_revision, last_revision, title, description, tags, metadata FROM catalog.sources"
        " WHERE org = ? AND namespace = ? AND source_uri = ?",
        [org, namespace, source_uri],
    )


def live_source_uris(con: Con, org: str, namespace: str) -> list[str]:
    """The namespace's sources with a live revision."""
    return [
        r[0]
        for r in every(
            con,
            "SELECT source_uri FROM catalog.sources WHERE org = ? AND namespace = ? AND live_revision IS NOT NULL",
            [org, namespace],
        )
    ]


def source_uris(con: Con, org: str, namespace: str, live: bool | None = None) -> list[str]:
    """The namespace's sources: the live ones (`live`), the deleted ones (not `live`), or all."""
    return [r[0] for r in every(con, SOURCE_URIS, [org, namespace, live, live])]


SOURCE_URIS = (
    "SELECT source_uri FROM catalog.sources WHERE org = ? AND namespace = ?"
    " AND (? IS NULL OR (live_revision IS NOT NULL) = ?)"
)


def source_page(con: Con, org: str, namespace: str, after: str, prefix: str, limit: int) -> list[Any]:
    """Sources after `after` whose uri starts with `prefix`, in uri order: (source_uri, title, tags,
    live_revision, ingested_at of the live revision)."""
    return every(
        con,
        "SELECT s.source_uri, s.title, s.tags, s.live_revision, r.ingested_at FROM catalog.sources s"
        " LEFT JOIN catalog.revisions r ON r.org = s.org AND r.namespace = s.namespace AND r.source_uri = s.source_uri AND r.revision = s.live_revision"
        " WHERE s.org = ? AND s.namespace = ? AND s.source_uri > ? AND substr(s.source_uri, 1, length(?)) = ? ORDER BY s.source_uri LIMIT ?",
        [org, namespace, after, prefix, prefix, limit],
    )


def restorable_revision(con: Con, org: str, namespace: str, source_uri: str) -> int | None:
    """The revision the source's latest unrestored deletion took down, or None."""
    row = one(
        con,
        "SELECT revision FROM catalog.deletions WHERE org = ? AND namespace = ? AND source_uri = ?"
        " AND restored_at IS NULL ORDER BY deleted_at DESC LIMIT 1",
        [org, namespace, source_uri],
    )
    return row[0] if row else None


def approvals(con: Con, org: str, namespace: str, source_uri: str) -> list[Any]:
    """Every approval of the source, oldest first."""
    return every(
        con,
        "SELECT dataset_id, revision, approved_by, approved_at, old_snapshot, new_snapshot, retyped, changes, settled FROM catalog.approvals"
        " WHERE org = ? AND namespace = ? AND source_uri = ? ORDER BY approved_at, revision, dataset_id",
        [org, namespace, source_uri],
    )


def revision_row(con: Con, org: str, namespace: str, source_uri: str, number: int) -> Any:
    """The revision's row (ingested_at, format, parser, coverage, state, upload_id), or None."""
    return one(
        con,
        "SELECT ingested_at, format, parser, coverage, state, upload_id FROM catalog.revisions"
        " WHERE org = ? AND namespace = ? AND source_uri = ? AND revision = ?",
        [org, namespace, source_uri, number],
    )


def revision_datasets(
    con: Con, org: str, namespace: str, source_uri: str, number: int, dataset_id: str = ""
) -> list[Any]:
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


def live_typings(con: Con, org: str, namespace: str, source_uri: str, dataset_id: str) -> Any:
    """The live snapshot of the dataset: (revision, names, typings, approved_by), or None."""
    return one(
        con,
        "SELECT d.revision, d.names, t.typings, s.approved_by FROM catalog.sources src"
        " JOIN catalog.datasets d ON d.org = src.org AND d.namespace = src.namespace AND d.source_uri = src.source_uri AND d.revision = src.live_revision"
        " JOIN catalog.snapshots s ON s.snapshot_id = d.live_snapshot JOIN catalog.typings t ON t.snapshot_id = d.live_snapshot"
        " WHERE src.org = ? AND src.namespace = ? AND src.source_uri = ? AND d.dataset_id = ?",
        [org, namespace, source_uri, dataset_id],
    )


def snapshot_typings(con: Con, snapshot_id: str) -> str | None:
    """The snapshot's typings as stored (retype.dump), or None for one published before they were."""
    row = one(con, "SELECT typings FROM catalog.typings WHERE snapshot_id = ?", [snapshot_id])
    return row[0] if row else None


def extraction_of(con: Con, org: str, namespace: str, source_uri: str, number: int, dataset_id: str) -> Any:
    """What a dataset is typed again from: (extraction, name, options, rows, the upload's path)."""
    return one(
        con,
        "SELECT d.extraction, d.name, d.options, d.rows, u.path FROM catalog.datasets d"
        " JOIN catalog.revisions r USING (org, namespace, source_uri, revision) JOIN catalog.uploads u ON u.upload_id = r.upload_id"
        " WHERE d.org = ? AND d.namespace = ? AND d.source_uri = ? AND d.revision = ? AND d.dataset_id = ?",
        [org, namespace, source_uri, number, dataset_id],
    )


def serving_snapshots(con: Con, org: str | None = None, namespace: str | None = None) -> list[str]:
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


def snapshot_owner(con: Con, snapshot_id: str) -> tuple[str, str, str, int, str] | None:
    """(org, namespace, source_uri, revision, dataset_id) of a snapshot, or None."""
    row = one(
        con,
        "SELECT org, namespace, source_uri, revision, dataset_id FROM catalog.snapshots WHERE snapshot_id = ?",
        [snapshot_id],
    )
    return None if row is None else (row[0], row[1], row[2], row[3], row[4])


def snapshots_past(con: Con, org: str, namespace: str, source_uri: str, kept: int) -> list[str]:
    """The source's snapshots past the newest `kept` of each dataset."""
    return [
        r[0]
        for r in every(
            con,
            "SELECT snapshot_id FROM (SELECT snapshot_id, row_number() OVER (PARTITION BY dataset_id ORDER BY created_at DESC, snapshot_id) AS k"
            " FROM catalog.snapshots WHERE org = ? AND namespace = ? AND source_uri = ?) WHERE k > ?",
            [org, namespace, source_uri, kept],
        )
    ]


def snapshot_known(con: Con, snapshot_id: str) -> bool:
    return one(con, "SELECT 1 FROM catalog.snapshots WHERE snapshot_id = ?", [snapshot_id]) is not None


def source_count(con: Con) -> int:
    return int(one(con, "SELECT count(*) FROM catalog.sources", [])[0])


def drop_snapshot(con: Con, snapshot_id: str) -> None:
    """Forget a snapshot (its row, typings, export records); its file goes later (Catalog.collect)."""
    for table in ("snapshots", "typings", "exports"):
        write(con, _delete_sql(table, "snapshot_id"), [snapshot_id])
    insert(con, "dropped", snapshot_id=snapshot_id, dropped_at=now())


def export_of(con: Con, snapshot_id: str, location: str | None = None) -> Any:
    """The snapshot's latest recorded export (or the one at `location`): (snapshot_id, location, rows, bytes), or None."""
    return one(
        con,
        "SELECT snapshot_id, location, rows, bytes FROM catalog.exports WHERE snapshot_id = ? AND (? IS NULL OR location = ?)"
        " ORDER BY exported_at DESC LIMIT 1",
        [snapshot_id, location, location],
    )


def upload_row(con: Con, upload_id: str, org: str, namespace: str) -> Any:
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


@functools.cache
def _job_status_sql() -> str:
    """SELECT JOB_STATUS FROM catalog.jobs of one job in one namespace: built on first use."""
    from sqlglot import exp  # heavy: sqlglot, for a statement's SQL on first use

    where = "ingestion_id = ? AND org = ? AND namespace = ?"
    return exp.select(*JOB_STATUS).from_(_table("jobs")).where(where, dialect="sqlite").sql(dialect="sqlite")


def job_status(con: Con, ingestion_id: str, org: str, namespace: str) -> dict[str, Any] | None:
    """The job's JOB_STATUS columns by name, or None when the namespace has no such job."""
    row = one(con, _job_status_sql(), [ingestion_id, org, namespace])
    return dict(zip(JOB_STATUS, row)) if row else None


def job_by_key(con: Con, org: str, namespace: str, idempotency_key: str) -> Any:
    """The job an idempotency key started: (ingestion_id, state, request), or None."""
    return one(
        con,
        "SELECT ingestion_id, state, request FROM catalog.jobs WHERE org = ? AND namespace = ? AND idempotency_key = ?",
        [org, namespace, idempotency_key],
    )


def job_state(con: Con, ingestion_id: str, org: str, namespace: str) -> str | None:
    row = one(
        con,
        "SELECT state FROM catalog.jobs WHERE ingestion_id = ? AND org = ? AND namespace = ?",
        [ingestion_id, org, namespace],
    )
    return row[0] if row else None


def job_to_run(con: Con, ingestion_id: str) -> Any:
    """What a worker needs: (org, namespace, source_uri, request, state, upload path, filename, upload_id, attempts)."""
    return one(
        con,
        "SELECT j.org, j.namespace, j.source_uri, j.request, j.state, u.path, u.filename, j.upload_id, j.attempts"
        " FROM catalog.jobs j JOIN catalog.uploads u USING (upload_id) WHERE ingestion_id = ?",
        [ingestion_id],
    )


def cancel_requested(con: Con, ingestion_id: str) -> bool:
    row = one(con, "SELECT cancel_requested FROM catalog.jobs WHERE ingestion_id = ?", [ingestion_id])
    return bool(row and row[0])


def open_job_ids(con: Con, org: str, namespace: str) -> list[str]:
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


def unfinished_jobs(con: Con) -> list[Any]:
    """Jobs pending or processing, oldest first: (ingestion_id, state, attempts, cancel_requested, org)."""
    return every(
        con,
        "SELECT ingestion_id, state, attempts, cancel_requested, org FROM catalog.jobs WHERE state IN ('pending', 'processing') ORDER BY created_at",
        [],
    )


def job_owner(con: Con, ingestion_id: str) -> tuple[bool, str | None]:
    """(whether the job exists, the open home that owns it)."""
    row = one(con, "SELECT owner FROM catalog.jobs WHERE ingestion_id = ?", [ingestion_id])
    return (row is not None, row[0] if row else None)


def take_job(con: Con, ingestion_id: str, owner: str, was: str | None) -> bool:
    """Make the job `owner`'s if it still belongs to `was` (of two takers at once, one wins)."""
    return (
        write(
            con, "UPDATE catalog.jobs SET owner = ? WHERE ingestion_id = ? AND owner IS ?", [owner, ingestion_id, was]
        ).rowcount
        == 1
    )


def cancel_pending(con: Con, ingestion_id: str) -> bool:
    """Cancel the job if it is still pending (a worker of any process may claim it meanwhile)."""
    return (
        write(
            con,
            "UPDATE catalog.jobs SET state = 'cancelled', cancel_requested = 1, updated_at = ? WHERE ingestion_id = ? AND state = 'pending'",
            [now().isoformat(), ingestion_id],
        ).rowcount
        == 1
    )


def claim_job(con: Con, ingestion_id: str, owner: str) -> bool:
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


def named_files(con: Con) -> tuple[set[str], set[str], set[str], set[str]]:
    """What the catalog names on disk: (snapshot ids, dropped snapshot ids, export locations, extraction folders)."""
    return (
        {r[0] for r in every(con, "SELECT snapshot_id FROM catalog.snapshots", [])},
        {r[0] for r in every(con, "SELECT snapshot_id FROM catalog.dropped", [])},
        {r[0] for r in every(con, "SELECT location FROM catalog.exports", [])},
        {r[0] for r in every(con, "SELECT extraction_dir FROM catalog.revisions", [])},
    )


def stored_bytes(con: Con, org: str) -> int:
    """The bytes of the org's uploads kept (what org_storage_bytes counts)."""
    return int(one(con, "SELECT coalesce(sum(bytes), 0) FROM catalog.uploads WHERE org = ?", [org])[0])


def unused_uploads(con: Con, before: dt.datetime) -> list[Any]:
    """Uploads made before `before` that no ingest names: (upload_id, path)."""
    return every(
        con,
        "SELECT u.upload_id, u.path FROM catalog.uploads u WHERE u.created_at < ?"
        " AND NOT EXISTS (SELECT 1 FROM catalog.jobs j WHERE j.upload_id = u.upload_id)",
        [_stored(before)],
    )


def forget_upload(con: Con, upload_id: str) -> None:
    write(con, "DELETE FROM catalog.uploads WHERE upload_id = ?", [upload_id])


def upload_ids(con: Con) -> set[str]:
    """Every upload the catalog names (ingest.uploads.sweep_uploads removes the files it does not)."""
    return {row[0] for row in every(con, "SELECT upload_id FROM catalog.uploads", [])}


def dropped_before(con: Con, when: dt.datetime) -> list[str]:
    return [r[0] for r in every(con, "SELECT snapshot_id FROM catalog.dropped WHERE dropped_at < ?", [_stored(when)])]


def forget_dropped(con: Con, snapshot_id: str) -> None:
    write(con, "DELETE FROM catalog.dropped WHERE snapshot_id = ?", [snapshot_id])
