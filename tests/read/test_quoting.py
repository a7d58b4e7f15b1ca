"""tabular/read/quoting.py: a quote is quoting only at a field's edges; a stray or unterminated
quote keeps the characters as written, and never swallows the rows after it."""

from __future__ import annotations

import pytest

from tabular.read.quoting import ByteScan, EdgeQuotes, bounded_by_quotes, scan_bytes, split_at_edges


def irregular_bytes(path, delimiter: str, quote: str, chunk: int = 4 << 20) -> bool:
    return scan_bytes(path, delimiter, quote, "\n", chunk).irregular


@pytest.mark.parametrize("d", [",", ";", "\t", "|"])
@pytest.mark.parametrize(
    ("cells", "want"),
    [
        (['"Ann "the" Great"', "6"], ['Ann "the" Great', "6"]),  # quotes inside, closed at the edge
        (['"ACME" GMBH', "5"], ['"ACME" GMBH', "5"]),  # closes mid-field: as written
        (['"Müller ""Sohn"""', "7"], ['Müller "Sohn"', "7"]),  # doubled quotes are one quote
        (['Titel "mit" Anführung', "3"], ['Titel "mit" Anführung', "3"]),  # never opened
        (['"Straße', "9"], ['"Straße', "9"]),  # opened, never closed
        (["", "", ""], ["", "", ""]),
    ],
)
def test_a_record_splits_at_its_delimiters_with_quotes_only_at_the_edges(d, cells, want):
    assert split_at_edges(d.join(cells), d, '"') == want


def test_a_quoted_field_may_hold_the_delimiter_and_a_single_quote_may_quote():
    assert split_at_edges('1;"a;b";c', ";", '"') == ["1", "a;b", "c"]
    assert split_at_edges("1,'l''Oréal, SA',x", ",", "'") == ["1", "l'Oréal, SA", "x"]


def rows(text: str, width: int, d: str = ",") -> tuple[list[list[str]], list[int], list[int]]:
    reader = EdgeQuotes(text.splitlines(keepends=True), d, '"', width)
    got, lines = [], []
    for row in reader:
        got.append(row)
        lines.append(reader.line_num)
    return got, lines, reader.mended


def test_well_formed_records_are_read_as_the_csv_module_reads_them():
    got, lines, mended = rows('id,t\n1,"two\nlines"\n2,"a, b"\n3,plain\n', 2)
    assert got == [["id", "t"], ["1", "two\nlines"], ["2", "a, b"], ["3", "plain"]]
    assert lines == [1, 3, 4, 5] and mended == []


def test_an_unterminated_quote_does_not_swallow_the_rows_after_it():
    text = 'id;name;n\n1;"Bar & Grill;3\n2;Café;4\n3;Zoë;5\n4;"ok";6\n'
    got, lines, mended = rows(text, 3, ";")
    assert got == [
        ["id", "name", "n"],
        ["1", '"Bar & Grill', "3"],
        ["2", "Café", "4"],
        ["3", "Zoë", "5"],
        ["4", "ok", "6"],
    ]
    assert lines == [1, 2, 3, 4, 5] and 2 in mended


@pytest.mark.parametrize(
    ("d", "stray_at", "after"),
    [(";", 2, 3), (",", 5, 40), ("\t", 3, 1), ("|", 10, 200)],
)
def test_a_stray_quote_names_its_own_line_not_every_line_it_would_have_swallowed(d, stray_at, after):
    """A stray quote at line 50,001 of a file was said to be in '50001 lines (lines 50001,
    50002, …)': every line after it that the reader read again was named as holding a quote."""
    lines = [f"id{d}name{d}n"] + [f"{i}{d}name{i}{d}{i}" for i in range(1, stray_at + after)]
    lines[stray_at - 1] = f'{stray_at - 1}{d}"unclosed{d}7'
    got, _, mended = rows("\n".join(lines) + "\n", 3, d)
    assert len(got) == len(lines) and got[stray_at - 1][1] == '"unclosed'
    assert mended == [stray_at]


