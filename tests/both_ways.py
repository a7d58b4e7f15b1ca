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
        ns = engine.namespace("acme", "one")
        status = ns.ingest_file(path, source_uri="f", **({"options": options} if options else {}))
        out = {"state": status.state, "error_code": status.error_code}
        if status.state != "ready":
            return out
        (dataset,) = ns.dataset_get("f").datasets
        seen = dataset.model_dump(mode="json")
        for key in ("snapshot_id", "approved_at", "sample", "sample_row_ids"):
            seen.pop(key, None)
        seen["origin"].pop("parser", None)
        out["one_pass"] = seen["origin"].pop("one_pass", False)
        seen["rejected"] = sorted((r["row_id"], r["column"] or "", r["value"] or "") for r in seen["rejected"])
        answer = ns.query({"datasets": [{"source_uri": "f"}], "limit": 10_000})
        out["dataset"] = seen
        out["rows"] = [list(r) for r in answer.rows]
        out["row_ids"] = answer.row_ids
        return out
