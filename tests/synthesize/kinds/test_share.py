"""The share kind (synthesize/kinds/share.py): "what percentage of", "share of … by …" read;
the part of a total the rows a value names hold, over the total of all rows, as a fraction or per
hundred; and the tune questions it answers."""

from __future__ import annotations

import pytest
from synth_golden import case_id, expected, golden, proposed
from synth_schemas import MEDALS, SALES, reading

from tabular.synthesize.kinds.share import WHOLE_ALIAS, share_of_total


def test_a_percentage_is_the_part_times_100_over_the_whole_of_all_rows():
    r, _ = reading("what percentage of the gold did Norway win")
    (candidate,) = share_of_total(r, [MEDALS]).candidates
    plan = candidate.plan
    whole = plan["datasets"][1]
    assert whole["alias"] == WHOLE_ALIAS
    assert whole["plan"]["aggregates"] == [{"fn": "sum", "column": "Gold", "as": "whole"}]
    assert "where" not in whole["plan"]  # the whole is of every row, not only Norway's
    assert plan["where"] == [{"column": "t.Nation", "op": "eq", "value": "Norway", "ignore_case": True}]
    assert plan["measures"] == [{"as": "percentage", "expr": {"div": [{"mul": ["part", 100]}, "whole"]}}]
    assert candidate.answer == ("percentage",)


def test_a_share_is_the_fraction():
    r, _ = reading("what share of the gold did Norway win")
    plan = share_of_total(r, [MEDALS]).candidates[0].plan
    assert plan["measures"][-1]["as"] == "share"


def test_a_share_per_hundred_or_a_fraction():
    assert reading("percentage of amount by region", SALES)[0].share == "percentage"
    assert reading("share of amount by region", SALES)[0].share == "share"


@pytest.mark.parametrize("case", golden("share"), ids=case_id)
def test_the_tune_questions_it_answers_keep_their_plans(case):
    """Each tune question this kind answered right (tests/synthesize/golden/share.json) gets the
    same candidate plans from the built-in proposer, over its table's schema."""
    assert proposed(case) == expected(case)
