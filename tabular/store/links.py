"""The linked folders' rows in the catalog (ingest/links.py keeps them): a link per folder, a
row per file it has seen, by named operations as store/catalog.py holds the rest."""

from __future__ import annotations

from .catalog import every, one, write

LINK = "link_id, org, namespace, path, label, prefix, patterns, recursive, created_at, last_scanned_at, missing, paused"
LINK_FILE = "link_id, rel_path, source_uri, size, mtime_ns, sha256, state, error_code, error_message, revision, ingestion_id, last_ingested_at"


def link_row(con, link_id: str):
    return one(con, f"SELECT {LINK} FROM catalog.links WHERE link_id = ?", [link_id])


def links_of(con, org: str | None = None, namespace: str | None = None) -> list:
    """The links of a namespace (every link when org is None), oldest first."""
    return every(
        con,
        f"SELECT {LINK} FROM catalog.links WHERE (? IS NULL OR org = ?) AND (? IS NULL OR namespace = ?) ORDER BY created_at, link_id",
        [org, org, namespace, namespace],
    )


def link_files(con, link_id: str, state: str | None = None) -> list:
    return every(
        con,
        f"SELECT {LINK_FILE} FROM catalog.link_files WHERE link_id = ? AND (? IS NULL OR state = ?) ORDER BY rel_path",
        [link_id, state, state],
    )


def forget_link(con, link_id: str) -> None:
    for table in ("link_files", "links"):
        write(con, f"DELETE FROM catalog.{table} WHERE link_id = ?", [link_id])


def forget_link_file(con, link_id: str, rel_path: str) -> None:
    write(con, "DELETE FROM catalog.link_files WHERE link_id = ? AND rel_path = ?", [link_id, rel_path])
