"""An answer says every condition of its plan as it ran, in the reading's words
(synthesize/phrases.py): case ignored, ranges, `in` lists, the empty rows a negation leaves out,
an aggregate's own filter, semi and anti joins, having, a nested plan's."""

from typing import get_args

import pytest

from planner.models import FilterOp, QueryPlan
from planner.operators import FILTERS
from tabular.synthesize.answer import answer_columns, clock, conditions, describe, note, words


def test_every_operator_has_words():
    assert set(get_args(FilterOp)) == set(FILTERS)
    assert all("{column}" in f.words and ("{value}" in f.words) == (f.arity != "none") for f in FILTERS.values())


@pytest.mark.parametrize(
    ("where", "said"),
    [
        ({"column": "region", "op": "eq", "value": "North"}, "region is North"),
        ({"column": "status", "op": "eq", "value": "PAID", "ignore_case": True}, "status is PAID, any case"),
        ({"column": "amount", "op": "ge", "value": 12.5}, "amount is at least 12.5"),
        ({"column": "amount", "op": "between", "values": [1, 5]}, "amount is from 1 to 5"),
        ({"column": "code", "op": "in", "values": ["A", "B", "C"]}, "code is one of A, B or C"),
        (
            {"column": "code", "op": "not_in", "values": ["A", "B"]},
            "code is neither A nor B (rows with no code left out)",
        ),
        ({"column": "note", "op": "is_null"}, "note is empty"),
        (
            {"column": "note", "op": "not_contains", "value": "x"},
            'note does not contain "x" (rows with no note left out)',
        ),
        # empties kept by the plan itself: said by the condition, nothing left out
        (
            {"any": [{"column": "region", "op": "is_null"}, {"column": "region", "op": "ne", "value": "North"}]},
            "region is empty or is not North",
        ),
        # in an `any` group another alternative may keep an empty region: not said either way
        (
            {"any": [{"column": "region", "op": "ne", "value": "North"}, {"column": "note", "op": "not_null"}]},
            "region is not North or note is not empty",
        ),
    ],
)
def test_a_plan_is_described_with_every_condition_as_it_ran(where, said):
    plan = QueryPlan.model_validate({"datasets": [{"source_uri": "sales.csv"}], "where": [where]})
    assert describe(plan) == f"over sales.csv where {said}"


def test_an_aggregates_filter_a_semi_join_and_having_are_said_too():
    plan = QueryPlan.model_validate(
        {
            "datasets": [{"source_uri": "orders.csv", "alias": "o"}, {"source_uri": "refunds.csv", "alias": "r"}],
            "joins": [{"alias": "r", "on": [{"left": "o.id", "right": "r.order_id"}], "kind": "anti"}],
            "group_by": [{"column": "o.region"}],
            "aggregates": [
                {"fn": "count"},
                {"fn": "sum", "column": "o.amount", "where": [{"column": "o.kind", "op": "ne", "value": "fee"}]},
            ],
            "having": [{"column": "count", "op": "gt", "value": 2}],
        }
    )
    assert describe(plan) == (
        "over orders.csv joined with refunds.csv; sum of o.amount reads only the rows where o.kind is not fee "
        "(rows with no o.kind left out); only rows without a match in r; result rows kept where count is more than 2"
    )


def test_a_nested_plans_conditions_are_named_by_its_alias():
    inner = {"datasets": [{"source_uri": "sales.csv"}], "where": [{"column": "year", "op": "eq", "value": 2024}]}
    plan = QueryPlan.model_validate(
        {
            "datasets": [{"plan": {**inner, "group_by": [{"column": "region"}]}, "alias": "y"}],
            "select": [{"column": "region"}],
        }
    )
    assert conditions(plan) == ["y: where year is 2024"]
    assert describe(plan) == "over y (over sales.csv where year is 2024)"


def test_the_note_heads_its_table_with_what_was_read():
    text, cut = note(["count"], [[3]], False, 500, scope="over orders.csv where status is PAID, any case")
    assert text.splitlines() == ["Over orders.csv where status is PAID, any case:", "count", "-----", "3"] and not cut


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


RANKING = {
    "datasets": [{"source_uri": "teams.csv"}],
    "group_by": ["Team"],
    "aggregates": [{"fn": "sum", "column": "Wins"}],
    "order_by": [{"column": "sum_Wins", "desc": True}],
    "limit": 1,
}


@pytest.mark.parametrize(
    "said",
    [("Team", "sum_Wins"), ("group_by[0]", "aggregates[0]"), ("sum_Wins", "Team")],
)
def test_a_ranking_answers_with_its_group_whatever_the_proposer_named_beside_it(said):
    """ "Which team has the most wins": a chat model naming the team and the total it ranks by gets
    the team as the answer, the total as evidence (a judge of the answer columns read the total)."""
    assert answer_columns(RANKING, ["Team", "sum_Wins"], said) == ["Team"]


def test_a_ranking_whose_proposer_names_only_the_total_keeps_it():
    """Only the total named (how many wins had the best team): the total is what answers."""
    assert answer_columns(RANKING, ["Team", "sum_Wins"], ("sum_Wins",)) == ["sum_Wins"]
