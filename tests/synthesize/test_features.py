"""The facts of a reading as numbers (synthesize/features.py): the same names for every task and
table, read off the plan and its result, with the built-in proposer's own account of its words."""

from __future__ import annotations

import pytest
from synth_schemas import MEDALS, SALES

from tabular.synthesize.builtin import BuiltinProposer
from tabular.synthesize.features import (
    ANSWERS,
    ASKS,
    KINDS,
    answer_type,
    features_of,
    plan_kind,
    question_word,
)
from tabular.synthesize.proposal import Candidate, Proposal


def featured(task, columns, rows, answer, schemas=(MEDALS,), near=(), complete=True):
    proposal = BuiltinProposer().propose(task, list(schemas))
    assert proposal.candidates, proposal.why
    candidate = proposal.candidates[0]
    return features_of(
        task, proposal, candidate, candidate.plan, columns, rows, answer, list(schemas), complete, list(near)
    )


def test_every_reading_has_the_same_one_hot_groups_whatever_the_task():
    a = featured("how many gold medals did Norway win", ["sum_Gold"], [[3]], ["sum_Gold"])
    b = featured("which nation won the most gold medals", ["Nation", "sum_Gold"], [["Peru", 9]], ["Nation"])
    for group, names in (("kind", KINDS), ("asks", ASKS), ("answer", ANSWERS)):
        for f in (a, b):
            assert sum(f[f"{group}:{n}"] for n in names) == 1.0
    assert a["kind:sum"] == b["kind:ranking"] == 1.0
    assert a["asks:how_many"] == b["asks:which"] == 1.0
    assert a["answer:number"] == b["answer:text"] == 1.0
    assert all(isinstance(v, float) for v in a.values())


def test_the_builtin_proposer_says_how_each_value_was_matched():
    exact = BuiltinProposer().propose("how many gold medals did Norway win", [MEDALS]).candidates[0]
    noted = BuiltinProposer().propose("how many gold medals did Canada win", [MEDALS]).candidates[0]
    assert exact.facts["value_exact"] == 1.0 and exact.facts["value_note_dropped"] == 0.0
    assert noted.facts["value_note_dropped"] == 1.0 and noted.facts["value_exact"] == 0.0
    assert exact.facts["builtin"] == 1.0 and exact.facts["spans_value"] == 1.0


def test_a_column_named_by_an_abbreviation_is_said_so():
    from synth_schemas import col, table

    league = table(col("Team", unique=True, values=("Ajax", "PSV")), col("Pts", "number", lo=0, hi=90))
    candidate = BuiltinProposer().propose("how many points did Ajax get", [league]).candidates[0]
    assert candidate.facts["column_abbreviation"] == 1.0


def test_a_who_answered_by_a_number_is_a_mismatch_and_a_who_answered_by_a_name_is_not():
    numbered = featured("who won the most gold medals", ["sum_Gold"], [[9]], ["sum_Gold"])
    named = featured("who won the most gold medals", ["Nation", "sum_Gold"], [["Peru", 9]], ["Nation"])
    assert numbered["answer_mismatch"] == 1.0 and named["answer_mismatch"] == 0.0


def test_the_result_and_the_table_shape_are_counted():
    f = featured(
        "which nation won the most gold medals",
        ["Nation", "sum_Gold"],
        [["Peru (PER)\nsecond line", 9], ["Chile", 9]],
        ["Nation"],
        near=["placeholder"],
        complete=False,
    )
    assert f["rows_several"] == 1.0 and f["answer_note"] == 1.0 and f["answer_lines"] == 1.0
    assert f["table_columns"] == 6.0 and f["complete"] == 0.0
    assert f["near"] == 1.0 and f["near:placeholder"] == 1.0


def test_a_chat_plan_is_scored_without_the_builtin_facts():
    plan = {"datasets": [MEDALS.ref()], "aggregates": [{"fn": "sum", "column": "Gold"}]}
    candidate = Candidate(plan)
    f = features_of(
        "total gold",
        Proposal(candidates=(candidate,)),
        candidate,
        plan,
        ["sum_Gold"],
        [[30]],
        ["sum_Gold"],
        [MEDALS],
        True,
        [],
    )
    assert f["builtin"] == 0.0 and not any(k.startswith("fact:") for k in f)
    assert f["kind:sum"] == 1.0 and f["content_left"] == 0.0


def test_a_content_word_the_plan_does_not_hold_is_counted_as_left():
    plan = {
        "datasets": [SALES.ref()],
        "group_by": [{"column": "region"}],
        "aggregates": [{"fn": "sum", "column": "amount"}],
    }
    candidate = Candidate(plan)
    f = features_of(
        "total amount by region of bicycles",
        Proposal(candidates=(candidate,)),
        candidate,
        plan,
        ["sum_amount"],
        [[10]],
        ["sum_amount"],
        [SALES],
        True,
        [],
    )
    assert f["content_left"] == 1.0 and f["content_placed"] == 1.0


@pytest.mark.parametrize(
    ("plan", "kind"),
    [
        ({"measures": [{"as": "answer", "expr": {}}]}, "yes_no"),
        ({"measures": [{"as": "difference", "expr": {}}]}, "difference"),
        ({"select": [{"column": "a"}], "order_by": [{"column": "b"}], "limit": 1}, "row_by_place"),
        (
            {
                "group_by": [{"column": "a"}],
                "aggregates": [{"fn": "sum", "column": "b"}],
                "order_by": [{"column": "x"}],
            },
            "ranking",
        ),
        ({"aggregates": [{"fn": "count_distinct", "column": "a"}]}, "count"),
        ({"aggregates": [{"fn": "avg", "column": "a"}]}, "average"),
        ({"aggregates": [{"fn": "max", "column": "a"}]}, "extreme"),
        ({"select": [{"column": "a"}]}, "lookup"),
    ],
)
def test_the_kind_of_a_plan_is_read_off_the_plan_alone(plan, kind):
    assert plan_kind(plan) == kind


@pytest.mark.parametrize(
    ("task", "asked"),
    [
        ("Who won in 1999?", "who"),
        ("what year did they win", "when"),
        ("When was it built", "when"),
        ("how many titles", "how_many"),
        ("total titles, how many were there", "how_many"),
        ("which team won", "which"),
        ("was it more than 5", "yes_no"),
        ("name the winner", "other"),
    ],
)
def test_the_question_word(task, asked):
    from tabular.synthesize.vocabulary import words

    assert question_word(words(task)) == asked


@pytest.mark.parametrize(
    ("cell", "kind"),
    [
        (3, "number"),
        ("1,200", "number"),
        (1998, "year"),
        ("2001-05-04", "date"),
        ("Yes", "yes_no"),
        ("Oslo", "text"),
        (None, "empty"),
    ],
)
def test_the_answer_type_of_a_cell(cell, kind):
    assert answer_type([[cell]], [0]) == kind
