"""A file ingested the careful way and through the one pass, as a user sees each: shared by the
one pass's tests (tests/ingest/test_onepass*.py) and the corpus check (tests/test_corpus*.py)."""

from __future__ import annotations

from pathlib import Path

import tabular

CAREFUL = {"fast_path_bytes": 1 << 40}


def one_pass(sample_cells: int) -> dict:
    return {"fast_path_bytes": 0, "typing_sample_cells": sample_cells}


def published(home: Path, path: Path, options: dict | None = None, **config) -> dict:
    """What a user sees of the file once ingested: status, dataset, and every row."""
    with tabular.connect(str(home), **config) as engine:
        return seen(engine.namespace("acme", "one"), path, "f", options)


def seen(ns, path: Path, uri: str, options: dict | None = None) -> dict:
    """The file ingested as `uri` in `ns`, and what a user sees of it: status, dataset (without
    what differs between two ingests of the same bytes: ids, times, the parser), every row."""
    status = ns.ingest_file(path, source_uri=uri, **({"options": options} if options else {}))
    out = {"state": status.state, "error_code": status.error_code}
    if status.state != "ready":
        return out
    (dataset,) = ns.dataset_get(uri).datasets
    shown = dataset.model_dump(mode="json")
    for key in ("snapshot_id", "approved_at", "sample", "sample_row_ids"):
        shown.pop(key, None)
    shown["origin"].pop("parser", None)
    out["one_pass"] = shown["origin"].pop("one_pass", False)
    shown["rejected"] = sorted((r["row_id"], r["column"] or "", r["value"] or "") for r in shown["rejected"])
    answer = ns.query({"datasets": [{"source_uri": uri}], "limit": 10_000})
    out["dataset"] = shown
    out["rows"] = [list(r) for r in answer.rows]
    out["row_ids"] = answer.row_ids
    return out
