"""The built-in proposer (synthesize/builtin.py): a task read against the schemas and built into
plans; a word it cannot place is no plan, a word that fits several columns is several."""

from __future__ import annotations

from synth_schemas import MEDALS, col, table

from tabular.synthesize.builtin import BuiltinProposer

DATASET = [{"source_uri": "t.csv", "dataset_id": "t", "alias": "t"}]


def propose(task, *schemas):
    return BuiltinProposer().propose(task, list(schemas) or [MEDALS])


def test_a_total_of_a_column_for_a_value_named():
    out = propose("how many gold medals did Norway win")
    assert out.why == "" and len(out.candidates) == 1
    (candidate,) = out.candidates
    assert candidate.plan == {
        "datasets": DATASET,
        "where": [{"column": "Nation", "op": "eq", "value": "Norway", "ignore_case": True}],
        "aggregates": [{"fn": "sum", "column": "Gold"}],
    }
    assert candidate.assumes == () and candidate.answer == ("aggregates[0]",)


def test_a_word_it_cannot_place_is_no_plan():
    out = propose("how many gold medals did Norway paint")
    assert out.candidates == () and "'paint'" in out.why


def test_a_task_with_no_words():
    assert propose("?!").why == "the task has no words to read"


def test_a_word_that_fits_two_columns_is_two_plans_and_a_question():
    books = table(col("Title", unique=True), col("net", "number"), col("gross", "number"))
    out = propose("total revenue", books)
    assert [c.assumes for c in out.candidates] == [(("revenue", "t.net"),), (("revenue", "t.gross"),)]
    assert [c.plan["aggregates"] for c in out.candidates] == [
        [{"fn": "sum", "column": "net"}],
        [{"fn": "sum", "column": "gross"}],
    ]
    assert out.question == "revenue: the column net or gross?"


def test_a_size_word_with_no_column_named_for_it_is_refused():
    out = propose("which nation is taller than Norway")
    assert out.candidates == () and "height" in out.why


def test_repair_has_no_second_reading():
    assert BuiltinProposer().repair("t", [MEDALS], None, {}, []).candidates == ()
