"""The fast (Arrow) and careful (csv module) readers give the same extraction, cell for cell."""

import pyarrow.parquet as pq
import pytest
from conftest import CORPUS, CSV

import tabular
from tabular.errors import IngestFailed
from tabular.read.extraction import read_delimited
from tabular.settings import Settings

FILES = sorted(p for p in CSV.iterdir() if p.suffix in (".csv", ".tsv", ".txt", ".gz"))
# The shared corpus, when present, is the harder check: files written by other people.
FILES += (
    sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix.lower() in (".csv", ".tsv", ".txt", ".prn"))
    if CORPUS.is_dir()
    else []
)


def _read(path, folder, fast: bool):
    settings = Settings(fast_path_bytes=0 if fast else 1 << 62)
    out = folder / ("fast.parquet" if fast else "careful.parquet")
    extraction = read_delimited(path, out, path.stem, {}, settings)
    return extraction, pq.read_table(out).to_pylist()


@pytest.mark.parametrize(
    "path", FILES, ids=[str(p.relative_to(CSV if p.is_relative_to(CSV) else CORPUS)) for p in FILES]
)
def test_both_readers_agree(path, tmp_path):
    try:
        careful, careful_rows = _read(path, tmp_path, fast=False)
    except IngestFailed as failure:
        with pytest.raises(IngestFailed) as again:
            _read(path, tmp_path, fast=True)
        assert again.value.error_code == failure.error_code
        return
    fast, fast_rows = _read(path, tmp_path, fast=True)
    assert fast.headers == careful.headers
    assert fast_rows == careful_rows
    assert (fast.rows, fast.excluded, fast.padded_rows) == (careful.rows, careful.excluded, careful.padded_rows)


def test_the_fast_reader_serves_regular_files_and_hands_over_the_rest(tmp_path):
    regular, _ = _read(CSV / "dates_dmy.csv", tmp_path, fast=True)
    assert regular.origin.model_dump().get("parser") == "arrow"
    for irregular in ("ragged.csv", "preamble.csv", "quoted_newlines.csv", "latin1.csv"):
        extraction, _ = _read(CSV / irregular, tmp_path, fast=True)
        assert extraction.origin.model_dump().get("parser") == "csv", irregular  # the csv module


def test_quotes_escaped_with_a_backslash_are_read_as_quotes(tmp_path):
    # Some exports write a quote inside a quoted cell as \" (not RFC 4180's ""): read as one cell
    # each, not as stray backslashes with the columns shifted.
    text = (
        '"#","Title","Producer","Length"\n'
        '"1","\\"Likwit\\"","E-Swift, Tha Alkaholiks","2:34"\n'
        '"2","\\"Only When I\'m Drunk\\"","E-Swift","3:36"\n'
        '"3","\\"Last Call\\"","E-Swift, King Tee","4:37"\n'
    )
    (tmp_path / "t.csv").write_text(text, encoding="utf-8")
    with tabular.connect(str(tmp_path / "home")) as engine:
        ns = engine.namespace("acme", "esc")
        assert ns.ingest_file(tmp_path / "t.csv", source_uri="t.csv").state == "ready"
        got = ns.query(
            {"datasets": [{"source_uri": "t.csv"}], "select": [{"column": "Title"}, {"column": "Producer"}]}
        ).rows
    assert got == [
        ['"Likwit"', "E-Swift, Tha Alkaholiks"],
        ['"Only When I\'m Drunk"', "E-Swift"],
        ['"Last Call"', "E-Swift, King Tee"],
    ]


def test_a_backslash_that_escapes_no_quote_is_kept(tmp_path):
    text = 'path,size\n"C:\\temp\\a.txt",1\n"D:\\data\\b.csv",2\n'
    (tmp_path / "p.csv").write_text(text, encoding="utf-8")
    with tabular.connect(str(tmp_path / "home")) as engine:
        ns = engine.namespace("acme", "esc")
        assert ns.ingest_file(tmp_path / "p.csv", source_uri="p.csv").state == "ready"
        got = ns.query({"datasets": [{"source_uri": "p.csv"}], "select": [{"column": "path"}]}).rows
    assert got == [["C:\\temp\\a.txt"], ["D:\\data\\b.csv"]]


@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize(
    ("delimiter", "where", "value"),
    [(",", 0.6, "na\x00me"), (";", 0.99, "\x00lead"), ("\t", 0.75, "trail\x00"), ("|", 0.9, "a\x00b\x00c")],
)
def test_a_nul_past_the_head_is_taken_out_and_named_as_one_in_it_is(tmp_path, fast, delimiter, where, value):
    """A NUL inside a value past the head the reader sniffs was kept in the value without a
    word, where one in the head was taken out with a warning naming its line."""
    rows = 60_000  # past sniff_bytes (256 KiB)
    odd = int(rows * where)
    lines = [f"id{delimiter}name{delimiter}v"] + [
        f"{i}{delimiter}{value if i == odd else f'name{i}'}{delimiter}{i % 97}" for i in range(1, rows + 1)
    ]
    path = tmp_path / "nul.csv"
    path.write_text("\n".join(lines) + "\n")
    assert path.stat().st_size > Settings().sniff_bytes and "\x00" not in path.read_text()[: Settings().sniff_bytes]
    extraction, got = _read(path, tmp_path, fast)
    cells = [v for r in got for v in r.values()]
    assert value.replace("\x00", "") in cells and not any("\x00" in str(v) for v in cells)
    assert any(f"line {odd + 1})" in note and "NUL" in note for note in extraction.notes)
