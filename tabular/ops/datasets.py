"""knowledge.dataset_get: the live datasets of a source, their columns, questions and rejects."""

from __future__ import annotations

import json

from sqlglot import exp

from planner.dialect import DIALECT

from ..backends.base import home_backend
from ..errors import close_names
from ..models import DatasetGetIn, DatasetGetOut, DatasetOut, RejectedOut
from ..store.catalog import rejected_table, revision_datasets, revision_row, snapshot_table, source_row
from .addresses import addressed
from .context import Context, close_sources

REJECTED_SHOWN = 20
SAMPLED_DATASETS = 20


def live_revision(ctx: Context, org: str, namespace: str, source_uri: str) -> int | None:
    row = source_row(ctx.catalog.conn(), org, namespace, source_uri)
    return row["live_revision"] if row else None


def dataset_get(ctx: Context, body: DatasetGetIn) -> DatasetGetOut:
    """The typed datasets of a source's live revision: columns with stats, questions to answer, rejected rows, a sample. A source_uri `source#dataset` names one dataset (a workbook's table by its name)."""
    body = addressed(ctx, body)
    revision = live_revision(ctx, body.org, body.namespace, body.source_uri)
    if revision is None:
        return DatasetGetOut(
            found=False, did_you_mean=close_sources(ctx, body.org, body.namespace, body.source_uri, live=True)
        )
    con = ctx.catalog.conn()
    state = revision_row(con, body.org, body.namespace, body.source_uri, revision)["state"]
    rows = revision_datasets(con, body.org, body.namespace, body.source_uri, revision, body.dataset_id)
    if not rows:
        ids = [r["dataset_id"] for r in revision_datasets(con, body.org, body.namespace, body.source_uri, revision)]
        return DatasetGetOut(
            found=False, revision=revision, did_you_mean=close_names(body.dataset_id or "", ids) or ids[:3]
        )
    ctx.catalog.attach([r[3] for r in rows])
    cur = ctx.catalog.reader()
    out = []
    for k, row in enumerate(rows):
        (
            dataset_id,
            name,
            idx,
            snapshot_id,
            origin,
            headers,
            warnings,
            extracted,
            kept,
            rejected_count,
            columns,
            questions,
            approved,
            approved_at,
            approved_by,
        ) = row
        columns = json.loads(columns)
        rejected = cur.execute(
            exp.select("row_id", "line", "column_name", "value", "reason")
            .from_(rejected_table(snapshot_id))
            .order_by("row_id", "column_name", dialect=DIALECT)
            .limit(exp.Placeholder())
            .sql(dialect=DIALECT),
            [REJECTED_SHOWN],
        ).fetchall()
        dataset = DatasetOut(
            dataset_id=dataset_id,
            name=name,
            index=idx,
            snapshot_id=snapshot_id,
            revision=revision,
            origin=json.loads(origin),
            rows=kept,
            rows_rejected=rejected_count,
            complete=rejected_count == 0 and state != "partial",
            columns=columns,
            questions=json.loads(questions),
            rejected=[RejectedOut(row_id=r[0], line=r[1], column=r[2], value=r[3], reason=r[4]) for r in rejected],
            warnings=json.loads(warnings),
            approved=approved,
            approved_at=approved_at.isoformat() if approved_at else None,
            approved_by=approved_by,
        )
        if body.sample_rows and k < SAMPLED_DATASETS:
            dataset.sample, dataset.sample_row_ids = home_backend(ctx.catalog, ctx.settings).first_rows(
                cur, snapshot_table(snapshot_id), [c["name"] for c in columns], body.sample_rows
            )
        out.append(dataset)
    return DatasetGetOut(found=True, revision=revision, datasets=out)
