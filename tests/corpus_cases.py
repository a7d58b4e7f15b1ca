"""What the corpus checks (tests/test_corpus*.py) share: the shared corpus's files we read, and the
one check each file gets (it publishes datasets or fails with a SPEC code, and none hangs). The
files are split by format, and the two largest formats by the project that wrote them, so that no
test file holds a make test worker for long. The default run checks a sample of each project's files
of each format (SAMPLE); make test-long checks every file."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from conftest import CORPUS

import tabular

EXTENSIONS = {"csv", "tsv", "txt", "prn", "xlsx", "xlsm", "ods", "xls", "json", "ndjson", "jsonl", "parquet"}
ERROR_CODES = {"format_unavailable", "encoding", "incomplete_extraction", "revision_conflict", "too_large", "no_text"}
FILES = (
    sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix.lower().lstrip(".") in EXTENSIONS)
    if CORPUS.is_dir()
    else []
)
DELIMITED = (".csv", ".tsv", ".txt", ".prn")
WORKBOOKS = (".xlsx", ".xlsm", ".xls")
# The projects whose XLSX files are a reader's own tests (the rest were written by other tools).
READERS = {"calamine", "fastexcel", "polars", "xlrd"}
# Not a speed claim (bench/ measures speed) and not the hang check either: an ingest is bounded by
# its own time settings and fails with a code when it runs past them. This only keeps a real hang
# from holding the suite forever; 30 s failed on a machine loaded by other work.
SECONDS = 600
outcomes: Counter = Counter()


def project(path: Path) -> str:
    """The corpus project a file comes from (its first folder: calamine, frictionless-py, ...)."""
    return path.relative_to(CORPUS).parts[0]


def chosen(suffixes: tuple[str, ...], projects: set[str] | None = None, but: set[str] = frozenset()) -> list[Path]:
    """The corpus files of these suffixes, from these projects (any when None) and none of `but`."""
    return [
        p
        for p in FILES
        if p.suffix.lower() in suffixes and (projects is None or project(p) in projects) and project(p) not in but
    ]


# The default run checks a sample of the corpus: of each project's files of one suffix (sorted by
# path), the first and every SAMPLE-th after it, so every project and format keeps files in it;
# the rest are marked slow: make test-long checks every file.
SAMPLE = 6


def _sampled() -> set[Path]:
    groups: dict[tuple[str, str], list[Path]] = {}
    for p in FILES:
        groups.setdefault((project(p), p.suffix.lower()), []).append(p)
    return {p for group in groups.values() for p in group[::SAMPLE]}


SAMPLED = _sampled()


def each(files: list[Path]):
    """The parametrize mark of a corpus check over `files`, each named by its path in the corpus;
    a file out of the default run's sample is marked slow."""
    return pytest.mark.parametrize(
        "path",
        [pytest.param(p, id=str(p.relative_to(CORPUS)), marks=() if p in SAMPLED else pytest.mark.slow) for p in files],
    )


absent = pytest.mark.skipif(not FILES, reason=f"the shared corpus is not at {CORPUS}")


@pytest.fixture(scope="module")
def corpus_ns(tmp_path_factory):
    with tabular.connect(str(tmp_path_factory.mktemp("corpus"))) as engine:
        yield engine.namespace("corpus", "files")
    print(f"\ncorpus outcomes: {dict(outcomes)}")


def publishes_or_fails_with_a_code(ns, path: Path) -> None:
    uri = str(path.relative_to(CORPUS))
    uploaded = ns.upload_file(path)
    started = ns.call("knowledge.ingest", {"upload_id": uploaded["upload_id"], "source_uri": uri})
    ns.engine.jobs.wait(started["ingestion_id"], SECONDS)
    status = ns.call("knowledge.ingest_status", {"ingestion_id": started["ingestion_id"]})
    assert status["state"] in ("ready", "failed"), f"still {status['state']} after {SECONDS} s"
    outcomes[(path.suffix.lower(), status["state"] if status["state"] == "ready" else status["error_code"])] += 1
    if status["state"] == "failed":
        assert status["error_code"] in ERROR_CODES and status["error_message"]
        return
    got = ns.dataset_get(uri, sample_rows=3)
    assert got.found and got.datasets
    for dataset in got.datasets:
        assert len({c.name for c in dataset.columns}) == len(dataset.columns)
        assert dataset.rows + dataset.rows_rejected >= len(dataset.sample or [])
