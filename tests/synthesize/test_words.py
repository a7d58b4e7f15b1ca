"""tabular/synthesize/words.py: a plan said back in words from the plan alone. Every clause of the
plan language has words (a field of the plan models with none fails here, never skipped), every
column and value the plan reads is said, and the plans the built-in proposer makes, of every
kind, read as a person would check them."""

from __future__ import annotations

import copy
import typing

import pytest
from synth_schemas import MEDALS, SALES, col, table

from planner import models
from tabular.synthesize.builtin import BuiltinProposer
from tabular.synthesize.words import Unsayable, reading_of

RACES = {"source_uri": "races.csv"}
ONE = {"datasets": [RACES]}


def test_the_specs_example():
    plan = {**ONE, "where": [{"column": "Winner", "op": "eq", "value": "C. Lorenzo"}], "aggregates": [{"fn": "count"}]}
    assert reading_of(plan) == "count the rows of races.csv where Winner is C. Lorenzo"


def test_a_total_by_group_filtered_and_ordered():
    plan = {
        "datasets": [{"source_uri": "sales.csv"}],
        "where": [{"column": "Year", "op": "eq", "value": 2024}],
        "group_by": [{"column": "Region"}],
        "aggregates": [{"fn": "sum", "column": "Amount"}],
        "order_by": [{"column": "sum_Amount", "desc": True}],
    }
    assert reading_of(plan) == (
        "the total of Amount in sales.csv where Year is 2024, by Region, ordered highest first, the first 100"
    )


def test_case_ignored_is_said_and_so_are_empties_kept():
    plan = {
        **ONE,
        "where": [
            {"column": "Status", "op": "eq", "value": "paid", "ignore_case": True},
            {"any": [{"column": "Team", "op": "is_null"}, {"column": "Team", "op": "ne", "value": "Reds"}]},
        ],
        "aggregates": [{"fn": "count"}],
    }
    assert reading_of(plan) == (
        "count the rows of races.csv where Status is paid, any case, and (Team is empty or is not Reds)"
    )


def test_joins_computed_columns_windows_and_nested_plans():
    plan = {
        "datasets": [
            {"source_uri": "orders.csv", "alias": "o"},
            {"source_uri": "customers.csv", "alias": "c"},
            {
                "plan": {
                    "datasets": [{"source_uri": "orders.csv"}],
                    "aggregates": [{"fn": "avg", "column": "amount", "as": "mean"}],
                },
                "alias": "avg",
            },
        ],
        "joins": [
            {"alias": "c", "kind": "left", "on": [{"left": "o.cust", "right": "c.id"}]},
            {"alias": "avg", "on": []},
        ],
        "compute": [{"as": "net", "expr": {"sub": ["o.amount", {"mul": ["o.amount", 0.2]}]}}],
        "where": [{"column": "net", "op": "gt", "other": "avg.mean"}],
        "group_by": [{"column": "c.country"}],
        "aggregates": [{"fn": "sum", "column": "net"}],
        "measures": [
            {"as": "running", "window": {"fn": "running_sum", "of": "sum_net", "order_by": [{"column": "c.country"}]}}
        ],
    }
    assert reading_of(plan) == (
        "the total of net in orders.csv (as o) joined with customers.csv (as c) on o.cust matching c.id, keeping the rows "
        "with no match (its columns empty there), with avg (the average of amount (as mean) in orders.csv) beside every "
        "row, with net: o.amount − (o.amount × 0.2), where net is more than column avg.mean, by c.country, then running: "
        "the running total of the total of net by c.country, lowest first"
    )


def test_a_dataset_is_named_as_the_caller_names_it():
    plan = {"datasets": [{"source_uri": "files/races.csv", "alias": "races"}], "aggregates": [{"fn": "count"}]}
    assert reading_of(plan) == "count the rows of files/races.csv"
    assert reading_of(plan, {"races": "Races"}) == "count the rows of Races"
    sheet = {"datasets": [{"source_uri": "book.xlsx", "dataset_id": "Sheet2", "snapshot_id": "s9"}]}
    assert reading_of(sheet) == "every column of each row of Sheet2 of book.xlsx at snapshot s9"


