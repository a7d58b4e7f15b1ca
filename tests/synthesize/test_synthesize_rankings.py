"""A ranking answers with what it ranks (issue 55): "what city has the most barangays", "what
team has the highest number of wins", "top 2 municipality by area" answer the city, the team, the
municipalities; the totals ranked by are evidence beside them, not the answer. Tables in several
shapes (the measure first or last, a group repeated over rows or one row each, German column
names), answers worked out by hand."""

from __future__ import annotations

import pytest
from synth_engine import tables_namespace

TABLES = [
    # a team over several seasons: its wins are added up
    (
        "league",
        ",",
        ["Team", "Season", "Wins", "Goals"],
        [
            ["Reds", "2001", "10", "40"],
            ["Blues", "2001", "12", "35"],
            ["Reds", "2002", "9", "38"],
            ["Greens", "2002", "14", "50"],
            ["Blues", "2002", "3", "20"],
        ],
    ),
    # German names, the measure in the first column
    (
        "staedte",
        ";",
        ["Einwohner", "Stadt", "Bezirke"],
        [["1200", "Linz", "9"], ["3400", "Graz", "17"], ["900", "Wels", "4"], ["2100", "Salzburg", "12"]],
    ),
    # one row per municipality, a measure named with "No. of" and one with a unit
    (
        "towns",
        ",",
        ["Municipality", "No. of Barangays", "Area (km2)"],
        [["Angono", "10", "26"], ["Binangonan", "40", "66"], ["Cainta", "7", "42"], ["Taytay", "5", "38"]],
    ),
]


@pytest.fixture(scope="module")
def ns(tmp_path_factory):
    with tables_namespace(tmp_path_factory.mktemp("rankings"), TABLES) as ns:
        yield ns


@pytest.mark.parametrize(
    "task, table, ranked, evidence",
    [
        ("what team has the highest number of wins?", "league", [["Reds"]], [19]),
        ("which team has the most goals in total?", "league", [["Reds"]], [78]),
        ("what stadt has the most einwohner?", "staedte", [["Graz"]], [3400]),
        ("what stadt has the fewest bezirke?", "staedte", [["Wels"]], [4]),
        ("what municipality has the most barangays?", "towns", [["Binangonan"]], [40]),
        ("which municipality has the least barangays?", "towns", [["Taytay"]], [5]),
        ("top 2 municipality by area", "towns", [["Binangonan"], ["Cainta"]], [66, 42]),
    ],
)
def test_a_ranking_answers_with_the_groups_and_keeps_the_totals_as_evidence(ns, task, table, ranked, evidence):
    out = ns.synthesize(task, [f"{table}.csv"])
    assert not out.abstain, (task, out.clarification)
    calc = out.calculations[0]
    names = [c.name for c in calc.columns]
    assert [[row[names.index(a)] for a in calc.answer_columns] for row in calc.rows] == ranked
    # the total ranked by is still shown, beside the answer, as its evidence
    others = [k for k, name in enumerate(names) if name not in calc.answer_columns]
    assert [float(row[others[0]]) for row in calc.rows] == evidence
