"""A task's spans into a TaskReading (synthesize/reading.py), pass by pass: what is counted,
measured, ranked, filtered, and the words no rule places, reported rather than dropped."""

from __future__ import annotations

from synth_schemas import MEDALS, SALES, reading

from tabular.synthesize.reading import each_span, unplaced
from tabular.synthesize.spans import TaskSpans, spans_of
from tabular.synthesize.vocabulary import words


def names(spans):
    return [[c.name for c in s.targets] for s in spans]


def test_a_count_of_a_column_for_a_value_named():
    r, left = reading("how many gold medals did Norway win")
    assert left == []
    assert r.fn == "count" and r.fns == {"count"}
    assert names(r.count_of) == [["Gold"]]
    assert [(s.text, negated) for s, negated in r.values] == [("norway", False)]


def test_which_row_has_the_most_is_a_ranking_named_by_the_column_after_which():
    r, left = reading("which nation has the most gold")
    assert left == []
    assert r.top == (1, True) and names([r.top_group]) == [["Nation"]]
    assert names(r.measures) == [["Gold"]]
    assert r.entity


def test_a_word_no_rule_places_is_reported():
    _, left = reading("how many zebras did Norway paint")
    assert left == ["paint"]


def test_a_column_named_total_before_another_column_is_the_word():
    r, left = reading("what is the total gold")
    assert left == [] and r.fn == "sum" and names(r.measures) == [["Gold"]]


def test_an_average_per_group():
    r, left = reading("average units per region", SALES)
    assert left == []
    assert r.fn == "avg" and names(r.groups) == [["region"]] and names(r.measures) == [["units"]]


def test_the_either_or_of_two_values_is_a_choice():
    r, _ = reading("did Norway or Finland win more gold")
    assert r.choice and [(a.text, b.text) for a, b in r.choices] == [("norway", "finland")]


def test_listed_says_the_lists_own_order():
    assert reading("which nation is listed first")[0].listed
    assert not reading("which nation won the most gold")[0].listed


def test_each_span_gives_a_span_to_the_first_rule_that_reads_it():
    tokens = words("gold silver")
    task = TaskSpans(tokens, spans_of(tokens, [MEDALS]))
    seen = []

    def first(task, i):
        seen.append(("first", i))
        task.take(i)
        return i == 0

    def second(task, i):
        seen.append(("second", i))
        return True

    each_span(task, (first, second))
    assert seen == [("first", 0), ("first", 1), ("second", 1)]


def test_unplaced_lets_stopwords_and_light_verbs_go():
    tokens = words("the gold did paint")
    task = TaskSpans(tokens, spans_of(tokens, [MEDALS]))
    task.take(1)
    assert unplaced(task, {"paint"}) == []
    assert unplaced(task, set()) == ["paint"]


def test_by_after_a_ranking_says_what_ranks_and_each_is_a_loose_group():
    r, _ = reading("top 2 regions by amount", SALES)
    assert r.groups == []
    r, _ = reading("average amount for each region", SALES)
    assert names(r.groups) == [["region"]] and not r.loose_each
    r, _ = reading("average amount each region has", SALES)
    assert names(r.groups) == [["region"]] and r.loose_each
