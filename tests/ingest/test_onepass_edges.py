"""A table's edges through the one pass, as the careful way reads them: a header wider or narrower
than its rows, a note or a total after the table, and last rows that are rows all the same."""

from __future__ import annotations

import pytest
from both_ways import CAREFUL, one_pass
from onepass_cases import write_lines


@pytest.mark.parametrize("d", [",", ";", "\t"])
def test_a_header_wider_than_its_rows_names_them_both_ways(tmp_path, homes, d):
    lines = [d.join(["Kunde", "Betrag", "Datum", "Notiz"])]
    lines += [d.join([f"K{i}", f"{i}.50", f"2024-01-{1 + i % 28:02d}"]) for i in range(1, 60)]
    path = write_lines(tmp_path / "wider.csv", lines)
    got = homes.same(path, 10)
    columns = got["dataset"]["columns"]
    assert [c["name"] for c in columns] == ["Kunde", "Betrag", "Datum", "Notiz"]
    assert [c["type"] for c in columns] == ["string", "number", "date", "string"]
    assert got["dataset"]["rows"] == 59


NOTES = {
    "english-short-line": ("Report created October 10", False),
    "german-full-width": ("Bericht erstellt am 10. Oktober", True),
    "french-two-lines": ("Source : Office fédéral de la statistique\nDonnées provisoires au 1er mars", True),
}


def note_cases() -> list:
    """Every note with every delimiter: the default run takes each note once, with the delimiters
    in turn (each delimiter covered); the rest is `make test-long`'s."""
    return [
        pytest.param(d, note, id=f"{note}-{d}", marks=() if k == j else (pytest.mark.slow,))
        for k, note in enumerate(sorted(NOTES))
        for j, d in enumerate([",", ";", "\t"])
    ]


@pytest.mark.parametrize(("d", "note"), note_cases())
def test_a_note_after_the_table_is_left_out_with_a_warning_both_ways(tmp_path, homes, d, note):
    text, full_width = NOTES[note]
    lines = [d.join(["region", "amount", "day"])]
    lines += [d.join([f"r{i % 4}", f"{i}.50", f"2024-01-{1 + i % 28:02d}"]) for i in range(1, 80)]
    lines += ["", *(line + d * 2 if full_width else line for line in text.split("\n"))]
    path = write_lines(tmp_path / "notes.csv", lines)
    got = homes.same(path, 10)
    dataset = got["dataset"]
    assert dataset["rows"] == 79 and dataset["rows_rejected"] == 0
    assert [c["type"] for c in dataset["columns"]] == ["string", "number", "date"]
    noted = [w for w in dataset["warnings"] if "a note after the table" in w]
    assert len(noted) == len(text.split("\n")) and text.split("\n")[0] in noted[0]


@pytest.mark.parametrize(
    "last",
    [
        "Mary Ann Smith,",  # a name alone on the last row, in a column of names
        "Anna,",  # one word
    ],
)
def test_a_last_row_like_its_column_stays_a_row(tmp_path, homes, last):
    lines = ["name,phone"] + [f"Person Number{i},555-{1000 + i}" for i in range(1, 30)] + [last]
    path = write_lines(tmp_path / "people.csv", lines)
    got = homes.same(path, 10)
    assert got["dataset"]["rows"] == 30
    assert not [w for w in got["dataset"]["warnings"] if "note" in w]


def test_a_line_of_words_inside_the_table_is_a_row(tmp_path, homes):
    lines = ["id,amount"] + [f"{i},{i}.5" for i in range(1, 20)] + ["see the next page please,"]
    lines += [f"{i},{i}.5" for i in range(20, 30)]
    path = write_lines(tmp_path / "mid.csv", lines)
    got = homes.same(path, 10)
    assert got["dataset"]["rows"] == 30  # kept: the id column then asks (mixed_values)
    assert [q["kind"] for q in got["dataset"]["questions"]] == ["mixed_values"]


def test_a_header_narrower_than_its_rows_names_the_first_columns_both_ways(tmp_path, homes):
    lines = ["id,amount,day"] + [f"{i},{i}.5,2024-01-{1 + i % 28:02d},x{i}" for i in range(1, 60)]
    path = write_lines(tmp_path / "narrow.csv", lines)
    got = homes.same(path, 10)
    dataset = got["dataset"]
    assert [c["name"] for c in dataset["columns"]] == ["id", "amount", "day", "column_4"]
    assert [q["kind"] for q in dataset["questions"]] == ["header_row"] and dataset["rows"] == 59


def test_a_last_task_with_no_owner_in_a_list_of_tasks_stays_a_row(tmp_path, homes):
    lines = ["task,owner,due"] + [f"Buy milk and bread {i},Ann,2024-01-{i:02d}" for i in range(1, 20)]
    lines.append("Call the plumber about the leak in the kitchen,,")
    path = write_lines(tmp_path / "todo.csv", lines)
    got = homes.same(path, 10)
    assert got["dataset"]["rows"] == 20 and not any("note" in w for w in got["dataset"]["warnings"])


@pytest.mark.parametrize(
    ("header", "row", "last"),
    [
        ("product,price,stock", lambda i: f"Bread{i},{i}.50,{i}", "Fig and walnut bread,,"),
        ("day,amount", lambda i: f"2024-01-{i:02d},{i}.5", "January 6 2024,"),
        ("name,age,city", lambda i: f"Person{i},{20 + i},Oslo", '"Ed Jr, the second",,'),
    ],
    ids=["product-without-price", "date-in-words", "quoted-name"],
)
def test_a_last_row_right_under_the_table_is_a_row(tmp_path, homes, header, row, last):
    lines = [header] + [row(i) for i in range(1, 25)] + [last]
    got = homes.same(write_lines(tmp_path / "last.csv", lines), 10)
    assert len(got["rows"]) == 25 and not any("a note after the table" in w for w in got["dataset"]["warnings"])


@pytest.mark.parametrize("total", ["Total,,12.5,", "Total,,12.5,\n\nSource: made here by hand for this test\n"])
def test_a_total_row_past_the_sample_is_left_out_as_the_careful_way_leaves_it(tmp_path, homes, total):
    # The fast readers read every line as a row: a total at the file's end sends it the careful way.
    lines = [f"{i},{i % 7}.5,x{i}\n" for i in range(1, 3000)]
    path = tmp_path / "totalled.csv"
    path.write_text("id,amount,note\n" + "".join(lines) + total)
    uri = homes.uri()  # the same in every home
    careful = homes.published(path, uri=uri, **CAREFUL)
    fast = homes.published(path, uri=uri, **one_pass(30), csv_block_bytes=4096)
    assert not fast.pop("one_pass") and not careful.pop("one_pass")
    assert fast == careful
    assert careful["dataset"]["rows"] == 2999
    assert any(w.startswith("line 3001 (a Total row") for w in careful["dataset"]["warnings"])
