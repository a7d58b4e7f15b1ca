"""The shared corpus's ODS files, SheetJS's XLSM, and any JSON or Parquet: each publishes datasets or
fails with a SPEC code, and none hangs."""

from __future__ import annotations

from corpus_cases import (
    absent,
    chosen,
    corpus_ns,  # noqa: F401 - the fixture
    each,
    publishes_or_fails_with_a_code,
)

FILES = chosen((".ods", ".json", ".ndjson", ".jsonl", ".parquet")) + chosen((".xlsm",), {"sheetjs-test_files"})


@absent
@each(FILES)
def test_corpus_file(corpus_ns, path):
    publishes_or_fails_with_a_code(corpus_ns, path)
