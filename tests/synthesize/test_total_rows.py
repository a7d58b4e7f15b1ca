"""Rows that total the others, where the ingest keeps them (tabular/synthesize/total_rows.py): a
label that starts with a total word and says more ("Total (4 NOCs)", "Gesamt alle Länder",
"Всего по округу"), a grand total first or in the middle, subtotals of parts beside a grand total.
Each is left out of every plan when its numbers are the others' sums, so a total is not counted
twice; a title that starts with a total word ("Total Recall") stays a row. Answers worked out by
hand from each table."""

from __future__ import annotations

import pytest
from synth_engine import answer, tables_namespace
from synth_schemas import col, table

from tabular.synthesize.total_rows import total_row_read, total_rows

TABLES = [
    # a medal table whose total row says how many nations, in both text columns
    (
        "medals",
        ",",
        ["Rank", "Nation", "Gold", "Silver", "Bronze", "Total"],
        [
            ["1", "Norway", "5", "3", "2", "10"],
            ["2", "Kenya", "3", "4", "1", "8"],
            ["3", "Peru", "2", "2", "4", "8"],
            ["4", "Chile", "1", "0", "3", "4"],
            ["Total (4 NOCs)", "Total (4 NOCs)", "11", "9", "10", "30"],
        ],
    ),
    # German, the grand total first, one number column only
    (
        "laender",
        ";",
        ["Land", "Einwohner"],
        [
            ["Gesamt alle Länder", "1000"],
            ["Bayern", "400"],
            ["Hessen", "300"],
            ["Saarland", "100"],
            ["Bremen", "200"],
        ],
    ),
    # subtotals of two parts in the middle, then the grand total; upper case labels; the
    # published populations rounded (561 beside a sum of 560), a density that adds up to nothing
    (
        "councils",
        ",",
        ["Council", "Area", "Population", "Density"],
        [
            ["Angus", "2200", "110", "50"],
            ["Fife", "1300", "360", "277"],
            ["Moray", "2200", "90", "41"],
            ["TOTAL MAINLAND", "5700", "561", "98"],
            ["Orkney", "990", "20", "20"],
            ["Shetland", "1470", "23", "16"],
            ["TOTAL ISLANDS", "2460", "43", "17"],
            ["TOTAL SCOTLAND", "8160", "604", "74"],
        ],
    ),
    # the top 3 of a larger table under the total of all 12: a total by its label alone
    (
        "top",
        ",",
        ["Rank", "Nation", "Gold", "Total"],
        [
            ["1", "Japan", "9", "20"],
            ["2", "Korea", "7", "25"],
            ["3", "China", "6", "14"],
            ["Total (12 nations)", "Total (12 nations)", "40", "120"],
        ],
    ),
    # a total written across both label columns, beside a change written as text
    (
        "towns",
        ",",
        ["Town", "Municipality", "Population", "Change (%)"],
        [
            ["Ayr", "Ayr No. 1", "300", "2.1"],
            ["Bude", "Bude No. 4", "500", "-1.0"],
            ["Cove", "Cove No. 9", "250", "7.8"],
            ["Total towns", "Total towns", "1051", "3.0"],
        ],
    ),
    # Russian labels, the total in the middle of the list, tab-separated
    (
        "okruga",
        "\t",
        ["Округ", "Школы", "Ученики"],
        [
            ["Северный", "12", "3400"],
            ["Южный", "8", "2100"],
            ["Всего по округам", "35", "9000"],
            ["Западный", "10", "2500"],
            ["Восточный", "5", "1000"],
        ],
    ),
    # titles that start with a total word, one written as its own original title: rows like the others
    (
        "films",
        ",",
        ["Film", "Original title", "Director", "Year", "Gross"],
        [
            ["Total Recall", "Total Recall", "Verhoeven", "1990", "261"],
            ["Alien", "Alien", "Scott", "1979", "104"],
            ["Totally Fine", "Très Bien", "Roux", "2001", "12"],
            ["Heat", "Heat", "Mann", "1995", "187"],
        ],
    ),
]


@pytest.fixture(scope="module")
def ns(tmp_path_factory):
    with tables_namespace(tmp_path_factory.mktemp("totals"), TABLES) as ns:
        yield ns


def _num(rows):
    return [[float(v) for v in row] for row in rows]


def test_a_total_row_that_says_more_than_total_is_not_added_to_the_rows_it_totals(ns):
    assert _num(answer(ns, "what is the total gold?", "medals")) == [[11]]
    assert _num(answer(ns, "what is the total of einwohner?", "laender")) == [[1000]]
    assert _num(answer(ns, "what is the total of ученики?", "okruga")) == [[9000]]


