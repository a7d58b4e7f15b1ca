"""The candidate plans of a task settled (synthesize/plans.py): one for each way of taking one
option of each choice, what each assumed, and the question when there are several."""

from __future__ import annotations

from synth_schemas import MEDALS, SALES, col, table

from tabular.synthesize.choices import ROWS, Asked, Choice, Match
from tabular.synthesize.plans import candidates
from tabular.synthesize.spans import TaskReading

DATE, REGION, AMOUNT, UNITS, PRICE = SALES.columns
SALES_REF = {"source_uri": "sales.csv", "dataset_id": "sales", "alias": "sales"}


def test_a_count_of_every_row():
    out = candidates(TaskReading(), Asked("count", []), [], {"sales": SALES})
    (candidate,) = out.candidates
    assert candidate.plan == {"datasets": [SALES_REF], "aggregates": [{"fn": "count"}]}
    assert candidate.answer == ("aggregates[0]",) and candidate.assumes == () and out.question == ""


def test_a_count_of_the_rows_that_hold_a_value():
    north = Choice("north", [Match(REGION, "North", False)], "value")
    (candidate,) = candidates(TaskReading(), Asked("count", []), [north], {"sales": SALES}).candidates
    assert candidate.plan["where"] == [{"column": "region", "op": "eq", "value": "North", "ignore_case": True}]


def test_a_count_that_names_one_row_by_its_unique_name_is_refused():
    norway = Choice("norway", [Match(MEDALS.columns[1], "Norway", False)], "value")
    out = candidates(TaskReading(), Asked("count", []), [norway], {"t": MEDALS})
    assert out.candidates == () and "names one row by its Nation" in out.why


def test_a_word_of_two_columns_is_two_plans_and_the_question_names_both():
    books = table(col("net", "number"), col("gross", "number"))
    net, gross = books.columns
    out = candidates(TaskReading(), Asked("sum", []), [Choice("revenue", [net, gross], "measure")], {"t": books})
    assert [c.plan["aggregates"] for c in out.candidates] == [
        [{"fn": "sum", "column": "net"}],
        [{"fn": "sum", "column": "gross"}],
    ]
    assert [c.assumes for c in out.candidates] == [(("revenue", "t.net"),), (("revenue", "t.gross"),)]
    assert out.question == "revenue: the column net or gross?"


def test_the_rows_or_a_total_per_group():
    choices = [Choice("what to total", [ROWS, AMOUNT], "measure"), Choice("region", [REGION], "group")]
    out = candidates(TaskReading(), Asked(None, []), choices, {"sales": SALES})
    rows, total = (c.plan for c in out.candidates)
    assert rows["aggregates"] == [{"fn": "count"}] and total["aggregates"] == [{"fn": "sum", "column": "amount"}]
    assert rows["group_by"] == total["group_by"] == [{"column": "region"}]
    assert out.question == "what to total: the number of rows or the column amount?"
