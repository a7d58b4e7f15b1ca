"""The difference kind (synthesize/kinds/difference.py): "how many more … than …" is signed,
"the difference between" its size; and the tune questions it answers."""

from __future__ import annotations

import pytest
from synth_golden import case_id, expected, golden, proposed
from synth_schemas import SALES, reading


def test_how_many_more_is_signed_and_the_difference_between_is_its_size():
    assert reading("how many more units in the North than in the South", SALES)[0].difference == "signed"
    assert reading("difference in units between the North and the South", SALES)[0].difference == "abs"


@pytest.mark.parametrize("case", golden("difference"), ids=case_id)
def test_the_tune_questions_it_answers_keep_their_plans(case):
    """Each tune question this kind answered right (tests/synthesize/golden/difference.json) gets the
    same candidate plans from the built-in proposer, over its table's schema."""
    assert proposed(case) == expected(case)
