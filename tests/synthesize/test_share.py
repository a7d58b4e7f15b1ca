"""The part of a total the rows a value names hold (synthesize/share.py), over the total of all
rows, as a fraction or per hundred."""

from __future__ import annotations

from synth_schemas import MEDALS, reading

from tabular.synthesize.share import WHOLE_ALIAS, share_of_total


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