def test_a_total_row_is_neither_counted_nor_ranked(ns):
    assert answer(ns, "which nation won the most silver?", "medals") == [["Kenya"]]
    assert answer(ns, "which land has the most einwohner?", "laender") == [["Bayern"]]
    assert _num(answer(ns, "how many nations won more than 1 gold?", "medals")) == [[3]]


def test_subtotals_of_parts_beside_their_grand_total_are_all_left_out(ns):
    assert _num(answer(ns, "what is the total area?", "councils")) == [[8160]]
    assert answer(ns, "which council has the largest population?", "councils") == [["Fife"]]


def test_a_total_said_by_its_label_alone_is_left_out_whatever_its_numbers(ns):
    # the total of 12 nations is no sum of the 3 shown; it is still no nation
    assert answer(ns, "which nation has the most total?", "top") == [["Korea"]]
    assert _num(answer(ns, "what is the total gold?", "top")) == [[22]]
    assert _num(answer(ns, "what is the total population?", "towns")) == [[1050]]


def test_a_title_that_starts_with_a_total_word_stays_a_row(ns):
    assert _num(answer(ns, "what is the total gross?", "films")) == [[564]]
    assert answer(ns, "which film has the highest gross?", "films") == [["Total Recall"]]


class _Out:
    def __init__(self, rows):
        self.rows = rows


class _Item:
    def model_copy(self, update):
        return self


class _Column:
    def __init__(self, name, type_, physical=""):
        self.name, self.type, self.physical = name, type_, physical


def test_a_longer_total_label_is_a_total_only_when_its_numbers_are_the_others_sums():
    """The rule alone, over a table given as its probe's answers: 'Total 3 teams' sums the three
    rows and is found; 'Total Eclipse' does not and is a row."""
    columns = [_Column("Team", "string"), _Column("Wins", "number", "BIGINT")]
    for label, wins, found in (("Total 3 teams", 9, True), ("Total Eclipse", 7, False)):
        answers = iter([_Out([[label, wins]]), _Out([[9, 3]])])  # the labelled rows; then the others' sums, rows
        got = total_rows(lambda answers=answers, **plan: next(answers), _Item(), columns)
        assert got == ((("Team", label),) if found else ())


def test_a_plan_from_any_proposer_that_reads_a_total_row_among_the_others_is_refused():
    """A chat model's plan that adds up Gold over a table whose 'Total (4 NOCs)' row totals the
    others, with nothing naming the column that labels it; the built-in's plan (the row left out
    by a test of that column) and a lookup pass."""
    medals = table(col("Nation"), col("Gold", "number"), totals=(("Nation", "Total (4 NOCs)"),))
    ref = [medals.ref()]
    summed = {"datasets": ref, "aggregates": [{"fn": "sum", "column": "Gold"}]}
    assert "'Total (4 NOCs)' totals the others" in total_row_read(summed, [medals])
    ranked = {"datasets": ref, "group_by": [{"column": "Nation"}], "order_by": [{"column": "Gold", "desc": True}]}
    assert total_row_read(ranked, [medals])
    kept_out = {**summed, "where": medals.without_totals(lambda name: name)}
    assert total_row_read(kept_out, [medals]) == ""
    one = {
        "datasets": ref,
        "where": [{"column": "Nation", "op": "eq", "value": "Peru"}],
        "select": [{"column": "Gold"}],
    }
    assert total_row_read(one, [medals]) == ""
    assert total_row_read(summed, [table(col("Nation"), col("Gold", "number"))]) == ""


@pytest.mark.parametrize(
    ("test", "refused"),
    [
        ({"column": "Nation", "op": "ne", "value": "France"}, True),  # other nations: the total among them
        ({"column": "Nation", "op": "not_in", "values": ["France", "Peru"]}, True),
        ({"column": "Nation", "op": "contains", "value": "a"}, True),
        ({"column": "Nation", "op": "ne", "value": "Total (4 NOCs)"}, False),  # the total itself left out
        ({"column": "Nation", "op": "not_in", "values": ["total (4 nocs)"]}, False),  # in any case
        ({"column": "Nation", "op": "in", "values": ["France", "Peru"]}, False),  # named rows only
        ({"column": "Nation", "op": "in", "values": ["France", "Total (4 NOCs)"]}, True),
    ],
)
def test_only_a_test_that_leaves_the_total_row_out_lets_a_sum_through(test, refused):
    """'Gold won by nations other than France' tests the label column, and still adds the total row
    to the nations it totals: the sum about doubled. Only a test that keeps the label out passes."""
    medals = table(col("Nation"), col("Gold", "number"), totals=(("Nation", "Total (4 NOCs)"),))
    plan = {"datasets": [medals.ref()], "aggregates": [{"fn": "sum", "column": "Gold"}], "where": [test]}
    assert bool(total_row_read(plan, [medals])) is refused
