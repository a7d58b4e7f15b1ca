"""The linked folders' rows in the catalog (ingest/links.py keeps them): a link per folder, a
row per file it has seen, by named operations as store/catalog.py holds the rest."""

from __future__ import annotations

import functools
from typing import Any

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


FORGET_FILE = "DELETE FROM catalog.link_files WHERE link_id = ? AND rel_path = ?"


@functools.cache
def _select(columns: tuple[str, ...], table: str, where: str, order: str = "") -> str:
    """A constant SELECT of the link tables, its values bound by `?`: built on first use."""
    from sqlglot import exp  # heavy: sqlglot, for a statement's SQL on first use

    query = exp.select(*columns).from_(exp.table_(table, db="catalog")).where(where, dialect="sqlite")
    return (query.order_by(order, dialect="sqlite") if order else query).sql(dialect="sqlite")


@functools.cache
def _forget() -> tuple[str, ...]:
    """DELETE a link's rows: its files', then its own (link_id bound)."""
    from sqlglot import exp  # heavy: sqlglot, for a statement's SQL on first use

    return tuple(
        exp.delete(exp.table_(table, db="catalog"), where="link_id = ?", dialect="sqlite").sql(dialect="sqlite")
        for table in ("link_files", "links")
    )


def link_row(con: Con, link_id: str) -> Any:
    return one(con, _select(LINK, "links", "link_id = ?"), [link_id])


def links_of(con: Con, org: str | None = None, namespace: str | None = None) -> list[Any]:
    """The links of a namespace (every link when org is None), oldest first."""
    where = "(? IS NULL OR org = ?) AND (? IS NULL OR namespace = ?)"
    return every(con, _select(LINK, "links", where, "created_at, link_id"), [org, org, namespace, namespace])


def link_files(con: Con, link_id: str, state: str | None = None) -> list[Any]:
    where = "link_id = ? AND (? IS NULL OR state = ?)"
    return every(con, _select(LINK_FILE, "link_files", where, "rel_path"), [link_id, state, state])


def forget_link(con: Con, link_id: str) -> None:
    for statement in _forget():
        write(con, statement, [link_id])


def forget_link_file(con: Con, link_id: str, rel_path: str) -> None:
    write(con, FORGET_FILE, [link_id, rel_path])
