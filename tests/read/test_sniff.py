"""tabular/read/sniff.py: a delimited text's delimiter, quoting, newline, preamble and header,
settled from its head."""

from __future__ import annotations

import pytest

from tabular.read.sniff import FIXED, cut, is_comment, newline_of, records, sniff

ROWS = [["name", "city", "amount"], ["Ann", "Oslo", "12.50"], ["Bob", "Bergen", "7"], ["Cy", "Tromsø", "3.25"]]


def text(delimiter: str, rows=ROWS, newline: str = "\n") -> str:
    return newline.join(delimiter.join(r) for r in rows) + newline


@pytest.mark.parametrize("delimiter", [",", ";", "\t", "|"])
def test_the_delimiter_that_gives_a_consistent_table_is_chosen(delimiter):
    layout = sniff(text(delimiter))
    assert (layout.delimiter, layout.width, layout.header_rows, layout.skip_records) == (delimiter, 3, 1, 0)
    assert layout.header_clear


def test_a_delimiter_inside_quoted_fields_does_not_split_them():
    head = 'name,address,amount\n"Ann","1 Main St, Oslo",12\n"Bob","2 Side Rd, Bergen",7\n"Cy","3 High St, Bodø",4\n'
    layout = sniff(head)
    assert (layout.delimiter, layout.width) == (",", 3)
    assert records(head, layout.delimiter, layout.quotechar)[1] == ["Ann", "1 Main St, Oslo", "12"]


def test_semicolons_win_over_decimal_commas():
    head = "name;amount;rate\nAnn;12,50;0,5\nBob;7,00;1,25\nCy;3,10;2,75\n"
    layout = sniff(head)
    assert (layout.delimiter, layout.width) == (";", 3)


def test_a_colon_is_not_taken_as_delimiter_when_it_would_cut_clocks_apart():
    head = "when,what\n2024-01-01 10:15,start\n2024-01-01 11:30,stop\n2024-01-02 09:05,start\n"
    assert sniff(head).delimiter == ","


def test_a_title_line_before_the_table_is_skipped_as_preamble():
    head = "Quarterly report\n\n" + text(",")
    layout = sniff(head)
    assert (layout.delimiter, layout.width, layout.header_rows) == (",", 3, 1)
    assert records(head, ",", '"')[layout.skip_records] == ROWS[0]


def test_a_table_of_only_values_has_no_header():
    layout = sniff(text(",", ROWS[1:]))
    assert layout.header_rows == 0


def test_a_header_repeated_further_down_needs_a_person_to_confirm():
    layout = sniff(text(",", ROWS + ROWS))
    assert layout.header_rows == 1
    assert not layout.header_clear


def test_a_delimiter_and_header_rows_given_in_options_are_kept():
    layout = sniff(text(";"), delimiter="|", header_rows=0)
    assert (layout.delimiter, layout.header_rows, layout.header_clear) == ("|", 0, True)


@pytest.mark.parametrize(("newline", "expected"), [("\n", "\n"), ("\r\n", "\r\n"), ("\r", "\r")])
def test_the_newline_is_read_as_the_file_writes_it(newline, expected):
    head = text(",", newline=newline)
    assert newline_of(head) == expected
    layout = sniff(head)
    assert (layout.newline, layout.width, layout.header_rows) == (expected, 3, 1)


def test_backslash_escaped_quotes_are_recognised():
    head = 'id,quote\n1,"He said \\"hi\\""\n2,"She said \\"bye\\""\n3,"plain"\n'
    layout = sniff(head)
    assert layout.escapechar == "\\"
    assert records(head, ",", '"', escapechar=layout.escapechar)[1] == ["1", 'He said "hi"']


def test_a_space_after_each_delimiter_before_the_quote_is_recognised():
    head = '"name", "city"\n"Ann", "Oslo"\n"Bob", "Bergen"\n'
    layout = sniff(head)
    assert layout.spaced
    assert records(head, ",", '"', spaced=True)[1] == ["Ann", "Oslo"]


def test_a_fixed_width_layout_is_cut_at_its_column_starts():
    head = "Name      City      Amount\nAnn       Oslo       12.50\nBob       Bergen      7.00\nCy        Tromsø      3.25\n"
    layout = sniff(head)
    assert (layout.delimiter, layout.starts, layout.header_rows) == (FIXED, (0, 10, 20), 1)
    assert cut("Bob       Bergen      7.00", layout.starts) == ["Bob", "Bergen", "7.00"]


