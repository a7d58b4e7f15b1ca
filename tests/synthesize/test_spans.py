"""Words into spans (synthesize/spans.py): a value of a column, a column, a dataset, a date, a
number, read left to right, the longest phrase first; and the spans as a rule sees them."""

from __future__ import annotations

from synth_schemas import MEDALS, SALES, col, table

from tabular.synthesize.spans import TaskSpans, spans_of
from tabular.synthesize.vocabulary import words


def kinds(task, *schemas):
    return [(s.text, s.kind) for s in spans_of(words(task), list(schemas) or [MEDALS])]


def test_a_value_a_column_and_plain_words():
    assert kinds("how many gold medals did Norway win") == [
        ("how", "word"),
        ("many", "word"),
        ("gold medals", "column"),
        ("did", "word"),
        ("norway", "value"),
        ("win", "word"),
    ]


def test_a_span_names_what_it_was_read_as():
    gold, norway = (s for s in spans_of(words("gold of Norway"), [MEDALS]) if s.kind != "word")
    assert [c.name for c in gold.targets] == ["Gold"]
    assert [(c.name, v) for c, v in norway.targets] == [("Nation", "Norway")]


def test_a_value_is_read_without_its_note_in_brackets():
    (canada,) = (s for s in spans_of(words("gold of Canada"), [MEDALS]) if s.kind == "value")
    assert [v for _, v in canada.targets] == ["Canada (CAN)"]


def test_numbers_years_months_ordinals_and_quarters():
    assert kinds("10,000 in 2008 march 2008 10th q2") == [
        ("10,000", "number"),
        ("in", "word"),
        ("2008", "year"),
        ("march", "month"),
        ("2008", "year"),
        ("10th", "ordinal"),
        ("q2", "quarter"),
    ]
    assert spans_of(["10,000"], [MEDALS])[0].targets == [10000]


def test_may_is_a_month_only_before_a_year():
    assert kinds("may 2008")[0] == ("may", "month")
    assert kinds("may norway")[0] == ("may", "word")


def test_a_dataset_is_read_by_its_name_and_a_plural_column_by_its_singular():
    assert kinds("regions of sales", SALES) == [("regions", "column"), ("of", "word"), ("sales", "dataset")]


def test_a_short_column_name_is_read_for_the_word_it_stands_for():
    points = table(col("Club"), col("Pts", "number"))
    assert kinds("points of the club", points)[0] == ("points", "column")


def test_task_spans_words_sequences_and_taking():
    task = TaskSpans(words("how many games"), spans_of(words("how many games"), [MEDALS]))
    assert task.word(0, "how") and not task.word(0, "many") and not task.word(7, "how")
    assert task.seq(0, ("how", "many")) and not task.seq(1, ("how", "many"))
    assert task.row_noun(2)  # "games": no column names it, it may say what the rows are
    task.take(2)
    assert not task.row_noun(2)  # placed already


def test_a_noun_of_an_amount_or_a_grammar_word_is_no_row_noun():
    tokens = words("points most march")
    task = TaskSpans(tokens, spans_of(tokens, [MEDALS]))
    assert not any(task.row_noun(k) for k in range(3))
