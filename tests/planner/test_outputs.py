"""planner/outputs.py: a plan's result columns, their names, kinds and exact storage types, and
its measures and windows, each problem at its path."""

from schemas import found_for

from planner.joins import joins_of
from planner.models import QueryPlan
from planner.outputs import aggregate_physical, measures, outputs
from planner.resolve import resolve
from planner.resolved import Limits, Ref
from planner.resolver import Resolver
from planner.schema import ColumnInfo
from planner.sources import sources
from planner.targets import DUCKDB

O, C = {"source_uri": "files/orders.csv", "alias": "o"}, {"source_uri": "files/customers.csv", "alias": "c"}
JOIN = [{"alias": "c", "on": [{"left": "o.customer_id", "right": "c.customer_id"}]}]


def resolved(plan_json):
    """(the result columns, the problems by path) of a plan, measures included."""
    plan = QueryPlan.model_validate(plan_json)
    r = Resolver(plan, found_for(plan), [], Limits(), DUCKDB, 0, resolve)
    sources(r)
    joins_of(r, plan)
    outs = outputs(r, plan)
    measures(r, plan, outs)
    return outs, {p.path: p for p in r.problems}


def test_groups_and_aggregates_are_named_and_typed_as_the_engine_stores_them():
    outs, problems = resolved(
        {
            "datasets": [O],
            "group_by": [{"column": "ordered_on", "bucket": "month"}, {"column": "region"}],
            "aggregates": [{"fn": "sum", "column": "amount"}, {"fn": "count"}, {"fn": "median", "column": "amount"}],
        }
    )
    assert problems == {}
    assert [(o.name, o.kind, o.physical) for o in outs] == [
        ("ordered_on_month", "group", "DATE"),
        ("region", "group", "VARCHAR"),
        ("sum_amount", "aggregate", "DECIMAL(38, 2)"),
        ("count", "aggregate", "BIGINT"),
        ("median_amount", "aggregate", "DECIMAL(9, 3)"),
    ]
    # 300 rows of DECIMAL(8, 2): a sum has at most 8 + 3 digits
    assert outs[2].shape == (11, 2)


def test_with_several_datasets_columns_are_named_by_alias_unless_renamed():
    outs, problems = resolved(
        {"datasets": [O, C], "joins": JOIN, "select": [{"column": "region"}, {"column": "c.name", "as": "who"}]}
    )
    assert problems == {} and [o.name for o in outs] == ["o.region", "who"]
    outs, _ = resolved({"datasets": [O], "select": [{"column": "region"}]})
    assert [o.name for o in outs] == ["region"]


def test_without_select_every_column_of_every_dataset_is_returned():
    outs, _ = resolved({"datasets": [O, C], "joins": JOIN})
    assert [o.name for o in outs][-4:] == ["c.customer_id", "c.name", "c.segment", "c.code"]
    assert len(outs) == 10


def test_each_misfit_of_groups_aggregates_and_select_has_its_path():
    _, problems = resolved(
        {
            "datasets": [O],
            "group_by": [{"column": "region", "bucket": "month"}],
            "aggregates": [
                {"fn": "sum", "column": "ordered_on"},
                {"fn": "quantile", "column": "amount"},
                {"fn": "sum"},
            ],
            "select": [{"column": "region"}],
        }
    )
    assert set(problems) == {
        "group_by[0].bucket",
        "aggregates[0].fn",
        "aggregates[1].q",
        "aggregates[2].column",
        "select",
    }
    assert "region is string" in problems["group_by[0].bucket"].message


def test_measures_read_result_columns_and_windows_are_checked():
    outs, problems = resolved(
        {
            "datasets": [O],
            "group_by": [{"column": "region"}],
            "aggregates": [{"fn": "sum", "column": "amount", "as": "total"}],
            "measures": [
                {"as": "share", "window": {"fn": "share", "of": "total"}},
                {"as": "half", "expr": {"div": ["total", 2]}},
                {"as": "rk", "window": {"fn": "rank"}},
                {"as": "bad", "window": {"fn": "sum", "of": "region"}},
                {"as": "rk2", "window": {"fn": "rank", "order_by": [{"column": "totl"}]}},
            ],
        }
    )
    assert [(o.name, o.kind, o.physical) for o in outs][2:] == [
        ("share", "measure", "DOUBLE"),
        ("half", "measure", "DOUBLE"),
    ]
    assert "rank needs order_by" in problems["measures[2].window.order_by"].message
    assert "region is string" in problems["measures[3].window.of"].message
    assert problems["measures[4].window.order_by[0].column"].did_you_mean == ["total"]


def test_a_rank_is_an_integer_and_a_running_sum_of_integers_a_hugeint():
    outs, problems = resolved(
        {
            "datasets": [O],
            "group_by": [{"column": "region"}],
            "aggregates": [{"fn": "count", "as": "n"}],
            "measures": [
                {"as": "rk", "window": {"fn": "rank", "order_by": [{"column": "n", "desc": True}]}},
                {"as": "run", "window": {"fn": "running_sum", "of": "n"}},
            ],
        }
    )
    assert problems == {}
    assert [(o.name, o.physical, o.window.fn) for o in outs[2:]] == [
        ("rk", "BIGINT", "rank"),
        ("run", "HUGEINT", "running_sum"),
    ]


def test_aggregate_storage_types():
    def ref(physical):
        return Ref("o", ColumnInfo("x", "number", physical))

    assert aggregate_physical("count", None) == "BIGINT"
    assert aggregate_physical("sum", ref("BIGINT")) == "HUGEINT"
    assert aggregate_physical("sum", ref("DECIMAL(8, 2)")) == "DECIMAL(38, 2)"
    assert aggregate_physical("max", ref("DECIMAL(8, 2)")) == "DECIMAL(8, 2)"
    assert aggregate_physical("avg", ref("BIGINT")) == "DOUBLE"