def test_a_part_it_has_no_words_for_is_refused_not_skipped():
    with pytest.raises(Unsayable, match="sample"):
        reading_of({**ONE, "sample": 10})
    with pytest.raises(Unsayable, match="fancy"):
        reading_of({**ONE, "where": [{"column": "a", "op": "fancy", "value": 1}]})
    with pytest.raises(Unsayable, match="pow"):
        reading_of({**ONE, "compute": [{"as": "x", "expr": {"pow": ["a", 2]}}]})


# --- total over the plan language: every field, every operator ---------------------------------------

BASE = {
    "datasets": [{"source_uri": "a.csv"}, {"source_uri": "b.csv"}],
    "joins": [{"alias": "b", "on": [{"left": "a.k", "right": "b.k"}]}],
    "where": [{"column": "a.x", "op": "eq", "value": 1}],
    "group_by": [{"column": "a.g"}],
    "aggregates": [{"fn": "sum", "column": "a.v"}],
    "measures": [{"as": "m", "window": {"fn": "sum", "of": "sum_v"}}],
    "order_by": [{"column": "a.g"}],
}


def _set(path: tuple, change: typing.Any) -> dict:
    """BASE with the part at `path` changed (a key set, or added where absent)."""
    plan = copy.deepcopy(BASE)
    at = plan
    for step in path[:-1]:
        at = at[step]
    at[path[-1]] = change
    return plan


