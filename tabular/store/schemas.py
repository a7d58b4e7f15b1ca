"""The schemas a plan is checked against: a source's live datasets as the planner sees them
(planner.schema: columns with type, physical type, uniqueness, open questions and integer
digits), cached by the catalog until its generation changes."""

from __future__ import annotations

import json
import threading
import weakref
from typing import Any

from planner.schema import ColumnInfo, DatasetInfo

from ..models import QuestionOut
from .catalog import live_datasets, live_source_uris
from .home import Catalog

# Per open home (let go with it): the live datasets by (generation, org, namespace, source).
_CACHES: weakref.WeakKeyDictionary[Catalog, dict[tuple[int, str, str, str], list[DatasetInfo]]] = (
    weakref.WeakKeyDictionary()
)
_CACHES_LOCK = threading.Lock()
# Past this many entries a home's cache starts again (old generations are never asked again).
CACHED_MAX = 10_000


def live_schemas(catalog: Catalog, org: str, namespace: str, source_uri: str) -> list[DatasetInfo]:
    """The live datasets of a source, cached by the catalog until its generation changes."""
    with _CACHES_LOCK:
        cache = _CACHES.setdefault(catalog, {})
    key = (catalog.rows.generation, org, namespace, source_uri)
    cached = cache.get(key)
    if cached is None:
        cached = _load(catalog, org, namespace, source_uri)
        if len(cache) > CACHED_MAX:
            cache.clear()
        cache[key] = cached
    return cached


def _load(catalog: Catalog, org: str, namespace: str, source_uri: str) -> list[DatasetInfo]:
    out = []
    for d in live_datasets(catalog.conn(), org, namespace, source_uri):
        questions = [QuestionOut.model_validate(q) for q in json.loads(d["questions"])]
        asked: dict[str, list[str]] = {}
        for q in questions:
            asked.setdefault(q.column, []).append(q.kind)
        cols = tuple(
            ColumnInfo(
                c["name"], c["type"], c["physical"], bool(c["unique"]), tuple(asked.get(c["name"], ())), _digits(c)
            )
            for c in json.loads(d["columns"])
        )
        snapshot_id = d["live_snapshot"]
        out.append(
            DatasetInfo(
                source_uri,
                d["dataset_id"],
                snapshot_id,
                d["revision"],
                (snapshot_id, "main", "data"),
                d["rows"],
                d["rows_rejected"],
                d["state"] == "partial",
                cols,
            )
        )
    return out


def _digits(column: dict[str, Any]) -> int | None:
    """How many digits an integer column's values have at most, from its stored min and max."""
    if column["physical"] not in ("BIGINT", "HUGEINT"):
        return None
    try:
        ends = [abs(int(column[k])) for k in ("min", "max") if column.get(k) is not None]
    except (TypeError, ValueError):
        return None
    return len(str(max(ends))) if ends else 1


def known_sources(catalog: Catalog, org: str, namespace: str) -> list[str]:
    """Every live source of a namespace (the names a misspelled source_uri is matched against)."""
    return live_source_uris(catalog.conn(), org, namespace)
