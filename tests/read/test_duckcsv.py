"""DuckDB's parallel reader gives the cells Arrow's stream gives, or nothing (read/duckcsv.py).

Every check reads one file both ways: Arrow's stream (FastRead.batches, which stops with
Irregular where the careful reader must take over) and DuckDB's read_csv with `regular` and
`complete`. Either DuckDB refuses the file (an error, a stop, a row count short of the lines),
or it gives the very rows and cells Arrow gives and Arrow did not stop.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest
from sqlglot import exp

from tabular.read import duckcsv
from tabular.read.extraction import Irregular, open_fast
from tabular.settings import Settings

SETTINGS = Settings(fast_path_bytes=0)


def arrow_cells(fast) -> list[tuple] | None:
    """Arrow's rows of cells, or None where it stopped for the careful reader."""
    try:
        batches = list(fast.batches())
    except Irregular:
        return None
    table = pa.Table.from_batches(batches, fast.schema).drop_columns(["__row_id", "__line"])
    return [tuple(r.values()) for r in table.to_pylist()]


def duck_cells(fast) -> list[tuple] | None:
    """DuckDB's rows of cells, or None where it refused the file."""
    if fast.lines is None:
        return None
    cells = fast.extraction.cell_columns
    skipped = fast.first_line - 1
    select = (
        exp.select(*[exp.column(c, quoted=True) for c in cells])
        .from_(duckcsv.relation(fast.path, fast.layout, skipped, len(cells)))
        .where(duckcsv.regular(cells))
    )
    try:
        rows = duckdb.connect().execute(select.sql(dialect="duckdb")).fetchall()
    except duckdb.Error:
        return None
    return rows if duckcsv.complete(len(rows), fast.lines, skipped) else None


def both(path: Path) -> tuple[list | None, list | None]:
    fast = open_fast(path, "t", {}, SETTINGS)
    if fast is None:
        return None, None
    try:
        return arrow_cells(fast), duck_cells(fast)
    finally:
        fast.close()


def assert_alike(path: Path) -> tuple[list | None, list | None]:
    arrow, duck = both(path)
    assert duck is None or duck == arrow, path.read_bytes()[:400]
    return arrow, duck


def table(d: str, newline: str, rows: list[list[str]]) -> bytes:
    return newline.join(d.join(r) for r in rows).encode("utf-8") + newline.encode()


BODY = [["id", "name", "amount"], *[[str(i), f"n{i}", f"{i}.5"] for i in range(1, 40)]]


@pytest.mark.parametrize("d", [",", ";", "\t", "|"])
@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_a_regular_file_reads_the_same_cells_in_parallel(tmp_path, d, newline):
    path = tmp_path / "t.csv"
    rows = [*BODY, ["40", '"quoted, with the delimiter"'.replace(",", d), "1"], ["41", '"a ""b"""', "2"]]
    path.write_bytes(table(d, newline, rows))
    arrow, duck = assert_alike(path)
    assert duck is not None and len(duck) == 41  # read in parallel, not refused


# Lines DuckDB's reader takes otherwise than Arrow's stream: each must be refused, or read alike.
ODD_LINES = {
    "blank line": "",
    "blank line of spaces": "   ",
    "row of delimiters": "{d}{d}",
    "row of unicode spaces": "\u3000{d}\u00a0{d}\u2003",
    "comment": "# exported by hand",
    "indented comment": "  # note",
    "quoted line break": '42{d}"two\nlines"{d}3',
    "quoted CR": '42{d}"two\rlines"{d}3',
    "quoted CRLF": '42{d}"two\r\nlines"{d}3',
    "space before a quote": '42{d} "spaced"{d}3',
    "quoted blank": '42{d}" "{d}3',
    "space before an empty quote": '42{d} ""{d}3',
    "short row": "42",
    "long row": "42{d}x{d}3{d}4",
    "unquoted quote inside": '42{d}say "hi" there{d}3',
    "quote then text": '42{d}"ACME" GMBH{d}3',
    "backslash quote": '42{d}"a\\"b"{d}3',
    "tab only": "\t",
    "BOM inside": "42{d}\ufeffx{d}3",
}


def odd_line_cases() -> list:
    """Every odd line, in the middle and last, with every delimiter and line end: the default run
    takes each (odd line, place) once, with the delimiters and line ends in turn (every pair of
    delimiter and line end, every odd line and place covered); the rest is `make test-long`'s."""
    ends = {"LF": "\n", "CRLF": "\r\n", "CR": "\r"}
    combos = [(d, end) for end in ends for d in (",", ";", "\t")]
    cases = []
    for k, (odd, where) in enumerate((odd, where) for odd in sorted(ODD_LINES) for where in ("middle", "last")):
        for j, (d, end) in enumerate(combos):
            marks = () if j == k % len(combos) else (pytest.mark.slow,)
            ident = f"{where}-{odd}-{end}-{d!r}"
            cases.append(pytest.param(d, ends[end], odd, where, id=ident, marks=marks))
    return cases


