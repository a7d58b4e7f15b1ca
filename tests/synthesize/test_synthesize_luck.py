"""Answers that were right by luck (issue 31's check split, read from tune's right answers of the
kinds check got wrong most): a count of a column's filled cells where some rows kept have none,
and a value matched whole beside cells that are the same value with a bracketed note. Each rule is
tried on tables of several shapes (other column names, languages, orders), with the question beside
it that must still be answered, worked out by hand from its table."""

from __future__ import annotations

import pytest
from synth_engine import abstains, answer, tables_namespace

import tabular.ops.synthesize as synthesize_op
from tabular.synthesize.proposal import Candidate, Proposal

TABLES = [
    # a rank written once for a tie: the rows are four, the filled ranks three
    (
        "ranking",
        ",",
        ["Rank", "Athlete", "Nation", "Time"],
        [
            ["1", "Ada Lind", "Norway", "10.1"],
            ["2", "Bo Park", "Korea", "10.2"],
            ["", "Cy Dunn", "Canada", "10.2"],
            ["4", "Di Fox", "Norway", "10.5"],
        ],
    ),
    (
        "fahrer",
        ";",
        ["Fahrer", "Team", "Punkte"],
        [
            ["Jan Ullmann", "Telekom", "40"],
            ["", "Telekom", "12"],
            ["Erik Zabel", "Telekom", "31"],
            ["Ivan Basso", "CSC", "25"],
        ],
    ),
    # one town written with two notes, and a town written once; German names
    (
        "konzerte",
        ";",
        ["Konzert", "Stadt", "Jahr"],
        [
            ["Tour A", "Köln (Rhein)", "2001"],
            ["Tour B", "Bonn", "2002"],
            ["Tour C", "Köln [2]", "2003"],
            ["Tour D", "Bonn", "2004"],
            ["Tour E", "Köln (Rhein)", "2005"],
        ],
    ),
    # one city written two ways, and one written once
    (
        "expos",
        ",",
        ["Event", "City", "Venue"],
        [
            ["Expo 1990", "Chicago [4]", "Hall A"],
            ["Expo 1994", "Chicago (Ill.)", "Hall B"],
            ["Expo 1998", "Denver", "Hall C"],
            ["Expo 1999", "Denver", "Hall A"],
            ["Expo 2002", "Chicago [4]", "Hall D"],
            ["Expo 2006", "Chicago (Ill.)", "Hall D"],
        ],
    ),
]


@pytest.fixture(scope="module")
def ns(tmp_path_factory):
    with tables_namespace(tmp_path_factory.mktemp("luck"), TABLES) as ns:
        yield ns


def test_a_count_of_filled_cells_where_some_rows_have_none_is_asked(ns):
    reason, why = abstains(ns, "how many ranks are there?", "ranking")
    assert reason == "ambiguous" and "1 of the rows" in why and "Rank" in why
    reason, why = abstains(ns, "how many fahrer are listed for telekom?", "fahrer")
    assert reason == "ambiguous" and "Fahrer" in why
    # every row kept has one: the count is the rows'
    assert answer(ns, "how many athletes are there?", "ranking") == [[4]]
    assert answer(ns, "how many fahrer are listed for csc?", "fahrer") == [[1]]


def test_a_value_written_also_with_a_note_is_not_counted_alone(ns):
    # "chicago" found as one of Chicago (Ill.) and Chicago [4]: two rows, where four were in Chicago
    reason, why = abstains(ns, "how many events were held in chicago?", "expos")
    assert reason == "invalid_plan" and "Chicago (Ill.)" in why and "Chicago [4]" in why
    assert answer(ns, "how many events were held in denver?", "expos") == [[2]]
    # both written with a note the reading asks itself which is meant
    reason, why = abstains(ns, "how many konzerte were in köln?", "konzerte")
    assert reason == "ambiguous" and "Stadt" in why
    assert answer(ns, "how many konzerte were in bonn?", "konzerte") == [[2]]


KOREA = {"column": "Nation", "op": "eq", "value": "Korea"}
CANADA = {"column": "Nation", "op": "eq", "value": "Canada"}


class Fixed:
    """A proposer that proposes one plan, as a chat model may write it."""

    name = "fixed"

    def __init__(self, plan):
        self.plan = plan

    def propose(self, task, schemas):
        return Proposal(candidates=(Candidate(self.plan),))

    def repair(self, task, schemas, failed, plan, errors):
        return Proposal()


def proposing(monkeypatch, table, **plan):
    monkeypatch.setattr(
        synthesize_op, "choose", lambda settings: Fixed({"datasets": [{"source_uri": f"{table}.csv"}], **plan})
    )


def test_a_count_with_its_own_filter_looks_for_empty_cells_in_its_own_rows(ns, monkeypatch):
    # the count's own where keeps Korea's row, whose Rank is filled: Canada's empty Rank is no row it reads
    proposing(monkeypatch, "ranking", aggregates=[{"fn": "count", "column": "Rank", "where": [KOREA]}])
    assert answer(ns, "how many ranks did korea get?", "ranking") == [[1]]
    proposing(monkeypatch, "ranking", aggregates=[{"fn": "count", "column": "Rank", "where": [CANADA]}])
    reason, why = abstains(ns, "how many ranks did canada get?", "ranking")
    assert reason == "ambiguous" and "1 of the rows" in why and "Rank" in why


def test_a_column_compared_with_another_is_answered_or_refused_never_internal(ns, monkeypatch):
    proposing(
        monkeypatch, "expos", where=[{"column": "City", "op": "eq", "other": "Venue"}], aggregates=[{"fn": "count"}]
    )
    reason, why = abstains(ns, "how many events were held in a city named as their venue?", "expos")
    assert reason == "invalid_plan" and "note" not in why
