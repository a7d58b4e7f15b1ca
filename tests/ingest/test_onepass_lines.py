"""Lines that are not plain rows (blank, ragged, a comment, a quote that never closes, quotes
mid-field, a NUL, unicode spaces, other quoting), read by the one pass as the careful way reads
them."""

from __future__ import annotations

import pytest
from both_ways import CAREFUL, one_pass
from onepass_cases import write_lines

IRREGULAR = {
    "blank_row": "\n",
    "ragged_row": "1,2,3,4,5\n",
    "short_row": "7\n",
    "comment_line": "# exported by hand\n",
}


@pytest.mark.parametrize("kind", sorted(IRREGULAR))
def test_a_row_only_the_careful_reader_reads_far_past_the_sample(tmp_path, homes, kind):
    lines = [f"{i},{i % 7}.5,x{i}\n" for i in range(1, 3000)]
    lines.insert(2500, IRREGULAR[kind])
    path = tmp_path / f"{kind}.csv"
    path.write_text("id,amount,note\n" + "".join(lines))
    uri = homes.uri()  # the same in every home
    careful = homes.published(path, uri=uri, **CAREFUL)
    fast = homes.published(path, uri=uri, **one_pass(30), csv_block_bytes=4096)
    assert not fast.pop("one_pass") and not careful.pop("one_pass")
    assert fast == careful
    assert careful["dataset"]["rows"] >= 2999


def open_quote_cases() -> list:
    """Every delimiter with and without a last newline: the default run takes each delimiter once,
    the two ends in turn; the other half is `make test-long`'s."""
    ends = (("newline", "\n"), ("no-newline", ""))
    return [
        pytest.param(d, end, id=f"{ident}-{d}", marks=() if k % 2 == j else (pytest.mark.slow,))
        for k, d in enumerate([",", ";", "\t", "|"])
        for j, (ident, end) in enumerate(ends)
    ]


@pytest.mark.parametrize(("d", "end"), open_quote_cases())
def test_a_quote_that_never_closes_on_the_last_line_is_read_alike_by_both_readers(tmp_path, homes, d, end):
    # Arrow reads an open quote to the end of the file, taking the cells after it into one value.
    lines = [d.join([f"r{i}", f"{i % 7}.5", f"x{i}"]) for i in range(1, 3000)]
    path = tmp_path / "open.csv"
    path.write_text(
        d.join(["id", "amount", "note"]) + "\n" + "\n".join(lines) + "\n" + d.join(["r9", "1.5", '"', "'"]) + end
    )
    uri = homes.uri()  # the same in every home
    careful = homes.published(path, uri=uri, **CAREFUL)
    fast = homes.published(path, uri=uri, **one_pass(30), csv_block_bytes=4096)
    fast.pop("one_pass"), careful.pop("one_pass")
    assert fast == careful
    # Four cells where the table has three: the row is rejected, the quote kept as written.
    assert [r[2] for r in careful["dataset"]["rejected"]] == ["r9" + d + "1.5" + d + '"' + d + "'"]


@pytest.mark.parametrize("shape", ["comma", "semicolon"])
def test_quotes_that_close_mid_field_are_kept_as_written_both_ways(tmp_path, homes, shape):
    """`"ACME" GMBH` and `"Ann "the" Great"` lost or moved their quotes; Arrow's reader drops
    them too, so such a file goes the careful way, which reads quotes only at a field's edges."""
    d = "," if shape == "comma" else ";"
    names = ['"ACME" GMBH', '"Ann "the" Great"', "Zoë", '"Müller, Söhne"']
    lines = [d.join(["id", "name", "n"])] + [d.join([str(i), names[i % 4], str(i)]) for i in range(1, 300)]
    path = tmp_path / f"{shape}.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    got = homes.same(path, 20)
    values = {row[1] for row in got["rows"]}
    assert values == {'"ACME" GMBH', 'Ann "the" Great', "Zoë", "Müller, Söhne"}
    assert any("does not close at a field's edge" in w for w in got["dataset"]["warnings"])


@pytest.mark.parametrize("d", [",", ";", "\t"])
def test_a_space_in_a_column_of_single_characters_is_a_value_both_ways(tmp_path, homes, d):
    """In a table of characters and their codes the space's row lost its character (a blank
    cell read as null); a blank cell in a column of longer text is still null."""
    chars = [chr(c) for c in range(32, 127) if chr(c) not in '",;\t']
    lines = [d.join(["char", "code", "name"])] + [
        d.join([ch, str(ord(ch)), "" if ch == " " else f"sign {i}"]) for i, ch in enumerate(chars * 3)
    ]
    path = tmp_path / "chars.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    got = homes.same(path, 20)
    rows = [r for r in got["rows"] if r[1] == 32]
    assert rows and all(r[0] == " " and r[2] is None for r in rows)
    nulls = {c["name"]: c["nulls"] for c in got["dataset"]["columns"]}
    assert nulls["char"] == 0 and nulls["name"] == 3


def test_a_nul_inside_a_value_keeps_the_row_with_a_warning_both_ways(tmp_path, homes):
    """A whole file was refused as binary for one NUL byte inside one value."""
    lines = ["id,name,n"] + [f"{i},{'ab' + chr(0) + 'c' if i == 120 else f'name {i}'},{i}" for i in range(1, 400)]
    path = tmp_path / "nul.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    got = homes.same(path, 20)
    assert got["state"] == "ready" and len(got["rows"]) == 399
    assert [r[1] for r in got["rows"] if r[0] == 120] == ["abc"]
    assert any("NUL" in w and "line 121" in w for w in got["dataset"]["warnings"])


