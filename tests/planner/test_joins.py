"""planner/joins.py: each join's conditions found on its two sides, typed as join keys are, and
every rule of a plan's joins reported at its path."""

from schemas import CUSTOMERS, ORDERS, found_for

from planner.joins import joins_of
from planner.models import QueryPlan
from planner.resolve import resolve
from planner.resolved import Limits
from planner.resolver import Resolver
from planner.sources import sources
from planner.targets import DUCKDB

O, C = {"source_uri": "files/orders.csv", "alias": "o"}, {"source_uri": "files/customers.csv", "alias": "c"}
KEYS = [{"left": "o.customer_id", "right": "c.customer_id"}]


def joined(plan_json, found=None):
    """(joins, problems by path, resolver) of a plan's joins, its datasets resolved first."""
    plan = QueryPlan.model_validate(plan_json)
    r = Resolver(plan, found or found_for(plan), [], Limits(), DUCKDB, 0, resolve)
    sources(r)
    joins = joins_of(r, plan)
    return joins, {p.path: p for p in r.problems}, r


def test_an_equality_and_another_condition_are_kept_apart():
    on = [*KEYS, {"left": "o.order_id", "op": "gt", "right": "c.customer_id"}]
    joins, problems, _ = joined({"datasets": [O, C], "joins": [{"alias": "c", "on": on}]})
    assert problems == {}
    [join] = joins
    assert join.source.alias == "c" and join.kind == "inner"
    assert [(left.column.name, right.column.name) for left, right in join.pairs] == [("customer_id", "customer_id")]
    assert [(left.column.name, op, right.column.name) for left, op, right in join.conditions] == [
        ("order_id", "gt", "customer_id")
    ]


def test_keys_of_two_types_are_refused_with_a_hint_to_retype():
    on = [{"left": "o.region", "right": "c.customer_id"}]
    joins, problems, _ = joined({"datasets": [O, C], "joins": [{"alias": "c", "on": on}]})
    assert joins == []
    problem = problems["joins[0].on[0]"]
    assert "o.region is string, c.customer_id is number" in problem.message
    assert "dataset_approve" in problem.message


def test_a_join_without_an_equality_is_refused():
    on = [{"left": "o.customer_id", "op": "lt", "right": "c.customer_id"}]
    joins, problems, _ = joined({"datasets": [O, C], "joins": [{"alias": "c", "on": on}]})
    assert joins == []
    assert problems["joins[0].on"].received == ["lt"]


def test_an_unknown_alias_is_refused_and_the_dataset_left_unjoined():
    joins, problems, _ = joined({"datasets": [O, C], "joins": [{"alias": "cust", "on": KEYS}]})
    assert joins == []
    assert problems["joins[0].alias"].expected == "o | c"
    assert "has no join" in problems["datasets[1]"].message


def test_the_left_side_must_be_a_dataset_before_the_joined_one():
    on = [{"left": "c.name", "right": "c.customer_id"}]
    _, problems, _ = joined({"datasets": [O, C], "joins": [{"alias": "c", "on": on}]})
    assert "joins[0].on[0].left" in problems


def test_empty_on_joins_only_a_one_row_plan():
    _, problems, _ = joined({"datasets": [O, C], "joins": [{"alias": "c", "on": []}]})
    assert problems["joins[0].on"].received == []
    total = {"plan": {"datasets": [{"source_uri": "files/orders.csv"}], "aggregates": [{"fn": "count"}]}, "alias": "t"}
    joins, problems, _ = joined(
        {"datasets": [O, total], "joins": [{"alias": "t", "on": []}]}, found=[[ORDERS], [[ORDERS]]]
    )
    assert problems == {}
    assert [(j.source.alias, j.pairs, j.conditions) for j in joins] == [("t", [], [])]
    joins, problems, _ = joined(
        {"datasets": [O, total], "joins": [{"alias": "t", "on": [], "kind": "semi"}]}, found=[[ORDERS], [[ORDERS]]]
    )
    assert joins == [] and problems["joins[0].kind"].received == "semi"


def test_a_semi_join_makes_its_dataset_a_decider():
    joins, problems, r = joined({"datasets": [O, C], "joins": [{"alias": "c", "kind": "semi", "on": KEYS}]})
    assert problems == {} and [j.kind for j in joins] == ["semi"]
    assert r.deciders == {"c": "semi"}


def test_joins_come_back_in_dataset_order_whatever_order_the_plan_lists_them():
    third = {"source_uri": "files/customers.csv", "alias": "d"}
    found = [[ORDERS], [CUSTOMERS], [CUSTOMERS]]
    joins, problems, _ = joined(
        {
            "datasets": [O, C, third],
            "joins": [
                {"alias": "d", "on": [{"left": "c.customer_id", "right": "d.customer_id"}]},
                {"alias": "c", "on": KEYS},
            ],
        },
        found=found,
    )
    assert problems == {}
    assert [j.source.alias for j in joins] == ["c", "d"]
