"""Fuzzing knowledge.query: plans made of the plan language's words with any JSON in any place,
and valid plans with one place replaced by any JSON. Each is answered (rows as wide as the
columns, one row-id list per row when rows are listed) or refused with a SPEC code carrying the
JSON path of what was wrong; never INTERNAL, never anything but a TabularError. A statement is
bounded by query_seconds (5 here): past it the answer is BACKEND_TIMEOUT, not a hang.

Examples: FUZZ_QUERY_EXAMPLES (80) per test in `make test`, 10 times that under `-m slow`.
Valid plans checked against an oracle are tests/planner/test_properties.py's.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import tabular

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "query"
EXAMPLES = int(os.environ.get("FUZZ_QUERY_EXAMPLES", 80))
FUZZ = dict(
    deadline=None, database=None, phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck)
)

WORDS = [
    "orders.csv",
    "customers.csv",
    "o",
    "c",
    "o.amount",
    "amount",
    "region",
    "c.segment",
    "o.customer_id",
    "c.customer_id",
    "ordered_on",
    "qty",
    "note",
    "count",
    "sum",
    "eq",
    "in",
    "between",
    "contains",
    "month",
    "year",
    "inner",
    "left",
    "semi",
    "anti",
    "",
    "*",
    "o.",
    ".x",
    "🙂",
    "NaN",
    "1e309",
    "a" * 300,
    # expressions, computed columns, measures and windows
    "add",
    "sub",
    "mul",
    "div",
    "neg",
    "round",
    "coalesce",
    "nullif",
    "case",
    "when",
    "then",
    "else",
    "date_diff",
    "date_add",
    "concat",
    "substring",
    "cast",
    "decimal(38,38)",
    "integer",
    "day",
    "rev",
    "rank",
    "share",
    "running_sum",
    "partition_by",
    "of",
    "window",
    "expr",
    "compute",
    "measures",
]
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(WORDS),
    st.text(max_size=10),
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.sampled_from(
                WORDS
                + [
                    "column",
                    "op",
                    "value",
                    "values",
                    "fn",
                    "alias",
                    "on",
                    "left",
                    "right",
                    "as",
                    "desc",
                    "any",
                    "all",
                    "bucket",
                    "q",
                    "where",
                    "type",
                    "expr",
                    "window",
                    "of",
                    "order_by",
                ]
            ),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=12,
)

BASE = {
    "datasets": [{"source_uri": "orders.csv", "alias": "o"}, {"source_uri": "customers.csv", "alias": "c"}],
    "joins": [{"alias": "c", "on": [{"left": "o.customer_id", "right": "c.customer_id"}], "kind": "left"}],
    "where": [
        {"column": "o.amount", "op": "ge", "value": "10.5"},
        {
            "any": [
                {"column": "o.region", "op": "in", "values": ["north", "south"]},
                {"column": "o.note", "op": "is_null"},
            ]
        },
    ],
    "compute": [
        {"as": "rev", "expr": {"mul": ["o.amount", "o.qty", {"sub": [1, 0.05]}]}},
        {
            "as": "band",
            "expr": {
                "case": [{"when": {"column": "rev", "op": "gt", "value": 1000}, "then": {"value": "big"}}],
                "else": {"value": "small"},
            },
        },
    ],
    "group_by": [{"column": "c.segment"}, {"column": "o.ordered_on", "bucket": "month"}, {"column": "band"}],
    "aggregates": [
        {"fn": "sum", "column": "o.amount"},
        {"fn": "count"},
        {"fn": "quantile", "column": "o.qty", "q": 0.9, "where": [{"column": "o.qty", "op": "gt", "value": 1}]},
        {
            "fn": "sum",
            "expr": {"div": ["rev", {"date_diff": ["day", "o.ordered_on", {"value": "2030-01-01", "type": "date"}]}]},
            "as": "per_day",
        },
    ],
    "measures": [
        {"as": "share", "window": {"fn": "share", "of": "sum_amount", "partition_by": ["c.segment"]}},
        {"as": "rank", "window": {"fn": "rank", "order_by": [{"column": "count", "desc": True}]}},
        {"as": "avg_amount", "expr": {"div": ["sum_amount", "count"]}},
        {"as": "ranks", "window": {"fn": "running_sum", "of": "rank", "order_by": [{"column": "avg_amount"}]}},
    ],
    "having": [{"column": "count", "op": "gt", "value": 0}, {"column": "rank", "op": "le", "value": 50}],
    "order_by": [{"column": "sum_amount", "desc": True}],
    "limit": 20,
    "offset": 1,
}
KEYS = list(BASE) + ["select", "dry_run", "unknown_field"]


@pytest.fixture(scope="module")
def qns(tmp_path_factory):
    with tabular.connect(str(tmp_path_factory.mktemp("fuzz_query")), query_seconds=5) as engine:
        ns = engine.namespace("fuzz", "query")
        for name in ("orders", "customers"):
            assert ns.ingest_file(FIXTURES / f"{name}.csv", source_uri=f"{name}.csv").state == "ready"
        yield ns


def places(value, path=()):
    """Every place in a JSON value, as a path of keys and indexes."""
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from places(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from places(v, (*path, i))


def put(plan, path, value):
    if not path:
        return value
    out = copy.deepcopy(plan)
    holder = out
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = value
    return out


def answered_or_refused(ns, plan) -> None:
    try:
        res = (
            ns.call("knowledge.query", plan)
            if isinstance(plan, dict)
            else ns.call("knowledge.query", {"datasets": plan})
        )
    except tabular.TabularError as err:
        assert err.code not in ("INTERNAL",), (err.code, err.message)
        assert err.code in ("VALIDATION_FAILED", "PRECONDITION_FAILED", "TOO_LARGE", "BACKEND_TIMEOUT"), err.code
        if err.code == "VALIDATION_FAILED":
            assert err.errors and all(isinstance(e.path, str) for e in err.errors), err.message
        return
    width = len(res["columns"])
    assert all(len(row) == width for row in res["rows"])
    if res["row_ids"] is not None:
        assert len(res["row_ids"]) == len(res["rows"])


@st.composite
def word_plans(draw):
    keys = draw(st.lists(st.sampled_from(KEYS), unique=True, max_size=6))
    plan = {k: draw(JSON) for k in keys}
    if draw(st.booleans()):
        plan["datasets"] = draw(
            st.lists(
                st.fixed_dictionaries(
                    {"source_uri": st.sampled_from(["orders.csv", "customers.csv", "none.csv"])},
                    optional={"alias": JSON, "dataset_id": JSON, "snapshot_id": JSON},
                ),
                max_size=3,
            )
        )
    return plan


@st.composite
def mutated_plans(draw):
    spots = list(places(BASE))[1:]
    plan = BASE
    for _ in range(draw(st.integers(1, 3))):
        spots = list(places(plan))[1:]
        if not spots:
            break
        plan = put(plan, draw(st.sampled_from(spots)), draw(JSON))
    return plan


def test_the_base_plan_is_answered(qns):
    res = qns.call("knowledge.query", BASE)
    assert res["columns"] and res["rows"]


@given(plan=st.one_of(word_plans(), mutated_plans()))
@settings(max_examples=EXAMPLES, **FUZZ)
def test_any_plan_is_answered_or_refused_with_a_spec_code(qns, plan):
    answered_or_refused(qns, plan)


@pytest.mark.slow
@given(plan=st.one_of(word_plans(), mutated_plans()))
@settings(max_examples=EXAMPLES * 10, **FUZZ)
def test_any_plan_is_answered_or_refused_with_a_spec_code_long(qns, plan):
    answered_or_refused(qns, plan)


# Chains and trees of computed columns (issue 30): each reads any earlier ones (or dataset
# columns, of either dataset, joined inner or left), so the grammar makes chains that double and
# trees that branch. Each plan is answered or refused with a code, and its SQL stays linear in the
# plan: at most a few hundred bytes per computed column.
OPERANDS = ["o.amount", "o.qty", "c.customer_id", 2, 0.5]
BINARY = ["add", "sub", "mul", "div", "coalesce"]


@st.composite
def computed_plans(draw):
    steps = draw(st.integers(1, 40))
    compute, names = [], []
    for k in range(steps):
        pick = st.sampled_from(names + OPERANDS) if names else st.sampled_from(OPERANDS)
        op = draw(st.sampled_from(BINARY))
        left = names[-1] if names and draw(st.booleans()) else draw(pick)
        compute.append({"as": f"x{k}", "expr": {op: [left, draw(pick)]}})
        names.append(f"x{k}")
    last = names[-1]
    plan = {
        "datasets": [{"source_uri": "orders.csv", "alias": "o"}, {"source_uri": "customers.csv", "alias": "c"}],
        "joins": [
            {
                "alias": "c",
                "on": [{"left": "o.customer_id", "right": "c.customer_id"}],
                "kind": draw(st.sampled_from(["inner", "left"])),
            }
        ],
        "compute": compute,
    }
    shape = draw(st.sampled_from(["rows", "aggregate", "filter", "group"]))
    if shape == "rows":
        plan["select"] = [{"column": last}]
    elif shape == "aggregate":
        plan["aggregates"] = [{"fn": draw(st.sampled_from(["sum", "max", "avg"])), "column": last}]
    elif shape == "filter":
        plan["where"] = [{"column": last, "op": "gt", "value": 0}]
        plan["aggregates"] = [{"fn": "count"}]
    else:
        plan["group_by"] = [{"column": draw(st.sampled_from(names))}]
        plan["aggregates"] = [{"fn": "count"}]
    return plan


def linear_or_refused(ns, plan) -> None:
    try:
        res = ns.call("knowledge.query", plan)
    except tabular.TabularError as err:
        assert err.code in ("VALIDATION_FAILED", "TOO_LARGE", "BACKEND_TIMEOUT"), (err.code, err.message)
        return
    assert len(res["receipt"]["sql"]) < 2_000 + 400 * len(plan["compute"]), len(res["receipt"]["sql"])


@given(plan=computed_plans())
@settings(max_examples=EXAMPLES, **FUZZ)
def test_chained_computed_columns_are_answered_linearly_or_refused(qns, plan):
    linear_or_refused(qns, plan)


@pytest.mark.slow
@given(plan=computed_plans())
@settings(max_examples=EXAMPLES * 10, **FUZZ)
def test_chained_computed_columns_are_answered_linearly_or_refused_long(qns, plan):
    linear_or_refused(qns, plan)
