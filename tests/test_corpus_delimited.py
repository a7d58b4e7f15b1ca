"""The shared corpus's delimited text from every project but frictionless-py (tests/test_corpus.py
holds that one's): each file publishes datasets or fails with a SPEC code, and none hangs."""

from __future__ import annotations

from corpus_cases import (
    DELIMITED,
    absent,
    chosen,
    corpus_ns,  # noqa: F401 - the fixture
    each,
    publishes_or_fails_with_a_code,
)

FILES = chosen(DELIMITED, but={"frictionless-py"})


@absent
@each(FILES)
def test_corpus_file(corpus_ns, path):
    publishes_or_fails_with_a_code(corpus_ns, path)
