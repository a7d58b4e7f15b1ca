"""The linked folders' rows in the catalog (ingest/links.py keeps them): a link per folder, a
row per file it has seen, by named operations as store/catalog.py holds the rest."""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from .catalog import Con, every, one, write

LINK = (
    "link_id",
    "org",
    "namespace",
    "path",
    "label",
    "prefix",
    "patterns",
    "recursive",
    "created_at",
    "last_scanned_at",
    "missing",
    "paused",
)
LINK_FILE = (
    "link_id",
    "rel_path",
    "source_uri",
    "size",
    "mtime_ns",
    "sha256",
    "state",
    "error_code",
    "error_message",
    "revision",
    "ingestion_id",
    "last_ingested_at",
)


def _select(columns: tuple[str, ...], table: str, where: str, order: str = "") -> str:
    """A constant SELECT of the link tables, its values bound by `?`."""
    query = exp.select(*columns).from_(exp.table_(table, db="catalog")).where(where, dialect="sqlite")
    return (query.order_by(order, dialect="sqlite") if order else query).sql(dialect="sqlite")


LINK_BY_ID = _select(LINK, "links", "link_id = ?")
LINKS_OF = _select(LINK, "links", "(? IS NULL OR org = ?) AND (? IS NULL OR namespace = ?)", "created_at, link_id")
FILES_OF = _select(LINK_FILE, "link_files", "link_id = ? AND (? IS NULL OR state = ?)", "rel_path")
FORGET = tuple(
    exp.delete(exp.table_(table, db="catalog"), where="link_id = ?", dialect="sqlite").sql(dialect="sqlite")
    for table in ("link_files", "links")
)
FORGET_FILE = "DELETE FROM catalog.link_files WHERE link_id = ? AND rel_path = ?"


def link_row(con: Con, link_id: str) -> Any:
    return one(con, LINK_BY_ID, [link_id])


def links_of(con: Con, org: str | None = None, namespace: str | None = None) -> list[Any]:
    """The links of a namespace (every link when org is None), oldest first."""
    return every(con, LINKS_OF, [org, org, namespace, namespace])


def link_files(con: Con, link_id: str, state: str | None = None) -> list[Any]:
    return every(con, FILES_OF, [link_id, state, state])


def forget_link(con: Con, link_id: str) -> None:
    for statement in FORGET:
        write(con, statement, [link_id])


def forget_link_file(con: Con, link_id: str, rel_path: str) -> None:
    write(con, FORGET_FILE, [link_id, rel_path])
