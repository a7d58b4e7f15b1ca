"""The reading's rules for the calculation asked (synthesize/aggregates.py): counts, totals,
rankings, groups, two columns multiplied, a difference and a share, read through `read`."""

from __future__ import annotations

from synth_schemas import SALES, reading

from tabular.synthesize.aggregates import how_many
from tabular.synthesize.spans import TaskSpans, spans_of
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


def test_a_total_and_an_average_by_their_words():
    assert reading("total amount", SALES)[0].fn == "sum"
    assert reading("mean amount", SALES)[0].fn == "avg"
    assert reading("the earliest order_date", SALES)[0].fn == "min"


def test_at_least_is_no_least():
    r, _ = reading("regions with at least 10 units", SALES)
    assert r.fn is None and r.compares[0][1:] == ("ge", 10)


def test_top_n_by_a_measure():
    r, left = reading("top 3 regions by amount", SALES)
    assert left == []
    assert r.top == (3, True) and names([r.top_group]) == [["region"]] and names(r.measures) == [["amount"]]


def test_bottom_is_the_least_and_one_when_no_number_says_how_many():
    assert reading("bottom region by amount", SALES)[0].top == (1, False)


def test_two_columns_multiplied_are_one_measure():
    r, left = reading("total units times price", SALES)
    assert left == [] and names(r.product) == [["units"], ["price"]]


def test_how_many_more_is_signed_and_the_difference_between_is_its_size():
    assert reading("how many more units in the North than in the South", SALES)[0].difference == "signed"
    assert reading("difference in units between the North and the South", SALES)[0].difference == "abs"


def test_a_share_per_hundred_or_a_fraction():
    assert reading("percentage of amount by region", SALES)[0].share == "percentage"
    assert reading("share of amount by region", SALES)[0].share == "share"


def test_by_after_a_ranking_says_what_ranks_and_each_is_a_loose_group():
    r, _ = reading("top 2 regions by amount", SALES)
    assert r.groups == []
    r, _ = reading("average amount for each region", SALES)
    assert names(r.groups) == [["region"]] and not r.loose_each
    r, _ = reading("average amount each region has", SALES)
    assert names(r.groups) == [["region"]] and r.loose_each
