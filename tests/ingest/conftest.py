"""Homes the one pass's tests (test_onepass*.py, test_guards.py) share within a module: one home
per configuration, opened once, each file ingested under a source uri of its own. A file seen
the careful way and through the one pass is then two ingests, not also two homes made and
closed as with tests/both_ways.py's `published` (test_onepass_edges.py: a sixth less CPU, a
quarter less time)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from both_ways import CAREFUL, one_pass

import tabular

# Homes open at once: a module whose files each take a sample of their own (the random columns')
# closes the one used longest ago.
OPEN_HOMES = 6


class Homes:
    def __init__(self, root: Path):
        self.root = root
        self.engines: dict[tuple, tabular.Engine] = {}
        self.names = itertools.count(1)
        self.made = itertools.count(1)

    def uri(self) -> str:
        """A source uri no file of these homes has had."""
        return f"f{next(self.names)}"

    def published(self, path: Path, options: dict | None = None, uri: str | None = None, **config) -> dict:
        """What a user sees of the file once ingested as `uri` (a new one unless given), as
        tests/both_ways.py's `published` says it, in the home of this configuration."""
        key = tuple(sorted(config.items()))
        if key not in self.engines:
            if len(self.engines) >= OPEN_HOMES:  # the one used longest ago is closed
                self.engines.pop(next(iter(self.engines))).close()
            self.engines[key] = tabular.connect(str(self.root / f"home{next(self.made)}"), **config)
        self.engines[key] = self.engines.pop(key)  # the last used, last
        ns = self.engines[key].namespace("acme", "one")
        uri = uri or self.uri()
        status = ns.ingest_file(path, source_uri=uri, **({"options": options} if options else {}))
        out = {"state": status.state, "error_code": status.error_code}
        if status.state != "ready":
            return out
        (dataset,) = ns.dataset_get(uri).datasets
        seen = dataset.model_dump(mode="json")
        for key in ("snapshot_id", "approved_at", "sample", "sample_row_ids"):
            seen.pop(key, None)
        seen["origin"].pop("parser", None)
        out["one_pass"] = seen["origin"].pop("one_pass", False)
        seen["rejected"] = sorted((r["row_id"], r["column"] or "", r["value"] or "") for r in seen["rejected"])
        answer = ns.query({"datasets": [{"source_uri": uri}], "limit": 10_000})
        out["dataset"] = seen
        out["rows"] = [list(r) for r in answer.rows]
        out["row_ids"] = answer.row_ids
        return out

    def same(self, path: Path, sample_cells: int) -> dict:
        """tests/onepass_cases.py's `assert_same` in these homes: the file published the careful
        way and through the one pass with a sample of `sample_cells` cells is the same."""
        uri = self.uri()  # the same in both homes, as the file's name is
        careful = self.published(path, uri=uri, **CAREFUL)
        fast = self.published(path, uri=uri, **one_pass(sample_cells))
        assert not careful.pop("one_pass", False)
        took_one_pass = fast.pop("one_pass", False)
        assert fast == careful
        return {**careful, "one_pass": took_one_pass}

    def close(self) -> None:
        for engine in self.engines.values():
            engine.close()


@pytest.fixture(scope="module")
def homes(tmp_path_factory):
    shared = Homes(tmp_path_factory.mktemp("homes"))
    try:
        yield shared
    finally:
        shared.close()
