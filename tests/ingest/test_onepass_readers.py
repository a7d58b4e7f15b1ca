"""The one pass's two fast readers, DuckDB's parallel reader and Arrow's stream: lines one reads
otherwise than the other, far past the sample, and the limits that send a file to Arrow's stream;
the file publishes as the careful way publishes it, whichever reader read it."""

from __future__ import annotations

import pytest
from both_ways import CAREFUL, one_pass
from onepass_cases import parser_of

# Lines DuckDB's parallel reader takes otherwise than Arrow's stream (tests/read/test_duckcsv.py),
# far past the sample: the file publishes as the careful way publishes it, whichever reader read it.
PARALLEL_ODD = {
    "blank line": "",
    "trailing blank lines": None,
    "quoted line break": '9999,"two\nlines",x',
    "space before a quote": '9999, "spaced",x',
    "space before an empty quote": '9999, "",x',
    "quoted blank": '9999," ",x',
    "comment": "# exported by hand",
    "row of unicode spaces": "\u3000,\u00a0,\u2003",
}


def odd_cases() -> list:
    """Every odd line with LF and with CRLF: the default run takes each odd line once, the line
    ends in turn (each line end covered); the other half is `make test-long`'s."""
    return [
        pytest.param(odd, newline, id=f"{ident}-{odd}", marks=() if k % 2 == j else (pytest.mark.slow,))
        for k, odd in enumerate(sorted(PARALLEL_ODD))
        for j, (ident, newline) in enumerate((("LF", "\n"), ("CRLF", "\r\n")))
    ]


@pytest.mark.parametrize(("odd", "newline"), odd_cases())
def test_duckdbs_parallel_reader_publishes_what_the_careful_way_does(tmp_path, homes, odd, newline):
    lines = ["id,amount,note", *[f"{i},{i % 7}.5,x{i}" for i in range(1, 3000)]]
    if PARALLEL_ODD[odd] is None:
        lines += ["", ""]
    else:
        lines.insert(2500, PARALLEL_ODD[odd])
    path = tmp_path / "odd.csv"
    path.write_bytes((newline.join(lines) + newline).encode())
    uri = homes.uri()  # the same in every home
    careful = homes.published(path, uri=uri, **CAREFUL)
    parallel = homes.published(path, uri=uri, **one_pass(30))
    stream = homes.published(path, uri=uri, **one_pass(30), parallel_csv=False)
    for seen in (careful, parallel, stream):
        seen.pop("one_pass", None)
    assert parallel == careful and stream == careful


def test_a_line_longer_than_duckdbs_buffer_is_read_by_arrows_stream_alike(tmp_path, homes):
    lines = ["id,amount,note", *[f"{i},{i % 7}.5,x{i}" for i in range(1, 3000)]]
    lines.insert(2500, f"9999,1.5,{'long ' * 2000}")  # 10,000 bytes: past a 4,096-byte buffer's half
    path = tmp_path / "long.csv"
    path.write_text("\n".join(lines) + "\n")
    uri = homes.uri()  # the same in every home
    careful = homes.published(path, uri=uri, **CAREFUL)
    small = homes.published(path, uri=uri, **one_pass(30), parallel_csv_buffer_bytes=4096)
    assert small.pop("one_pass") and not careful.pop("one_pass")
    assert small == careful
    assert parser_of(tmp_path / "p", path, **one_pass(30), parallel_csv_buffer_bytes=4096) == "arrow"


def test_a_table_wider_than_parallel_csv_max_columns_is_read_by_arrows_stream(tmp_path):
    rows = ["a,b,c,d,e", *[f"{i},{i % 97}.5,x{i},2024-01-{i % 28 + 1:02d},{i % 3}" for i in range(1, 3000)]]
    path = tmp_path / "five.csv"
    path.write_text("\n".join(rows) + "\n")
    assert parser_of(tmp_path / "narrow", path, **one_pass(4000), parallel_csv_max_columns=5) == "duckdb"
    assert parser_of(tmp_path / "wide", path, **one_pass(4000), parallel_csv_max_columns=4) == "arrow"
