"""Snapshots kept per dataset (SPEC §5 `snapshots_kept`): older ones are dropped, never one that
serves."""

from __future__ import annotations

from .catalog import Con, drop_snapshot, live_datasets, snapshots_past


def serving(cur: Con, org: str, namespace: str, source_uri: str) -> set[str]:
    """The snapshots serving the live revision. (A deleted revision loses none meanwhile: only a
    publish or an approval of the same source prunes, and either makes a revision live.)"""
    return {d["live_snapshot"] for d in live_datasets(cur, org, namespace, source_uri)}


def prune(cur: Con, org: str, namespace: str, source_uri: str, kept: int) -> list[str]:
    """Drop each dataset's snapshots past the newest `kept`, inside the caller's catalog
    transaction. Their files go later (Catalog.collect), once no reader can still be on them."""
    keep = serving(cur, org, namespace, source_uri)
    dropped = [s for s in snapshots_past(cur, org, namespace, source_uri, max(kept, 1)) if s not in keep]
    for snapshot_id in dropped:
        drop_snapshot(cur, snapshot_id)  # export files: Catalog.sweep
    return dropped
