"""planner/computed.py: a plan's computed columns typed, their names kept apart from the columns',
their depth and written size bounded, and what each reads."""

import pytest
from schemas import found_for

from planner.computed import compute, computed_reads, written_size
from planner.joins import joins_of
from planner.models import QueryPlan
from planner.resolve import resolve
from planner.resolved import Limits, PlanInvalid
from planner.resolver import Resolver
from planner.sources import sources
from planner.targets import DUCKDB

O, C = {"source_uri": "files/orders.csv", "alias": "o"}, {"source_uri": "files/customers.csv", "alias": "c"}


def computed(plan_json, limits=Limits()):
    """(the computed columns by name, the problems by path) of a plan, its datasets and joins resolved first."""
    plan = QueryPlan.model_validate(plan_json)
    r = Resolver(plan, found_for(plan), [], limits, DUCKDB, 0, resolve)
    sources(r)
    compute(r, plan, joins_of(r, plan))
    return r.computed, {p.path: p for p in r.problems}


def joined(kind):
    return [{"alias": "c", "kind": kind, "on": [{"left": "o.customer_id", "right": "c.customer_id"}]}]


def test_each_column_is_typed_exactly_and_may_read_those_before_it():
    got, problems = computed(
        {
            "datasets": [O],
            "compute": [
                {"as": "twice", "expr": {"mul": ["amount", 2]}},
                {"as": "four", "expr": {"add": ["twice", "twice"]}},
            ],
        }
    )
    assert problems == {}
    # amount is DECIMAL(8, 2): times a one-digit integer, 9 digits; the sum of two of those, 10.
    assert {name: ref.column.physical for name, ref in got.items()} == {
        "twice": "DECIMAL(9, 2)",
        "four": "DECIMAL(10, 2)",
    }
    assert list(computed_reads(got["four"].expr)) == ["twice", "twice"]
    assert got["four"].reads == {"o"} and got["four"].placed


def test_a_name_a_column_has_is_refused_whatever_its_case():
    got, problems = computed({"datasets": [O], "compute": [{"as": "AMOUNT", "expr": "amount"}]})
    assert got == {}
    assert problems["compute[0].as"].received == "AMOUNT"


def test_a_column_with_a_problem_is_not_reported_again_where_it_is_read():
    got, problems = computed(
        {
            "datasets": [O],
            "compute": [{"as": "bad", "expr": {"mul": ["region", 2]}}, {"as": "uses", "expr": {"add": ["bad", 1]}}],
        }
    )
    assert got == {}
    assert list(problems) == ["compute[0].expr.mul[0]"]


def test_computed_columns_read_each_other_only_so_deep():
    chain = [{"as": "a", "expr": "amount"}, {"as": "b", "expr": "a"}, {"as": "c", "expr": "b"}]
    got, problems = computed({"datasets": [O], "compute": chain}, Limits(computed_depth=2))
    assert list(got) == ["a", "b"]
    assert problems["compute[2].expr"].over_limit and problems["compute[2].expr"].received == 3


def test_too_many_computed_columns_stop_resolution():
    plan = QueryPlan.model_validate(
        {"datasets": [O], "compute": [{"as": "a", "expr": "amount"}, {"as": "b", "expr": "amount"}]}
    )
    r = Resolver(plan, found_for(plan), [], Limits(computed=1), DUCKDB, 0, resolve)
    sources(r)
    with pytest.raises(PlanInvalid) as err:
        compute(r, plan, [])
    assert [(p.path, p.received) for p in err.value.problems] == [("compute", 2)]


def test_a_column_over_a_left_joined_dataset_is_written_out_and_its_size_bounded():
    chain = [
        {"as": "n", "expr": {"lower": "c.name"}},
        {"as": "x", "expr": {"concat": ["n", "n"]}},
    ]
    got, problems = computed(
        {"datasets": [O, C], "joins": joined("left"), "compute": chain}, Limits(expression_nodes=6)
    )
    assert not got["n"].placed  # null-extended rows: written where it is read
    # x writes n out twice: 1 + concat + 2 × (1 + lower + c.name) = 8 nodes, over 6.
    assert list(got) == ["n"] and problems["compute[1].expr"].received == 8
    assert written_size(got["n"].expr, {}) == 3


def test_a_column_over_a_semi_joined_dataset_may_read_only_it():
    got, problems = computed(
        {
            "datasets": [O, C],
            "joins": joined("semi"),
            "compute": [
                {"as": "n", "expr": {"lower": "c.name"}},
                {"as": "both", "expr": {"concat": ["c.name", "o.region"]}},
            ],
        }
    )
    assert list(got) == ["n"]
    assert problems["compute[1].expr"].received == ["c", "o"]
