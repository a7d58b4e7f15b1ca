"""Every file of the shared corpus we read (delimited text, spreadsheets, JSON, Parquet) publishes
datasets or fails with a SPEC code, and none hangs: here frictionless-py's delimited text; the
other formats and projects in tests/test_corpus_*.py (tests/corpus_cases.py says how they are
split, and which sample of them the default run checks; make test-long checks every file). Under
-m slow, every workbook through the fast reader and every delimited file through the one pass too."""

from __future__ import annotations

import pytest
from both_ways import CAREFUL, one_pass, published
from corpus_cases import (
    DELIMITED,
    ERROR_CODES,
    SECONDS,
    WORKBOOKS,
    absent,
    chosen,
    corpus_ns,  # noqa: F401 - the fixture
    each,
    publishes_or_fails_with_a_code,
)

import tabular


@absent
@each(chosen(DELIMITED, {"frictionless-py"}))
def test_corpus_file(corpus_ns, path):
    publishes_or_fails_with_a_code(corpus_ns, path)


@pytest.fixture(scope="module")
def fast_ns(tmp_path_factory):
    with tabular.connect(str(tmp_path_factory.mktemp("corpus-fast")), sheet_fast_bytes=0) as engine:
        yield engine.namespace("corpus", "fast")


@pytest.mark.slow  # every workbook a second time (~1 min): the default run keeps the fixtures' fast-reader check
@absent
@each(chosen(WORKBOOKS))
def test_corpus_workbook_through_the_fast_reader(fast_ns, path):
    """The fast reader serves large workbooks; every corpus workbook goes through it too."""
    uploaded = fast_ns.upload_file(path)
    started = fast_ns.call("knowledge.ingest", {"upload_id": uploaded["upload_id"], "source_uri": path.name})
    fast_ns.engine.jobs.wait(started["ingestion_id"], SECONDS)
    status = fast_ns.call("knowledge.ingest_status", {"ingestion_id": started["ingestion_id"]})
    assert status["state"] in ("ready", "failed"), f"still {status['state']} after {SECONDS} s"
    if status["state"] == "failed":
        assert status["error_code"] in ERROR_CODES and status["error_message"]


@pytest.mark.slow
@absent
@each(chosen(DELIMITED))
def test_corpus_delimited_file_publishes_the_same_through_the_one_pass(tmp_path, path):
    """Files other people wrote, typed on a sample of 50 cells and stored in one guarded pass,
    come out as the careful way makes them: types, questions, statistics, rejects, every value.
    (Measured when written: 225 of 225 alike, 139 of them in one pass.)"""
    careful = published(tmp_path / "careful", path, **CAREFUL)
    fast = published(tmp_path / "fast", path, **one_pass(50))
    careful.pop("one_pass", None), fast.pop("one_pass", None)
    assert fast == careful


@absent
def test_the_corpus_files_are_split_among_the_test_files_each_once():
    """Every corpus file of a format we read is checked by exactly one tests/test_corpus*.py: a new
    project or extension is not left out of the split without a word."""
    import test_corpus_delimited
    import test_corpus_ods
    import test_corpus_xls
    import test_corpus_xlsx
    import test_corpus_xlsx_written
    from corpus_cases import FILES

    split = chosen(DELIMITED, {"frictionless-py"}) + [
        path
        for module in (
            test_corpus_delimited,
            test_corpus_ods,
            test_corpus_xls,
            test_corpus_xlsx,
            test_corpus_xlsx_written,
        )
        for path in module.FILES
    ]
    assert sorted(split) == sorted(FILES)