DIALECTS = {
    "single-quotes": lambda i: f"{i},'Smith, John {i}','Zürich'",
    "escaped-delimiter": lambda i: f"{i},Smith\\, John {i},Zürich",
    "apostrophes": lambda i: f"{i},O'Brien {i},it's Zürich",
}


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_other_quoting_reads_the_same_both_ways(tmp_path, homes, dialect):
    lines = ["id,name,city"] + [DIALECTS[dialect](i) for i in range(1, 60)]
    path = write_lines(tmp_path / "q.csv", lines)
    got = homes.same(path, 10)
    dataset = got["dataset"]
    assert [c["name"] for c in dataset["columns"]] == ["id", "name", "city"]
    assert dataset["rows"] == 59 and dataset["rows_rejected"] == 0


COMMENTED = {
    "integer": ("{i}", "# checked"),
    "decimal-with-delimiter-in-comment": ("{i}.25", "#  geprüft, ok"),
    "date": ("2024-01-{day:02d}", "# vérifié le 3 mars"),
    "apostrophes": ("{i}.5", "# it's Ann's; ok"),
}


def commented_cases() -> list:
    """Every delimiter with every kind of commented value: the default run takes each kind once,
    with the delimiters in turn (a Latin square: each delimiter covered); the rest is `make
    test-long`'s."""
    return [
        pytest.param(d, *COMMENTED[kind], id=f"{kind}-{d!r}", marks=() if k == j else (pytest.mark.slow,))
        for k, kind in enumerate(COMMENTED)
        for j, d in enumerate([",", ";", "\t", "|"])
    ]


@pytest.mark.parametrize(("d", "value", "comment"), commented_cases())
def test_a_comment_after_a_lines_values_is_taken_out_with_a_warning(tmp_path, homes, d, value, comment):
    lines = [d.join(["id", "wert"])]
    for i in range(1, 60):
        cell = value.format(i=i, day=1 + i % 28)
        lines.append(d.join([str(i), cell]) + (f"  {comment}" if i % 5 == 0 else ""))
    path = write_lines(tmp_path / "c.csv", lines)
    got = homes.same(path, 10)
    dataset = got["dataset"]
    assert dataset["rows"] == 59 and dataset["rows_rejected"] == 0 and dataset["questions"] == []
    assert dataset["columns"][1]["type"] in ("number", "date")
    assert any("a comment after the values" in w for w in dataset["warnings"])


def test_a_hash_inside_text_stays_in_the_text(tmp_path, homes):
    lines = ["id,address"] + [
        f"{i},Main Street {i} #{i}" if i % 2 else f"{i},Main Street {i} # rear" for i in range(1, 40)
    ]
    path = write_lines(tmp_path / "t.csv", lines)
    got = homes.same(path, 10)
    assert not any("comment" in w for w in got["dataset"]["warnings"])
    assert got["dataset"]["columns"][1]["type"] == "string"


@pytest.mark.parametrize(
    "space", ["\u00a0", "\u2000", "\u3000", "\u202f"], ids=["nbsp", "en-quad", "ideographic", "narrow-nbsp"]
)
def test_a_row_of_unicode_spaces_is_kept_as_a_row(tmp_path, homes, space):
    lines = (
        ["id,name"] + [f"{i},n{i}" for i in range(1, 30)] + [f"{space},{space}"] + [f"{i},n{i}" for i in range(30, 40)]
    )
    path = write_lines(tmp_path / "u.csv", lines)
    got = homes.same(path, 10)
    dataset = got["dataset"]
    assert dataset["rows"] == 40 and not any("blank rows" in w for w in dataset["warnings"])
    assert [c["type"] for c in dataset["columns"]] == ["number", "string"]


def test_single_quotes_do_not_quote_across_lines(tmp_path, homes):
    # Apostrophes that open ('tis) and close (James') values on different lines are letters: no
    # row is swallowed into another. The two rows quoted with ' then hold a delimiter too many:
    # rejected, and said, not merged.
    lines = ["id,name,note", "1,'Smith, John',ok", "2,'Doe, Jane',x", "3,Bob,'tis", "4,Cy,z", "5,Di,James'", "6,Ed,v"]
    got = homes.same(write_lines(tmp_path / "apostrophes.csv", lines), 2)
    notes = {r[0]: r[2] for r in got["rows"]}
    assert notes == {3: "'tis", 4: "z", 5: "James'", 6: "v"} and got["dataset"]["rows_rejected"] == 2


@pytest.mark.parametrize(
    ("d", "value"),
    [
        pytest.param(",", "{i}", id="number-,"),
        pytest.param(";", "2024-01-{i:02d}", id="date-;"),
        # the other pairs: make test-long
        pytest.param(";", "{i}", id="number-;", marks=pytest.mark.slow),
        pytest.param(",", "2024-01-{i:02d}", id="date-,", marks=pytest.mark.slow),
    ],
)
def test_a_comment_after_every_lines_values_is_taken_out(tmp_path, homes, d, value):
    lines = [d.join(["id", "wert"])] + [d.join([str(i), value.format(i=i)]) + f" # note {i}" for i in range(1, 30)]
    got = homes.same(write_lines(tmp_path / "all.csv", lines), 10)
    dataset = got["dataset"]
    assert dataset["columns"][1]["type"] in ("number", "date") and dataset["questions"] == []
    assert any("a comment after the values" in w for w in dataset["warnings"])