def test_one_column_of_values_reads_as_one_column_with_its_header():
    layout = sniff("city\nOslo\nBergen\nTromsø\n")
    assert (layout.width, layout.header_rows) == (1, 1)


def test_a_hash_line_is_a_comment_unless_it_has_the_tables_shape():
    assert is_comment(["# exported 2024"], 3)
    assert is_comment(["# note", "", ""], 3)
    assert not is_comment(["#1", "Ann", "Oslo"], 3)
    assert not is_comment(["Ann", "#1", "Oslo"], 3)


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("price\n12,5\n13,25\n7,5\n", ["12,5", "13,25", "7,5"]),  # decimal commas
        ("amount\n1,250,000.75\n3,000.5\n12.25\n", ["1,250,000.75", "3,000.5", "12.25"]),  # thousands
        ("Preis;\n12;5\n", None),  # ';' beside a header that holds it: a delimiter
        ("Wert\n12;5\n13;7\n", None),  # ';' is no number's mark: a delimiter, whatever the header
        ("Wert\n12|5\n13|7\n", None),
        ("Betrag\n1.234\n12.5\n", ["1.234", "12.5"]),
    ],
)
def test_a_mark_only_ever_between_digits_under_a_header_without_it_is_inside_numbers(text, values):
    """'12,5' under 'price' was split into two columns and the header dropped."""
    from tabular.read.sniff import records

    layout = sniff(text)
    if values is None:
        assert layout.width == 2
        return
    assert layout.width == 1 and layout.header_rows == 1
    assert [r[0] for r in records(text, layout.delimiter, layout.quotechar)[1:] if r] == values


@pytest.mark.parametrize("d", [",", ";", "\t", "|"])
@pytest.mark.parametrize(
    "lines",
    [
        [["漢字"], ["漢字と色"]],
        [["Straße", "Stadt"], ["Hauptstraße", "Köln"]],
        [["<a href='x'>one</a>", "<a href='y'>two</a>"], ["<a href='z'>three</a>", "<a href='w'>four</a>"]],
    ],
    ids=["japanese-one-column", "german-two-columns", "markup"],
)
def test_text_over_one_line_of_text_is_read_as_rows_and_asked(d, lines):
    layout = sniff(text(d, lines))
    assert (layout.header_rows, layout.width, layout.header_clear) == (0, len(lines[0]), False)


@pytest.mark.parametrize("d", [",", ";", "\t"])
def test_one_line_of_words_is_taken_as_the_header_of_an_empty_table_and_asked(d):
    layout = sniff(text(d, [["id", "name", "email"]]))
    assert (layout.header_rows, layout.header_clear) == (1, False)


@pytest.mark.parametrize("d", [",", ";"])
def test_one_line_of_numbers_is_a_row(d):
    layout = sniff(text(d, [["1", "2.5", "2024-01-02"]]))
    assert (layout.header_rows, layout.header_clear) == (0, True)


@pytest.mark.parametrize("below", [2, 3, 4])
def test_a_tiny_table_of_text_keeps_its_header_and_asks(below):
    rows = [["code", "name"]] + [[chr(65 + i), f"Name {i}"] for i in range(below)]
    layout = sniff(text(",", rows))
    assert (layout.header_rows, layout.header_clear) == (1, False)


def test_text_over_enough_lines_of_text_is_a_clear_header():
    rows = [["code", "name"]] + [[chr(65 + i), f"Name {i}"] for i in range(6)]
    assert sniff(text(",", rows)).header_clear


def test_a_header_over_a_note_line_keeps_the_header():
    # 'No data for this report' under 13 names: one text cell below, the rest empty.
    names = ["Date", "Agency", "Customer", "Clicks"]
    layout = sniff(text(",", [names, ["No data for this report", "", "", ""]]))
    assert layout.header_rows == 1


def test_a_tiny_table_with_a_number_column_needs_no_question():
    assert sniff(text(",", [["name", "qty"], ["Ann", "3"], ["Bob", "4"]])).header_clear


@pytest.mark.parametrize("d", [",", ";", "\t", "|"])
@pytest.mark.parametrize(
    "header",
    [["name", "city", "amount", "note"], ["Name", "Stadt", "Betrag", ""], ["名前", "都市", "金額", "備考", "追加"]],
    ids=["one-name-more", "trailing-delimiter", "two-names-more"],
)
def test_a_header_wider_than_every_row_is_their_header(d, header):
    rows = [header] + ROWS[1:] * 3
    layout = sniff(text(d, rows))
    assert (layout.skip_records, layout.header_rows, layout.width) == (0, 1, len(header))
    assert layout.header_clear