# Each field of each plan model: where in BASE it goes and a value that is not its default.
FIELDS = {
    models.QueryPlan: {
        "datasets": (("datasets",), [{"source_uri": "c.csv"}]),
        "where": (("where",), []),
        "joins": (("joins", 0, "kind"), "semi"),
        "compute": (("compute",), [{"as": "z", "expr": "a.v"}]),
        "group_by": (("group_by",), []),
        "aggregates": (("aggregates",), [{"fn": "count"}]),
        "measures": (("measures",), []),
        "having": (("having",), [{"column": "m", "op": "gt", "value": 3}]),
        "select": (("select",), [{"column": "a.s"}]),
        "order_by": (("order_by",), []),
        "limit": (("limit",), 5),
        "offset": (("offset",), 5),
        "dry_run": (("dry_run",), True),
        "whole_order": (("whole_order",), "stable"),
    },
    models.QueryDataset: {
        "source_uri": (("datasets", 0, "source_uri"), "z.csv"),
        "dataset_id": (("datasets", 0, "dataset_id"), "Sheet2"),
        "alias": (("datasets", 0, "alias"), "first"),
        "snapshot_id": (("datasets", 0, "snapshot_id"), "s1"),
    },
    models.QueryPlanDataset: {
        "plan": (("datasets", 1), {"plan": {"datasets": [{"source_uri": "b.csv"}]}, "alias": "b"}),
        "alias": (("datasets", 1), {"plan": {"datasets": [{"source_uri": "b.csv"}]}, "alias": "bb"}),
    },
    models.QueryFilter: {
        "column": (("where", 0, "column"), "a.y"),
        "op": (("where", 0, "op"), "ne"),
        "value": (("where", 0, "value"), 2),
        "values": (("where", 0), {"column": "a.x", "op": "in", "values": [1, 2]}),
        "other": (("where", 0), {"column": "a.x", "op": "eq", "other": "a.y"}),
        "ignore_case": (("where", 0, "ignore_case"), True),
        "any": (("where", 0), {"any": [{"column": "a.x", "op": "eq", "value": 1}, {"column": "a.y", "op": "is_null"}]}),
        "all": (("where", 0), {"all": [{"column": "a.x", "op": "eq", "value": 1}, {"column": "a.y", "op": "is_null"}]}),
    },
    models.QueryJoin: {
        "alias": (("joins", 0, "alias"), "c"),
        "on": (("joins", 0, "on"), [{"left": "a.k2", "right": "b.k2"}]),
        "kind": (("joins", 0, "kind"), "anti"),
    },
    models.QueryOn: {
        "left": (("joins", 0, "on", 0, "left"), "a.j"),
        "right": (("joins", 0, "on", 0, "right"), "b.j"),
        "op": (("joins", 0, "on", 0, "op"), "lt"),
    },
    models.QueryGroup: {
        "column": (("group_by", 0, "column"), "a.h"),
        "bucket": (("group_by", 0, "bucket"), "month"),
        "as_": (("group_by", 0, "as"), "gg"),
    },
    models.QueryAggregate: {
        "fn": (("aggregates", 0, "fn"), "avg"),
        "column": (("aggregates", 0, "column"), "a.w"),
        "expr": (("aggregates", 0), {"fn": "sum", "expr": {"mul": ["a.v", 2]}}),
        "q": (("aggregates", 0), {"fn": "quantile", "column": "a.v", "q": 0.9}),
        "where": (("aggregates", 0, "where"), [{"column": "a.y", "op": "eq", "value": 2}]),
        "as_": (("aggregates", 0, "as"), "total"),
    },
    models.QueryColumn: {
        "column": (("select",), [{"column": "a.t"}]),
        "as_": (("select",), [{"column": "a.s", "as": "ss"}]),
    },
    models.QueryOrder: {
        "column": (("order_by", 0, "column"), "sum_v"),
        "desc": (("order_by", 0, "desc"), True),
    },
    models.QueryCompute: {
        "as_": (("compute",), [{"as": "y", "expr": "a.v"}]),
        "expr": (("compute",), [{"as": "z", "expr": "a.w"}]),
    },
    models.QueryMeasure: {
        "as_": (("measures", 0, "as"), "n"),
        "expr": (("measures", 0), {"as": "m", "expr": {"div": ["sum_v", 2]}}),
        "window": (("measures", 0, "window"), {"fn": "max", "of": "sum_v"}),
    },
    models.QueryWindow: {
        "fn": (("measures", 0, "window", "fn"), "avg"),
        "of": (("measures", 0, "window", "of"), "a.g"),
        "partition_by": (("measures", 0, "window", "partition_by"), ["a.g"]),
        "order_by": (("measures", 0, "window", "order_by"), [{"column": "a.g"}]),
    },
    models.ExprValue: {
        "value": (("measures", 0), {"as": "m", "expr": {"add": ["sum_v", {"value": "x"}]}}),
        "type": (("measures", 0), {"as": "m", "expr": {"add": ["sum_v", {"value": "2024-01-01", "type": "date"}]}}),
    },
    models.CaseWhen: {
        "when": (
            ("measures", 0),
            {"as": "m", "expr": {"case": [{"when": {"column": "sum_v", "op": "gt", "value": 9}, "then": 1}]}},
        ),
        "then": (
            ("measures", 0),
            {"as": "m", "expr": {"case": [{"when": {"column": "sum_v", "op": "gt", "value": 0}, "then": 2}]}},
        ),
    },
}


def test_every_field_of_every_plan_model_is_listed_here():
    for model, fields in FIELDS.items():
        assert set(model.model_fields) == set(fields), model.__name__


@pytest.mark.parametrize(
    ("model", "field"),
    [(m, f) for m, fields in FIELDS.items() for f in fields],
    ids=lambda x: getattr(x, "__name__", x),
)
def test_every_field_changes_the_reading(model, field):
    path, change = FIELDS[model][field]
    assert reading_of(_set(path, change)) != reading_of(BASE)


def _distinct(readings: dict) -> None:
    seen = {}
    for key, said in readings.items():
        assert said not in seen, f"{key} reads as {seen.get(said)} does: {said}"
        seen[said] = key


def test_every_filter_operator_has_its_own_words():
    ops = typing.get_args(models.FilterOp)
    readings = {}
    for op in ops:
        one = {"values": ["a", "b"]} if op in ("between", "in", "not_in") else {"value": "%x_"}
        readings[op] = reading_of({**ONE, "where": [{"column": "T", "op": op, **one}]})
    _distinct(readings)


