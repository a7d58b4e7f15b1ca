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


def _read(path, folder, fast: bool, **config):
    settings = Settings(fast_path_bytes=0 if fast else 1 << 62, **config)
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


# The file of the NUL check and the settings it is read with: the default run reads 4,000 rows
# with the head, blocks and chunks a sixteenth of their size (the same reads, a sixteenth of the
# bytes); `make test-long` reads 60,000 rows with the settings as they are.
SMALL = {"sniff_bytes": 16 * 1024, "csv_block_bytes": 64 * 1024, "csv_chunk_rows": 6_250}
NUL_SIZES = [pytest.param(4_000, SMALL, id="small"), pytest.param(60_000, {}, id="large", marks=pytest.mark.slow)]


@pytest.mark.parametrize(("rows", "config"), NUL_SIZES)
@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize(
    ("delimiter", "where", "value"),
    [(",", 0.6, "na\x00me"), (";", 0.99, "\x00lead"), ("\t", 0.75, "trail\x00"), ("|", 0.9, "a\x00b\x00c")],
)
def test_a_nul_past_the_head_is_taken_out_and_named_as_one_in_it_is(
    tmp_path, fast, delimiter, where, value, rows, config
):
    """A NUL inside a value past the head the reader sniffs was kept in the value without a
    word, where one in the head was taken out with a warning naming its line."""
    odd = int(rows * where)
    lines = [f"id{delimiter}name{delimiter}v"] + [
        f"{i}{delimiter}{value if i == odd else f'name{i}'}{delimiter}{i % 97}" for i in range(1, rows + 1)
    ]
    path = tmp_path / "nul.csv"
    path.write_text("\n".join(lines) + "\n")
    head = Settings(**config).sniff_bytes
    assert path.stat().st_size > head and "\x00" not in path.read_text()[:head]  # past the head
    extraction, got = _read(path, tmp_path, fast, **config)
    cells = [v for r in got for v in r.values()]
    assert value.replace("\x00", "") in cells and not any("\x00" in str(v) for v in cells)
    assert any(f"line {odd + 1})" in note and "NUL" in note for note in extraction.notes)


COUNCIL = 'Date,Supplier,Ref,Amount,VAT\n2024-01-02,Acme Ltd,A1,"12,354.27",0\n2024-01-05,Bolt plc,A2,"12,354.28",0\n'


def _cells(rows):
    return [[v for k, v in r.items() if k.startswith("c")] for r in rows]


@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize(
    "text, line",
    [
        (COUNCIL + 'Total,,,"24,708.55",\n', 4),
        (COUNCIL + 'Total,,,"24,708.55",', 4),  # no line end after it
        (COUNCIL + 'Grand total:,,,"24,708.55",0\n\n', 4),  # a blank line after it
        (COUNCIL + '"Total",,,"24,708.55",\n\nSource: the council ledger for January 2024\n', 4),  # a note after it
        (
            COUNCIL.replace(",", ";").replace('"12;354.27"', "12354,27").replace('"12;354.28"', "12354,28")
            + "Summe;;;24708,55;\n",
            4,
        ),
        (
            COUNCIL.replace(",", "\t").replace('"12\t354.27"', "12354.27").replace('"12\t354.28"', "12354.28")
            + "Итого\t\t\t24708.55\t0\n",
            4,
        ),
    ],
    ids=["total", "no-newline", "blank-after", "note-after", "semicolon-german", "tab-russian"],
)
def test_a_total_row_at_the_end_is_left_out_naming_its_line(tmp_path, text, line, fast):
    path = tmp_path / "spending.csv"
    path.write_text(text, encoding="utf-8")
    extraction, rows = _read(path, tmp_path, fast)
    assert extraction.rows == 2 and len(rows) == 2
    assert [c[1] for c in _cells(rows)] == ["Acme Ltd", "Bolt plc"]
    totals = [e for e in extraction.left_out if e.reason == "total"]
    assert [e.line for e in totals] == [line]
    assert "24" in totals[0].text and totals[0].cells[3].replace(",", "").replace(".", "") == "2470855"


def test_a_wide_table_s_total_row_is_left_out(tmp_path):
    header = ",".join(f"m{k}" for k in range(40))
    rows = [",".join(["name"] + [str(k + j) for k in range(39)]) for j in range(3)]
    total = ",".join(["Total"] + [str(3 * k + 3) for k in range(39)])
    path = tmp_path / "wide.csv"
    path.write_text("\n".join([header, *rows, total]) + "\n", encoding="utf-8")
    extraction, got = _read(path, tmp_path, fast=False)
    assert extraction.rows == 3 and [e.line for e in extraction.left_out] == [5]


@pytest.mark.parametrize("fast", [False, True])
def test_a_title_that_starts_with_a_total_word_stays_a_row(tmp_path, fast):
    path = tmp_path / "films.csv"
    path.write_text("Title,Year,Gross\nAlien,1979,104\nRobocop,1987,53\nTotal Recall,1990,261\n", encoding="utf-8")
    extraction, rows = _read(path, tmp_path, fast)
    assert extraction.rows == 3 and not extraction.left_out
    assert _cells(rows)[-1] == ["Total Recall", "1990", "261"]


def test_a_total_row_with_rows_after_it_is_a_row(tmp_path):
    # A subtotal inside the table is one of its rows: only the table's last row totals it.
    path = tmp_path / "parts.csv"
    path.write_text("Item,Cost\nbolt,1\nTotal,1\nnut,2\n", encoding="utf-8")
    extraction, rows = _read(path, tmp_path, fast=False)
    assert extraction.rows == 3 and not extraction.left_out


def test_every_line_of_the_file_is_accounted_for(tmp_path, monkeypatch):
    # Every kind of line at once: a comment, a header, a value over two lines, a blank line, a
    # total row. The reader's count check (lines.LineAccount) adds them up to the file's lines.
    from tabular.read import extraction as module

    checked = []
    monkeypatch.setattr(module.LineAccount, "check", lambda self, name: checked.append(self))
    path = tmp_path / "t.csv"
    path.write_text('a,b\n1,"two\nlines"\n# a comment\n\n3,4\nTotal,6\n', encoding="utf-8")
    extraction, _ = _read(path, tmp_path, fast=False)
    assert extraction.rows == 2
    (account,) = checked
    assert (account.lines, account.header, account.rows, account.joined) == (7, 1, 2, 1)
    assert (account.blank, account.comment, account.left_out) == (1, 1, 1)


def test_row_ids_and_lines_are_made_without_importing_pandas():
    """The fast reader numbers each batch's rows and lines; done with pa.array or arithmetic on a
    Python int, pyarrow would import pandas, 0.2-0.3 s of an ingest that converts no value."""
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from tabular.read.extraction import int64_range\n"
        "got = int64_range(41, 5)\n"
        "imported = 'pandas' in sys.modules\n"
        "print(got.type, got.to_pylist(), imported)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split(maxsplit=1) == ["int64", "[41, 42, 43, 44, 45] False\n"]