def test_a_wider_first_line_of_values_is_not_taken_for_a_header():
    rows = [["1", "2", "3", "4"]] + ROWS[1:] * 3
    layout = sniff(text(",", rows))
    assert layout.width == 3  # not names: the line stays out of the table as before


@pytest.mark.parametrize("d", [",", ";", "\t", "|"])
def test_values_in_single_quotes_are_quoted_values(d):
    rows = [["id", "name", "city"]] + [[str(i), f"'Smith{d} John {i}'", "'Zürich'"] for i in range(1, 12)]
    head = text(d, rows)
    layout = sniff(head)
    assert (layout.quotechar, layout.width, layout.header_rows, layout.skip_records) == ("'", 3, 1, 0)
    assert records(head, d, "'")[1] == ["1", f"Smith{d} John 1", "Zürich"]


def test_an_apostrophe_in_values_does_not_make_single_quotes_the_quoting():
    rows = [["name", "note"], ["O'Brien", "it's fine"], ["D'Arcy", "can't say"], ["Ann", "ok"]]
    assert sniff(text(",", rows)).quotechar == '"'


@pytest.mark.parametrize("d", [",", ";", "|"])
def test_a_delimiter_escaped_with_a_backslash_stays_inside_its_value(d):
    rows = [["id", "name", "city"]] + [[str(i), f"Smith\\{d} John {i}", "Oslo"] for i in range(1, 12)]
    head = text(d, rows)
    layout = sniff(head)
    assert (layout.escapechar, layout.width, layout.header_rows, layout.skip_records) == ("\\", 3, 1, 0)
    assert records(head, d, '"', escapechar="\\")[1] == ["1", f"Smith{d} John 1", "Oslo"]


@pytest.mark.parametrize("d", [",", ";", "\t"])
def test_a_header_narrower_than_its_rows_is_kept_and_asked(d):
    rows = [["id", "amount", "day"]] + [[str(i), f"{i}.5", f"2024-01-{i:02d}", f"x{i}"] for i in range(1, 12)]
    layout = sniff(text(d, rows))
    assert (layout.skip_records, layout.header_rows, layout.width, layout.header_clear) == (0, 1, 4, False)


@pytest.mark.parametrize("title", [["Quarterly report", " 2024"], ["Bericht Q1", "Stand März"]])
def test_a_title_set_apart_by_a_blank_line_is_a_preamble_even_at_the_tables_width(title):
    rows = [title, [], ["id", "amount"]] + [[str(i), f"{i}.5"] for i in range(1, 12)]
    layout = sniff(text(",", rows))
    assert (layout.skip_records, layout.header_rows, layout.width) == (2, 1, 2)


def test_rows_after_a_blank_line_under_the_header_keep_the_header():
    rows = [["name", "qty"], [], ["Ann", "3"], ["Bob", "4"], ["Cy", "5"], ["Di", "6"], ["Ed", "7"]]
    layout = sniff(text(",", rows))
    assert (layout.skip_records, layout.header_rows) == (0, 1)


def test_a_head_of_escapes_and_stray_quotes_is_sniffed_without_a_crash():
    # Found by the ingest fuzz test: a backslash-escaped reading with other records than the plain one.
    head = ';ü\x00b\\\r\\\n\'\\"-€,\r\n2024-01-31\r\n31/01/202\ufffd\r\n\\"-\\"-\\\r\x00 1,,\r\n'.replace("\x00", "")
    layout = sniff(head)
    assert layout.width >= 1 and layout.skip_records <= len(records(head, layout.delimiter, layout.quotechar))


@pytest.mark.parametrize("d", [",", ";", "\t", "|"])
@pytest.mark.parametrize("last", ["Source: internal records", "Note, from the archive", "see: page 4; line 2 | end"])
def test_a_last_line_holding_another_delimiter_does_not_make_the_table_a_preamble(d, last):
    rows = [["id", "name", "score"]] + [[str(i), n, str(i + 4)] for i, n in enumerate(["Ann", "Bob", "Cy", "Di"], 1)]
    layout = sniff(text(d, rows) + last + "\n")
    assert (layout.delimiter, layout.width, layout.skip_records, layout.header_rows) == (d, 3, 0, 1)