def test_every_aggregate_window_bucket_join_and_expression_has_its_own_words():
    _distinct(
        {
            fn: reading_of(
                {**ONE, "aggregates": [{"fn": fn, "column": "v", **({"q": 0.5} if fn == "quantile" else {})}]}
            )
            for fn in typing.get_args(models.AggregateFn)
        }
    )
    _distinct(
        {
            fn: reading_of(
                {**ONE, "measures": [{"as": "w", "window": {"fn": fn, "of": "v", "order_by": [{"column": "v"}]}}]}
            )
            for fn in typing.get_args(models.WindowFn)
        }
    )
    _distinct(
        {
            b: reading_of({**ONE, "group_by": [{"column": "d", "bucket": b}], "aggregates": [{"fn": "count"}]})
            for b in typing.get_args(models.Bucket)
        }
    )
    join = {"datasets": [RACES, {"source_uri": "riders.csv"}]}
    _distinct(
        {
            kind: reading_of(
                {**join, "joins": [{"alias": "riders", "kind": kind, "on": [{"left": "a", "right": "b"}]}]}
            )
            for kind in ("inner", "left", "semi", "anti")
        }
    )
    _distinct(
        {
            op: reading_of({**join, "joins": [{"alias": "riders", "on": [{"left": "a", "right": "b", "op": op}]}]})
            for op in typing.get_args(models.JoinOp)
        }
    )
    exprs = {}
    for op in models.EXPR_OPERATORS:
        args = {"case": [{"when": {"column": "a", "op": "is_null"}, "then": "b"}], "cast": ["a", "number"]}.get(
            op, ["day", "a", "b"] if op == "date_diff" else ["a", "b"]
        )
        exprs[op] = reading_of({**ONE, "compute": [{"as": "x", "expr": {op: args}}]})
    _distinct(exprs)


# --- the plans the built-in proposer makes ------------------------------------------------------------

PLAYERS = table(
    col("Player", unique=True, distinct=6, values=("Ada Wilson", "Bob Stone", "Cy Dunn", "Dan Son")),
    col("Team", distinct=3, values=("Reds", "Blues", "Greens")),
    col("Points", "number", lo=0, hi=40),
    alias="players",
)
CUSTOMERS = table(
    col("customer_id", "number", unique=True),
    col("segment", distinct=2, values=("Retail", "Wholesale")),
    alias="customers",
)
ORDERS = table(
    col("order_id", "number", unique=True),
    col("customer_id", "number"),
    col("amount", "number"),
    alias="orders",
    rows=40,
)

