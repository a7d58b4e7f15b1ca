"""The lookup kind (synthesize/kinds/lookup.py): the column asked of the rows that match, its
different values each said once; and the tune questions it answers."""

from __future__ import annotations

import pytest
from synth_golden import case_id, expected, golden, proposed
from synth_schemas import MEDALS, reading

from tabular.synthesize.calculation import calculation


def test_a_lookup_groups_the_column_asked_of_the_rows_that_match():
    r, left = reading("what is the rank of Norway")
    assert left == []
    (candidate,) = calculation(r, [MEDALS]).candidates
    assert candidate.plan["group_by"] == [{"column": "Rank"}] and candidate.plan["limit"] == 50
    assert candidate.plan["where"] == [{"column": "Nation", "op": "eq", "value": "Norway", "ignore_case": True}]
    r, left = reading("which nation won more than 5 gold")
    assert left == []
    (candidate,) = calculation(r, [MEDALS]).candidates
    assert candidate.plan["group_by"] == [{"column": "Nation"}]
    assert candidate.plan["where"] == [{"column": "Gold", "op": "gt", "value": 5}]


@pytest.mark.parametrize("case", golden("lookup"), ids=case_id)
def test_the_tune_questions_it_answers_keep_their_plans(case):
    """Each tune question this kind answered right (tests/synthesize/golden/lookup.json) gets the
    same candidate plans from the built-in proposer, over its table's schema."""
    assert proposed(case) == expected(case)
