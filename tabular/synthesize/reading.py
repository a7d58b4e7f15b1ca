"""How the built-in proposer reads a task: its spans (spans.py) into a TaskReading (what is
counted, measured, grouped, filtered), pass by pass. Each pass tries its rules, in order, on each
span not yet placed; the first rule that reads a span ends its turn, and a later pass sees what
the earlier ones placed. A pass's rules are each kind's own (kinds/: a count's "how many", a
row's "the first listed", …) and those every kind shares, here and in dates.py, conditions.py and
comparisons.py (dates, the values named, a number compared, groups, the columns left). A word no
rule places is reported, never dropped."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Set as AbstractSet

from . import kinds
from .comparisons import compared_with_a_number, compared_with_the_average
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
from .spans import Span, TaskReading, TaskSpans
from .vocabulary import (
    DIMENSIONS,
    GROUP_WORDS,
    LIGHT_VERBS,
    ORDER_WORDS,
    PLACE_VERBS,
    SPEED_WORDS,
    STOPWORDS,
    TABLE_WORDS,
)

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


def grouped_by(task: TaskSpans, i: int) -> bool:
    """ "per region", "for each author", "by month": the column or dataset grouped by; after a
    ranking, "by amount" is what ranks ("top 2 products per region by amount")."""
    spans, n, r = task.spans, task.n, task.reading
    word = task.word
    if not (word(i, *GROUP_WORDS) or task.seq(i, ("for", "each"))):
        return False
    k = i + (2 if task.seq(i, ("for", "each")) else 1)
    while word(k, "the", "each"):
        k += 1
    if task.row_noun(k) and spans[k].text.endswith("s"):
        r.row_noun = spans[k].text
        task.take(k)  # "how many games were at Braly Stadium": the rows
    if k < n and spans[k].kind in ("column", "dataset") and k not in task.used:
        if r.top and word(i, "by") and spans[k].kind == "column" and any(c.type == "number" for c in spans[k].targets):
            r.measures.append(spans[k])
            task.take(i, k)
            return True
        r.groups.append(spans[k])
        task.take(*range(i, k + 1))
        r.loose_each |= word(i, "each", "every")
    return True


# Each pass: every kind's rules of it (kinds/, in the order of kinds.KINDS), and the rules every
# kind shares. Within a pass each rule reads its own words, so a span is read by one rule at most.
PRODUCTS: tuple[Rule, ...] = kinds.rules("products")  # "units times price"
# the shape of the question: a difference, a row by its place, a comparison with a row, a share
SHAPES: tuple[Rule, ...] = (*kinds.rules("shapes"), column_empty, dataset_lacking, the_only_one)
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
    *kinds.rules("narrowing"),
    compared_with_the_average,
    compared_with_a_number,
    value_named,
)
CALCULATIONS: tuple[Rule, ...] = (*kinds.rules("calculations"), grouped_by)
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


def unplaced(task: TaskSpans, light: AbstractSet[str]) -> list[str]:
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


def read(tokens: list[str], spans: list[Span], light: AbstractSet[str] = frozenset()) -> tuple[TaskReading, list[str]]:
    """The TaskReading of a task's spans, and the words it could not place (`light`: verbs let go)."""
    task = TaskSpans(tokens, spans)
    r = task.reading
    r.entity = bool(tokens) and tokens[0] in ("who", "whom", "whose", "which")
    for rules in (PRODUCTS, SHAPES, DATES, NARROWING):
        each_span(task, rules)
    the_row_asked(task)
    for rules in (CALCULATIONS, LEFT):
        each_span(task, rules)
    the_tables_own_scope(task)
    size_words(task)
    r.listed = bool(
        {"listed", "comes", "came", "come", "appears", "appear", "list", "chart", "table"} & set(tokens)
    )  # the list's own order
    either_value(task)
    for step in kinds.steps():  # a row named before "the same … as which", a yes or no, …
        step(task)
    return r, unplaced(task, light)
