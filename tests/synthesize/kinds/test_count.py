"""The count kind (synthesize/kinds/count.py): 'how many' read, and the tune questions it
answers; and its checks of a count against a total (verify.py runs them on every plan):
a sum where the task counts names ("how many nations won gold" answered by adding up Gold), and
a count of rows where a number column holds how many each row has ("how many wins" answered by
counting the rows whose Result is Won, beside a Wins column). Plans as any proposer might write
them, over tables in several shapes (English and Spanish names, German values; the measure
first or last); beside each, the plan of the same table that must still pass."""

from __future__ import annotations

import pytest
from synth_golden import case_id, expected, golden, proposed
from synth_schemas import MEDALS, SALES, col, reading, table

from tabular.synthesize.answer import answer_columns
from tabular.synthesize.kinds.count import counted_noun, how_many
from tabular.synthesize.spans import TaskSpans, spans_of
from tabular.synthesize.verify import refused
from tabular.synthesize.vocabulary import words


def names(spans):
    return [[c.name for c in s.targets] for s in spans]


def test_how_many_is_a_count_of_what_follows_it():
    tokens = words("how many different regions")
    task = TaskSpans(tokens, spans_of(tokens, [SALES]))
    assert not how_many(task, 1)  # "many" alone starts no count
    assert how_many(task, 0)
    r = task.reading
    assert r.fn == "count" and r.distinct and names(r.count_of) == [["region"]]
    assert task.used == {0, 1, 2, 3}


def test_how_many_of_a_noun_no_column_names_counts_rows_said_so():
    r, left = reading("how many deliveries were in the North", SALES)
    assert left == [] and r.row_noun == "deliveries" and r.count_of == []


RECORD = table(
    col("Year", "number", unique=True, lo=2001, hi=2005),
    col("Event", unique=True, values=("Open A", "Open B", "Open C")),
    col("Result", distinct=2, values=("Won", "Lost")),
    col("Wins", "number", lo=0, hi=5),
    col("Losses", "number", lo=0, hi=3),
)
# Spanish names, the number column first
CLUBES = table(
    col("Títulos", "number", lo=0, hi=9),
    col("Club", unique=True, values=("Alianza", "Cristal", "Melgar")),
    col("Ciudad", distinct=2, values=("Lima", "Arequipa")),
)
# a stadium per row, how many matches it held first; the German city names as values
STADIUMS = table(
    col("Matches", "number", lo=1, hi=12),
    col("Stadium", unique=True, values=("Prater", "Hanappi", "Liebenau")),
    col("City", distinct=2, values=("Wien", "Graz")),
)


def check(task, plan, schema):
    plan = {"datasets": [schema.ref()], **plan}
    names = [
        (a.get("as") or f"{a['fn']}_{a.get('column')}" if a.get("column") else a["fn"]) for a in plan["aggregates"]
    ]
    return refused(task, plan, names, [[3]], answer_columns(plan, names), [schema])


@pytest.mark.parametrize(
    "task, plan, schema",
    [
        ("how many nations won gold?", {"aggregates": [{"fn": "sum", "column": "Gold"}]}, MEDALS),
        (
            "what is the number of nations with silver?",
            {
                "where": [{"column": "Silver", "op": "gt", "value": 0}],
                "aggregates": [{"fn": "sum", "column": "Silver"}],
            },
            MEDALS,
        ),
        (
            "how many clubs from lima won títulos?",
            {
                "where": [{"column": "Ciudad", "op": "eq", "value": "Lima"}],
                "aggregates": [{"fn": "sum", "column": "Títulos"}],
            },
            CLUBES,
        ),
    ],
)
def test_a_sum_where_the_task_counts_names_is_refused(task, plan, schema):
    why = check(task, plan, schema)
    assert "counts" in why and "adds up" in why, why


@pytest.mark.parametrize(
    "task, plan, schema",
    [
        (
            "how many wins were there?",
            {"where": [{"column": "Result", "op": "eq", "value": "Won"}], "aggregates": [{"fn": "count"}]},
            RECORD,
        ),
        (
            "what is the total number of losses?",
            {
                "where": [{"column": "Result", "op": "eq", "value": "Lost"}],
                "aggregates": [{"fn": "count", "column": "Event"}],
            },
            RECORD,
        ),
        (
            "how many matches were in wien?",
            {"where": [{"column": "City", "op": "eq", "value": "Wien"}], "aggregates": [{"fn": "count"}]},
            STADIUMS,
        ),
    ],
)
def test_a_count_of_rows_where_a_column_holds_how_many_is_refused(task, plan, schema):
    why = check(task, plan, schema)
    assert "counts rows where" in why and "holds how many" in why, why


@pytest.mark.parametrize(
    "task, plan, schema",
    [
        (
            "how many gold medals did peru win?",
            {
                "where": [{"column": "Nation", "op": "eq", "value": "Peru"}],
                "aggregates": [{"fn": "sum", "column": "Gold"}],
            },
            MEDALS,
        ),
        ("how many wins were there?", {"aggregates": [{"fn": "sum", "column": "Wins"}]}, RECORD),
        (
            "how many events were won?",
            {"where": [{"column": "Result", "op": "eq", "value": "Won"}], "aggregates": [{"fn": "count"}]},
            RECORD,
        ),
        (
            "how many clubs are in lima?",
            {"where": [{"column": "Ciudad", "op": "eq", "value": "Lima"}], "aggregates": [{"fn": "count"}]},
            CLUBES,
        ),
        (
            "how many stadiums are in wien?",
            {"where": [{"column": "City", "op": "eq", "value": "Wien"}], "aggregates": [{"fn": "count"}]},
            STADIUMS,
        ),
    ],
)
def test_a_count_or_sum_of_what_the_task_counts_passes(task, plan, schema):
    assert check(task, plan, schema) == ""


def test_the_noun_counted_is_read_past_total_and_different():
    assert counted_noun(["how", "many", "total", "medals", "did", "x", "win"]) == "medals"
    assert counted_noun(["the", "number", "of", "different", "clubs"]) == "clubs"
    assert counted_noun(["how", "many", "times", "did", "x", "win"]) == ""
    assert counted_noun(["who", "won", "the", "most"]) == ""


@pytest.mark.parametrize("case", golden("count"), ids=case_id)
def test_the_tune_questions_it_answers_keep_their_plans(case):
    """Each tune question this kind answered right (tests/synthesize/golden/count.json) gets the
    same candidate plans from the built-in proposer, over its table's schema."""
    assert proposed(case) == expected(case)
