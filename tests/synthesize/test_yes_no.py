"""A yes or a no said of two rows (synthesize/yes_no.py): each row's value, and the answer from
their gap, only when each value names one row."""

from __future__ import annotations

from synth_schemas import MEDALS, reading

from tabular.synthesize.yes_no import yes_no

NORWAY = {"column": "Nation", "op": "eq", "value": "Norway", "ignore_case": True}
FINLAND = {"column": "Nation", "op": "eq", "value": "Finland", "ignore_case": True}


def test_more_than_is_yes_when_the_first_rows_value_is_larger():
    r, _ = reading("did Norway win more gold than Finland")
    (candidate,) = yes_no(r, [MEDALS]).candidates
    plan = candidate.plan
    first, second = plan["aggregates"][:2]
    assert (first["column"], first["where"], second["where"]) == ("Gold", [NORWAY], [FINLAND])
    assert {"column": "first_rows", "op": "eq", "value": 1} in plan["having"]
    answer = next(m for m in plan["measures"] if m["as"] == "answer")
    assert answer["expr"]["case"][0]["when"] == {"column": "gap", "op": "gt", "value": 0}
    assert answer["expr"]["case"][0]["then"] == {"value": "yes"} and answer["expr"]["else"] == {"value": "no"}
    assert candidate.answer == ("answer",)


def test_less_than_is_yes_when_the_first_rows_value_is_smaller():
    r, _ = reading("did Norway win less gold than Finland")
    plan = yes_no(r, [MEDALS]).candidates[0].plan
    answer = next(m for m in plan["measures"] if m["as"] == "answer")
    assert answer["expr"]["case"][0]["when"] == {"column": "gap", "op": "lt", "value": 0}
