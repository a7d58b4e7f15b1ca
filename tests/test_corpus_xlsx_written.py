"""The shared corpus's XLSX files written by other tools (openpyxl, SheetJS, frictionless-py,
xlsx2csv), and openpyxl's and xlsx2csv's XLSM: each publishes datasets or fails with a SPEC code,
and none hangs."""

from __future__ import annotations

from corpus_cases import (
    READERS,
    absent,
    chosen,
    corpus_ns,  # noqa: F401 - the fixture
    each,
    publishes_or_fails_with_a_code,
)

FILES = chosen((".xlsx",), but=READERS) + chosen((".xlsm",), {"openpyxl", "xlsx2csv"})


@absent
@each(FILES)
def test_corpus_file(corpus_ns, path):
    publishes_or_fails_with_a_code(corpus_ns, path)
