"""The same-as kind (synthesize/kinds/same_as.py): a row named and compared with ("more gold
than Norway", "the same gold as Peru"), the rows kept the same as it, more or less; and the tune
questions it answers."""

from __future__ import annotations

import pytest
from synth_golden import case_id, expected, golden, proposed
from synth_schemas import MEDALS, reading

from tabular.synthesize.kinds.same_as import same_as


def test_the_same_gold_as_peru_leaves_peru_out():
    r, _ = reading("which nation has the same gold as Peru")
    (candidate,) = same_as(r, [MEDALS]).candidates
    plan = candidate.plan
    anchor = next(m for m in plan["measures"] if m["as"] == "anchor")
    assert anchor["expr"]["case"][0] == {
        "when": {"column": "Nation", "op": "eq", "value": "Peru", "ignore_case": True},
        "then": "Gold",
    }
    having = plan["having"]
    assert {"column": "anchors", "op": "eq", "value": 1} in having  # one row is Peru
    assert {"column": "anchor", "op": "is_null"} in having  # Peru's own row is no answer
    assert {"column": "differs", "op": "is_null"} in having  # the same gold
    assert candidate.answer == ("Nation",)


def test_more_than_a_row_keeps_the_rows_whose_gap_to_it_is_positive():
    r, _ = reading("which nation won more gold than Norway")
    (candidate,) = same_as(r, [MEDALS]).candidates
    plan = candidate.plan
    differs = next(m for m in plan["measures"] if m["as"] == "differs")
    assert differs["expr"] == {"sub": ["Gold", "anchor_value"]}
    assert {"column": "differs", "op": "gt", "value": 0} in plan["having"]
    r, _ = reading("which nation won fewer gold than Norway")
    plan = same_as(r, [MEDALS]).candidates[0].plan
    assert {"column": "differs", "op": "lt", "value": 0} in plan["having"]


def test_more_than_a_row_named():
    r, left = reading("which nation won more gold than Norway")
    assert left == []
    column, row = r.same
    assert [c.name for c in column.targets] == ["Gold"] and row.text == "norway" and r.than == "gt"
    assert r.yes_no == ""


def test_the_same_as_a_row_named_either_way_round():
    r, _ = reading("which nation has the same gold as Peru")
    column, row = r.same
    assert [c.name for c in column.targets] == ["Gold"] and row.text == "peru" and r.than == ""
    r, _ = reading("Peru has the same gold as which nation")
    assert r.same[1].text == "peru" and r.values == []


@pytest.mark.parametrize("case", golden("same_as"), ids=case_id)
def test_the_tune_questions_it_answers_keep_their_plans(case):
    """Each tune question this kind answered right (tests/synthesize/golden/same_as.json) gets the
    same candidate plans from the built-in proposer, over its table's schema."""
    assert proposed(case) == expected(case)
