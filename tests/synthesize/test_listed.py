"""Cells that list several values (tabular/synthesize/listed.py), checked by verify.py on every
plan: a value matched whole, kept or excluded, where another cell of its column lists it among
others; a ranking of groups whose cells list several is left to the reading. Tables in several shapes
(comma, ampersand, slash, a second line; English and German names), each beside a question on the
same table that must still be answered, worked out by hand."""

from __future__ import annotations

import pytest
from synth_engine import abstains, answer, tables_namespace

from tabular.synthesize.listed import listing, matched_whole_where_listed, parts
from tabular.synthesize.schemas import ColumnSchema

TABLES = [
    # a final shared by two nations, written with a comma
    (
        "cups",
        ",",
        ["Year", "Winner", "Runner-up", "Venue"],
        [
            ["2001", "Spain", "Italy", "Rome"],
            ["2002", "Spain, Italy", "France", "Paris"],
            ["2003", "Italy", "Spain", "Madrid"],
            ["2004", "France", "Spain", "Rome"],
            ["2005", "Spain", "France", "Lyon"],
        ],
    ),
    # German column names, two surfaces in one cell with a slash
    (
        "turniere",
        ";",
        ["Jahr", "Turnier", "Belag", "Preisgeld"],
        [
            ["2001", "Wien", "Hard", "100"],
            ["2002", "Rom", "Clay", "200"],
            ["2003", "Paris", "Hard / Clay", "300"],
            ["2004", "Oslo", "Clay", "150"],
            ["2005", "Graz", "Hard", "120"],
            ["2006", "Linz", "Grass", "90"],
        ],
    ),
    # writers credited together with an ampersand; one writer alone; the order of columns changed
    (
        "episodes",
        ",",
        ["Writer", "No.", "Title", "Viewers"],
        [
            ["Ann Lee", "1", "Pilot", "5.1"],
            ["Ann Lee & Bo Ray", "2", "Second", "4.8"],
            ["Cy Dunn", "3", "Third", "4.2"],
            ["Cy Dunn", "4", "Fourth", "4.0"],
        ],
    ),
]


@pytest.fixture(scope="module")
def ns(tmp_path_factory):
    with tables_namespace(tmp_path_factory.mktemp("listed"), TABLES) as ns:
        yield ns


def test_a_value_excluded_whole_where_a_cell_lists_it_is_not_answered(ns):
    # "Spain, Italy" is not Spain alone, and is Spain: the count of the others is not sure
    reason, why = abstains(ns, "how many times was the winner not spain?", "cups")
    assert reason == "invalid_plan" and "'Spain, Italy'" in why
    reason, why = abstains(ns, "how many episodes had a writer other than ann lee?", "episodes")
    assert "'Ann Lee & Bo Ray'" in why


def test_a_ranking_by_groups_whose_cells_list_several_is_left_to_the_reading(ns):
    # "Hard / Clay" is a group of its own; Clay's and Hard's totals are ranked as the cells say
    assert answer(ns, "which belag has the highest total preisgeld?", "turniere") == [["Clay"]]


def test_values_no_cell_lists_are_answered(ns):
    # Venue and Turnier list nothing; Cy Dunn is written alone every time
    assert answer(ns, "how many times was the venue rome?", "cups") == [[2]]
    assert answer(ns, "how many episodes had cy dunn as writer?", "episodes") == [[2]]
    assert answer(ns, "what was the preisgeld of linz?", "turniere") == [[90]]


def _column(name, values):
    return ColumnSchema("t", name, "string", "VARCHAR", False, len(values), values=tuple(values))


def test_the_rules_over_plans_of_any_shape():
    """The rules alone, on plans a chat model might write: the value inside an `all`, in an `in`,
    as the row a measure names; a cell with a comma stops only a test of one of its parts."""
    writer = _column("Writer", ["Ann Lee", "Ann Lee & Bo Ray", "Cy Dunn"])
    town = _column("Town", ["Miami, Ohio", "Dayton", "Akron"])
    columns = {"Writer": writer, "Town": town}
    nested = {"where": [{"all": [{"column": "Writer", "op": "in", "values": ["cy dunn", "ann lee"]}]}]}
    assert "'Ann Lee & Bo Ray'" in matched_whole_where_listed(nested, columns)
    measured = {"measures": [{"as": "anchor", "where": [{"column": "Writer", "op": "eq", "value": "Ann Lee"}]}]}
    assert matched_whole_where_listed(measured, columns)
    assert matched_whole_where_listed({"where": [{"column": "Writer", "op": "eq", "value": "Cy Dunn"}]}, columns) == ""
    assert matched_whole_where_listed({"where": [{"column": "Town", "op": "eq", "value": "Dayton"}]}, columns) == ""
    miami = {"where": [{"column": "Town", "op": "eq", "value": "Miami"}]}  # the rows of Miami may be that cell
    assert "'Miami, Ohio'" in matched_whole_where_listed(miami, columns)
    assert parts("Ann Lee\nBo Ray") == ["ann lee", "bo ray"] and listing("bo ray", ("Ann Lee and Bo Ray",))