@pytest.mark.parametrize(("d", "newline", "odd", "where"), odd_line_cases())
def test_a_line_duckdb_reads_otherwise_is_refused_or_read_alike(tmp_path, d, newline, odd, where):
    lines = [d.join(r) for r in BODY]
    line = ODD_LINES[odd].replace("{d}", d)
    lines.insert(20 if where == "middle" else len(lines), line)
    path = tmp_path / "t.csv"
    path.write_bytes((newline.join(lines) + newline).encode("utf-8"))
    assert_alike(path)


@pytest.mark.parametrize("end", ["\n", "\n\n", "\n\n\n", "", "\r\n"])
def test_the_ends_of_a_file_are_refused_or_read_alike(tmp_path, end):
    path = tmp_path / "t.csv"
    path.write_bytes(table(",", "\n", BODY)[:-1] + end.encode())
    assert_alike(path)


@pytest.mark.parametrize("preamble", [["Report 2024"], ["Report 2024", ""], ["# generated", "Report"]])
def test_lines_before_the_header_are_skipped_alike(tmp_path, preamble):
    path = tmp_path / "t.csv"
    path.write_bytes(("\n".join(preamble) + "\n").encode() + table(",", "\n", BODY))
    assert_alike(path)


def test_a_file_with_a_byte_order_mark_is_not_the_fast_readers(tmp_path):
    # decode says utf-8-sig, which the fast reader does not take: no difference between the two
    # readers can reach a dataset. Should the fast path ever take these files, this test must
    # become a comparison of their cells.
    path = tmp_path / "t.csv"
    path.write_bytes(b"\xef\xbb\xbf" + table(",", "\n", BODY))
    assert open_fast(path, "t", {}, SETTINGS) is None


# Cells of noise: mostly what reads plainly, now and then what a reader may take otherwise.
PLAIN = ["a", "b", "7", " ", "é", "x y", "\u00a0", "-"]
RISKY = [",", ";", '"', '""', "\n", "\r\n", "\r", "#", "\t", "  ", "\n\n"]


def random_files_read(tmp_path, seeds: range) -> int:
    """How many of the random files of these seeds DuckDB read, each refused or read alike."""
    read = 0
    for seed in seeds:
        rng = random.Random(seed)
        d = rng.choice([",", ";"])
        lines = [d.join(r) for r in BODY[:10]]
        for _ in range(rng.randint(1, 4)):
            noise = "".join(rng.choice(RISKY if rng.random() < 0.12 else PLAIN) for _ in range(rng.randint(1, 12)))
            if rng.random() < 0.3:
                noise = '"' + noise.replace('"', '""') + '"'
            lines.insert(rng.randint(1, len(lines)), d.join(["1", noise, "2"]))
        path = tmp_path / f"t{seed}.csv"
        path.write_bytes(("\n".join(lines) + rng.choice(["\n", "", "\n\n"])).encode("utf-8"))
        _, duck = assert_alike(path)
        read += duck is not None
    return read


def test_random_files_are_refused_or_read_alike(tmp_path):
    # The first 50 of the 200 seeds below (13 read in parallel when written).
    assert random_files_read(tmp_path, range(50)) >= 8


@pytest.mark.slow
def test_many_random_files_are_refused_or_read_alike(tmp_path):
    assert random_files_read(tmp_path, range(200)) >= 30  # many read in parallel (55 of 200 when written)


def test_a_file_of_regular_rows_is_complete_only_with_every_line():
    assert duckcsv.complete(10, 11, 1)
    assert not duckcsv.complete(9, 11, 1)  # a blank line skipped, or a record over two lines


def test_arrows_stream_stops_at_a_row_of_blank_cells_or_a_hash_but_not_at_one_empty_cell():
    def batch(*rows):
        return pa.RecordBatch.from_pylist([{"c1": a, "c2": b} for a, b in rows])

    assert not duckcsv.irregular_batch(batch(("1", "x"), ("", "y"), (" ", "z")))
    assert duckcsv.irregular_batch(batch(("1", "x"), ("", " \t")))
    assert duckcsv.irregular_batch(batch(("1", "x"), ("\u3000", "")))  # an ideographic space is blank
    assert duckcsv.irregular_batch(batch(("1", "x"), ("  # note", "y")))
    assert not duckcsv.irregular_batch(batch(("a#", ""), ("1", "x")))


def test_telling_a_blank_row_converts_no_python_value_into_arrow():
    # Arrow's first conversion of a Python value imports pandas (0.3 s) where it is installed:
    # the stream's look at every batch must not be what pays it.
    code = (
        "import io, sys, pyarrow as pa, pyarrow.csv as pacsv\n"
        "from tabular.read import duckcsv\n"
        "strings = pacsv.ConvertOptions(column_types={'c1': pa.string(), 'c2': pa.string()}, strings_can_be_null=False)\n"
        "b = pacsv.read_csv(io.BytesIO(b'c1,c2\\n, \\n1,x\\n'), convert_options=strings).to_batches()[0]\n"
        "assert 'pandas' not in sys.modules\n"
        "assert duckcsv.irregular_batch(b)\n"
        "print('pandas' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