@pytest.mark.parametrize(
    "values",
    [
        ["Paris", "Berlin", "Rome", "Washington, D.C."],
        ["Paris", "Berlin, DE", "Rome", "Oslo", "Lima", "Washington, D.C.", "Bonn"],
        ["Lyon", "Nice; Cannes", "Metz", "Brest", "Caen", "Dijon; Beaune"],
        ["alpha", "beta", "gamma: the third", "delta", "epsilon", "zeta"],
    ],
)
def test_a_list_whose_few_values_hold_a_delimiter_stays_one_column(values):
    layout = sniff("place\n" + "\n".join(values) + "\n")
    assert (layout.width, layout.skip_records, layout.header_rows) == (1, 0, 1)
    assert [r[0] for r in records("place\n" + "\n".join(values) + "\n", layout.delimiter, '"')[1:]] == values


@pytest.mark.parametrize(
    "values", [["Ann", "Bob", "Cy", "Di", "Ed", "Flo"], ["Москва", "Киев", "Минск", "Рига", "Таллин", "Вильнюс"]]
)
def test_a_headerless_list_written_as_its_first_line_asks_for_the_header(values):
    layout = sniff("\n".join(values) + "\n")
    assert layout.width == 1 and not layout.header_clear


@pytest.mark.parametrize("name", ["name", "first name", "NAME_1"])
def test_a_list_under_a_name_written_unlike_its_values_needs_no_question(name):
    layout = sniff(name + "\nAnn\nBob\nCy\nDi\nEd\nFlo\n")
    assert (layout.width, layout.header_rows, layout.header_clear) == (1, 1, True)


@pytest.mark.parametrize("d", [",", ";", "\t"])
def test_ragged_rows_under_a_header_are_no_list_even_when_the_widest_is_last(d):
    lines = [["id", "name", "age"], ["1101", "John"], ["1102", "Julie", "26", "Potatoes"]]
    assert sniff(text(d, lines)).width > 1


@pytest.mark.parametrize(
    ("head", "d"),
    [
        ("x;1,5\ny;2,5\nz;3,75\n", ";"),
        ("A1\t9,23\nB2\t8,97\n", "\t"),
        ("TRUE|61,327,886\nFALSE|51,547,775\n", "|"),
        ("Report generated 2024\n\n84353,98 €|Sep 16, 2000\n86978,74 €|Apr 7, 2006\n", "|"),
        ('"x"\t"83,875,628"\n"y"\t"7,139,173"\n', "\t"),
        ('"11/09/2010"\t"25013,99"\n"03/31/2001"\t"73873,82"\n', "\t"),
    ],
)
def test_without_a_header_the_delimiter_is_the_one_whose_cells_hold_no_other(head, d):
    layout = sniff(head)
    assert (layout.delimiter, layout.width) == (d, 2)


@pytest.mark.parametrize(
    "lines",
    [
        ["$62,792.74", "$12,375.42", "$1,000.00"],
        ["61,327,886", "51,547,775"],
        ["Mar 13, 2009", "Jul 5, 2004", "Aug 1, 2001"],
        ["x0", "Mar 13, 2009", "Jul 5, 2004"],
        ["123\u00a0456,78", "9\u00a0012,50"],  # decimal commas after groups of another mark
        ["1.234,5", "12.345,75"],
        ["12 345,5 €", "1 234,75 €"],
    ],
)
def test_a_list_whose_every_value_holds_a_comma_as_numbers_and_dates_do_is_one_column(lines):
    head = "\n".join(lines) + "\n"
    layout = sniff(head)
    assert layout.width == 1 and layout.marks_in_numbers == ","
    assert [r[0] for r in records(head, layout.delimiter, '"')] == lines


@pytest.mark.parametrize("d", [",", ";", "\t", "|"])
def test_one_name_over_rows_ending_in_a_delimiter_is_their_header(d):
    layout = sniff(f"d\n1/2/2020{d}\n3/4/2021{d}\n5/6/2022{d}\n")
    assert (layout.width, layout.skip_records, layout.header_rows) == (2, 0, 1)


# Issue 54: the dialect where other people's exports put it.
WORDS = {
    "en": ["Rate this image; quickly", "it is a cat; a dog, maybe"],
    "fr": ["Notez l'image; vite", "un chat; un chien, peut-être"],
    "ja": ["画像を評価; すぐに", "猫; 犬, たぶん"],
}


