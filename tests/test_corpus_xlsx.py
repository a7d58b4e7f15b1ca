"""The shared corpus's XLSX and XLSM files from the readers' own test suites (calamine, fastexcel,
polars, xlrd): each publishes datasets or fails with a SPEC code, and none hangs."""

from __future__ import annotations

from corpus_cases import (
    READERS,
    absent,
    chosen,
    corpus_ns,  # noqa: F401 - the fixture
    each,
    publishes_or_fails_with_a_code,
)

FILES = chosen((".xlsx", ".xlsm"), READERS)


@absent
@each(FILES)
def test_corpus_file(corpus_ns, path):
    publishes_or_fails_with_a_code(corpus_ns, path)