@pytest.mark.parametrize(
    ("d", "quoted", "value"),
    [(",", '"Smith, John"', "Smith, John"), (";", '"say ""hi"""', 'say "hi"'), ("\t", '"Smith"', "Smith")],
)
def test_a_field_quoted_as_written_after_a_stray_quote_is_not_named(d, quoted, value):
    """A stray quote swallowed the lines after it up to the next quote: a line there whose
    quotes enclose a field as written ('"Smith, John"') was named as holding a stray one."""
    lines = [f"id{d}name{d}n", f'1{d}"unclosed{d}7', f"2{d}b{d}3", f"3{d}{quoted}{d}4", f"4{d}e{d}5"]
    got, _, mended = rows("\n".join(lines) + "\n", 3, d)
    assert got[3] == ["3", value, "4"] and got[1][1] == '"unclosed' and len(got) == len(lines)
    assert mended == [2]


def test_a_quote_closing_mid_field_keeps_the_field_as_written_and_says_the_line():
    got, _, mended = rows('a,b\n"ACME" GMBH,1\nx,2\n', 2)
    assert got[1] == ['"ACME" GMBH', "1"] and got[2] == ["x", "2"] and mended == [2]


@pytest.mark.parametrize(
    ("text", "stray"),
    [
        ('a,b\n1,"x, y"\n2,"plain"\n', False),  # quotes at the edges only
        ('a,b\n1,"x ""y"" z"\n', False),  # doubled inside a quoted field
        ("a,b\n1,2\n", False),
        ('a,b\n1,"ACME" GMBH\n', True),
        ('a,b\n1,"Ann "the" Great"\n', True),
        ('a;b\n1;Titel "mit" Anführung\n', True),  # kept by both readers, but not told apart: careful
    ],
)
def test_a_quote_with_a_value_on_both_sides_sends_the_file_the_careful_way(tmp_path, text, stray):
    path = tmp_path / "f.csv"
    path.write_bytes(text.encode("utf-8"))
    assert irregular_bytes(path, ";" if ";" in text else ",", '"') is stray


def test_the_quote_scan_sees_a_stray_quote_across_its_chunk_boundaries(tmp_path):
    path = tmp_path / "f.csv"
    line = b'1,"fine"\n'
    path.write_bytes(line * 1000 + b'2,"ACME" GMBH\n' + line * 1000)
    assert all(irregular_bytes(path, ",", '"', chunk=size) for size in (7, 8, 9, 64, 1 << 20))


@pytest.mark.parametrize("d", [",", ";", "\t", "|"])
def test_the_reader_notes_the_fields_where_quotes_enclose_only_whitespace(d):
    text = d.join(["id", "ch", "name"]) + "\n"
    text += (
        d.join(["1", '" "', '"Ann"']) + "\n" + d.join(["2", '"\t"', "Bo"]) + "\n" + d.join(["3", '""', '"  x"']) + "\n"
    )
    reader = EdgeQuotes(text.splitlines(keepends=True), d, '"', 3)
    got = list(reader)
    assert got[1][1] == " " and got[2][1] == "\t" and got[3][1] == ""
    assert reader.quoted_blanks == {1}  # '""' is empty, '"  x"' is not blank


@pytest.mark.parametrize(
    ("text", "quoted_blank"),
    [
        ('a,b\n1," "\n', True),
        ('a,b\n"  ",2\n', True),
        ('a,b\n1,"\t"\r\n', True),
        ('a,b\n1,""\n2,"x y"\n', False),
        ("a,b\n1, \n", False),  # an unquoted space is a blank cell
        ('a,b\n1,"a" "b"\n', True),  # a stray quote (not a quoted blank, but careful all the same)
    ],
)
def test_a_field_of_quoted_whitespace_sends_the_file_the_careful_way(tmp_path, text, quoted_blank):
    path = tmp_path / "f.csv"
    path.write_bytes(text.encode("utf-8"))
    assert irregular_bytes(path, ",", '"') is quoted_blank