@pytest.mark.parametrize("width", [2, 3, 5, 8, 12])
@pytest.mark.parametrize("lang", sorted(WORDS))
def test_a_fully_quoted_file_with_semicolons_in_its_text_is_read_by_its_commas(width, lang):
    names = ["HITId", "Title", "Answer.tag;label", "Reward", "Worker", "Time", "Batch", "Keys", "A", "B", "C", "D"]
    texts = (WORDS[lang] * 12)[: width - 1]
    lines = [",".join(f'"{n}"' for n in names[:width])]
    lines += [",".join(f'"{c}"' for c in [f"3X{i}AB", *texts]) for i in range(9)]
    lines[4] += ',""'  # one row with a separator too many
    head = "\n".join(lines) + "\n"
    layout = sniff(head)
    assert (layout.delimiter, layout.quotechar, layout.width, layout.skip_records, layout.header_rows) == (
        ",",
        '"',
        width,
        0,
        1,
    )
    assert records(head, ",", '"')[1] == ["3X0AB", *texts]


@pytest.mark.parametrize("d", [",", ";", "\t", "|"])
def test_fields_bounded_by_single_quotes_are_read_without_their_quotes(d):
    head = "\n".join(
        [d.join(["a", "b", "file", "label"])] + [d.join([str(i), "1", f"'di{i}-iN.wav'", "'di'"]) for i in range(8)]
    )
    layout = sniff(head + "\n")
    assert (layout.delimiter, layout.quotechar, layout.width, layout.header_rows) == (d, "'", 4, 1)
    assert records(head, d, layout.quotechar)[1] == ["0", "1", "di0-iN.wav", "di"]


@pytest.mark.parametrize("quoted", ['"O\'Brien"', "O'Brien"])
def test_an_apostrophe_in_a_name_never_makes_single_quotes_the_quoting(quoted):
    head = "\n".join(["id,name,city"] + [f"{i},{quoted},'s-Hertogenbosch" for i in range(8)]) + "\n"
    assert sniff(head).quotechar == '"'


@pytest.mark.parametrize("width", [2, 3, 6])
def test_comma_and_space_keeps_the_header_and_rows_whose_quoted_text_holds_it(width):
    names = ", ".join(f'"name {j}, part"' for j in range(width))
    top = [", ".join(f'"v{i}{j}, x"' for j in range(width)) for i in range(2)]
    rest = [", ".join(f'"v{i}{j}"' for j in range(width)) for i in range(2, 12)]
    head = "\n".join([names, *top, *rest]) + "\n"
    layout = sniff(head)
    assert (layout.delimiter, layout.spaced, layout.width, layout.skip_records, layout.header_rows) == (
        ",",
        True,
        width,
        0,
        1,
    )


@pytest.mark.parametrize("inside", [";", "|", "\t"])
@pytest.mark.parametrize("width", [3, 5, 9])
def test_comma_and_space_wins_over_a_delimiter_inside_every_quoted_value(inside, width):
    """`a, "x; y; z", b`: read as written (`, `), the header bare and every quoted value holding
    the other delimiter twice. `;` split every row alike and took the header for a title: the
    header was left out and the quoted text cut in three (bench/loading.py's sep_space)."""
    names = ", ".join(f"Name{j}" for j in range(width))
    rows = [
        ", ".join([f"{i}XK", f'"say{inside} hear{inside} write {i}"', *(f"v{i}{j}" for j in range(2, width))])
        for i in range(12)
    ]
    head = "\n".join([names, *rows]) + "\n"
    layout = sniff(head)
    assert (layout.delimiter, layout.spaced, layout.width, layout.skip_records, layout.header_rows) == (
        ",",
        True,
        width,
        0,
        1,
    )
    assert records(head, ",", '"', spaced=True)[1][:2] == ["0XK", f"say{inside} hear{inside} write 0"]


@pytest.mark.parametrize("d", [";", ",", "\t", "|"])
@pytest.mark.parametrize("place", [0, 1, 2])
def test_values_wrapped_in_single_quotes_lose_them_when_no_delimiter_is_inside(d, place):
    """'Lager Süd' in one column of a file no quote is needed in: the plain reading is already a
    regular table, so the quotes had stayed in every value of the column."""
    names = ["Datum", "Lager", "Menge"]
    mark = "." if d == "," else ","  # a decimal comma where the comma is no delimiter
    cells = [[f"0{1 + i % 9}.02.2015", str(100 + i), f"{i}{mark}5"] for i in range(12)]
    for row in cells:
        row[place] = f"'Größe {row[place]}'"
    head = "\n".join(d.join(r) for r in [names, *cells]) + "\n"
    layout = sniff(head)
    assert (layout.delimiter, layout.quotechar, layout.width, layout.header_rows) == (d, "'", 3, 1)
    assert records(head, d, layout.quotechar)[1][place].startswith("Größe ")


