"""The task's words placed in its plan (synthesize/placed.py): every content word of the task is
a column, a value, an alias or a synonym of one the plan reads, or the words the reading itself
uses; a word left out is named. Tried on plans over a table of athletes; each expected word is
worked out by hand from the task and the plan."""

from __future__ import annotations

from tabular.synthesize.placed import stem, task_grammar, words_left_out
from tabular.synthesize.schemas import ColumnSchema
from tabular.synthesize.vocabulary import words

COLUMNS = {
    name: ColumnSchema("t", name, type_, physical, False, 10, None, None)
    for name, type_, physical in (
        ("Name", "string", "VARCHAR"),
        ("Nation", "string", "VARCHAR"),
        ("Points", "number", "BIGINT"),
    )
}
DS = [{"source_uri": "athletes.csv", "alias": "t"}]


def left(task, plan):
    return words_left_out(words(task), {"datasets": DS, **plan}, [], [], [], COLUMNS, task)


def test_a_word_the_plan_does_not_read_is_named():
    counted = {"aggregates": [{"fn": "count"}]}
    assert "'peru'" in left("how many athletes are from peru?", counted)
    # filtered to it: placed; the rows' noun ("athletes") and grammar need no place
    peru = {**counted, "where": [{"column": "Nation", "op": "eq", "value": "Peru"}]}
    assert left("how many athletes are from peru?", peru) == ""
    # an alias of a value ("united states" for USA), in an `any` as anywhere else
    usa = {**counted, "where": [{"any": [{"column": "Nation", "op": "eq", "value": "USA"}]}]}
    assert left("how many athletes are from the united states?", usa) == ""
    # the column read by its own name, in another case and number
    assert (
        left("what were the points of ann ray?", {"select": [{"column": "Points"}]})
        == "the plan places no 'ann', 'ray' of the task: it answers another question"
    )


def test_the_stem_matches_a_word_in_its_forms_and_grammar_holds_units_and_months():
    assert stem("champions") == stem("championship") == stem("Champion")
    assert stem("medals") == "medal" and stem("cup") == "cup"
    grammar = task_grammar()
    assert {"km", "march", "between", "how"} <= grammar
    assert not {"peru", "nation", "album"} & grammar
