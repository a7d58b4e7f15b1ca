"""Snapshots kept per dataset (SPEC §5 `snapshots_kept`): older ones are dropped, never one that
serves."""

from __future__ import annotations

from .catalog import insert, live_datasets, now


def serving(cur, org: str, namespace: str, source_uri: str) -> set[str]:
    """The snapshots serving the live revision. (A deleted revision loses none meanwhile: only a
    publish or an approval of the same source prunes, and either makes a revision live.)"""
    return {snapshot_id for _, snapshot_id in live_datasets(cur, org, namespace, source_uri)}


def prune(cur, org: str, namespace: str, source_uri: str, kept: int) -> list[str]:
    """Drop each dataset's snapshots past the newest `kept`, inside the caller's catalog
    transaction. Their files go later (Catalog.collect), once no reader can still be on them."""
    keep = serving(cur, org, namespace, source_uri)
    rows = cur.execute(
        "SELECT snapshot_id FROM (SELECT snapshot_id, row_number() OVER (PARTITION BY dataset_id ORDER BY created_at DESC, snapshot_id) AS k"
        " FROM catalog.snapshots WHERE org = ? AND namespace = ? AND source_uri = ?) WHERE k > ?",
        [org, namespace, source_uri, max(kept, 1)],
    ).fetchall()
    dropped = [r[0] for r in rows if r[0] not in keep]
    stamp = now()
    for snapshot_id in dropped:
        for table in ("snapshots", "typings", "exports"):  # export files: Catalog.sweep
            cur.execute(f"DELETE FROM catalog.{table} WHERE snapshot_id = ?", [snapshot_id])
        insert(cur, "dropped", snapshot_id=snapshot_id, dropped_at=stamp)
    return dropped
