"""How the built-in proposer reads a task: its spans (spans.py) into a TaskReading (what is
counted, measured, grouped, filtered), pass by pass. Each pass tries its rules, in order, on each
span not yet placed; the first rule that reads a span ends its turn, and a later pass sees what
the earlier ones placed. A word no rule places is reported, never dropped."""

from __future__ import annotations

from collections.abc import Callable

from .aggregates import (
    aggregate,
    aggregate_column_as_word,
    count_said_again,
    difference,
    distinct,
    grouped_by,
    how_many,
    how_many_more,
    product,
    share_of,
    top_n,
    total_number_of,
    which_ranks_first,
)
from .comparisons import (
    compared_with_a_number,
    compared_with_the_average,
    more_than_a_row,
    same_as_a_row,
    the_row_named_before,
    yes_or_no,
)
from .conditions import column_empty, dataset_lacking, the_only_one, value_named
from .dates import (
    a_date,
    a_period,
    a_year,
    before_or_after_a_date,
    before_or_after_a_year,
    between_dates,
    between_years,
    month_of_a_year,
    nth_quarter_of_a_year,
    quarter_of_a_year,
)
from .positions import (
    at_the_top,
    before_or_after,
    first_column_listed,
    first_of_a_noun,
    first_of_a_text_column,
    first_or_last_listed,
    next_to_a_value,
    nth_listed,
    place_won,
)
from .spans import Span, TaskReading, TaskSpans
from .vocabulary import DIMENSIONS, LIGHT_VERBS, ORDER_WORDS, PLACE_VERBS, SPEED_WORDS, STOPWORDS, TABLE_WORDS

Rule = Callable[[TaskSpans, int], bool]


def measure(task: TaskSpans, i: int) -> bool:
    """A column left: what is measured ("order amount": a dataset's name before it says whose)."""
    spans, s = task.spans, task.spans[i]
    if s.kind != "column":
        return False
    if i > 0 and spans[i - 1].kind == "dataset":
        owner = spans[i - 1].targets[0].alias
        s.targets = [c for c in s.targets if c.alias == owner] or s.targets
    task.reading.measures.append(s)
    task.take(i)
    return True


def dataset_named(task: TaskSpans, i: int) -> bool:
    """A dataset left: the rows are its rows."""
    if task.spans[i].kind != "dataset":
        return False
    task.reading.datasets.append(task.spans[i])
    task.take(i)
    return True


def date_word(task: TaskSpans, i: int) -> bool:
    """ "when", "date": the answer is a date."""
    if task.spans[i].text not in ("when", "date", "dates"):
        return False
    task.reading.date_words = True
    task.take(i)
    return True


def most_times(task: TaskSpans, i: int) -> bool:
    """ "the runner-up the most times": the most rows."""
    if not (task.spans[i].text == "times" and task.word(i - 1, "most", "least", "fewest", "more", "fewer")):
        return False
    task.take(i)
    return True


PRODUCTS: tuple[Rule, ...] = (product,)
# the shape of the question: a difference, a row by its place, a comparison with a row, a share
SHAPES: tuple[Rule, ...] = (
    how_many_more,
    difference,
    first_or_last_listed,
    place_won,
    nth_listed,
    first_of_a_noun,
    first_of_a_text_column,
    first_column_listed,
    next_to_a_value,
    column_empty,
    dataset_lacking,
    more_than_a_row,
    same_as_a_row,
    the_only_one,
    share_of,
)
DATES: tuple[Rule, ...] = (
    between_dates,
    between_years,
    before_or_after_a_year,
    before_or_after_a_date,
    month_of_a_year,
    quarter_of_a_year,
    nth_quarter_of_a_year,
    a_year,
    a_date,
)
# what narrows or ranks the rows
NARROWING: tuple[Rule, ...] = (
    a_period,
    at_the_top,
    top_n,
    which_ranks_first,
    compared_with_the_average,
    compared_with_a_number,
    value_named,
)
CALCULATIONS: tuple[Rule, ...] = (
    how_many,
    distinct,
    aggregate_column_as_word,
    total_number_of,
    count_said_again,
    aggregate,
    grouped_by,
)
# what is left: the columns measured, the datasets read
LEFT: tuple[Rule, ...] = (measure, dataset_named, date_word, most_times)


def each_span(task: TaskSpans, rules: tuple[Rule, ...]) -> None:
    """One pass: the rules tried in order on each span not yet placed, the first that reads it ending its turn."""
    for i in range(task.n):
        if i in task.used:
            continue
        for rule in rules:
            if rule(task, i):
                break


