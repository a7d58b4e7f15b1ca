"""The reading's rules for comparisons (synthesize/comparisons.py): with a number, with the
column's average. (With a row named: kinds/test_same_as.py and kinds/test_yes_no.py.)"""

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
