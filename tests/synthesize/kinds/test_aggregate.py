"""The aggregate kinds (synthesize/kinds/aggregate.py): a total, an average, a least or most
read by their words, two columns multiplied; and the tune questions they answer."""

from __future__ import annotations

import pytest
from synth_golden import case_id, expected, golden, proposed
from synth_schemas import SALES, reading


def names(spans):
    return [[c.name for c in s.targets] for s in spans]


def test_a_total_and_an_average_by_their_words():
    assert reading("total amount", SALES)[0].fn == "sum"
    assert reading("mean amount", SALES)[0].fn == "avg"
    assert reading("the earliest order_date", SALES)[0].fn == "min"


def test_at_least_is_no_least():
    r, _ = reading("regions with at least 10 units", SALES)
    assert r.fn is None and r.compares[0][1:] == ("ge", 10)


def test_two_columns_multiplied_are_one_measure():
    r, left = reading("total units times price", SALES)
    assert left == [] and names(r.product) == [["units"], ["price"]]


@pytest.mark.parametrize("case", golden("aggregate"), ids=case_id)
def test_the_tune_questions_it_answers_keep_their_plans(case):
    """Each tune question this kind answered right (tests/synthesize/golden/aggregate.json) gets the
    same candidate plans from the built-in proposer, over its table's schema."""
    assert proposed(case) == expected(case)
