"""The yes/no kind (synthesize/kinds/yes_no.py): "did A win more … than B", "was A before or
after B" read; each row's value, and the answer from their gap, only when each value names one
row; and the tune questions it answers."""

from __future__ import annotations

import pytest
from synth_golden import case_id, expected, golden, proposed
from synth_schemas import MEDALS, reading

from tabular.synthesize.kinds.yes_no import yes_no

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


def test_is_one_row_more_than_another_is_a_yes_or_no():
    assert reading("did Norway win more gold than Finland")[0].yes_no == "yes"
    assert reading("did Norway win more or less gold than Finland")[0].yes_no == "more"


def test_before_or_after_between_two_values_asks_which_comes_first():
    r, _ = reading("was Norway listed before or after Finland")
    assert r.yes_no == "before" and r.position is None
    assert [s.text for s, _ in r.values] == ["norway", "finland"]


@pytest.mark.parametrize("case", golden("yes_no"), ids=case_id)
def test_the_tune_questions_it_answers_keep_their_plans(case):
    """Each tune question this kind answered right (tests/synthesize/golden/yes_no.json) gets the
    same candidate plans from the built-in proposer, over its table's schema."""
    assert proposed(case) == expected(case)
