"""A regular file in every delimiter and line end is read by DuckDB's parallel reader (Arrow's
stream when it is turned off) and publishes what the careful way publishes."""

from __future__ import annotations

import pytest
from both_ways import CAREFUL, one_pass, published
from onepass_cases import parser_in, parser_of


def cases() -> list:
    """Every delimiter with every line end: the default run takes each delimiter once, the line
    ends in turn (each line end covered); the rest is `make test-long`'s."""
    ends = (("LF", "\n"), ("CRLF", "\r\n"), ("CR", "\r"))
    return [
        pytest.param(d, newline, id=f"{ident}-{d!r}", marks=() if k % len(ends) == j else (pytest.mark.slow,))
        for k, d in enumerate([",", ";", "\t", "|"])
        for j, (ident, newline) in enumerate(ends)
    ]


@pytest.mark.parametrize(("d", "newline"), cases())
def test_a_regular_file_is_read_by_duckdbs_parallel_reader_and_publishes_the_same(tmp_path, d, newline):
    rows = [d.join(["id", "amount", "day", "note"])]
    rows += [
        d.join([str(i), f"{i % 97}.{i % 10}5", f"2024-{i % 12 + 1:02d}-{i % 28 + 1:02d}", f'"n {i}"'])
        for i in range(1, 4000)
    ]
    path = tmp_path / "regular.csv"
    path.write_bytes((newline.join(rows) + newline).encode())
    careful = published(tmp_path / "careful", path, **CAREFUL)
    parallel = published(tmp_path / "parallel", path, **one_pass(4000))
    assert parallel.pop("one_pass") and not careful.pop("one_pass")
    assert parallel == careful
    assert parser_in(tmp_path / "parallel") == "duckdb"  # the home just published, opened again
    assert parser_of(tmp_path / "s", path, **one_pass(4000), parallel_csv=False) == "arrow"
