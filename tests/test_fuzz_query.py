"""Fuzzing knowledge.query: plans made of the plan language's words with any JSON in any place,
and valid plans with one place replaced by any JSON. Each is answered (rows as wide as the
columns, one row-id list per row when rows are listed) or refused with a SPEC code carrying the
JSON path of what was wrong; never INTERNAL, never anything but a TabularError. A statement is
bounded by query_seconds (5 here): past it the answer is BACKEND_TIMEOUT, not a hang.

Examples: FUZZ_QUERY_EXAMPLES (40) per test in `make test`, 20 times that under `-m slow`.
Valid plans checked against an oracle are tests/plans/test_properties.py's.
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
EXAMPLES = int(os.environ.get("FUZZ_QUERY_EXAMPLES", 40))
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
    # plans as datasets, two-column filters, patterns, join conditions
    "plan",
    "other",
    "like",
    "not_like",
    "ne",
    "lt",
    "ge",
    "%",
    "_",
    "\\",
    "a\\%b_",
    "t.count",
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
                    "plan",
                    "other",
                    "ignore_case",
                    "kind",
                    "datasets",
                    "aggregates",
                    "group_by",
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
# The new clauses in one valid plan: a grouped plan joined back on its key with a condition
# beside the key, a one-row plan beside every row (on: []), a plan 3 deep, a column compared with
# another (in where, after the joins, in having), like and not_like.
TOTALS = {
    "datasets": [{"source_uri": "orders.csv", "alias": "o"}],
    "where": [{"column": "o.note", "op": "not_like", "value": "%\\%%", "ignore_case": True}],
    "group_by": [{"column": "o.customer_id", "as": "cid"}],
    "aggregates": [{"fn": "max", "column": "o.amount", "as": "top"}, {"fn": "count", "as": "n"}],
    "having": [{"column": "n", "op": "ge", "other": "n"}],
    "order_by": [{"column": "top", "desc": True}, {"column": "cid"}],
    "limit": 30,
}
NESTED_BASE = {
    "datasets": [
        {"source_uri": "orders.csv", "alias": "o"},
        {"plan": TOTALS, "alias": "t"},
        {
            "plan": {
                "datasets": [
                    {
                        "plan": {
                            "datasets": [{"plan": TOTALS, "alias": "u"}],
                            "group_by": [{"column": "u.n", "as": "orders"}],
                            "aggregates": [{"fn": "count", "as": "customers"}],
                        },
                        "alias": "v",
                    }
                ],
                "aggregates": [{"fn": "avg", "column": "v.customers", "as": "mean"}],
            },
            "alias": "m",
        },
        {"source_uri": "customers.csv", "alias": "c"},
    ],
    "joins": [
        {
            "alias": "t",
            "on": [
                {"left": "o.customer_id", "right": "t.cid"},
                {"left": "o.amount", "right": "t.top", "op": "le"},
            ],
            "kind": "left",
        },
        {"alias": "m", "on": [], "kind": "inner"},
        {
            "alias": "c",
            "on": [
                {"left": "o.customer_id", "right": "c.customer_id"},
                {"left": "o.ordered_on", "right": "c.since", "op": "gt"},
            ],
            "kind": "semi",
        },
    ],
    "where": [
        {"column": "o.qty", "op": "lt", "other": "o.amount"},
        {"column": "o.amount", "op": "gt", "other": "m.mean"},
        {"column": "o.region", "op": "like", "value": "_o%"},
    ],
    "group_by": [{"column": "o.region"}],
    "aggregates": [
        {"fn": "count"},
        {"fn": "sum", "column": "t.top", "as": "tops"},
        {"fn": "min", "column": "o.amount"},
    ],
    "having": [{"column": "min_amount", "op": "le", "other": "tops"}],
    "order_by": [{"column": "count", "desc": True}],
    "limit": 20,
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
    plan = draw(st.sampled_from([BASE, NESTED_BASE]))
    for _ in range(draw(st.integers(1, 3))):
        spots = list(places(plan))[1:]
        if not spots:
            break
        plan = put(plan, draw(st.sampled_from(spots)), draw(JSON))
    return plan


@pytest.mark.parametrize("base", [BASE, NESTED_BASE], ids=["base", "nested"])
def test_the_base_plan_is_answered(qns, base):
    res = qns.call("knowledge.query", base)
    assert res["columns"] and res["rows"]


@given(plan=st.one_of(word_plans(), mutated_plans()))
@settings(max_examples=EXAMPLES, **FUZZ)
def test_any_plan_is_answered_or_refused_with_a_spec_code(qns, plan):
    answered_or_refused(qns, plan)


@pytest.mark.slow
@given(plan=st.one_of(word_plans(), mutated_plans()))
@settings(max_examples=EXAMPLES * 20, **FUZZ)
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
    # Columns of one dataset are computed once in its rows (linear SQL); over two they are written
    # out where they are read, bounded by expression_nodes (test_plan_bombs).
    operands = OPERANDS if draw(st.booleans()) else [o for o in OPERANDS if not str(o).startswith("c.")]
    for k in range(steps):
        pick = st.sampled_from(names + operands) if names else st.sampled_from(operands)
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
    """Answered (in SQL linear in the columns, where they are computed in one dataset's rows) or refused with a SPEC code."""
    try:
        res = ns.call("knowledge.query", plan)
    except tabular.TabularError as err:
        assert err.code in ("VALIDATION_FAILED", "TOO_LARGE", "BACKEND_TIMEOUT"), (err.code, err.message)
        return
    one_dataset = not any("c." in str(c["expr"]) for c in plan["compute"])
    if one_dataset:  # o is the first dataset: a left join never null-extends its rows
        assert len(res["receipt"]["sql"]) < 2_000 + 400 * len(plan["compute"]), len(res["receipt"]["sql"])


@given(plan=computed_plans())
@settings(max_examples=EXAMPLES, **FUZZ)
def test_chained_computed_columns_are_answered_linearly_or_refused(qns, plan):
    linear_or_refused(qns, plan)


@pytest.mark.slow
@given(plan=computed_plans())
@settings(max_examples=EXAMPLES * 20, **FUZZ)
def test_chained_computed_columns_are_answered_linearly_or_refused_long(qns, plan):
    linear_or_refused(qns, plan)


# Plans as datasets (nested up to 3 deep, now and then 4: one past plan_nesting_max), columns
# compared with columns (`other`, in where and having), like / not_like patterns, and joins on
# conditions of any op or on [] (beside a one-row plan). The grammar knows the columns' types, so
# most plans are valid and reach the compiler and DuckDB; one decision in thirty is wrong on
# purpose (a type mismatch, a join without eq, on [] beside a grouped plan, a nested limit
# without order_by, a missing source, …). Each is answered or refused with a SPEC code, never
# INTERNAL, never another exception.
TYPED = {
    "orders.csv": {
        "order_id": "number",
        "customer_id": "number",
        "region": "string",
        "amount": "number",
        "qty": "number",
        "ordered_on": "date",
        "note": "string",
    },
    "customers.csv": {"customer_id": "number", "name": "string", "segment": "string", "since": "date"},
    "none.csv": {"x": "number"},
}
VALUES_OF = {
    "number": [1, 0, -1, 10.5, "10.50", 5100, 120, "1e3", 2**63],
    "string": ["North", "%o%", "_o%", "a\\%", "N%", "", "%\\_%", "gift%", "a_b%c"],
    "date": ["2024-01-01", "2023-06-30", "2015-07-06"],
}
OPS_OF = {
    "number": ["eq", "ne", "lt", "le", "gt", "ge", "between", "in", "is_null"],
    "date": ["eq", "ne", "lt", "le", "gt", "ge", "between", "not_null"],
    "string": ["eq", "ne", "lt", "ge", "like", "like", "not_like", "contains", "in"],
}
JOIN_OPS = ["eq", "ne", "lt", "le", "gt", "ge"]
COMPARE = ["eq", "ne", "lt", "le", "gt", "ge"]


@st.composite
def grammar_plans(draw, depth: int = 0):
    """A plan, its result columns ({name: type}) and whether it gives one row."""

    def wrong() -> bool:
        return draw(st.integers(0, 29)) == 0

    datasets, aliases, columns, one_row = [], [], [], []
    for i in range(draw(st.integers(1, 3 if depth == 0 else 2))):
        alias = draw(st.sampled_from(["d0", "D0", "x.y", ""])) if wrong() else f"d{i}"
        if (depth < 3 and draw(st.integers(0, 2 + depth)) == 0) or (depth == 3 and wrong()):
            sub, cols, single = draw(grammar_plans(depth + 1))
            datasets.append({"plan": sub, "alias": alias})
        else:
            source = "none.csv" if wrong() else draw(st.sampled_from(["orders.csv", "customers.csv"]))
            cols, single = TYPED[source], False
            datasets.append({"source_uri": source, "alias": alias})
        aliases.append(alias)
        columns.append(cols)
        one_row.append(single)

    def refs(ks, type_=None):
        out = [f"{aliases[k]}.{c}" for k in ks for c, t in columns[k].items() if type_ is None or t == type_]
        return out or [f"{aliases[ks[0]]}.missing"]

    def type_of(ref: str) -> str:
        for k in range(len(datasets)):
            head = f"{aliases[k]}."
            if ref.startswith(head) and ref[len(head) :] in columns[k]:
                return columns[k][ref[len(head) :]]
        return "number"

    plan: dict = {"datasets": datasets}
    joins, deciders = [], set()
    for i in range(1, len(datasets)):
        before = [k for k in range(i) if k not in deciders]
        if one_row[i] and draw(st.booleans()):
            on = []
        else:
            loose = wrong()  # keys of two types
            pairs = [(a, b) for b in refs([i]) for a in refs(before or [0]) if type_of(a) == type_of(b) or loose]
            pairs = pairs or [(refs(before or [0])[0], refs([i])[0])]
            on = [dict(zip(("left", "right"), draw(st.sampled_from(pairs))))]
            for _ in range(draw(st.integers(0, 2))):
                extra = dict(zip(("left", "right"), draw(st.sampled_from(pairs))))
                on.append({**extra, "op": draw(st.sampled_from(JOIN_OPS))})
            if wrong():
                on = [] if draw(st.booleans()) else [{**c, "op": draw(st.sampled_from(JOIN_OPS[1:]))} for c in on]
        last = i == len(datasets) - 1
        kind = draw(st.sampled_from(["inner", "left"] + (["semi", "anti", "inner"] if last or wrong() else [])))
        if kind in ("semi", "anti"):
            deciders.add(i)
        joins.append(
            {"alias": aliases[i], "on": on, **({"kind": kind} if kind != "inner" or draw(st.booleans()) else {})}
        )
    if joins and not wrong():
        plan["joins"] = joins
    readable = [k for k in range(len(datasets)) if k not in deciders]

    def condition(pool: dict[str, str], grouped: bool = False) -> dict:
        """A filter over the columns of `pool` ({name: type})."""
        column = draw(st.sampled_from(sorted(pool)))
        type_ = pool[column]
        f: dict = {"column": column}
        if draw(st.integers(0, 2)) == 0:
            loose = wrong()
            same = sorted(c for c, t in pool.items() if t == type_ or loose)
            f["op"] = draw(st.sampled_from(COMPARE + (["like", "in"] if wrong() else [])))
            f["other"] = draw(st.sampled_from(same))
            if wrong():
                f["value"] = 1
        else:
            f["op"] = op = draw(st.sampled_from(OPS_OF[type_]))
            values = VALUES_OF["number" if wrong() else type_]
            if op == "between":
                f["values"] = draw(st.lists(st.sampled_from(values), min_size=2, max_size=2))
            elif op == "in":
                f["values"] = draw(st.lists(st.sampled_from(values), min_size=1, max_size=3))
            elif op not in ("is_null", "not_null"):
                f["value"] = draw(st.sampled_from(values))
        if type_ == "string" and draw(st.integers(0, 3)) == 0 or wrong():
            f["ignore_case"] = True
        if not grouped and draw(st.integers(0, 7)) == 0:
            return {draw(st.sampled_from(["any", "all"])): [f, condition(pool, True)]}
        return f

    if draw(st.booleans()):
        # One dataset's columns per filter, or two datasets' compared (after the joins).
        plan["where"] = []
        for _ in range(draw(st.integers(1, 2))):
            k = draw(st.sampled_from(range(len(datasets))))
            pool = {r: type_of(r) for r in refs([k])}
            if draw(st.integers(0, 2)) == 0:
                pool.update({r: type_of(r) for r in refs(readable)})
            plan["where"].append(condition(pool))
    outputs: dict[str, str] = {}
    aggregated = draw(st.integers(0, 2)) > 0
    if aggregated:
        pool = {r: type_of(r) for r in refs(readable or [0])}
        groups = draw(st.lists(st.sampled_from(sorted(pool)), max_size=2, unique=True))
        if groups:
            plan["group_by"] = [{"column": g, "as": f"g{k}"} for k, g in enumerate(groups)]
            outputs.update({f"g{k}": pool[g] for k, g in enumerate(groups)})
        aggregates = []
        for k in range(draw(st.integers(0 if groups else 1, 2))):
            fn = draw(st.sampled_from(["count", "sum", "avg", "min", "max"]))
            loose = wrong()
            numbers = sorted(r for r, t in pool.items() if t == "number" or loose)
            item = {"fn": fn, "as": f"a{k}"}
            if fn in ("sum", "avg") and numbers:
                item["column"] = draw(st.sampled_from(numbers))
            elif fn in ("min", "max") or (fn == "count" and draw(st.booleans())):
                item["column"] = draw(st.sampled_from(sorted(pool)))
            elif fn != "count":
                item["fn"] = fn = "count"
            aggregates.append(item)
            outputs[f"a{k}"] = pool.get(item.get("column", ""), "number") if fn in ("min", "max") else "number"
        if aggregates:
            plan["aggregates"] = aggregates
    else:
        picked = draw(st.lists(st.sampled_from(refs(readable or [0])), min_size=1, max_size=3))
        plan["select"] = [{"column": r, "as": f"s{k}"} for k, r in enumerate(picked)]
        outputs = {f"s{k}": type_of(r) for k, r in enumerate(picked)}
    if draw(st.integers(0, 3)) == 0:
        plan["having"] = [condition(outputs)]
    ordered = draw(st.integers(0, 2)) == 0
    if ordered:
        plan["order_by"] = [{"column": draw(st.sampled_from(sorted(outputs))), "desc": draw(st.booleans())}]
    # A nested plan's limit or offset goes with its order_by (without one it is a 422), as does
    # its dry_run.
    if (ordered or depth == 0 or wrong()) and draw(st.integers(0, 2)) == 0:
        plan["limit"] = draw(st.sampled_from([0, 1, 5, 100] + ([10_001] if wrong() else [])))
    if (ordered or depth == 0 or wrong()) and draw(st.integers(0, 4)) == 0:
        plan["offset"] = draw(st.sampled_from([0, 2]))
    if (depth == 0 and draw(st.integers(0, 9)) == 0) or wrong():
        plan["dry_run"] = True
    return plan, outputs, aggregated and "group_by" not in plan


@given(plan=grammar_plans().map(lambda p: p[0]))
@settings(max_examples=EXAMPLES, **FUZZ)
def test_nested_plans_and_column_comparisons_are_answered_or_refused(qns, plan):
    answered_or_refused(qns, plan)


@pytest.mark.slow
@given(plan=grammar_plans().map(lambda p: p[0]))
@settings(max_examples=EXAMPLES * 20, **FUZZ)
def test_nested_plans_and_column_comparisons_are_answered_or_refused_long(qns, plan):
    answered_or_refused(qns, plan)
