"""planner/sources.py: a plan's datasets found by source, dataset and alias (close names offered),
and a plan as a dataset resolved as a plan of its own, its result columns the dataset's."""

from schemas import found_for

from planner.models import QueryPlan
from planner.resolve import resolve
from planner.resolved import Limits
from planner.resolver import Resolver
from planner.sources import sources
from planner.targets import DUCKDB

KNOWN = ["files/orders.csv", "files/customers.csv", "files/book.xlsx"]


def resolver(plan_json, limits=Limits()):
    plan = QueryPlan.model_validate(plan_json)
    r = Resolver(plan, found_for(plan), KNOWN, limits, DUCKDB, 0, resolve)
    sources(r)
    return r


def test_datasets_are_refused_by_source_dataset_and_alias():
    r = resolver(
        {
            "datasets": [
                {"source_uri": "files/orders.csv", "alias": "a.b"},
                {"source_uri": "files/customers.csv", "alias": "A"},
                {"source_uri": "files/customers.csv", "alias": "a"},
                {"source_uri": "files/ordrs.csv"},
                {"source_uri": "files/book.xlsx"},
                {"source_uri": "files/book.xlsx", "dataset_id": "sale"},
            ]
        }
    )
    got = {p.path: p for p in r.problems}
    assert "has a dot" in got["datasets[0].alias"].message
    assert "used twice" in got["datasets[2].alias"].message
    assert got["datasets[3].source_uri"].did_you_mean == ["files/orders.csv"]
    assert got["datasets[4].dataset_id"].expected == "sales | costs"
    assert got["datasets[5].dataset_id"].did_you_mean == ["sales"]
    assert [s.alias for s in r.sources] == ["A"]


def test_a_plan_as_a_dataset_gives_its_result_columns_with_their_types_and_uniqueness():
    inner = {
        "datasets": [{"source_uri": "files/orders.csv"}],
        "group_by": [{"column": "region"}],
        "aggregates": [{"fn": "sum", "column": "amount", "as": "total"}],
    }
    r = resolver({"datasets": [{"alias": "t", "plan": inner}]})
    [source] = r.sources
    assert source.plan is not None and source.alias == "t"
    columns = {c.name: c for c in source.info.columns}
    assert columns["region"].unique and not columns["total"].unique  # one row per group
    assert columns["total"].physical == "DECIMAL(38, 2)"


def test_a_nested_plan_too_deep_is_refused_at_its_path():
    inner = {"datasets": [{"source_uri": "files/orders.csv"}]}
    r = resolver({"datasets": [{"alias": "t", "plan": inner}]}, limits=Limits(nesting=0))
    assert [p.path for p in r.problems] == ["datasets[0].plan"] and r.sources == []
