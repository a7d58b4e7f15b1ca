"""planner/conditions.py: a plan's filters resolved: values read as their column's type, each at
its path, numbers brought to an exact column's scale the way that keeps the answer, groups and
comparisons of two columns."""

from decimal import Decimal

from schemas import found_for

from planner.conditions import condition, fitted, given_values, lone_backslash, single_source
from planner.joins import joins_of
from planner.models import QueryFilter, QueryPlan
from planner.resolve import resolve
from planner.resolved import FilterGroup, FilterLeaf, Limits
from planner.resolver import Resolver
from planner.sources import sources
from planner.targets import DUCKDB

O, C = {"source_uri": "files/orders.csv", "alias": "o"}, {"source_uri": "files/customers.csv", "alias": "c"}
JOIN = [{"alias": "c", "on": [{"left": "o.customer_id", "right": "c.customer_id"}]}]


def resolver(plan_json):
    plan = QueryPlan.model_validate(plan_json)
    r = Resolver(plan, found_for(plan), [], Limits(), DUCKDB, 0, resolve)
    sources(r)
    joins_of(r, plan)
    return r


def test_values_are_read_as_the_columns_type_each_at_its_path():
    r = resolver({"datasets": [O]})
    where = QueryPlan.model_validate(
        {
            "datasets": [O],
            "where": [
                {"column": "ordered_on", "op": "between", "values": ["2024-01-01", "soon"]},
                {"column": "amount", "op": "ge", "value": "2.005"},
                {"column": "amount", "op": "between", "values": [1]},
            ],
        }
    ).where
    assert condition(r, where[0], "where[0]") is None
    assert r.problems[-1].path == "where[0].values[1]" and r.problems[-1].received == "soon"
    # 2.005 on a column of two decimals: ge 2.01 gives the same rows
    assert str(condition(r, where[1], "where[1]").values[0]) == "2.01"
    assert condition(r, where[2], "where[2]") is None
    assert r.problems[-1].message == "between takes two values"


def test_a_group_keeps_its_kind_and_says_which_datasets_it_reads():
    r = resolver({"datasets": [O, C], "joins": JOIN})
    item = QueryFilter.model_validate(
        {"any": [{"column": "o.region", "op": "eq", "value": "North"}, {"column": "c.segment", "op": "is_null"}]}
    )
    got = condition(r, item, "where[0]")
    assert isinstance(got, FilterGroup) and got.kind == "any"
    assert [leaf.op for leaf in got.leaves()] == ["eq", "is_null"]
    assert single_source(got) == {"o", "c"}


def test_two_columns_compared_carry_no_values():
    r = resolver({"datasets": [O]})
    got = condition(r, QueryFilter.model_validate({"column": "customer_id", "op": "lt", "other": "order_id"}), "w")
    assert isinstance(got, FilterLeaf) and got.values == [] and got.other.column.name == "order_id"


def test_values_as_given_a_lone_backslash_and_rounding_toward_the_same_answer():
    item = QueryFilter.model_validate({"column": "x", "op": "between", "values": [1, 2]})
    assert given_values(item, "two") == [1, 2] and given_values(item, "none") == []
    assert lone_backslash("like", "50\\") and not lone_backslash("like", "50\\\\") and not lone_backslash("eq", "\\")
    # gt 2.005 on two places: gt 2.00 keeps the same rows (2.01 and up); lt rounds up
    assert fitted("gt", [Decimal("2.005")], "number", "DECIMAL(8, 2)") == [Decimal("2.00")]
    assert fitted("lt", [Decimal("2.005")], "number", "DECIMAL(8, 2)") == [Decimal("2.01")]
