"""The reading's rules for comparisons (synthesize/comparisons.py): with a number, with the
column's average, with a row named."""

from __future__ import annotations

from synth_schemas import reading

from tabular.synthesize.vocabulary import AVERAGE


def compares(task):
    r, left = reading(task)
    assert left == [], left
    return [([c.name for c in span.targets], op, number) for span, op, number in r.compares]


def test_a_column_against_a_number():
    assert compares("which nations won more than 5 gold") == [(["Gold"], "gt", 5)]
    assert compares("nations with at least 3 silver") == [(["Silver"], "ge", 3)]
    assert compares("nations with fewer than 2 bronze") == [(["Bronze"], "lt", 2)]


def test_a_column_named_before_the_comparison():
    assert compares("nations whose gold is at most 4") == [(["Gold"], "le", 4)]


def test_a_size_word_and_a_number_is_a_dimension_found_later():
    r, _ = reading("who is taller than 200")
    ((span, op, number),) = r.compares
    assert (span.kind, span.text, op, number) == ("dimension", "taller", "gt", 200)


def test_two_different_columns_around_the_average_are_not_read():
    _, left = reading("nations above the average gold")  # Nation's average or Gold's
    assert left == ["above"]


def test_above_the_average():
    assert compares("who is above the average gold") == [(["Gold"], "gt", AVERAGE)]
    assert compares("nations with more gold than the average") == [(["Gold"], "gt", AVERAGE)]


def test_more_than_a_row_named():
    r, left = reading("which nation won more gold than Norway")
    assert left == []
    column, row = r.same
    assert [c.name for c in column.targets] == ["Gold"] and row.text == "norway" and r.than == "gt"
    assert r.yes_no == ""


def test_the_same_as_a_row_named_either_way_round():
    r, _ = reading("which nation has the same gold as Peru")
    column, row = r.same
    assert [c.name for c in column.targets] == ["Gold"] and row.text == "peru" and r.than == ""
    r, _ = reading("Peru has the same gold as which nation")
    assert r.same[1].text == "peru" and r.values == []


def test_is_one_row_more_than_another_is_a_yes_or_no():
    assert reading("did Norway win more gold than Finland")[0].yes_no == "yes"
    assert reading("did Norway win more or less gold than Finland")[0].yes_no == "more"
