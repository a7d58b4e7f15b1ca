"""planner/resolved.py: what resolution gives (the sources it reads, nested plans and filters
walked), the limits it checks, the problems it raises, and the close names it offers."""

from schemas import CUSTOMERS, ORDERS

from planner.models import QueryPlan
from planner.resolve import resolve
from planner.resolved import FilterGroup, FilterLeaf, Limits, PlanInvalid, Problem, close

INNER = {
    "datasets": [{"source_uri": "files/orders.csv"}],
    "group_by": [{"column": "customer_id"}],
    "aggregates": [{"fn": "sum", "column": "amount", "as": "total"}],
}
PLAN = {
    "datasets": [{"source_uri": "files/customers.csv", "alias": "c"}, {"plan": INNER, "alias": "t"}],
    "joins": [{"alias": "t", "on": [{"left": "c.customer_id", "right": "t.customer_id"}]}],
    "where": [
        {"column": "c.segment", "op": "eq", "value": "A"},
        {"any": [{"column": "c.name", "op": "starts_with", "value": "B"}, {"column": "c.code", "op": "is_null"}]},
    ],
    "compute": [
        {
            "as": "size",
            "expr": {"case": [{"when": {"column": "t.total", "op": "gt", "value": 10}, "then": {"value": "big"}}]},
        }
    ],
}


def resolved():
    plan = QueryPlan.model_validate(PLAN)
    return resolve(plan, [[CUSTOMERS], [[ORDERS]]], [])


def test_read_sources_walks_into_nested_plans_in_plan_order():
    r = resolved()
    got = [(within, s.alias, plan is r) for within, s, plan in r.read_sources()]
    assert got == [("", "c", True), ("datasets[1].plan", "orders", False)]


def test_nested_gives_each_inner_plan_by_its_path():
    r = resolved()
    assert [(path, plan is r.sources[1].plan) for path, plan in r.nested()] == [("datasets[1].plan", True)]


def test_filters_reaches_groups_and_the_whens_of_expressions():
    paths = {f.path for f in resolved().filters()}
    assert paths == {"where[0]", "where[1].any[0]", "where[1].any[1]", "compute[0].expr.case[0].when"}


def test_a_filter_group_yields_its_leaves():
    a, b = FilterLeaf(None, "eq"), FilterLeaf(None, "ne")
    group = FilterGroup("all", [a, FilterGroup("any", [b])])
    assert list(group.leaves()) == [a, b]


def test_a_plan_invalid_counts_its_problems():
    err = PlanInvalid([Problem("where[0]", "x"), Problem("limit", "y", over_limit=True)])
    assert str(err) == "2 problem(s) with the plan"
    assert [p.path for p in err.problems] == ["where[0]", "limit"]


def test_the_limits_are_the_specs():
    limits = Limits()
    assert (limits.datasets, limits.filters, limits.in_values, limits.rows, limits.nesting) == (16, 100, 1000, 10000, 3)


def test_close_offers_up_to_three_near_names_best_first():
    assert close("amout", ["amount", "region", "ordered_on"]) == ["amount"]
    assert close("zzz", ["amount"]) == []
    assert close("Amount", ["amount"]) == ["amount"]  # case does not count against a name
    assert close("custmer_id", ["customer_ids", "customer_id", "customer", "order_id"]) == [
        "customer_id",
        "customer_ids",
    ]
    assert len(close("cod", ["code", "codes", "coda", "cold", "cods"])) == 3
