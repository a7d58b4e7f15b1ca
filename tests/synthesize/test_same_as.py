"""The rows compared with a row named (synthesize/same_as.py): the same as it, more or less."""

from __future__ import annotations

from synth_schemas import MEDALS, reading

from tabular.synthesize.same_as import same_as


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
