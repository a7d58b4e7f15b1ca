"""The kinds' registry (synthesize/kinds/__init__.py): every kind says its grammar, its plans and
its features hook the same way; the reading runs their rules in the order of KINDS; the first kind
that builds its plans alone builds them; and a plan's kind is what the features say it is."""

from __future__ import annotations

import pytest
from synth_golden import NOT_CUT, cases
from synth_schemas import MEDALS, SALES, reading

from tabular.synthesize import kinds
from tabular.synthesize.features import KINDS as features_kinds
from tabular.synthesize.reading import CALCULATIONS, NARROWING, PRODUCTS, SHAPES

PASSES = ("products", "shapes", "narrowing", "calculations")


@pytest.mark.parametrize("kind", kinds.KINDS, ids=lambda k: k.__name__.rsplit(".", 1)[1])
def test_each_kind_has_its_grammar_its_plans_and_its_features_hook(kind):
    assert set(kind.RULES) <= set(PASSES)
    assert all(callable(rule) for rules in kind.RULES.values() for rule in rules)
    assert all(callable(step) for step in kind.STEPS)
    assert callable(kind.propose) and callable(kind.made)
    assert kind in kinds.TOLD_APART


def test_each_pass_reads_every_kinds_rules_of_it_once():
    for stage, rules in zip(PASSES, (PRODUCTS, SHAPES, NARROWING, CALCULATIONS)):
        own = kinds.rules(stage)
        assert own and all(rules.count(rule) == 1 for rule in own), stage


def test_at_the_top_is_a_row_by_place_before_it_is_a_ranking():
    """row_order's "at the top" comes before ranking's "top 3" in the one pass both read "top" in."""
    r, left = reading("which nation is at the top")
    assert left == [] and r.position == ("first", None) and r.top is None
    r, left = reading("top 3 regions by amount", SALES)
    assert left == [] and r.position is None and r.top == (3, True)


def test_a_yes_or_no_of_two_rows_is_built_by_yes_no_not_same_as():
    r, left = reading("did Norway win more gold than Finland")
    assert left == [] and r.same and r.yes_no
    assert kinds.same_as.propose(r, [MEDALS]) is None
    (candidate,) = kinds.propose(r, [MEDALS]).candidates
    assert kinds.plan_kind(candidate.plan) == "yes_no"


def test_a_calculation_is_no_kinds_own():
    r, _ = reading("total gold per nation")
    assert kinds.propose(r, [MEDALS]) is None


GOLDEN_PLANS = [
    candidate["plan"]
    for kind in ("share", "same_as", "yes_no", "count", "row_order", "difference", "ranking", "aggregate", "lookup")
    for case in cases(kind)
    for candidate in case["candidates"]
]
# Plans of several kinds at once, as a chat proposer may write them, and the kind each is read as.
HAND_PLANS = [
    ({"datasets": [], "measures": [{"as": "answer", "expr": {}}, {"as": "share", "expr": {}}]}, "yes_no"),
    ({"datasets": [], "measures": [{"as": "difference", "expr": {}}], "aggregates": [{"fn": "sum"}]}, "difference"),
    ({"datasets": [], "order_by": [{"column": "x"}], "select": [{"column": "x"}]}, "row_by_place"),
    ({"datasets": [], "order_by": [{"column": "n"}], "group_by": [{"column": "x"}]}, "ranking"),
    ({"datasets": [], "aggregates": [{"fn": "count"}, {"fn": "max", "column": "anchors"}]}, "extreme"),
    ({"datasets": [], "aggregates": [{"fn": "count_distinct", "column": "x"}]}, "count"),
    ({"datasets": [], "aggregates": [{"fn": "median", "column": "x"}, {"fn": "min", "column": "x"}]}, "average"),
    ({"datasets": [], "group_by": [{"column": "x"}]}, "lookup"),
    ({"datasets": []}, "lookup"),
]


@pytest.mark.parametrize(("plan", "kind"), HAND_PLANS)
def test_a_plan_of_several_kinds_is_read_as_the_first_told_apart(plan, kind):
    """The features hook (each kind's `made`, in TOLD_APART order), which features.py reads."""
    assert kinds.plan_kind(plan) == kind and kind in features_kinds


def test_every_golden_plan_is_read_as_a_kind_the_features_know():
    if not GOLDEN_PLANS:
        pytest.skip(NOT_CUT)
    assert all(kinds.plan_kind(plan) in features_kinds for plan in GOLDEN_PLANS)
