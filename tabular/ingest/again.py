"""A source ingested again: what the new ingest keeps of the live revision.

- The same bytes, read the same way, are no new revision: the job ends with the revision that
  holds them (`holding_revision`), and says so in its warnings (`UNCHANGED`).
- A person's column types carry over where the new rows still read that way, without a question
  (`carry_into`); one that no longer reads is asked (retype.carry says how).
"""

from __future__ import annotations

import json

from ..infer import retype
from ..models import UNCHANGED
from ..store.catalog import live_typings, now, one, revision_datasets, revision_row, source_row, update
from ..store.damage import unreadable

# The two rows this module reads, as constant statements with bound values.
UPLOAD_SHA256 = 'SELECT "sha256" FROM catalog."uploads" WHERE "upload_id" = ? AND "org" = ? AND "namespace" = ? LIMIT 1'
DATASET_OPTIONS = (
    'SELECT "options" FROM catalog."datasets" '
    'WHERE "org" = ? AND "namespace" = ? AND "source_uri" = ? AND "revision" = ? LIMIT 1'
)


def _sha256(con, upload_id: str, org: str, namespace: str) -> str | None:
    """The sha256 an upload was stored with, or None."""
    row = one(con, UPLOAD_SHA256, [upload_id, org, namespace])
    return row[0] if row else None


def _same_options(stored: str | None, options: dict) -> bool:
    """The options a revision's datasets were read with are the ones this ingest would use."""
    if stored is None:
        return False
    return json.loads(stored) == json.loads(json.dumps(options, ensure_ascii=False, default=str))


def _readable(catalog, snapshot_ids: list[str]) -> bool:
    """Every row of these snapshot files reads (each opened on its own, apart from this process's
    attached copy): a damaged one is written anew by ingesting its source again, as its error says."""
    return all(catalog.snapshots.path(i).exists() and not unreadable(catalog.snapshots.path(i)) for i in snapshot_ids)


def holding_revision(catalog, job, fmt: str, options: dict) -> int | None:
    """The live revision of the job's source when it holds exactly the job's bytes, read in the
    same format with the same options (published whole, or partial where the job allows a
    partial one), and its snapshot files read; else None: the job reads the file and publishes a
    new revision."""
    con = catalog.conn()
    source = source_row(con, job.org, job.namespace, job.source_uri)
    if not source or source[0] is None:
        return None
    live = source[0]
    revision = revision_row(con, job.org, job.namespace, job.source_uri, live)
    if revision is None or revision["format"] != fmt:
        return None
    if revision["state"] != "ready" and not (revision["state"] == "partial" and job.request.allow_partial):
        return None
    mine = _sha256(con, job.request.upload_id, job.org, job.namespace)
    if mine is None or mine != _sha256(con, revision["upload_id"], job.org, job.namespace):
        return None
    stored = one(
        con,
        DATASET_OPTIONS,
        [job.org, job.namespace, job.source_uri, live],
    )
    if not stored or not _same_options(stored[0], options):
        return None
    serving = [d["live_snapshot"] for d in revision_datasets(con, job.org, job.namespace, job.source_uri, live)]
    return live if serving and _readable(catalog, serving) else None


def describe(catalog, job) -> None:
    """The source's title, description, tags and metadata set from the job, as a published
    revision sets them, where the job's bytes were live already (no new revision: the words
    about the source are the latest ingest's all the same)."""
    request = job.request
    wanted = dict(title=request.title, description=request.description, tags=request.tags, metadata=request.metadata)
    with catalog.change() as con:
        row = source_row(con, job.org, job.namespace, job.source_uri)
        if row is None:
            return
        held = dict(
            title=row[2], description=row[3], tags=json.loads(row[4] or "[]"), metadata=json.loads(row[5] or "{}")
        )
        if held != json.loads(json.dumps(wanted, ensure_ascii=False, default=str)):
            where = dict(org=job.org, namespace=job.namespace, source_uri=job.source_uri)
            update(con, "sources", where, **wanted, updated_at=now())


class Unchanged(Exception):
    """The job's bytes are live already, in `revision`: nothing is published."""

    def __init__(self, revision: int):
        super().__init__(unchanged_said(revision))
        self.revision = revision


def unchanged_said(revision: int) -> str:
    """The job's warning when the bytes were live already."""
    return (
        f"{UNCHANGED}: the same bytes, read the same way, as revision {revision}, which serves them; "
        "no new revision was made (its questions and approvals stand as they were)"
    )


def person_set(catalog, job, dataset_id: str) -> dict:
    """The columns a person set in the live revision's dataset of this id, by name (retype.person_set)."""
    return retype.person_set(live_typings(catalog.conn(), job.org, job.namespace, job.source_uri, dataset_id))


def carry_into(catalog, settings, job, dataset_id: str, item, options: dict):
    """`item` (a typed extraction of the pipeline) with the live revision's person-set column
    types carried where they still read every value, without a question (retype.carry)."""
    before = person_set(catalog, job, dataset_id)
    if before:
        markers = settings.nulls(options)
        cur = catalog.cursor()
        item.typings = retype.carry(cur, item.relation(cur), item.names, item.typings, before, markers)
    return item
