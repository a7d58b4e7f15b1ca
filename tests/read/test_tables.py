"""Several tables in one delimited file (read/tables.py): each a dataset of its own, every line
accounted for, line numbers those of the file."""

from __future__ import annotations

import pytest

import tabular
from tabular.read import sniff
from tabular.read.tables import after, first_lines, next_table

SHAPES = {
    "en": (",", ["Time", "Reading"], ["Time", "Count"]),
    "de": (";", ["Datum", "Menge", "Preis"], ["Kategorie", "Anzahl"]),
    "fr": ("\t", ["Nom", "Ville", "Montant"], ["Ville", "Total", "Nombre", "Part"]),
}


def _rows(names: list[str], n: int, sep: str, seed: int) -> list[str]:
    """Rows under `names`: a word in the first column where a name says so, numbers elsewhere."""
    text = {"Nom", "Ville", "Kategorie"}
    return [
        sep.join(f"w{seed}{i}" if name in text else str((i + 1) * (j + seed + 2)) for j, name in enumerate(names))
        for i in range(n)
    ]


def _file(sep: str, first: list[str], second: list[str], rows: tuple[int, int] = (6, 4), blanks: int = 1) -> str:
    lines = [sep.join(first), *_rows(first, rows[0], sep, 1), *[""] * blanks, sep.join(second)]
    return "\n".join([*lines, *_rows(second, rows[1], sep, 2)]) + "\n"


@pytest.mark.parametrize("blanks", [1, 2])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_second_table_under_a_blank_line_is_found_where_its_header_is(shape, blanks):
    sep, first, second = SHAPES[shape]
    head = _file(sep, first, second, blanks=blanks)
    layout = sniff.sniff(head)
    assert after(head, layout) == 7 + blanks  # the header line's index: 1 header, 6 rows, the blanks


@pytest.mark.parametrize(
    "below",
    [
        ["Time,Reading", "30,1.5", "35,2.5"],  # the header again: the same table (asked elsewhere)
        ["Source: City statistics office", "Figures are provisional"],  # notes
        ["Time,Count", "0,1"],  # one row under it: too little to be told from a note
        ["0,1.5", "5,2.5", "10,3.5"],  # rows after a gap: the same table
    ],
)
def test_what_is_no_second_table(below):
    head = "Time,Reading\n" + "".join(f"{i * 5},{i}.25\n" for i in range(6)) + "\n" + "\n".join(below) + "\n"
    assert after(head, sniff.sniff(head)) == 0


def test_a_next_table_in_a_cut_head_is_not_decided_on_its_last_line():
    """The head ends mid-line: the last record may be half a row, so no header is found on it."""
    head = "a,b\n1,2\n3,4\n\nc,d\n5,6\n7,"
    layout = sniff.sniff(head)
    assert next_table(head, layout, 1, ["a", "b"]) == 0


def test_first_lines_keeps_line_ends():
    assert first_lines("a\r\nb\rc\nd", 3) == "a\r\nb\rc\n"


def _datasets(tmp_path, text: str, **settings):
    tmp_path.mkdir(exist_ok=True)
    path = tmp_path / "two.csv"
    path.write_text(text, encoding="utf-8")
    ns = tabular.connect(str(tmp_path / "home"), **settings).namespace("o", "n")
    status = ns.ingest_file(path, source_uri="files/two.csv")
    assert status.state == "ready", status
    return ns, ns.dataset_get("files/two.csv").datasets


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_each_table_of_a_file_is_a_dataset_with_its_own_names_and_rows(tmp_path, shape):
    """The summary under the data is a dataset of its own: its header was a row of text among the
    numbers, and its counts were added to the readings."""
    sep, first, second = SHAPES[shape]
    ns, datasets = _datasets(tmp_path, _file(sep, first, second))
    assert [[c.name for c in d.columns] for d in datasets] == [first, second]
    assert [d.rows for d in datasets] == [6, 4]
    assert all(c.type == "number" for d in datasets for c in d.columns if c.name not in {"Nom", "Ville", "Kategorie"})
    assert [d.questions for d in datasets] == [[], []]
    assert "another table from line 9" in datasets[0].warnings[0]
    assert "starts at line 9" in datasets[1].warnings[0]


def test_a_rejected_row_of_the_second_table_names_its_line_in_the_file(tmp_path):
    text = _file(",", ["Time", "Reading"], ["Time", "Count"]).replace("8,10\n", "8,10,9,9\n")
    ns, datasets = _datasets(tmp_path, text)
    (rejected,) = datasets[1].rejected
    assert rejected.line == 11  # 1 header, 6 rows, 1 blank, the header, then its second row


def test_past_max_tables_per_file_the_rest_is_read_as_the_last_tables_rows(tmp_path):
    """Three tables, at most two: the second is read to the file's end (its rows and the third's),
    nothing left out without a word."""
    third = "\n\nKind,Amount\n" + "".join(f"k{i},{i}\n" for i in range(4))
    text = _file(",", ["Time", "Reading"], ["Time", "Count"]) + third
    ns, datasets = _datasets(tmp_path, text, max_tables_per_file=2)
    assert len(datasets) == 2
    assert datasets[1].rows == 4 + 1 + 4  # its rows, the third's header as a row, the third's rows
    ns, datasets = _datasets(tmp_path / "all", text)
    assert [d.rows for d in datasets] == [6, 4, 4]


def test_a_large_file_of_two_tables_is_read_as_two(tmp_path):
    """Past fast_path_bytes the fast reader would take the file whole: it hands it to the reader
    that ends a table where the next begins."""
    big = _file(",", ["Time", "Reading"], ["Time", "Count"], rows=(6, 3000))
    ns, datasets = _datasets(tmp_path, big, fast_path_bytes=1024)
    assert [d.rows for d in datasets] == [6, 3000]