def test_the_quote_scan_sees_a_quoted_blank_across_its_chunk_boundaries(tmp_path):
    path = tmp_path / "f.csv"
    line = b'1,"fine"\n'
    path.write_bytes(line * 1000 + b'2,"   "\n' + line * 1000)
    assert all(irregular_bytes(path, ",", '"', chunk=size) for size in (7, 8, 9, 64, 1 << 20))


@pytest.mark.parametrize("d", [",", ";", "\t", "|"])
def test_a_quote_that_opens_a_field_and_closes_nowhere_sends_the_file_the_careful_way(tmp_path, d):
    path = tmp_path / "open.csv"
    path.write_text(f'a{d}b\nc{d}"{d}x\n')
    assert irregular_bytes(path, d, '"')
    path.write_text(f'a{d}b\nc{d}"{d}x"\n')  # the same field closed: one quoted value
    assert not irregular_bytes(path, d, '"')


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("closed", [True, False])
def test_the_byte_scan_counts_the_lines_a_reader_must_give_back(tmp_path, newline, closed):
    path = tmp_path / "f.csv"
    lines = ["a;b", '"x";1', "", "y;2"]
    path.write_bytes((newline.join(lines) + (newline if closed else "")).encode())
    for size in (3, 5, 1 << 20):
        scan = scan_bytes(path, ";", '"', newline, chunk=size)
        assert (scan.irregular, scan.lines) == (False, 4)


def test_the_byte_scan_reads_a_file_of_many_chunks_as_one(tmp_path):
    path = tmp_path / "f.csv"
    path.write_bytes(b'1,"fine"\n' * 5000 + b'2," \t "\n')  # a quoted blank in the last chunk
    assert all(scan_bytes(path, ",", '"', "\n", chunk=size).irregular for size in (7, 64, 4096))
    path.write_bytes(b'1,"fine"\n' * 5000 + b'2," \t x"\n')
    assert not any(scan_bytes(path, ",", '"', "\n", chunk=size).irregular for size in (7, 64, 4096))


@pytest.mark.parametrize(
    ("newline", "text"),
    [
        ("\n", 'a;b\n"x\ry";1\n'),  # a CR inside a value of a file of LF lines
        ("\r", 'a;b\r"x\ny";1\r'),
        ("\r\n", 'a;b\r\n"x\ny";1\r\n'),  # a lone LF in a CRLF file
        ("\r\n", 'a;b\r\n"x\ry";1\r\n'),
    ],
)
def test_the_byte_scan_gives_no_line_count_where_a_value_may_hold_a_line_break(tmp_path, newline, text):
    path = tmp_path / "f.csv"
    path.write_bytes(text.encode())
    assert scan_bytes(path, ";", '"', newline).lines is None


def test_a_scan_stopped_by_its_reader_ends_and_counts_nothing(tmp_path):
    from tabular.read.quoting import Scanning

    path = tmp_path / "f.csv"
    path.write_bytes(b'1,"fine"\n' * 200_000)
    scan = Scanning(path, ",", '"', "\n")
    scan.close()  # the reader closed at once: the thread ends, and nothing it missed counts
    assert scan.result() in (ByteScan(True, 0), ByteScan(False, 200_000))
    assert scan_bytes(path, ",", '"', "\n", chunk=4096, stop=lambda: True) == ByteScan(True, 0)


@pytest.mark.parametrize(
    "lines, found",
    [
        (['"a","b"', '"1","x;y"', '"2","z;w"'], (",", '"')),
        (['"a";"b"', '"1";"x,y"', '"2";"z,w"'], (";", '"')),
        (["a|b|c", "1|'x'|'p'", "2|'y'|'q'", "3|'z'|'r'"], ("|", "'")),
        (["id,name", "1,O'Brien", "2,D'Arcy", "3,O'Neil"], None),
        (["id,name", "1,\"it's','here\"", "2,plain", "3,plain"], None),
    ],
)
def test_fields_bounded_by_quote_delimiter_quote_on_every_line_name_the_dialect(lines, found):
    assert bounded_by_quotes("\n".join(lines) + "\n", (",", ";", "\t", "|")) == found
