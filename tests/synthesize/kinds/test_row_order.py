"""The row-by-place kind (synthesize/kinds/row_order.py): a place in the list or won read
("the first listed", "who finished first", "after X"), and the row by its place in the list, or
next to a row a value names, read off a row number over the rows as they are listed; and the
tune questions it answers."""

from __future__ import annotations

import pytest
from synth_golden import case_id, expected, golden, proposed
from synth_schemas import MEDALS, reading

from tabular.synthesize.kinds.row_order import in_order


def plan_of(task):
    r, left = reading(task)
    assert left == [] and r.position is not None
    (candidate,) = in_order(r, [MEDALS]).candidates
    return candidate


def test_the_first_listed_is_the_row_numbered_one():
    candidate = plan_of("which nation is listed first")
    plan = candidate.plan
    assert plan["select"] == [{"column": "Nation"}] and candidate.answer == ("Nation",)
    assert {"as": "position", "window": {"fn": "row_number"}} in plan["measures"]
    assert plan["having"] == [{"column": "position", "op": "eq", "value": 1}]


def test_the_row_after_a_value_is_one_past_the_one_row_that_holds_it():
    plan = plan_of("which nation is listed after Norway").plan
    anchor = next(m for m in plan["measures"] if m["as"] == "anchor")
    assert anchor["expr"]["case"][0]["when"] == {"column": "Nation", "op": "eq", "value": "Norway", "ignore_case": True}
    # only where one row holds Norway, and the row just after it
    assert plan["having"] == [
        {"column": "anchors", "op": "eq", "value": 1},
        {"column": "offset", "op": "eq", "value": 1},
    ]


def test_the_row_before_a_value_is_one_back():
    plan = plan_of("which nation comes before Finland").plan
    assert {"column": "offset", "op": "eq", "value": -1} in plan["having"]


def test_first_or_last_listed():
    assert reading("which nation is listed first")[0].position == ("first", None)
    assert reading("the last nation listed")[0].position == ("last", None)


def test_a_place_won_is_marked_placed():
    r, left = reading("which nation finished third")
    assert left == [] and r.position == (3, None) and r.placed
    r, _ = reading("which nation came in last")
    assert r.position == ("last", None) and r.placed
    r, _ = reading("which nation finished first")
    assert r.position == ("first", None) and r.placed


def test_the_nth_listed_is_a_place_in_the_list_not_won():
    r, _ = reading("the third nation listed")
    assert r.position == (3, None) and not r.placed


def test_the_row_after_or_before_a_value():
    r, left = reading("which nation is listed after Norway")
    assert left == []
    side, span = r.position
    assert side == "after" and span.text == "norway"
    side, span = reading("which nation is listed below Norway")[0].position
    assert side == "after"
    side, span = reading("which nation comes before Finland")[0].position
    assert (side, span.text) == ("before", "finland")


def test_at_the_top_is_the_first_row_unless_the_task_ranks():
    r, _ = reading("which nation is at the top")
    assert r.position == ("first", None)
    r, _ = reading("which nation is at the top with the most gold")
    assert r.position is None


@pytest.mark.parametrize("case", golden("row_order"), ids=case_id)
def test_the_tune_questions_it_answers_keep_their_plans(case):
    """Each tune question this kind answered right (tests/synthesize/golden/row_order.json) gets the
    same candidate plans from the built-in proposer, over its table's schema."""
    assert proposed(case) == expected(case)
