"""planner/resolver.py: every name of a plan found among its datasets' columns (exact, or by case
with a note, or refused with close names), aliases kept apart, values read as their column's
type, and the most rows the joins can give."""

import pytest
from schemas import ORDERS, found_for

from planner.joins import joins_of
from planner.models import QueryPlan
from planner.resolve import resolve
from planner.resolved import Limits
from planner.resolver import Resolver, column_shape, row_bound
from planner.schema import ColumnInfo
from planner.sources import sources
from planner.targets import CLICKHOUSE, DUCKDB

O, C = {"source_uri": "files/orders.csv", "alias": "o"}, {"source_uri": "files/customers.csv", "alias": "c"}
JOIN = [{"alias": "c", "on": [{"left": "o.customer_id", "right": "c.customer_id"}]}]
KNOWN = ["files/orders.csv", "files/customers.csv", "files/book.xlsx"]


def resolver(plan_json, target=DUCKDB, limits=Limits()):
    plan = QueryPlan.model_validate(plan_json)
    r = Resolver(plan, found_for(plan), KNOWN, limits, target, 0, resolve)
    sources(r)
    joins_of(r, plan)
    return r


def test_a_name_is_found_exactly_or_by_case_and_the_receipt_says_which():
    r = resolver({"datasets": [O, C], "joins": JOIN})
    assert r.ref("region", "p").column.name == "region"
    ref = r.ref("segMENT", "p")
    assert (ref.alias, ref.column.name) == ("c", "segment")
    assert r.resolved_log[-1] == {"input": "segMENT", "column": "c.segment", "how": "case-insensitive"}
    assert r.problems == [] and r.read["c"] >= {"segment", "customer_id"}


def test_an_alias_matched_by_case_is_reported_as_case_insensitive():
    r = resolver({"datasets": [O]})
    assert r.ref("O.region", "p").column.name == "region"
    assert r.resolved_log[-1]["how"] == "case-insensitive"


@pytest.mark.parametrize(
    ("text", "message", "did_you_mean"),
    [
        ("customer_id", "in several datasets: qualify it", None),
        ("amout", "no column 'amout'", ["amount"]),
        ("c.nmae", "dataset 'c' has no column 'nmae'", ["c.name"]),
    ],
)
def test_a_name_that_is_no_column_or_several_is_refused_at_its_path(text, message, did_you_mean):
    r = resolver({"datasets": [O, C], "joins": JOIN})
    assert r.ref(text, "select[0].column") is None
    [problem] = r.problems
    assert problem.path == "select[0].column" and message in problem.message
    assert problem.did_you_mean == did_you_mean


def test_two_columns_compared_must_have_one_type():
    r = resolver({"datasets": [O]})
    assert r.one_type("p", "two columns compared", ("amount", "number"), ("order_id", "number"))
    assert not r.one_type("p", "two columns compared", ("region", "string"), ("amount", "number"))
    assert "dataset_approve" in r.problems[-1].message


def test_a_column_the_target_cannot_read_is_refused():
    time = ColumnInfo("t", "time", "TIME")
    plan = QueryPlan.model_validate({"datasets": [{"source_uri": "x.csv"}]})
    info = ORDERS.__class__("x.csv", "x", "s", 1, ("s",), 1, 0, False, (time,))
    r = Resolver(plan, [[info]], [], Limits(), CLICKHOUSE, 0, resolve)
    sources(r)
    assert r.ref("t", "select[0].column") is None
    assert "clickhouse engine cannot read x.t" in r.problems[0].message


def test_the_row_bound_multiplies_unless_the_joined_key_is_unique():
    assert row_bound(resolver({"datasets": [O, C], "joins": JOIN})) == 300  # customer_id is unique on c
    back = [{"alias": "o", "on": [{"left": "c.customer_id", "right": "o.customer_id"}]}]
    assert row_bound(resolver({"datasets": [C, O], "joins": back})) == 40 * 300
    # a left join may add a null-extended row per row
    assert row_bound(resolver({"datasets": [C, O], "joins": [{**back[0], "kind": "left"}]})) == 40 * 301


def test_an_integer_columns_shape_comes_from_its_digits():
    assert column_shape(ColumnInfo("n", "number", "BIGINT")) == (19, 0)
    assert column_shape(ColumnInfo("n", "number", "BIGINT", digits=4)) == (4, 0)
    assert column_shape(ColumnInfo("n", "number", "DOUBLE", digits=4)) is None
    assert column_shape(ColumnInfo("n", "number", "DECIMAL(8, 2)", shape=(5, 2))) == (5, 2)
