"""tabular/read/header.py: whether a line names the columns below it, and the titles and wider
headers around a table, read end to end through sniff (issue 54)."""

from __future__ import annotations

import pytest

from tabular.read.header import header_over_rows, names_over_rows, names_with_a_gap, past_titles
from tabular.read.sniff import records, sniff

# Names in several languages; rows of a date, a number and text, cycled to the width.
NAMES = {
    "en": ["Date", "Amount", "City", "Product", "Region", "Price", "Units", "Notes", "Owner", "Status", "Code", "Team"],
    "fr": [
        "Date",
        "Montant",
        "Ville",
        "Produit",
        "Région",
        "Prix",
        "Unités",
        "Remarques",
        "Titulaire",
        "État",
        "Code",
        "Équipe",
    ],
    "no": ["Dato", "Beløp", "By", "Produkt", "Fylke", "Pris", "Enheter", "Merknad", "Eier", "Status", "Kode", "Lag"],
    "ja": ["日付", "金額", "都市", "製品", "地域", "価格", "数量", "備考", "担当", "状態", "コード", "チーム"],
}


def row(i: int, width: int) -> list[str]:
    cells = [f"2024-03-{i + 1:02d}", f"{i * 7 + 3}.25", f"Town{i}"]
    return [cells[j % 3] if j % 3 != 2 else f"{cells[2]}x{j}" for j in range(width)]


def table(d: str, lines: list[list[str]]) -> str:
    return "\n".join(d.join(cells) for cells in lines) + "\n"


SHAPES = [
    (d, w, lang) for d, w, lang in zip(",;\t|,;\t|,;\t", range(2, 13), "en fr no ja en fr no ja en fr no".split())
]


@pytest.mark.parametrize("d, width, lang", SHAPES)
def test_titles_padded_with_delimiters_are_left_out_and_the_header_kept(d, width, lang):
    titles = [
        ["Department for Work and Pensions"] + [""] * (width - 1),
        ["Ministerial overseas travel"] + [""] * (width - 1),
    ]
    names = NAMES[lang][:width]
    head = table(d, titles + [names] + [row(i, width) for i in range(12)])
    layout = sniff(head)
    assert (layout.delimiter, layout.width, layout.skip_records, layout.header_rows) == (d, width, 2, 1)
    assert records(head, d, '"')[layout.skip_records] == names
    assert any("Department for Work and Pensions" in note for note in layout.said)


@pytest.mark.parametrize("d, width, lang", SHAPES)
def test_a_header_with_one_separator_too_many_keeps_its_names(d, width, lang):
    names = NAMES[lang][:width]
    gap = width // 2
    head = table(d, [names[:gap] + [""] + names[gap:]] + [row(i, width) for i in range(12)])
    layout = sniff(head)
    assert (layout.delimiter, layout.width, layout.skip_records, layout.header_rows) == (d, width, 0, 1)
    assert list(layout.names) == names
    assert any(f"empty name (column {gap + 1})" in note for note in layout.said)


@pytest.mark.parametrize("d, width", [(",", 2), (";", 3), ("\t", 2), ("|", 4)])
def test_a_title_wider_than_the_data_is_left_out_said(d, width):
    prose = ["Created as New Dataset", "Sample 022", " February 11 2017", " by the lab", " version 2"]
    title = prose[: width + 1]
    rows = [[f"{i * 0.5}", f"{i * 3}", *[str(i + k) for k in range(width - 2)]] for i in range(40)]
    head = table(d, [title] + rows)
    layout = sniff(head)
    assert (layout.delimiter, layout.width, layout.skip_records, layout.header_rows) == (d, width, 1, 0)
    assert any("Created as New Dataset" in note for note in layout.said)


def test_a_first_line_of_several_filled_cells_is_no_title():
    lines = [["Ann", "", "3"], ["name", "city", "amount"], ["Bob", "Oslo", "4"]]
    assert past_titles(lines, 0, 3) == 0


def test_a_gap_in_a_header_of_values_is_no_header():
    rows = [["1", "2"], ["3", "4"], ["5", "6"]]
    assert names_with_a_gap(["7", "", "8"], rows, 2) is None
    assert names_with_a_gap(["a", "", "b"], rows, 2) == (["a", "b"], True)


def test_names_past_the_rows_written_as_prose_are_no_header():
    rows = [["1", "2"], ["3", "4"], ["5", "6"], ["7", "8"], ["9", "10"]]
    assert names_over_rows(["id", "amount", " February 11 2017"], rows, 2) is None
    assert names_over_rows(["id", "amount", "notes"], rows, 2) is True


@pytest.mark.parametrize("d, width, lang", SHAPES[:6])
def test_a_header_with_more_names_than_its_rows_have_cells_keeps_them_and_asks(d, width, lang):
    names = NAMES[lang][: width + 1]
    rows = [[f"Ann{i}", *[f"Oslo{i}x{j}" for j in range(width - 1)]] for i in range(3)]  # text under text: no vote
    layout = sniff(table(d, [names] + rows))
    assert (layout.delimiter, layout.width, layout.skip_records, layout.header_rows) == (d, width + 1, 0, 1)
    assert not layout.header_clear
    assert any(f"names {width + 1} columns where its rows have {width} cells" in note for note in layout.said)


GROUPS = {"en": "Water consumption", "fr": "Consommation d'eau", "no": "Vannforbruk", "ja": "水の消費量"}


