"""Row order as data (synthesize/row_order.py): the row by its place in the list, or next to a
row a value names, read off a row number over the rows as they are listed."""

from __future__ import annotations

from synth_schemas import MEDALS, reading

from tabular.synthesize.row_order import in_order


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
