"""The one pass publishes what the careful way publishes (tests/ingest/test_onepass.py) for every
CSV fixture, with a sample of one row."""

from __future__ import annotations

import pytest
from conftest import CSV

from tabular.read.extraction import open_fast
from tabular.settings import Settings

FIXTURES = sorted(p for p in CSV.iterdir() if p.suffix in (".csv", ".tsv", ".txt"))

# Fixtures the fast reader hands to the csv module (other encodings, a BOM, a container, ragged
# rows, a preamble, line breaks in quotes) never reach the one pass: both homes read them the
# careful way. The default run takes one of them; `make test-long` takes them all.
HANDED_OVER = {
    "cp1252.csv",
    "latin1.csv",
    "preamble.csv",
    "quoted_newlines.csv",
    "ragged.csv",
    "shift_jis.csv",
    "utf16.csv",
    "utf16be.csv",
    "utf8_bom.csv",
    "zipped_as_csv.csv",
}
REFUSED = {"binary.csv", "empty.csv"}  # by either reader
DEFAULT_HANDED_OVER = "latin1.csv"


def fixture_cases() -> list:
    return [
        pytest.param(p, id=p.name, marks=(pytest.mark.slow,) if p.name in HANDED_OVER - {DEFAULT_HANDED_OVER} else ())
        for p in FIXTURES
    ]


@pytest.mark.parametrize("path", fixture_cases())
def test_every_csv_fixture_publishes_the_same_through_the_one_pass(tmp_path, homes, path):
    # A sample of one row: nearly every column's typing must be checked past it.
    homes.same(path, 1)


def test_the_fixtures_the_default_run_leaves_out_are_those_the_fast_reader_hands_over():
    settings = Settings(fast_path_bytes=0)
    for path in (p for p in FIXTURES if p.name not in REFUSED):
        fast = open_fast(path, path.stem, {}, settings)
        if fast is not None:
            fast.close()
        assert (fast is None) is (path.name in HANDED_OVER), path.name