def the_row_asked(task: TaskSpans) -> None:
    """ "which country won the least medals", "name the country that had …": the answer names a
    row, and the noun says what the rows are."""
    spans, n, r, word = task.spans, task.n, task.reading, task.word
    verb_next = (
        n == 2 or word(2, *STOPWORDS, *LIGHT_VERBS, *PLACE_VERBS) and spans[2].text not in ("of", "and", "or", "s")
    )
    if n > 1 and word(0, "which", "what") and task.row_noun(1) and not spans[1].text.endswith("s") and verb_next:
        r.entity, r.row_noun = True, spans[1].text
        task.take(0, 1)
    elif (
        n > 3
        and word(0, "name")
        and word(1, "the", "a", "one", "any")
        and task.row_noun(2)
        and word(3, "that", "who", "which", "with")
    ):
        r.entity, r.row_noun = True, spans[2].text
        task.take(0, 1, 2)


def the_tables_own_scope(task: TaskSpans) -> None:
    """ "… in this competition", "… of the league": the table's own scope, said at the end."""
    n, word = task.n, task.word
    if (
        n >= 3
        and word(n - 3, "in", "of", "on", "during", "for", "from")
        and word(n - 2, "this", "the")
        and task.row_noun(n - 1)
    ):
        task.take(n - 3, n - 2, n - 1)


def size_words(task: TaskSpans) -> None:
    """Whether a speed word was read ("the fastest": the least of a time), and the size word read
    ("taller", "longest"), which says what is measured when no column is named."""
    spans, r = task.spans, task.reading
    r.speed = any(s.kind == "word" and s.text in SPEED_WORDS and i in task.used for i, s in enumerate(spans))
    r.dimension = next(
        (
            s.text
            for i, s in enumerate(spans)
            if s.kind == "word" and s.text in DIMENSIONS and i in task.used and not task.word(i + 1, "than")
        ),
        "",
    )


def either_value(task: TaskSpans) -> None:
    """ "did A or B earn more points": the values on each side of an "or", one of which is the answer."""
    spans, n, r = task.spans, task.n, task.reading
    r.choices = [
        (spans[i - 1], spans[i + 1])
        for i, s in enumerate(spans)
        if s.kind == "word"
        and s.text == "or"
        and 0 < i < n - 1
        and spans[i - 1].kind == "value"
        and spans[i + 1].kind == "value"
    ]
    r.choice = bool(r.choices)


def the_table_not_its_column(task: TaskSpans) -> None:
    """ "the first title listed on the chart" where Chart is also a column: the table, not the column."""
    spans, r, word = task.spans, task.reading, task.word
    if not r.position:
        return
    for k, m in enumerate(spans):
        if (
            m.kind == "column"
            and m.text in TABLE_WORDS
            and word(k - 1, "the", "this")
            and word(k - 2, "on", "in", "of")
            and m in r.measures
        ):
            r.measures.remove(m)


def unplaced(task: TaskSpans, light: set[str]) -> list[str]:
    """The words no rule placed, but those that carry nothing here: stopwords, the light verbs let
    go, and the words that say again what was read (a place in the list, the sides of a difference,
    the table itself)."""
    r = task.reading
    left = [
        s.text
        for i, s in enumerate(task.spans)
        if i not in task.used and s.text not in STOPWORDS and s.text not in light
    ]
    if r.position:
        # words that say the same place in the list again ("the next model listed after X", "the last area on this chart")
        left = [
            w
            for w in left
            if w not in ("next", "listed", "previous", "immediately", "right", "came", "comes", "just")
            and w not in TABLE_WORDS
        ]
    if r.difference:
        # the words that join the two sides of a difference
        left = [w for w in left if w not in ("between", "than", "vs", "versus", "compared", "and", "over")]
    if not ORDER_WORDS & set(task.tokens):
        # "how many titles are listed", "on this chart": the table itself, unless the order of its
        # rows is asked for ("listed first", "the one before"), which is row order, not a value's
        left = [w for w in left if w not in TABLE_WORDS]
    return left


def read(tokens: list[str], spans: list[Span], light: set[str] = frozenset()) -> tuple[TaskReading, list[str]]:
    """The TaskReading of a task's spans, and the words it could not place (`light`: verbs let go)."""
    task = TaskSpans(tokens, spans)
    r = task.reading
    r.entity = bool(tokens) and tokens[0] in ("who", "whom", "whose", "which")
    for rules in (PRODUCTS, SHAPES, DATES, NARROWING):
        each_span(task, rules)
    the_row_asked(task)
    for rules in (CALCULATIONS, LEFT):
        each_span(task, rules)
    the_row_named_before(task)
    the_tables_own_scope(task)
    size_words(task)
    before_or_after(task)
    yes_or_no(task)
    r.listed = bool(
        {"listed", "comes", "came", "come", "appears", "appear", "list", "chart", "table"} & set(tokens)
    )  # the list's own order
    either_value(task)
    the_table_not_its_column(task)
    return r, unplaced(task, light)
