"""Signals of doubt that make the step abstain rather than answer (issue 31's check split): an
answer cell of several lines, an answer column the task names only in part beside a row found in
another column, a row beside a named row among filtered rows, a count under a bound over empty
cells, and a total over several rows of one name the task does not say to add. Each rule is tried
on tables of several shapes (other column names, languages, widths and orders), with the question
beside it that must still be answered; each expected answer is worked out by hand from its table."""

from __future__ import annotations

import pytest
from synth_engine import abstains, answer, tables_namespace

TABLES = [
    # a cell with a caption on a second line; the other cells one line each
    (
        "municipalities",
        ",",
        ["Old municipalities", "New municipality", "Seat"],
        [
            ["Tyros", "South Kynouria\n(Notia Kynouria)", "Leonidio"],
            ["Astros", "North Kynouria", "Astros"],
            ["Tripoli", "Tripoli", "Tripoli"],
        ],
    ),
    (
        "gebaeude",
        ";",
        ["Rang", "Gebäude", "Stadt", "Höhe"],
        [
            ["1", "Messeturm", "Frankfurt", "257"],
            ["2", "Main Tower", "Frankfurt", "200"],
            ["3", "Westendstraße 1\n\n\nDer Turm von Süden", "Frankfurt", "208"],
        ],
    ),
    # the album asked is the row's Title; Original Album names where a song first came out
    (
        "soundtrack",
        ",",
        ["No.", "Title", "Original Album", "Length"],
        [
            ["1", "Topeng", "OST. Alexandria", "4:25"],
            ["2", "Sally Sendiri", "Romantis", "3:50"],
            ["3", "Langit Tak Mendengar", "OST. Alexandria", "4:10"],
        ],
    ),
    (
        "singles",
        "\t",
        ["Year", "Song", "Studio album", "Chart"],
        [
            ["2001", "Rain Song", "First Light", "12"],
            ["2002", "Blue Road", "First Light", "7"],
            ["2004", "Night Bus", "Harbour", "3"],
        ],
    ),
    # a race listed in finishing order, runners of several nations
    (
        "race",
        ",",
        ["Rank", "Name", "Nationality", "Time"],
        [
            ["1", "Mark Johnston", "United States", "10.1"],
            ["2", "Piet Smit", "Netherlands", "10.2"],
            ["3", "Nate Boyle", "United States", "10.4"],
            ["4", "Ole Berg", "Norway", "10.5"],
        ],
    ),
    (
        "etappe",
        ",",
        ["Platz", "Fahrer", "Team", "Zeit"],
        [
            ["1", "Jan Ullmann", "Telekom", "4:01"],
            ["2", "Ivan Basso", "CSC", "4:02"],
            ["3", "Erik Zabel", "Telekom", "4:05"],
        ],
    ),
    # points with empty cells: a skater who did not skate has none
    (
        "skaters",
        ",",
        ["Skater", "Nation", "Points"],
        [
            ["Ann Ray", "Canada", "2500"],
            ["Bea Cole", "Japan", "2700"],
            ["Cy Dunn", "Canada", ""],
            ["Di Fox", "Japan", "2550"],
        ],
    ),
    (
        "clubs",
        ";",
        ["Club", "Wins", "Losses"],
        [
            ["Alba", "1", "9"],
            ["Brava", "5", "5"],
            ["Corte", "2", "8"],
            ["Dora", "7", "3"],
        ],
    ),
    # one name on several rows: seasons to add, or a career row beside them
    (
        "scorers",
        ",",
        ["Player", "Season", "Points"],
        [
            ["Ada Lind", "2001", "10"],
            ["Ada Lind", "2002", "14"],
            ["Bo Park", "2001", "9"],
        ],
    ),
    (
        "torschuetzen",
        ",",
        ["Spieler", "Verein", "Tore"],
        [
            ["Gerd Roth", "Bayern", "12"],
            ["Gerd Roth", "Hertha", "8"],
            ["Uwe Kalb", "Hertha", "8"],
        ],
    ),
]


@pytest.fixture(scope="module")
def ns(tmp_path_factory):
    with tables_namespace(tmp_path_factory.mktemp("doubt"), TABLES) as ns:
        yield ns


def test_an_answer_cell_of_several_lines_is_not_answered(ns):
    reason, why = abstains(ns, "what is the new municipality of tyros?", "municipalities")
    assert reason == "invalid_plan" and "several lines" in why
    assert answer(ns, "what is the new municipality of astros?", "municipalities") == [["North Kynouria"]]
    reason, why = abstains(ns, "what is the last gebäude listed?", "gebaeude")
    assert "several lines" in why
    assert answer(ns, "what is the first gebäude listed?", "gebaeude") == [["Messeturm"]]


def test_an_answer_column_named_in_part_beside_a_row_found_in_another_column_is_not_answered(ns):
    reason, why = abstains(ns, "which album came after sally sendiri?", "soundtrack")
    assert reason == "invalid_plan" and "Original Album" in why and "Title" in why
    reason, why = abstains(ns, "which album comes after rain song?", "singles")
    assert "Studio album" in why and "Song" in why
    # named whole, or the row found in the answer's own column: answered
    assert answer(ns, "which title came after sally sendiri?", "soundtrack") == [["Langit Tak Mendengar"]]
    assert answer(ns, "what studio album comes after blue road?", "singles") == [["Harbour"]]


def test_a_row_beside_a_named_row_among_filtered_rows_is_not_answered(ns):
    reason, why = abstains(ns, "who finished before nate boyle for the united states?", "race")
    assert reason == "invalid_plan" and "Nationality" in why
    reason, why = abstains(ns, "which fahrer came after jan ullmann for telekom?", "etappe")
    assert "Team" in why
    # with no filter beside it, the row before is the one listed before
    assert answer(ns, "who finished before nate boyle?", "race") == [["Piet Smit"]]
    assert answer(ns, "which fahrer came after jan ullmann?", "etappe") == [["Ivan Basso"]]


def test_a_count_under_a_bound_over_empty_cells_is_asked(ns):
    reason, why = abstains(ns, "how many skaters have at most 2600 points?", "skaters")
    assert reason == "ambiguous" and "1 of the rows have no Points" in why
    reason, why = abstains(ns, "how many skaters from canada have less than 2600 points?", "skaters")
    assert reason == "ambiguous"
    # above a bound an empty cell is never counted; a column with no empty cell is counted
    assert answer(ns, "how many skaters have more than 2600 points?", "skaters") == [[1]]
    assert answer(ns, "how many clubs have fewer than 3 wins?", "clubs") == [[2]]
    assert answer(ns, "how many clubs have at most 5 losses?", "clubs") == [[2]]


def test_a_total_over_several_rows_of_one_name_is_asked_unless_the_task_adds(ns):
    reason, why = abstains(ns, "how many points did ada lind score?", "scorers")
    assert reason == "ambiguous" and "2 rows" in why
    reason, why = abstains(ns, "how many tore did gerd roth score?", "torschuetzen")
    assert reason == "ambiguous"
    # the task says to add them; one row of the name is its value
    assert answer(ns, "how many total points did ada lind score?", "scorers") == [[24]]
    assert answer(ns, "how many points did bo park score?", "scorers") == [[9]]
    assert answer(ns, "how many tore did uwe kalb score?", "torschuetzen") == [[8]]
