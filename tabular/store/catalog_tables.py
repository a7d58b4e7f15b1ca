"""The catalog's tables: their schema (one SQLite file, attached to every connection as
`catalog`), the column types read back as datetimes and flags, and the tables' order for a copy.
What is asked of them and written to them is catalog.py's."""

from __future__ import annotations

import datetime as dt
import sqlite3

# SQLite column types the catalog's converters read back: SCHEMA's columns of these types come
# back as datetimes and bools (module-wide names no one else uses).
TIME, FLAG = "tabular_time", "tabular_flag"


def _read_time(raw: bytes) -> dt.datetime:
    return dt.datetime.fromisoformat(raw.decode())


sqlite3.register_converter(TIME, _read_time)
sqlite3.register_converter(FLAG, lambda raw: raw not in (b"0", b""))


SCHEMA = """
CREATE TABLE IF NOT EXISTS catalog.uploads (
  upload_id TEXT, org TEXT, namespace TEXT, filename TEXT, bytes INTEGER,
  sha256 TEXT, content_type TEXT, path TEXT, created_at tabular_time);
CREATE TABLE IF NOT EXISTS catalog.jobs (
  ingestion_id TEXT PRIMARY KEY, org TEXT, namespace TEXT, source_uri TEXT, upload_id TEXT,
  state TEXT, stage TEXT, attempts INTEGER, error_code TEXT, error_message TEXT,
  format TEXT, coverage JSON, warnings JSON, revision INTEGER, expected_revision INTEGER,
  filename TEXT, progress JSON, cancel_requested tabular_flag, request JSON,
  created_at tabular_time, updated_at tabular_time, idempotency_key TEXT, owner TEXT);
CREATE INDEX IF NOT EXISTS catalog.jobs_state ON jobs (state);
CREATE TABLE IF NOT EXISTS catalog.sources (
  org TEXT, namespace TEXT, source_uri TEXT, live_revision INTEGER, last_revision INTEGER,
  title TEXT, description TEXT, tags JSON, metadata JSON,
  created_at tabular_time, updated_at tabular_time, PRIMARY KEY (org, namespace, source_uri));
CREATE TABLE IF NOT EXISTS catalog.revisions (
  org TEXT, namespace TEXT, source_uri TEXT, revision INTEGER, upload_id TEXT,
  filename TEXT, format TEXT, parser TEXT, coverage JSON, warnings JSON,
  extraction_dir TEXT, ingested_at tabular_time, state TEXT, PRIMARY KEY (org, namespace, source_uri, revision));
CREATE TABLE IF NOT EXISTS catalog.datasets (
  org TEXT, namespace TEXT, source_uri TEXT, revision INTEGER, dataset_id TEXT,
  name TEXT, idx INTEGER, extraction TEXT, headers JSON, names JSON, rows INTEGER,
  origin JSON, warnings JSON, options JSON, live_snapshot TEXT,
  PRIMARY KEY (org, namespace, source_uri, revision, dataset_id));
CREATE TABLE IF NOT EXISTS catalog.snapshots (
  snapshot_id TEXT PRIMARY KEY, org TEXT, namespace TEXT, source_uri TEXT, revision INTEGER,
  dataset_id TEXT, rows INTEGER, rows_rejected INTEGER, columns JSON, questions JSON,
  approved tabular_flag, approved_at tabular_time, approved_by TEXT, created_at tabular_time);
CREATE INDEX IF NOT EXISTS catalog.snapshots_source ON snapshots (org, namespace, source_uri);
CREATE TABLE IF NOT EXISTS catalog.typings (snapshot_id TEXT PRIMARY KEY, typings JSON);
CREATE TABLE IF NOT EXISTS catalog.approvals (
  org TEXT, namespace TEXT, source_uri TEXT, revision INTEGER, dataset_id TEXT,
  old_snapshot TEXT, new_snapshot TEXT, approved_by TEXT, approved_at tabular_time,
  retyped tabular_flag, changes JSON, settled JSON);
CREATE TABLE IF NOT EXISTS catalog.deletions (
  org TEXT, namespace TEXT, source_uri TEXT, revision INTEGER, deleted_at tabular_time,
  deleted_by TEXT, restored_at tabular_time);
CREATE TABLE IF NOT EXISTS catalog.exports (
  snapshot_id TEXT, location TEXT, rows INTEGER, bytes INTEGER, exported_at tabular_time);
CREATE TABLE IF NOT EXISTS catalog.dropped (snapshot_id TEXT PRIMARY KEY, dropped_at tabular_time);
CREATE TABLE IF NOT EXISTS catalog.links (
  link_id TEXT PRIMARY KEY, org TEXT, namespace TEXT, path TEXT, label TEXT, prefix TEXT,
  patterns JSON, recursive tabular_flag, created_at tabular_time, last_scanned_at tabular_time, missing tabular_flag, paused JSON);
CREATE TABLE IF NOT EXISTS catalog.link_files (
  link_id TEXT, rel_path TEXT, source_uri TEXT, size INTEGER, mtime_ns INTEGER, sha256 TEXT,
  state TEXT, error_code TEXT, error_message TEXT, revision INTEGER, ingestion_id TEXT,
  last_ingested_at tabular_time, PRIMARY KEY (link_id, rel_path));
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
