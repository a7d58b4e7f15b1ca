"""The ranking kind (synthesize/kinds/ranking.py): "top 3 … by …", "bottom …" read; and the
tune questions it answers."""

from __future__ import annotations

import pytest
from synth_golden import case_id, expected, golden, proposed
from synth_schemas import SALES, reading


def names(spans):
    return [[c.name for c in s.targets] for s in spans]


def test_top_n_by_a_measure():
    r, left = reading("top 3 regions by amount", SALES)
    assert left == []
    assert r.top == (3, True) and names([r.top_group]) == [["region"]] and names(r.measures) == [["amount"]]


def test_bottom_is_the_least_and_one_when_no_number_says_how_many():
    assert reading("bottom region by amount", SALES)[0].top == (1, False)


@pytest.mark.parametrize("case", golden("ranking"), ids=case_id)
def test_the_tune_questions_it_answers_keep_their_plans(case):
    """Each tune question this kind answered right (tests/synthesize/golden/ranking.json) gets the
    same candidate plans from the built-in proposer, over its table's schema."""
    assert proposed(case) == expected(case)