def test_a_value_opened_by_an_apostrophe_keeps_the_quotes_as_text():
    """'tis and 'n' beside a wrapped 'x': an apostrophe that opens a value without closing it
    says the single quotes are text, so none is taken out."""
    head = "\n".join(["id;word;tag"] + [f"{i};'tis {i};'x'" for i in range(12)]) + "\n"
    assert sniff(head).quotechar == '"'


@pytest.mark.parametrize("inside", [";", "|", "\t"])
@pytest.mark.parametrize("width", [5, 9])
@pytest.mark.parametrize("shape", ["ragged", "header_wider"])
def test_a_comma_file_whose_text_holds_another_delimiter_in_every_row_is_read_by_comma(inside, width, shape):
    """`id,…,Listen to the clip; type what you hear; no punctuation,…`: by the other delimiter
    every row reads as three regular cells of comma-joined text, by `,` as `width` columns of
    values with ragged ends (or under a header with one name more). The reading whose cells hold
    no other delimiter is the table: the header was left out as a title and every row was text."""
    names = [f"Name{j}" for j in range(width)] + (["Notes"] if shape == "header_wider" else [])
    rows = []
    for i in range(16):
        row = [f"{3896487718 + i}XK", f"say{inside} hear{inside} write {i}", *(str(i * j) for j in range(2, width))]
        if shape == "ragged" and i % 4 == 1:
            row = row[:-2]  # the last two cells left off, as exports do
        rows.append(",".join(row))
    layout = sniff("\n".join([",".join(names), *rows]) + "\n")
    assert (layout.delimiter, layout.skip_records, layout.header_rows) == (",", 0, 1)
    assert layout.width == len(names)


NOTES = {
    "en": ["Source: City statistics office, 2021", "Figures are provisional."],
    "de": ["Quelle: Statistisches Amt, Stand 2021", "Alle Angaben ohne Gewähr.", "Vorläufige Werte"],
    "fr": ["Source : Insee, 2021"],
}


@pytest.mark.parametrize("sep", [",", ";", "\t"])
@pytest.mark.parametrize("language", sorted(NOTES))
def test_notes_set_apart_by_a_blank_line_above_the_header_are_preamble(sep, language):
    """Lines of titles and notes (one of them holding the delimiter, as a date or place after a
    comma does), a blank line, then a header over its rows: the notes are left out and said; the
    header names the columns. The note with a delimiter was taken for the header before."""
    notes = [line.replace(", ", sep) for line in NOTES[language]]
    rows = [sep.join([str(i * 5), f"{i - 1.5837:.4f}", f"2021-01-{i + 1:02d}"]) for i in range(20)]
    head = "\n".join([*notes, "", sep.join(["Time", "Reading", "Day"]), *rows]) + "\n"
    layout = sniff(head)
    assert (layout.delimiter, layout.skip_records, layout.header_rows, layout.width) == (sep, len(notes) + 1, 1, 3)
    assert layout.header_clear
    assert "left out" in layout.said[0]


def test_a_small_table_above_a_blank_line_is_not_taken_for_notes():
    """Two rows of values of the table's width above the blank line are a table of their own, not
    notes: they are not left out as a preamble without a question."""
    head = "Time,Reading\n0,1.5\n5,2.5\n\nTime,Count\n" + "".join(f"{i},{i % 3}\n" for i in range(20))
    layout = sniff(head)
    assert layout.skip_records == 0 or not layout.header_clear


def test_the_lines_of_a_one_column_list_above_a_blank_line_are_its_rows_not_notes():
    """A list of one column in sections (a formula sheet printed as text): the first section's
    lines read as the rows below the blank line do; they are not left out as titles."""
    head = "Bessel functions\nBESSELI 2 3\nBESSELJ 2 3\n\nError Function\nERF 1\nERFC 1\nERFC.PRECISE 1\n"
    layout = sniff(head)
    assert (layout.width, layout.skip_records) == (1, 0)
