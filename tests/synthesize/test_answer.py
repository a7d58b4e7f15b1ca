"""An answer says a plan's filters in the words of planner/functions.py's one definition per operator."""

from typing import get_args

import pytest

from planner.functions import FILTERS
from planner.models import FilterOp, QueryPlan
from tabular.synthesize.answer import clock, describe, words


def test_every_operator_has_words():
    assert set(get_args(FilterOp)) == set(FILTERS)
    assert all("{column}" in f.words and ("{value}" in f.words) == (f.arity != "none") for f in FILTERS.values())


@pytest.mark.parametrize(
    ("where", "said"),
    [
        ({"column": "region", "op": "eq", "value": "North"}, "region = North"),
        ({"column": "amount", "op": "ge", "value": 12.5}, "amount ≥ 12.5"),
        ({"column": "amount", "op": "between", "values": [1, 5]}, "amount between 1 and 5"),
        ({"column": "code", "op": "not_in", "values": ["A", "B"]}, "code not in (A, B)"),
        ({"column": "note", "op": "is_null"}, "note is empty"),
        ({"column": "note", "op": "not_contains", "value": "x"}, "note does not contain x"),
        (
            {"any": [{"column": "region", "op": "ne", "value": "North"}, {"column": "note", "op": "not_null"}]},
            "(region ≠ North or note is not empty)",
        ),
    ],
)
def test_a_plan_is_described_in_the_operators_words(where, said):
    plan = QueryPlan.model_validate({"datasets": [{"source_uri": "sales.csv"}], "where": [where]})
    assert describe(plan) == f"over sales.csv where {said}"


@pytest.mark.parametrize(
    ("iso", "said"),
    [
        ("PT1M24.1S", "1:24.1"),
        ("PT4M19.84S", "4:19.84"),
        ("PT45S", "0:45"),
        ("PT1H30M", "1:30:00"),
        ("P1DT2H15M", "26:15:00"),
        ("-PT5S", "-0:05"),
        ("PT0S", "0:00"),
        ("P1Y", "P1Y"),  # no clock holds a year: said as it is
    ],
)
def test_a_duration_is_said_on_a_clock(iso, said):
    assert clock(iso) == said


def test_words_say_a_duration_on_a_clock_and_leave_text_as_it_is():
    said = words(
        "over laps.csv",
        ["lap", "note"],
        [["PT1M24.1S", "PT1M24.1S"]],
        False,
        "knowledge.query#1",
        [],
        ["duration", "string"],
    )
    assert said == "Over laps.csv: lap 1:24.1, note PT1M24.1S [knowledge.query#1]."
