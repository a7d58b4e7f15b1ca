"""tabular/read/lines.py: the careful reader's lines (bounded, a comment after the values taken
out) and the warnings that name the lines."""

from __future__ import annotations

import io

import pytest

import tabular
from tabular.errors import IngestFailed
from tabular.read.lines import (
    FirstColumn,
    bounded_lines,
    comments_note,
    ends_in_words,
    is_note,
    lines_hold,
    note_text,
    without_comments,
)
from tabular.read.sniff import sniff


def test_a_warning_names_the_first_five_lines_and_counts_the_rest():
    assert lines_hold([4]) == "1 line (line 4) holds"
    assert lines_hold([2, 3, 5, 7, 11, 13]) == "6 lines (lines 2, 3, 5, 7, 11, …) hold"
    assert comments_note([3]).startswith("1 line (line 3) holds a comment after the values")


def test_a_line_over_the_limit_fails_before_it_is_parsed():
    with pytest.raises(IngestFailed) as err:
        list(bounded_lines(io.StringIO("a,b\n" + "x" * 50 + "\n"), 20))
    assert err.value.error_code == "too_large"


def test_nuls_are_taken_out_and_their_lines_named():
    nuls: list[int] = []
    got = list(bounded_lines(io.StringIO("a,b\n1,x\x00y\n"), 100, nuls=nuls))
    assert got == ["a,b\n", "1,xy\n"] and nuls == [2]


def test_comments_after_the_values_are_taken_out_line_ends_kept():
    commented: list[int] = []
    got = list(without_comments(iter(["a;b\n", "1;2 # checked\r\n", "3;4\n"]), commented))
    assert got == ["a;b\n", "1;2\r\n", "3;4\n"] and commented == [2]


@pytest.mark.parametrize(
    ("last", "note"),
    [("Report created October 10,,", True), ("Bericht vom 3. März", True), ("7,8,9", False), ("Anna,,", False)],
)
def test_a_file_ending_in_words_alone_in_the_first_cell_is_told(tmp_path, last, note):
    text = "a,b,c\n1,2,3\n4,5,6\n\n" + last + "\n"
    path = tmp_path / "f.csv"
    path.write_text(text, encoding="utf-8")
    assert ends_in_words(path, sniff(text)) is note


def test_a_line_of_words_after_a_table_is_a_note_only_set_apart_and_standing_out():
    first = FirstColumn()
    for cell in ["1", "2", "3", "4"]:
        first.add(cell)
    text = note_text(["Source: internal records", ""], 2)
    assert text == "Source: internal records"
    assert is_note(text, first, apart=True) and not is_note(text, first, apart=False)
    assert note_text(["Ann", "5"], 2) is None  # a row with a value after the first cell


def test_a_line_no_count_holds_fails_as_a_bug():
    from tabular.errors import Internal
    from tabular.read.lines import LineAccount

    LineAccount(lines=6, preamble=1, header=1, rows=2, blank=1, left_out=1).check("t")
    with pytest.raises(Internal, match="this is a bug: 't' has 6 lines but the reader accounts for 5"):
        LineAccount(lines=6, preamble=1, header=1, rows=2, left_out=1).check("t")


def test_a_total_row_at_the_end_sends_the_file_to_the_careful_reader(tmp_path):
    from tabular.read.sniff import sniff

    text = "a,b\nx,1\ny,2\nTotal,3\n"
    path = tmp_path / "t.csv"
    path.write_text(text, encoding="utf-8")
    assert ends_in_words(path, sniff(text))
    path.write_text(text.replace("Total", "Total Recall"), encoding="utf-8")
    assert not ends_in_words(path, sniff(text))


@pytest.mark.parametrize("sep", [",", ";", "\t", "|"])
@pytest.mark.parametrize(
    "words",
    [
        ["Source: City statistics office", " 2021"],
        ["Quelle: Statistisches Bundesamt", " Stand März 2024"],
        ["Note : chiffres provisoires", " sauf mention contraire", " 2023"],
    ],
)
def test_prose_going_on_after_the_delimiter_and_a_space_is_a_note_candidate(sep, words):
    """`Source: City statistics office, 2021` under a table: the comma is the sentence's, the cell
    after it begins with a space. It was kept as a row (a number column's text, a question)."""
    row = words + [""] * (4 - len(words))
    assert note_text(row, 4, sep) == sep.join(w.rstrip() for w in words)


@pytest.mark.parametrize("row", [["Smith", "John", "", ""], ["Total sales", "1250", "", ""], ["5", " 6", "", ""]])
def test_a_row_of_values_is_no_note_candidate(row):
    """Cells after the first that begin with no space are values (a row), as is a first cell of one word."""
    assert note_text(row, 4) is None


@pytest.mark.parametrize("sep", [",", ";"])
def test_a_note_of_prose_after_the_table_is_left_out_and_said(tmp_path, sep):
    rows = "".join(f"{i * 5}{sep}{i}.25\n" for i in range(12))
    path = tmp_path / "notes.csv"
    path.write_text(f"Time{sep}Reading\n{rows}\nNote: figures are provisional.\nSource: City office{sep} 2021\n")
    ns = tabular.connect(str(tmp_path / "home")).namespace("o", "n")
    assert ns.ingest_file(path, source_uri="notes.csv").state == "ready"
    (d,) = ns.dataset_get("notes.csv").datasets
    assert d.rows == 12 and d.questions == [] and [c.type for c in d.columns] == ["number", "number"]
    assert any("Source: City office" in w for w in d.warnings)
