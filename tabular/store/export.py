"""Snapshots as Parquet: one zstd file per snapshot, row id included, in a directory or at an
object-store URL, each recorded in `catalog.exports` so another engine (ClickHouse) can find it.
A file is named for what it holds, `<org>/<namespace>/<source_uri>/<dataset_id>.<snapshot_id>.parquet`
(each part made safe for a path), and `export_live` writes a `manifest.json` beside them that
says which file is which source's dataset at which revision.

A snapshot never changes, so a file once written serves for good: exporting it again to the
same place is a no-op; exporting it elsewhere writes and records one more copy (the latest is
the one `location_of` answers).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq
from sqlglot import exp

from planner.dialect import DIALECT
from planner.resolved import ROW_ID

from .catalog import export_of, insert, now, serving_snapshots, snapshot_owner, snapshot_table
from .home import Catalog

BATCH_ROWS = 128 * 1024


@dataclass(frozen=True)
class Export:
    snapshot_id: str
    location: str  # a local path, or the URL it was written to
    rows: int
    bytes: int


@dataclass(frozen=True)
class Exported:
    """A line of the manifest: which file holds which dataset."""

    org: str
    namespace: str
    source_uri: str
    revision: int
    dataset_id: str
    snapshot_id: str
    file: str  # relative to the manifest
    location: str
    rows: int
    bytes: int


def _safe(part: str) -> str:
    """One path segment from any text: no separators, no `..`, nothing a file system refuses."""
    part = re.sub(r"[^A-Za-z0-9._ =+-]", "_", part).strip(" ")[:100]
    return "_" if part in ("", ".", "..") else part


def export_name(org: str, namespace: str, source_uri: str, dataset_id: str, snapshot_id: str) -> str:
    """Where a snapshot's file goes under an export folder: named by what it holds, ending in the snapshot id."""
    return "/".join(
        [
            _safe(org),
            _safe(namespace),
            *(_safe(p) for p in source_uri.split("/") if p),
            f"{_safe(dataset_id)}.{snapshot_id}.parquet",
        ]
    )


def destination(catalog: Catalog, configured: str) -> str:
    """Where exports go: the setting, else `exports/` beside the catalog."""
    return configured or str(catalog.exports_dir)


def location_of(catalog: Catalog, snapshot_id: str, location: str | None = None) -> Export | None:
    """The snapshot's latest recorded export (or the one at `location`), or None."""
    row = export_of(catalog.conn(), snapshot_id, location)
    return Export(*row) if row else None


def export_snapshot(catalog: Catalog, snapshot_id: str, where: str) -> Export:
    """Write the snapshot's table (every column and its row id, in row id order) to
    `<where>/<snapshot_id>.parquet`, zstd-compressed, and record it; one already recorded
    there is answered as it is."""
    owner = snapshot_owner(catalog.conn(), snapshot_id)
    if owner is None:
        raise LookupError(f"no snapshot {snapshot_id!r}")
    org, namespace, source_uri, _, dataset_id = owner
    name = export_name(org, namespace, source_uri, dataset_id, snapshot_id)
    fs, base, shown = _filesystem(where)
    target = f"{base.rstrip('/')}/{name}"
    location = target if fs is None else f"{shown.rstrip('/')}/{name}"
    known = location_of(catalog, snapshot_id, location)
    if known is not None:
        return known
    cur = catalog.cursor()
    catalog.attach([snapshot_id])
    columns = cur.execute(
        "SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = ? AND schema_name = 'main' AND table_name = 'data' ORDER BY column_index",
        [snapshot_id],
    ).fetchall()
    if not columns:
        raise LookupError(f"no snapshot table {snapshot_id!r}")
    table = snapshot_table(snapshot_id)
    # A duration has no Parquet type every reader takes: it is written as DuckDB's text of it
    # (the ClickHouse backend refuses duration columns anyway).
    picked = [
        exp.alias_(exp.cast(exp.column(name, quoted=True), "VARCHAR"), name, quoted=True)
        if kind == "INTERVAL"
        else exp.column(name, quoted=True)
        for name, kind in columns
    ]
    sql = exp.select(*picked).from_(table).order_by(exp.column(ROW_ID, quoted=True)).sql(dialect=DIALECT)
    reader = cur.sql(sql).to_arrow_reader(BATCH_ROWS)
    partial = target + ".partial" if fs is None else target
    rows = 0
    if fs is None:
        Path(target).parent.mkdir(parents=True, exist_ok=True)
    else:
        fs.create_dir(target.rsplit("/", 1)[0], recursive=True)
    try:
        with pq.ParquetWriter(partial, reader.schema, compression="zstd", filesystem=fs) as writer:
            for batch in reader:
                writer.write_batch(batch)
                rows += batch.num_rows
            if rows == 0:
                writer.write_table(pa.Table.from_batches([], schema=reader.schema))
        if fs is None:
            os.replace(partial, target)  # a reader never sees half a file
            size = Path(target).stat().st_size
        else:
            size = fs.get_file_info(target).size or 0
        insert(
            catalog.conn(),
            "exports",
            snapshot_id=snapshot_id,
            location=location,
            rows=rows,
            bytes=size,
            exported_at=now(),
        )
    except BaseException:
        # Refused (a full or read-only disk, the catalog's record): no file is left, whole or
        # partial, that no record names (store/faults.py says what the error was).
        _remove(fs, partial, target)
        raise
    return Export(snapshot_id, location, rows, size)


