"""The one pass publishes what the careful way publishes (tests/ingest/test_onepass.py) for every
CSV fixture, with a sample of one row."""

from __future__ import annotations

import pytest
from conftest import CSV
from onepass_cases import assert_same

FIXTURES = sorted(p for p in CSV.iterdir() if p.suffix in (".csv", ".tsv", ".txt"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_every_csv_fixture_publishes_the_same_through_the_one_pass(tmp_path, path):
    # A sample of one row: nearly every column's typing must be checked past it.
    assert_same(tmp_path, path, 1)
