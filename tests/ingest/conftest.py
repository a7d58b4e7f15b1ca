"""Homes the one pass's tests (test_onepass*.py, test_guards.py) share within a module: one home
per configuration, opened once, each file ingested under a source uri of its own. A file seen
the careful way and through the one pass is then two ingests, not also two homes made and
closed as with tests/both_ways.py's `published` (test_onepass_edges.py: a sixth less CPU, a
quarter less time)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from both_ways import CAREFUL, one_pass, seen

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
        tests/both_ways.py's `seen` says it, in the home of this configuration."""
        key = tuple(sorted(config.items()))
        if key not in self.engines:
            if len(self.engines) >= OPEN_HOMES:  # the one used longest ago is closed
                self.engines.pop(next(iter(self.engines))).close()
            self.engines[key] = tabular.connect(str(self.root / f"home{next(self.made)}"), **config)
        self.engines[key] = self.engines.pop(key)  # the last used, last
        return seen(self.engines[key].namespace("acme", "one"), path, uri or self.uri(), options)

    def same(self, path: Path, sample_cells: int) -> dict:
        """The file published the careful way and through the one pass with a sample of
        `sample_cells` cells is the same (asserted), and what it is, with whether the one pass took it."""
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