def _remove(fs: pafs.FileSystem | None, *paths: str) -> None:
    """Remove what an export that failed wrote, as far as the disk lets it."""
    for path in dict.fromkeys(paths):
        try:
            if fs is None:
                Path(path).unlink(missing_ok=True)
            else:
                fs.delete_file(path)
        except (OSError, FileNotFoundError):
            pass


def export_live(catalog: Catalog, where: str, org: str | None = None, namespace: str | None = None) -> list[Exported]:
    """Export every snapshot that serves a live revision (of one org / namespace when given),
    and write `manifest.json` at `where` listing them (replaced whole: a reader sees the old or
    the new one)."""
    done = []
    for sid in serving_snapshots(catalog.conn(), org, namespace):
        written = export_snapshot(catalog, sid, where)
        owner = snapshot_owner(catalog.conn(), sid)
        if owner is None:  # dropped since it was listed
            continue
        owner_org, owner_namespace, source_uri, revision, dataset_id = owner
        name = export_name(owner_org, owner_namespace, source_uri, dataset_id, sid)
        done.append(
            Exported(
                owner_org,
                owner_namespace,
                source_uri,
                revision,
                dataset_id,
                sid,
                name,
                written.location,
                written.rows,
                written.bytes,
            )
        )
    manifest = json.dumps(
        {"exported_at": now().isoformat(), "files": [asdict(e) for e in done]}, ensure_ascii=False, indent=2
    )
    fs, base, _ = _filesystem(where)
    if fs is None:
        Path(base).mkdir(parents=True, exist_ok=True)
        partial = Path(base) / "manifest.json.partial"
        try:
            partial.write_text(manifest, encoding="utf-8")
            os.replace(partial, Path(base) / "manifest.json")
        except BaseException:
            _remove(None, str(partial))  # the manifest before stays whole
            raise
    else:
        fs.create_dir(base, recursive=True)
        with fs.open_output_stream(f"{base.rstrip('/')}/manifest.json") as out:
            out.write(manifest.encode("utf-8"))
    return done


def _filesystem(where: str) -> tuple[pafs.FileSystem | None, str, str]:
    """(filesystem or None for a local directory, the path inside it, the location as shown)."""
    if "://" not in where:
        return None, str(Path(where).resolve()), str(Path(where).resolve())
    if where.startswith("file://"):
        local = where[len("file://") :]
        return None, local, local
    fs, path = pafs.FileSystem.from_uri(where)  # s3://, gs://, abfs://, hdfs:// as pyarrow reads them
    return fs, path, where