# (task, schemas, a reading of one of its plans): one of each kind the built-in proposer makes.
KINDS = [
    ("how many gold medals did Norway win", [MEDALS], "the total of Gold in t.csv where Nation is Norway, any case"),
    ("what is the average gold", [MEDALS], "the average of Gold in t.csv"),
    ("what is the highest total", [MEDALS], "the maximum of Total in t.csv"),
    ("how many different teams are there", [PLAYERS], "the number of different Team values in players.csv"),
    (
        "which nation has the most gold",
        [MEDALS],
        "the total of Gold in t.csv, by Nation, ordered highest first, then by Nation, the first row only",
    ),
    (
        "what team is Ada Wilson on",
        [PLAYERS],
        "each different Team of players.csv where Player is Ada Wilson, any case, at most 50 rows",
    ),
    (
        "who is listed last",
        [PLAYERS],
        "Player of each row of players.csv, then position: the row's number in the order listed; rows: the number "
        "of filled position cells over all rows; from_last: rows − position, keeping those where from_last is 0, at most 10 rows",
    ),
    (
        "how many more gold did Norway win than Peru",
        [MEDALS],
        "in t.csv where Nation is Norway or Peru, any case: the total of Gold for the rows where Nation is Norway, any "
        "case (as first); and the total of Gold for the rows where Nation is Peru, any case (as second); then difference: first − second",
    ),
    ("did Norway win more or less gold than Peru", [MEDALS], None),
    (
        "what share of the total points did Ada Wilson score",
        [PLAYERS],
        "the total of players.Points (as part) and the maximum of all_rows_total.whole (as whole) in players.csv, with "
        "all_rows_total (the total of Points (as whole) in players.csv) beside every row, where players.Player is Ada "
        "Wilson, any case, then share: part ÷ whole",
    ),
    ("which players have the same team as Ada Wilson", [PLAYERS], None),
    (
        "how many players have more points than the average",
        [PLAYERS],
        "count the rows of players.csv, with all_rows_average (the average of Points (as average_Points) in "
        "players.csv) beside every row, where Points is more than column average_Points",
    ),
    ("which players have more points than Bob Stone", [PLAYERS], None),
    (
        "share of amount by region",
        [SALES],
        "the total of amount in sales.csv, by region, then share: the total of amount as a share of its sum over all rows, at most 1000 rows",
    ),
    (
        "total units times price by region",
        [SALES],
        "the total of units × price (as sum_units_times_price) in sales.csv, by region, at most 1000 rows",
    ),
    (
        "total amount by month in 2024",
        [SALES],
        "the total of amount in sales.csv where order_date is from 2024-01-01 to 2024-12-31, by the month of order_date, at most 1000 rows",
    ),
    (
        "total amount excluding the North region",
        [SALES],
        "the total of amount in sales.csv where region is empty or is not North, any case",
    ),
    ("how many sales with more than 10 units", [SALES], "count the rows of sales.csv where units is more than 10"),
    (
        "total amount by segment",
        [ORDERS, CUSTOMERS],
        "the total of orders.amount in orders.csv joined with customers.csv on customer_id, by customers.segment, at most 1000 rows",
    ),
    (
        "how many customers have no orders",
        [CUSTOMERS, ORDERS],
        "count the rows of customers.csv that have no match in orders.csv on customer_id",
    ),
    ("was Ada Wilson on the Reds or the Blues", [PLAYERS], None),
    ("who finished after Bob Stone", [PLAYERS], None),
]


def _said(plan: dict) -> set[str]:
    """Every column name, dataset and value a plan holds, as text; a join's two keys of one name
    are said once by that name, and an aggregate named by default is said by its words wherever
    its name is used (the total of Gold, not sum_Gold)."""
    out = set()
    by_default = {
        "count"
        if a.get("column") is None and a.get("expr") is None
        else f"{a['fn']}_{a.get('column', 'expr').split('.')[-1]}"
        for a in plan.get("aggregates", [])
        if not a.get("as")
    }

    def walk(part, key=""):
        if isinstance(part, dict):
            if {"left", "right"} <= set(part) and part["left"].split(".")[-1] == part["right"].split(".")[-1]:
                out.add(part["left"].split(".")[-1])
                return
            for k, v in part.items():
                if k in models.EXPR_OPERATORS:
                    walk(v, k)
                elif k not in (
                    "fn",
                    "op",
                    "kind",
                    "bucket",
                    "desc",
                    "ignore_case",
                    "limit",
                    "type",
                    "alias",
                    "dataset_id",
                ):
                    walk(v, k)
        elif isinstance(part, list):
            for v in part:
                walk(v, key)
        elif isinstance(part, str | int | float) and not isinstance(part, bool):
            if not (key in ("column", "of", "partition_by") and str(part) in by_default):
                out.add(str(part))

    walk(plan)
    return out


@pytest.mark.parametrize(("task", "schemas", "said"), KINDS, ids=[k[0] for k in KINDS])
def test_the_builtin_proposers_plans_read_back_whole(task, schemas, said):
    proposal = BuiltinProposer().propose(task, schemas)
    assert proposal.candidates, proposal.why
    readings = [reading_of(c.plan) for c in proposal.candidates]
    for candidate, reading in zip(proposal.candidates, readings):
        left_out = {s for s in _said(candidate.plan) if s not in reading}
        assert not left_out, (reading, left_out)
    if said is not None:
        assert said in readings