@pytest.mark.parametrize("d, width, lang", SHAPES[1:])
def test_a_group_name_over_the_names_joins_them_meanwhile_and_asks(d, width, lang):
    names = ["Site", *NAMES[lang][1:width]]
    groups = ["", GROUPS[lang]] + [""] * (width - 2)
    rows = [[f"S{i}", *[f"{i * 3 + j}.5" for j in range(width - 1)]] for i in range(10)]
    layout = sniff(table(d, [groups, names] + rows))
    assert (layout.delimiter, layout.width, layout.skip_records, layout.header_rows) == (d, width, 0, 2)
    assert list(layout.names) == ["Site", *(f"{GROUPS[lang]} {n}" for n in names[1:])]
    assert not layout.header_clear


@pytest.mark.parametrize("d, width, lang", SHAPES[:4])
def test_a_header_written_twice_is_one_header_and_asked(d, width, lang):
    names = NAMES[lang][:width]
    rows = [row(i, width) for i in range(10)]
    layout = sniff(table(d, [names, names] + rows))
    assert (layout.header_rows, list(layout.names), layout.header_clear) == (2, names, False)


@pytest.mark.parametrize("fast", [True, False])
def test_both_readers_give_the_kept_names_and_say_the_judgement(tmp_path, fast):
    from tabular.read.extraction import read_delimited
    from tabular.settings import Settings

    settings = Settings(fast_path_bytes=0 if fast else 1 << 62)
    gap = tmp_path / "gap.csv"
    gap.write_text(table(",", [["DATE", "TIME", "Qty", "", "PRODUCTID"]] + [row(i, 4) for i in range(12)]))
    extraction = read_delimited(gap, tmp_path / "gap.parquet", "gap", {}, settings)
    assert (extraction.headers, extraction.rows) == (["DATE", "TIME", "Qty", "PRODUCTID"], 12)
    assert any("empty name (column 4)" in note for note in extraction.notes)
    titled = tmp_path / "titled.csv"
    titled.write_text(
        table(";", [["Ministerial overseas travel", "", ""], ["Who", "When", "Cost"]] + [row(i, 3) for i in range(12)])
    )
    extraction = read_delimited(titled, tmp_path / "titled.parquet", "titled", {}, settings)
    assert (extraction.headers, extraction.rows) == (["Who", "When", "Cost"], 12)
    assert any("Ministerial overseas travel" in note for note in extraction.notes)


@pytest.mark.parametrize("d, width, lang", SHAPES[2:8])
def test_a_header_over_three_rows_joins_each_columns_names(d, width, lang):
    top = ["", "Report 2024"] + [""] * (width - 2)
    groups = ["", GROUPS[lang]] + [""] * (width - 2)
    names = ["Site", *NAMES[lang][1:width]]
    rows = [[f"S{i}", *[f"{i * 3 + j}.5" for j in range(width - 1)]] for i in range(10)]
    layout = sniff(table(d, [top, groups, names] + rows))
    assert (layout.width, layout.skip_records, layout.header_rows, layout.header_clear) == (width, 0, 3, False)
    assert list(layout.names) == ["Site", *(f"Report 2024 {GROUPS[lang]} {n}" for n in names[1:])]


def test_a_header_with_an_empty_first_name_over_text_rows_is_no_group():
    lines = [["", "name", "city"]] + [[f"r{i}", f"Ann{i}", f"Oslo{i}"] for i in range(8)]
    layout = sniff(table(",", lines))
    assert layout.header_rows < 2 and not layout.names  # as before: no votes, asked


UNIT_SHAPES = {
    "bracketed": ["(s)", "(mV)", "[EUR]"],
    "bare": ["s", "mV", "EUR"],
    "german": ["(Std.)", "(Stück)", "€"],
    "some": ["", "(kg)", ""],
}


@pytest.mark.parametrize("groups", [False, True])
@pytest.mark.parametrize("shape", sorted(UNIT_SHAPES))
def test_units_under_the_names_join_them(shape, groups):
    """A row of units under the names (`(s)`, `mV`, `€`), with or without a row of groups over them:
    one header over two or three rows, each name joined with its group (which spans the empty cells
    to its right, a merged cell exported) and unit as a person writes it."""
    names, units = ["Time", "Reading", "Price"], UNIT_SHAPES[shape]
    top = [["", "Sensor", ""]] if groups else []
    data = [[str(i * 5), f"{i - 1.58:.2f}", f"{i * 2.5:.2f}"] for i in range(12)]
    got = header_over_rows([*top, names, units, *data])
    expected = [
        f"{'Sensor ' if groups and j >= 1 else ''}{n} {u}".strip() for j, (n, u) in enumerate(zip(names, units))
    ]
    assert got == (len(top) + 2, expected)


@pytest.mark.parametrize(
    "second",
    [
        ["NY", "CA", "TX"],  # codes over text: a row of data
        ["(a)", "(b)", "(c)"],  # brackets over a column of text are no units
        ["1", "2", "3"],  # values
    ],
)
def test_a_row_that_is_no_units_row_is_not_joined_to_the_header(second):
    names = ["Name", "State", "Amount"]
    data = [[f"Person {i}", "WA", str(i * 3)] for i in range(12)]
    assert header_over_rows([names, second, *data]) is None
