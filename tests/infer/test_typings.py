"""tabular/infer/typings.py: a column's typing, its question and options, and what a kind of
question looks at (Column) and answers (Ask)."""

from __future__ import annotations

import pytest

from tabular import readings as C
from tabular.infer.tally import ReadingCount, Source, Tally
from tabular.infer.typings import KEEP_TEXT, Ask, Column, Option, Question, Typing, text_or


@pytest.mark.parametrize("kind", ["colour", "thousands_or_decimal", ""])
def test_a_question_of_no_kind_the_api_names_is_refused_where_it_is_made(kind):
    with pytest.raises(ValueError, match="KINDS"):
        Question(kind, "Which?", ())


def test_a_question_keeps_one_option_per_reading_the_first_of_them():
    number = Option(C.number_reading(), "BIGINT", 0, None)
    question = Question(
        "leading_zeros", "?", (KEEP_TEXT, number, Option(C.number_reading(), "BIGINT", 3, "x"), KEEP_TEXT)
    )
    assert question.options == (KEEP_TEXT, number)


def column(counts: list[ReadingCount], **tally) -> Column:
    chosen = next((n for n in counts if n.fails == 0), None)
    return Column(None, Source("cells"), "c", Tally(nonnull=3, counts=counts, **tally), (), chosen, [])  # type: ignore[arg-type]


def test_a_column_no_reading_reads_is_held_as_text_keeping_a_blank_among_characters():
    assert column([]).held() == Typing(C.STRING, "VARCHAR")
    assert column([], single=True, spaces=2).held().spaces


@pytest.mark.parametrize(("one_sided", "held"), [(True, "string"), (False, "bool")])
def test_letters_of_one_side_of_a_flag_are_held_as_written(one_sided, held):
    assert column([ReadingCount(C.BOOL, 0)], one_sided=one_sided).held().reading.type == held


def test_a_column_read_whole_is_held_as_read_and_clean_only_where_every_cell_was_plain():
    dates = column([ReadingCount(C.date_reading("%Y-%m-%d", "date"), 0)], plain=True)
    assert (dates.held().physical, dates.held().clean, dates.is_other(), dates.is_number()) == (
        "DATE",
        True,
        True,
        False,
    )


def test_text_or_offers_text_first_and_holds_the_column_as_text_while_asked():
    number = C.number_reading()
    assert text_or(number, "BIGINT", "Text or numbers?") == Ask(
        "Text or numbers?", (KEEP_TEXT, Option(number, "BIGINT", 0, None)), Typing(C.STRING, "VARCHAR")
    )
