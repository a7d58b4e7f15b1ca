"""What a calculation is over (synthesize/measures.py): two columns multiplied, the columns a
measure may be, the column a lookup reads; refused when the words name no such column."""

from __future__ import annotations

from synth_schemas import SALES, reading

from tabular.synthesize.choices import LOOKUP, Asked, Product
from tabular.synthesize.measures import measure_choice

DATE, REGION, AMOUNT, UNITS, PRICE = SALES.columns


def test_two_columns_multiplied_are_totalled():
    r, _ = reading("total units times price", SALES)
    asked, choice = measure_choice(r, Asked("sum", []), [], [SALES])
    assert asked.fn == "sum" and choice.word == "units times price" and choice.options == [Product(UNITS, PRICE)]


def test_two_columns_multiplied_beside_a_count_are_refused():
    r, _ = reading("total units times price", SALES)
    out = measure_choice(r, Asked("count", []), [], [SALES])
    assert out.why == "the task multiplies two columns but also counts: ask for one calculation"


def test_an_average_is_over_the_number_column_named():
    r, _ = reading("average amount", SALES)
    asked, choice = measure_choice(r, Asked("avg", r.measures), [], [SALES])
    assert asked.fn == "avg" and choice.options == [AMOUNT] and choice.slot == "measure"


def test_an_average_of_text_is_refused():
    r, _ = reading("average region", SALES)
    out = measure_choice(r, Asked("avg", r.measures), [], [SALES])
    assert out.why == "'region' is no number column to compute avg over"


def test_a_lookup_reads_the_column_named_of_the_rows_that_match():
    r, _ = reading("what is the region with more than 15 units", SALES)
    asked, choice = measure_choice(r, Asked(None, r.measures), [], [SALES])
    assert asked.fn == LOOKUP and choice.options == [REGION]
    assert asked.one_row == "region"  # a noun in the singular asks for one row


def test_nothing_to_compute_is_refused():
    r, _ = reading("the region", SALES)
    out = measure_choice(r, Asked(None, []), [], [SALES])
    assert "no total, count, average, minimum or maximum" in out.why
