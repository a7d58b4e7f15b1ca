"""One calculation settled from a task's reading (synthesize/calculation.py): the refusals when the
words ask for more than one, or for rows they do not name, and the plans when they ask for one."""

from __future__ import annotations

from synth_schemas import MEDALS, SALES, reading

from tabular.synthesize.calculation import calculation


def test_several_calculations_are_refused():
    r, _ = reading("total gold and average silver")
    assert calculation(r, [MEDALS]).why == "the task asks for several calculations (avg, sum); ask for one at a time"


def test_a_count_of_rows_a_noun_names_with_nothing_to_filter_by_is_refused():
    r, _ = reading("how many deliveries are listed", SALES)
    assert "'deliveries' names no column" in calculation(r, [SALES]).why


def test_an_average_per_group_is_one_plan_grouped():
    r, _ = reading("average amount per region", SALES)
    (candidate,) = calculation(r, [SALES]).candidates
    assert candidate.plan["group_by"] == [{"column": "region"}]
    assert candidate.plan["aggregates"] == [{"fn": "avg", "column": "amount"}]


def test_a_least_of_each_group_said_loosely_is_asked_about():
    r, _ = reading("what is the smallest amount each region has", SALES)
    out = calculation(r, [SALES])
    assert out.abstain == "ambiguous" and out.question == "the least of all, or one for each region?"


def test_who_has_the_most_ranks_the_rows_by_their_names_each_way_a_most_may_be():
    r, _ = reading("who has the most gold")
    out = calculation(r, [MEDALS])
    assert [c.assumes for c in out.candidates] == [
        (("gold", "t.Gold (summed per group)"),),
        (("gold", "t.Gold (its largest single value)"),),
    ]
    plan = out.candidates[0].plan
    assert plan["group_by"] == [{"column": "Nation"}]
    assert plan["order_by"][0] == {"column": "sum_Gold", "desc": True} and plan["limit"] == 1
