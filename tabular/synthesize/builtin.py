"""The built-in proposer: no network, a task read against the datasets' schemas (reading.py) and
built into plans. It proposes only what it can place: a word it cannot place in the schemas (a
value no column holds, a measure no column names) is no plan, never a guess; a word that fits
several columns is several plans, and the task is ambiguous when their answers differ."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal

from .columns import is_venue, label_column, measurable, ordinal, place_columns, timelike, yearlike
from .filters import date_filters, empty_filter, value_filter, whole_years
from .proposal import Candidate, Proposal
from .reading import AVERAGE, DIMENSIONS, THAN_SIZES, Span, TaskReading, light_verbs, read, spans_of, words
from .row_order import in_order
from .same_as import same_as
from .schemas import ColumnSchema, DatasetSchema
from .share import share_of_total
from .text_match import column_of, like_filter, read_likes, unsure
from .text_match import tokens as text_tokens
from .yes_no import yes_no


class BuiltinProposer:
    name = "builtin"

    def propose(self, task: str, schemas: list[DatasetSchema]) -> Proposal:
        tokens, texts = text_tokens(task)
        if not tokens:
            return Proposal(why="the task has no words to read")
        spans = spans_of(tokens, schemas)
        likes = read_likes(spans, texts) if texts else (spans, [])
        if isinstance(likes, str):
            return Proposal(why=likes)
        spans, tests = likes  # "names containing 'son'": its words read apart, its subject left in
        reading, unplaced = read(tokens, spans, light_verbs(schemas))
        if unplaced:
            names = ", ".join(f"'{w}'" for w in unplaced)
            return Proposal(
                why=f"the built-in proposer could not place {names} in the datasets' columns or values; name a column or a value they hold"
            )
        reading.likes = tests
        return _plans(reading, schemas)

    def repair(self, task, schemas, failed, plan, errors) -> Proposal:
        return Proposal(why="the built-in proposer builds its plans from the schemas and has no second reading")


# building plans -------------------------------------------------------------------------------

ROWS = "rows"  # the option "count the rows" beside the columns a word may total
COUNT_FILLED = "count_filled"  # count the rows where a column holds a value
LOOKUP = "lookup"  # no calculation: the asked column of the rows that match


@dataclass
class _Choice:
    """A word the task left open, the options it may be read as, and what it decides in a plan: the
    date column, the measure, a group, the column of a value named or of a number compared."""

    word: str
    options: list
    slot: Literal["date", "measure", "group", "value", "compare"]


@dataclass(frozen=True)
class _Product:
    """A measure that is two columns multiplied ("units times price"), computed exactly per row."""

    left: ColumnSchema
    right: ColumnSchema

    @property
    def alias(self) -> str:
        return self.left.alias

    @property
    def name(self) -> str:
        return f"{self.left.name}_times_{self.right.name}"


@dataclass(frozen=True)
class _Way:
    """A measure read one of several ways, where the words allow each: "how many circuits" is the
    rows or the different circuits; "which team did the most laps" the team's total or its
    largest single value. Each way is a reading; when their answers differ the task is ambiguous."""

    column: ColumnSchema
    fn: str

    @property
    def alias(self) -> str:
        return self.column.alias

    @property
    def name(self) -> str:
        return self.column.name


_WAY_WORDS = {
    "count": "counting its rows",
    "count_distinct": "counting its different values",
    "sum": "summed per group",
    "max": "its largest single value",
    "min": "its smallest single value",
}

# What a calculation is over: a column, two columns multiplied, or a column read one way. Each has a
# column's alias and name, so that a plan and an answer name it as they name a column.
_Measure = ColumnSchema | _Product | _Way


@dataclass(frozen=True)
class _Match:
    """A value option: the column it is read in, the value, and whether the task excludes it."""

    column: ColumnSchema
    value: object
    negated: bool


@dataclass(frozen=True)
class _Compare:
    """A compared number's option: the number column it is read in, the comparison, the number."""

    column: ColumnSchema
    op: str
    number: float


@dataclass(frozen=True)
class _Picked:
    """One reading of the task: the option taken of each choice, by what the choice decides."""

    date: ColumnSchema | None  # the date column the task's dates and periods are on
    measure: _Measure | str | None  # what is computed over (ROWS: the rows themselves), or the column a lookup reads
    groups: list[ColumnSchema]
    values: list[_Match]
    compares: list[_Compare]

    @classmethod
    def of(cls, choices: list[_Choice], options: tuple) -> _Picked:
        """The options taken (one of each choice, in the choices' order), sorted by what they decide."""
        taken: dict[str, list] = {"date": [], "measure": [], "group": [], "value": [], "compare": []}
        for choice, option in zip(choices, options):
            taken[choice.slot].append(option)
        return cls(
            date=next(iter(taken["date"]), None),
            measure=next(iter(taken["measure"]), None),
            groups=taken["group"],
            values=taken["value"],
            compares=taken["compare"],
        )


@dataclass(frozen=True)
class _Asked:
    """What the task computes, settled one step at a time from its reading."""

    fn: str | None  # an aggregate, COUNT_FILLED or LOOKUP; None for a ranking, or a total not yet chosen
    measures: list[Span]  # the spans that name what is computed over
    counted: DatasetSchema | None = None  # the dataset whose rows are counted
    dates: list[ColumnSchema] = field(default_factory=list)  # the columns the task's dates are on; none: no date
    one_row: str = ""  # a lookup's word, when the words ask for one row ("the title of …")


def _dimension(span: Span, schemas: list[DatasetSchema]) -> Span:
    """A size word's span ("taller") as the columns named for what it measures (Height)."""
    if span.kind != "dimension":
        return span
    held = [
        c
        for s in schemas
        for c in s.columns
        if c.type == "number" and set(words(c.name)) & set(THAN_SIZES.get(span.text, ()))
    ]
    return Span(span.start, span.end, "column", held, span.text)


def _plans(r: TaskReading, schemas: list[DatasetSchema]) -> Proposal:
    """The plans for a task read: the questions of another shape (yes or no, the same as another
    row, a row by its place in the order) have their own builders (yes_no.py, same_as.py,
    row_order.py); the rest is one calculation."""
    why = _place_sizes(r, schemas)
    if why:
        return Proposal(why=why)
    asked = _place_likes(r, schemas)
    if asked is not None:
        return asked
    if r.likes and (r.yes_no or r.same):
        return Proposal(
            why="the task looks for a text in the rows and compares them with a row it names: which rows hold that row is not said"
        )
    if r.share and not r.groups:
        return share_of_total(r, schemas)
    if r.yes_no:
        return yes_no(r, schemas)
    if r.same:
        return same_as(r, schemas)
    why = _place_counted(r, schemas)
    if why:
        return Proposal(why=why)
    if r.position:
        return in_order(r, schemas)
    return _calculation(r, schemas)


def _place_sizes(r: TaskReading, schemas: list[DatasetSchema]) -> str | None:
    """Reads each size word compared or matched ("taller than 200 feet", "the same height as X") as
    the number columns named for what it measures (rewriting r.compares and r.same); why not, when
    no number column is named so."""
    r.compares = [(_dimension(span, schemas), op, number) for span, op, number in r.compares]
    if r.same:
        r.same = (_dimension(r.same[0], schemas), r.same[1])
    unplaced = [span for span in [*(c[0] for c in r.compares), *([r.same[0]] if r.same else [])] if not span.targets]
    if not unplaced:
        return None
    word = unplaced[0].text
    return f"'{word}' measures {' or '.join(THAN_SIZES.get(word, ('a size',)))}, and no number column is named so: name the column"


def _place_likes(r: TaskReading, schemas: list[DatasetSchema]) -> Proposal | None:
    """Why a text test ("names containing 'son'") names no one text column, or the question to
    ask when the cells leave it open (text_match.unsure); None when each test is sure."""
    for like in r.likes:
        column = column_of(like)
        if isinstance(column, str):
            return Proposal(why=column)
        question = unsure(like, column, tuple(c for s in schemas if s.alias == column.alias for c in s.columns))
        if question:
            return Proposal(abstain="ambiguous", question=question)
    return None


def _place_counted(r: TaskReading, schemas: list[DatasetSchema]) -> str | None:
    """Reads a count of a place won ("how many times did they finish ninth") as a count of the rows
    whose place is that number: a comparison on the one column of places, no longer a position in
    the rows' order (rewriting r.compares and r.position); why not, when no one column holds places."""
    if not (r.position and r.placed and isinstance(r.position[0], int) and r.fns == {"count"} and len(schemas) == 1):
        return None
    places = place_columns(schemas[0])
    if len(places) != 1:
        return (
            "the task counts a place won, and " + ("no column" if not places else "several columns") + " holds places"
        )
    r.compares.append((Span(0, 0, "column", places, places[0].name), "eq", r.position[0]))
    r.position = None
    return None


def _calculation(r: TaskReading, schemas: list[DatasetSchema]) -> Proposal:
    """One calculation over the datasets (a count, a total, an average, a least or a most, or a
    lookup of the rows that match), with a choice for each word that fits several columns: each
    way of taking one option of each choice is a candidate plan."""
    if len(r.fns) > 1:
        return Proposal(
            why="the task asks for several calculations (" + ", ".join(sorted(r.fns)) + "); ask for one at a time"
        )
    measures = _measure_spans(r, schemas)
    if isinstance(measures, Proposal):
        return measures
    asked = _counting(r, _Asked(r.fn, measures))
    if isinstance(asked, Proposal):
        return asked
    if r.row_noun and asked.fn == "count" and not r.count_of and not (r.values or r.compares or r.ranges or r.likes):
        # "how many images are listed" over a list of monuments: the rows are not surely images
        return Proposal(
            why=f"'{r.row_noun}' names no column, and with nothing to filter by, the rows are not surely {r.row_noun}: name the column that holds them"
        )
    if asked.counted is None and asked.fn == "count" and r.datasets:
        asked = replace(asked, counted=r.datasets[0].targets[0])
    asked = _most_or_least(r, asked, schemas)
    if isinstance(asked, Proposal):
        return asked
    groups = _group_choices(r, asked.measures)
    if isinstance(groups, Proposal):
        return groups
    asked = _dates(r, asked, schemas)
    if isinstance(asked, Proposal):
        return asked
    if asked.fn not in ("min", "max", "count_distinct"):  # "units sold": a date column is no measure of a sum
        kept = [m for m in asked.measures if any(c.type != "date" and c.type != "datetime" for c in m.targets)]
        asked = replace(asked, measures=kept)
    if r.difference:
        why = _difference_unreadable(r, asked)
        if why:
            return Proposal(why=why)
        asked = replace(asked, fn=None)  # one number for each value: no calculation of its own
    measured = _measure_choice(r, asked, groups, schemas)
    if isinstance(measured, Proposal):
        return measured
    asked, measure = measured
    if asked.fn == "count" and asked.measures:
        return Proposal(
            why="the task counts rows but also names "
            + ", ".join(f"'{m.text}'" for m in asked.measures)
            + ": say what to do with it"
        )
    for group in groups:
        if not group.options:
            return Proposal(why=f"'{group.word}' names no column to group by")
    filters = _filter_choices(r)
    if isinstance(filters, Proposal):
        return filters
    dated = [_Choice("date", asked.dates, "date")] if asked.dates else []
    choices = [*dated, *([measure] if measure else []), *groups, *filters]
    if any(not ch.options for ch in choices):
        return Proposal(why="a comparison with a number names no number column")
    return _candidates(r, asked, choices, {s.alias: s for s in schemas})


def _measure_spans(r: TaskReading, schemas: list[DatasetSchema]) -> list[Span] | Proposal:
    """The spans that name what is measured, each once. A size word and no column named ("who is
    taller, A or B") is the columns named for what it measures, whatever other numbers the rows
    hold; a column named only as the column of a value the task names ("drivers that used
    Maserati as their constructor") is no measure."""
    said = r.measures
    if r.dimension and not r.measures:
        held = [
            c
            for s in schemas
            for c in s.columns
            if c.type in ("number", "time", "duration") and set(words(c.name)) & set(DIMENSIONS[r.dimension])
        ]
        if not held:
            return Proposal(
                why=f"'{r.dimension}' measures {' or '.join(DIMENSIONS[r.dimension])}, and no column is named so: name the column"
            )
        said = [Span(0, 0, "column", held, r.dimension)]
    spans: list[Span] = []
    valued = {c for span, _ in r.values for c, _ in span.targets}
    for m in said:  # "medals … in total" over a Total column: one measure said twice
        if m.targets and all(c in valued for c in m.targets) and (len(said) > 1 or r.count_of or r.fn):
            continue
        if not any(m.targets == seen.targets for seen in spans):
            spans.append(m)
    return spans


def _counting(r: TaskReading, asked: _Asked) -> _Asked | Proposal:
    """What "how many X" counts: the rows of a dataset X names; over a column X names, the rows
    (a column that numbers them, "how many weeks" over Week), the total of its numbers ("how many
    bronzes" over Bronze), its different values ("how many different products"), or the rows
    that hold one ("how many titles"); over a yes/no column, the rows where it is true (added to
    r.values). Asked about when X could be the rows, their different values or a total."""
    if not (asked.fn == "count" and r.count_of):
        return asked
    target = r.count_of[0]
    if target.kind == "dataset":
        return replace(asked, counted=target.targets[0])
    numbers = measurable(target.targets)
    # "how many weeks" over a column named Week holds one week per row: the rows, not a sum of
    # week numbers; "how many bronzes" over Bronze holds a count per row: their sum
    plural = target.text.endswith("s") and numbers and all(not words(c.name)[-1].endswith("s") for c in numbers)
    sequence = all(ordinal(c) or yearlike(c) for c in numbers)
    rows_of = plural and sequence and all(c.unique for c in numbers)
    if plural and sequence and not rows_of:
        names = ", ".join(c.name for c in numbers)
        return Proposal(
            abstain="ambiguous",
            question=f"{target.text}: the rows, the different values of {names}, or their total?",
        )
    target_first = [target, *(m for m in asked.measures if m.targets != target.targets)]
    if numbers and not r.distinct and rows_of:
        return replace(asked, fn=COUNT_FILLED, measures=target_first)
    if numbers and not r.distinct:
        return replace(asked, fn="sum", measures=target_first)  # "how many units": their sum
    if r.distinct:
        # "how many different products": the distinct ones
        return replace(asked, fn="count_distinct", measures=target_first)
    if all(c.type == "bool" for c in target.targets):
        # "how many legendary pokemon": the rows where it is true
        r.values.append(
            (Span(target.start, target.end, "value", [(c, True) for c in target.targets], target.text), False)
        )
        return asked
    # "how many titles": the rows that have one, not the distinct titles
    return replace(asked, fn=COUNT_FILLED, measures=target_first)


def _most_or_least(r: TaskReading, asked: _Asked, schemas: list[DatasetSchema]) -> _Asked | Proposal:
    """Which rows a "most" or "least" ranks: with two values of one column named ("did A or B earn
    more points"), those two, each named as the task names it; with "who" or "which", every row,
    named by its column of names (r.top and r.top_group are set to say so). A ranking has no
    calculation of its own (fn None). A least or most of "each" is asked about: of all, or per group?"""
    fn, measures = asked.fn, asked.measures
    named = {c for span, _ in r.values for c, _ in span.targets}
    if r.choice and not r.entity and fn in ("min", "max") and not (r.top or r.groups or r.count_of) and len(named) == 1:
        (column,) = named
        r.top, r.top_group = (1, fn == "max"), Span(0, 0, "column", [column], column.name)
    if r.entity and fn in ("min", "max") and not (r.top or r.groups or r.count_of):
        # "who had the most free throws?": the row with the largest value, named by its label column
        labels = [label_column(s) for s in schemas]
        if len(schemas) != 1 or labels[0] is None:
            return Proposal(why="the task asks who or which, and no column of unique names says which row it is")
        r.top = (1, fn == "max")
        r.top_group = Span(0, 0, "column", [labels[0]], labels[0].name)
        # "which parish was founded first": Parish names the row asked, it is no measure
        measures = [m for m in measures if m.targets != [labels[0]]] if len(measures) > 1 else measures
    if r.top and fn in (None, "max", "min"):
        fn = None
    if fn in ("min", "max") and r.loose_each:
        # "what is the minimum of years each author has": the least of all, or each author's least?
        return Proposal(
            abstain="ambiguous",
            question=f"the {'least' if fn == 'min' else 'most'} of all, or one for each {r.groups[-1].text}?",
        )
    return replace(asked, fn=fn, measures=measures)


def _group_choices(r: TaskReading, measures: list[Span]) -> list[_Choice] | Proposal:
    """A choice for each group the task names, and for the row a ranking names: the columns it may
    be. A dataset named as a group is grouped by its column of names, unless it is the dataset
    measured ("amount per sale": per row of it, no group); why not, when it has no such column."""
    groups = []
    for g in r.groups + ([r.top_group] if r.top_group else []):
        if g.kind != "dataset":
            groups.append(
                _Choice(g.text, [c for c in g.targets if c.type in ("string", "date", "number", "bool")], "group")
            )
            continue
        schema = g.targets[0]
        if measures and any(c.alias == schema.alias for m in measures for c in m.targets) and g is not r.top_group:
            continue
        label = label_column(schema)
        if label is None:
            return Proposal(
                why=f"'{g.text}' names the dataset {schema.alias}, which has no column of names to group by"
            )
        groups.append(_Choice(g.text, [label], "group"))
    return groups


def _dates(r: TaskReading, asked: _Asked, schemas: list[DatasetSchema]) -> _Asked | Proposal:
    """The date columns the task's dates and periods are on ("in 2008", "monthly", "the latest"):
    the date columns it names (then no measure), else those of the dataset counted, else every
    one. With none, a range of whole years is compared on the number columns of years ("a film
    made in 2008" over Year: rewritten into r.compares); else, why not."""
    if not (r.ranges or r.buckets or (r.date_words and asked.fn in ("min", "max"))):
        return asked
    date_cols = [c for m in asked.measures for c in m.targets if c.type in ("date", "datetime")]
    measures = [m for m in asked.measures if not all(c.type in ("date", "datetime") for c in m.targets)]
    if not date_cols:
        pool = [c for s in schemas for c in s.columns if c.type in ("date", "datetime")]
        if asked.counted is not None and any(c.alias == asked.counted.alias for c in pool):
            pool = [c for c in pool if c.alias == asked.counted.alias]
        date_cols = pool
    if date_cols:
        return replace(asked, measures=measures, dates=date_cols)
    years = [whole_years(op, vals) for op, vals in r.ranges]
    year_cols = [c for sc in schemas for c in sc.columns if c.type == "number" and yearlike(c)]
    if not (
        r.ranges
        and not r.buckets
        and all(y is not None for y in years)
        and year_cols
        and not (r.date_words and asked.fn in ("min", "max"))
    ):
        return Proposal(why="the task names a date or period but no dataset has a date column")
    named = [c for m in measures for c in m.targets if c in year_cols]
    if named:  # "founded before 1900": the year compared is the one named
        year_cols = list(dict.fromkeys(named))
        measures = [m for m in measures if not all(c in year_cols for c in m.targets)]
    for op, year in (c for pair in years for c in pair):
        r.compares.append((Span(0, 0, "column", year_cols, str(year)), op, year))
    r.ranges = []
    return replace(asked, measures=measures)


def _difference_unreadable(r: TaskReading, asked: _Asked) -> str | None:
    """Why a difference ("the difference between A and B", "how many more … A … than B") cannot be
    read: it needs two values of one column, no calculation but a total, and a number to compare."""
    if (
        len(r.values) != 2
        or any(negated for _, negated in r.values)
        or asked.fn not in (None, "sum")
        or r.groups
        or r.top
    ):
        return "a difference ('difference between A and B', 'how many more … than …') reads one number for each of two values of one column"
    if not asked.measures:
        return "a difference needs the number it compares: name its column"
    return None


def _needs_measure(r: TaskReading, asked: _Asked, groups: list[_Choice]) -> bool:
    """Whether the calculation is over a column: a total, average, median or count of values is;
    a least or most is, unless it is of the dates; a ranking or groups are, when a measure is named."""
    return bool(
        asked.fn in ("sum", "avg", "median", "count_distinct", COUNT_FILLED)
        or (asked.fn in ("min", "max") and not (r.date_words and not asked.measures))
        or (asked.fn is None and (r.top or groups) and asked.measures)
    )


def _measure_choice(
    r: TaskReading, asked: _Asked, groups: list[_Choice], schemas: list[DatasetSchema]
) -> tuple[_Asked, _Choice | None] | Proposal:
    """What the calculation is over, as a choice of options: two columns multiplied; the columns
    a measure may be; the column a lookup reads; or, for a ranking or groups with nothing named to
    total, the rows or a measure of them. None when the calculation needs no column."""
    if r.product:
        return _product_choice(r, asked)
    if r.difference or _needs_measure(r, asked, groups):
        return _measured_choice(r, asked, schemas)
    if asked.fn is not None:
        return asked, None
    if not (groups or r.top or r.buckets or r.share or r.lacking) and (r.values or r.compares or r.ranges or r.likes):
        return _lookup_choice(r, asked, schemas)
    return _rows_or_total_choice(r, asked, groups, schemas)


def _product_choice(r: TaskReading, asked: _Asked) -> tuple[_Asked, _Choice] | Proposal:
    """Two columns multiplied ("units times price"): the pairs of number columns the two words may
    be, totalled unless another calculation is asked; refused beside a count or another measure named."""
    if asked.fn in ("count", "count_distinct") or asked.measures:
        return Proposal(
            why="the task multiplies two columns but also "
            + ("counts" if asked.fn else "names " + ", ".join(f"'{m.text}'" for m in asked.measures))
            + ": ask for one calculation"
        )
    a, b = r.product
    options = [_Product(x, y) for x in measurable(a.targets) for y in measurable(b.targets)]
    if not options:
        return Proposal(why=f"'{a.text} times {b.text}' needs two number columns to multiply")
    return replace(asked, fn=asked.fn or "sum"), _Choice(f"{a.text} times {b.text}", options, "measure")


def _lookup_choice(r: TaskReading, asked: _Asked, schemas: list[DatasetSchema]) -> tuple[_Asked, _Choice] | Proposal:
    """A lookup ("what is the title of the episode written by X", "who won in 2005"): the column
    asked of the rows that match; of "A or B", the one column both are values of; with no column
    named, the column that names the rows. One row, when the words say one."""
    measures = asked.measures
    columns = [c for m in measures for c in m.targets if c not in asked.dates]
    if len({m.text for m in measures}) > 1:
        return Proposal(
            why="the task names several columns to read ("
            + ", ".join(m.text for m in measures)
            + "); ask for one at a time"
        )
    either = {c for a, b in r.choices for c, _ in a.targets} & {c for a, b in r.choices for c, _ in b.targets}
    if not columns and len(either) == 1:
        # "was Fran Bailey from Vic or WA": the one of the two her row holds
        (column,) = either
        columns, measures = [column], [Span(0, 0, "column", [column], column.name)]
    if not columns:
        label = label_column(schemas[0]) if len(schemas) == 1 else None
        if label is None:
            return Proposal(
                why="the task asks for rows that match, and no column names the rows: name the column to show"
            )
        # "which players …" over players.csv: the rows are said as the dataset's name, in the plural
        said = r.datasets[0].text if r.datasets else label.name
        columns, measures = [label], [Span(0, 0, "column", [label], said)]
    word = measures[0].text
    one_row = word if (r.only or not word.endswith("s") or word == columns[0].name.lower()) else ""
    return replace(asked, fn=LOOKUP, measures=measures, one_row=one_row), _Choice(word, columns, "measure")


def _rows_or_total_choice(
    r: TaskReading, asked: _Asked, groups: list[_Choice], schemas: list[DatasetSchema]
) -> tuple[_Asked, _Choice | None] | Proposal:
    """A ranking or groups with no column named ("monthly sales", "the most sales"): the number of
    rows, or a total of one of their measures (of the dataset named); a count of the rows when
    they have no measure. Refused when there is no ranking or group either: nothing to compute."""
    if not (groups or r.top or r.buckets):
        return Proposal(
            why="the task asks for no total, count, average, minimum or maximum the built-in proposer can read"
        )
    owner = r.datasets[0].targets[0].alias if r.datasets else None
    counted = r.datasets[0].targets[0] if r.datasets else None
    # a column that numbers the rows ("#") totals nothing
    pool = [c for s in schemas if owner in (None, s.alias) for c in measurable(list(s.columns)) if not ordinal(c)]
    if not pool:
        return replace(asked, counted=counted, fn="count"), None
    word = r.datasets[0].text if r.datasets else "what to total"
    return replace(asked, counted=counted), _Choice(word, [ROWS, *pool], "measure")


def _measured_choice(r: TaskReading, asked: _Asked, schemas: list[DatasetSchema]) -> tuple[_Asked, _Choice] | Proposal:
    """The measure of a calculation, as a choice of the columns it may be; a count of a column's
    values, or a ranking by a measure, is read each way the words allow (_Way). A total unless
    another calculation is asked."""
    choice = _measure_columns(r, asked, schemas)
    if isinstance(choice, Proposal):
        return choice
    options = choice.options
    if asked.fn == COUNT_FILLED:
        # "how many circuits": the rows that name one, or the different circuits; both readings
        options = [_Way(c, way) for c in options for way in ("count", "count_distinct")]
    elif asked.fn is None and r.top:
        # "which team did the most laps": a team's total, or the team of the largest single value
        options = [
            _Way(c, way)
            for c in options
            for way in (("sum",) if c.type == "number" and not yearlike(c) else ()) + ("max" if r.top[1] else "min",)
        ]
    return replace(asked, fn=asked.fn or "sum"), replace(choice, options=options)


def _measure_columns(r: TaskReading, asked: _Asked, schemas: list[DatasetSchema]) -> _Choice | Proposal:
    """The columns a calculation may be over, and the word for them: those the words name (numbers;
    for a least, most or ranking also dates and times; for a count of values any type), else the
    number columns of the dataset named. Refused when none fits, when the words name several
    measures, or (asked about) when a count of values may be of several columns or of several
    names in one cell."""
    fn, spans = asked.fn, asked.measures
    options: list[ColumnSchema] = []
    for m in spans:
        options += [c for c in m.targets if c not in options]
    if fn not in ("count_distinct", COUNT_FILLED):
        # min, max and rankings also read dates and times; no calculation here reads text
        options = [
            c
            for c in options
            if c.type == "number"
            or ((fn in ("min", "max") or (fn is None and r.top)) and c.type in ("date", "datetime", "time", "duration"))
        ]
    if r.speed and any(not timelike(c) for c in options):
        # "the fastest" is the least time but the most speed: only a time is read
        return Proposal(
            why="'fastest' or 'slowest' is read over a time; "
            + ", ".join(c.name for c in options if not timelike(c))
            + " is no time"
        )
    if fn in ("sum", "avg"):
        kept = [c for c in options if not yearlike(c)]
        if options and not kept:
            return Proposal(
                why=f"'{spans[0].text if spans else options[0].name}' holds years, which are no quantity to total or average"
            )
        options = kept
    word = spans[0].text if spans else ""
    if not options and spans:
        return Proposal(why=f"'{word}' is no number column to compute {fn or 'a total'} over")
    if not options and (fn in ("min", "max") or not (asked.counted or r.datasets)):
        return Proposal(why=f"the task names no column for its {fn or 'total'}: name one")
    if not options:  # "total sales": a measure of the dataset named
        pool = [c for s in schemas for c in measurable(list(s.columns))]
        if asked.counted is not None or r.datasets:
            owner = (asked.counted or r.datasets[0].targets[0]).alias
            pool = [c for c in pool if c.alias == owner]
        options, word = pool, {"sum": "total", "avg": "average"}.get(fn or "sum", fn)
    if not options:
        return Proposal(why="the task names no number column to compute over")
    if len(spans) > 1 and fn not in ("count_distinct", COUNT_FILLED):
        return Proposal(
            why="the task names several measures (" + ", ".join(m.text for m in spans) + "); ask for one at a time"
        )
    if fn in (COUNT_FILLED, "count_distinct") and len(options) > 1:
        # "how many teams" over Team #1 and Team #2: one of them, or all of them together; the
        # readings may agree and still not be the answer
        names = ", ".join(c.name for c in options)
        return Proposal(
            abstain="ambiguous",
            question=f"{word}: the column {names.rsplit(', ', 1)[0]} or {names.rsplit(', ', 1)[-1]}, or all of them together?",
        )
    if fn in (COUNT_FILLED, "count_distinct") and any(c.name.rstrip().endswith("(s)") for c in options):
        # "Color commentator(s)": a cell may name several, so counting cells is not counting them
        return Proposal(
            abstain="ambiguous",
            question=f"{word}: a cell of {options[0].name} may hold several; count the cells or the names in them?",
        )
    return _Choice(word, options, "measure")


def _filter_choices(r: TaskReading) -> list[_Choice] | Proposal:
    """A choice for each value named (the columns that hold it) and each number compared (the
    number columns it may be of). Asked about when a value reads several ways: "from" a place
    that is where the rows took place, or a table laid out twice side by side."""
    for span in r.origins:
        # "winners from Brazil" where Brazil is a Location: the place of the event, not where its winner is from
        venues = sorted({c.name for c, _ in span.targets if is_venue(c)})
        if venues:
            return Proposal(
                abstain="ambiguous",
                question=f"'from {span.text}': {' and '.join(venues)} says where each row took place, "
                "not where its people are from; which column says that?",
            )
    choices = []
    for span, negated in r.values:
        bases = [re.sub(r"_\d+$", "", c.name) for c in dict.fromkeys(c for c, _ in span.targets)]
        if len(bases) != len(set(bases)):
            # a table laid out twice side by side (Position, Position_2): the value is in both halves, and
            # each half alone or both together are three readings
            twins = sorted({c.name for c, _ in span.targets})
            return Proposal(
                abstain="ambiguous",
                question=f"{span.text}: the column {', '.join(twins[:-1])} or {twins[-1]}, or all of them together?",
            )
        choices.append(_Choice(span.text, [_Match(c, v, negated) for c, v in span.targets], "value"))
    for span, op, number in r.compares:
        choices.append(
            _Choice(span.text, [_Compare(c, op, number) for c in span.targets if c.type == "number"], "compare")
        )
    return choices


def _candidates(r: TaskReading, asked: _Asked, choices: list[_Choice], by_alias: dict[str, DatasetSchema]) -> Proposal:
    """A candidate plan for each way of taking one option of each choice (the first 16), each
    saying what it assumed where a choice had several options; the question to ask when their
    answers differ. A reading that cannot be built (two datasets with no key) is no reading."""
    candidates, why = [], []
    for options in itertools.islice(itertools.product(*(ch.options for ch in choices)), 16):
        plan = _assemble(r, asked, _Picked.of(choices, options), by_alias)
        if isinstance(plan, str):
            why.append(plan)
            continue
        assumes = tuple((ch.word, _name(o)) for ch, o in zip(choices, options) if len(ch.options) > 1)
        candidates.append(Candidate(plan, assumes, _answer(r, plan)))
    if not candidates:
        return Proposal(why=why[0] if why else "no plan fits the task")
    return Proposal(
        tuple(candidates),
        question=_question(choices),
        one_row=asked.one_row if asked.fn == LOOKUP else "",
        rows_are=r.row_noun if asked.fn == "count" and not r.count_of else "",
    )


def _answer(r: TaskReading, plan: dict) -> tuple[str, ...]:
    """The plan parts that answer the task: a difference; the values looked up; for "which region
    has the most sales" or "did A or B earn more", the group ranked first, not its total (the
    total is evidence); else every group with its aggregates, a table per group."""
    if any(m.get("as") == "difference" for m in plan.get("measures", [])):
        return ("difference",)
    groups = [f"group_by[{k}]" for k in range(len(plan.get("group_by", [])))]
    aggregates = [f"aggregates[{k}]" for k in range(len(plan.get("aggregates", [])))]
    if groups and aggregates and r.top and (r.entity or r.choice) and not plan.get("having"):
        return tuple(groups)
    shares = [
        f"measures[{k}]" for k, m in enumerate(plan.get("measures", [])) if m.get("as") in ("share", "percentage")
    ]
    shares = shares[-1:]  # a percentage is its share per hundred: one answer
    return tuple(groups + aggregates + shares)


def _name(option) -> str:
    """An option as the answer says what it assumed: "the number of rows", "orders.amount"."""
    if option is ROWS:
        return "the number of rows"
    if isinstance(option, _Way):
        return f"{option.alias}.{option.name} ({_WAY_WORDS[option.fn]})"
    column = option.column if isinstance(option, _Match | _Compare) else option
    return f"{column.alias}.{column.name}"


def _question(choices: list[_Choice]) -> str:
    """The question to ask for each word the task left open: "revenue: the column net or gross?"."""
    parts = []
    for ch in (ch for ch in choices if len(ch.options) > 1):
        columns = [o for o in ch.options if o is not ROWS]
        one = len({_name(o).split(".")[0] for o in columns}) == 1
        names = list(dict.fromkeys(_name(o).split(".", 1)[1] if one else _name(o) for o in columns))
        said = "the column " + (f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0])
        rows = ROWS in ch.options
        parts.append(
            f"{ch.word}: " + (f"the number of rows{',' if len(names) > 1 else ''} or {said}?" if rows else f"{said}?")
        )
    return " ".join(parts)


def _assemble(r: TaskReading, asked: _Asked, picked: _Picked, by_alias: dict[str, DatasetSchema]) -> dict | str:
    """The plan of one reading of the task (an option taken of each choice), or why it cannot be built."""
    fn, measure = _settled(r, asked.fn, picked)
    aliases = _aliases(picked, measure, asked.counted, by_alias, r.likes)
    lacking = [span.targets[0].alias for span in r.lacking]
    if any(a in aliases for a in lacking):
        return "the task reads a dataset it also asks to have no match in"
    if len(aliases) + len(lacking) > 2:
        return "the task reads more than two datasets; the built-in proposer joins two at most"
    several = len(aliases) + len(lacking) > 1
    q = _namer(several)
    plan: dict = {"datasets": [by_alias[a].ref() for a in aliases + lacking]}
    joins = _joins(aliases, lacking, by_alias)
    if isinstance(joins, str):
        return joins
    if joins:
        plan["joins"] = joins
    where = _where(r, picked, aliases, several, by_alias)
    if isinstance(where, str):
        return where
    if where:
        plan["where"] = where
    averaged = [c for c in picked.compares if c.number == AVERAGE]
    if averaged:
        nested = _average(r, picked, averaged, aliases, by_alias)
        if isinstance(nested, str):
            return nested
        plan["datasets"].append(nested)
        plan["joins"] = [{"alias": AVERAGE_ALIAS, "on": []}]
    group_by = [{"column": q(c)} for c in picked.groups] + [{"column": q(picked.date), "bucket": b} for b in r.buckets]
    if group_by:
        plan["group_by"] = group_by
    why = _count_unreadable(fn, measure, picked.values)
    if why:
        return why
    if fn == LOOKUP:
        plan["group_by"] = [{"column": q(measure)}]  # its different values: one answer said once
        plan["limit"] = 50
        return plan
    if fn != "count" and measure is None:
        return "the task names no column to compute over"
    result = "count" if fn == "count" else f"count_{measure.name}" if fn == COUNT_FILLED else f"{fn}_{measure.name}"
    plan["aggregates"] = [_aggregate(fn, measure, result, q)]
    if r.difference:
        difference = _difference(r, fn, measure, picked.values, q)
        return difference if isinstance(difference, str) else plan | difference
    if r.share:
        if not group_by or fn not in ("sum", "count"):
            return "a share ('share of … by …') is each group's part of a total: it needs a total and groups"
        plan["measures"] = [{"as": "share", "window": {"fn": "share", "of": result}}]
        if r.share == "percentage":  # "percentage of amount by region": the share per hundred
            plan["measures"].append({"as": "percentage", "expr": {"mul": ["share", 100]}})
    order = _order(r, result, [q(c) for c in picked.groups], bool(group_by), plan.get("measures", []))
    return order if isinstance(order, str) else plan | order


def _settled(r: TaskReading, fn: str | None, picked: _Picked) -> tuple[str, _Measure | None]:
    """The calculation and what it is over, once the options are taken: a measure read one way
    (_Way) brings its calculation; with none asked, the rows taken are counted and a column taken
    totalled; a least or most of the dates, with nothing else to measure, is of the date column."""
    measure = picked.measure
    if isinstance(measure, _Way):
        way = {"count_distinct": "count_distinct", "count": COUNT_FILLED}.get(measure.fn, measure.fn)
        fn, measure = way, measure.column
    if fn is None:
        fn, measure = ("count", None) if measure is ROWS else ("sum", measure)
    if measure is None and fn in ("min", "max") and picked.date is not None and r.date_words:
        measure = picked.date
    return fn, measure


def _aliases(
    picked: _Picked,
    measure: _Measure | None,
    counted: DatasetSchema | None,
    by_alias: dict[str, DatasetSchema],
    likes: list | tuple = (),
) -> list[str]:
    """The datasets a reading reads, the one measured (else the one counted) first."""
    parts = [measure.left, measure.right] if isinstance(measure, _Product) else []
    used = (
        [c for c in (picked.date, measure, *picked.groups) if c is not None and not isinstance(c, _Product)]
        + parts
        + [v.column for v in picked.values]
        + [c.column for c in picked.compares]
        + [column_of(like) for like in likes]
    )
    aliases = list(dict.fromkeys(c.alias for c in used))
    first = (
        measure.alias
        if measure is not None
        else (counted.alias if counted is not None else (aliases[0] if aliases else next(iter(by_alias))))
    )
    if counted is not None and counted.alias not in aliases:
        aliases.append(counted.alias)
    return [first] + [a for a in aliases if a != first]


def _joins(aliases: list[str], lacking: list[str], by_alias: dict[str, DatasetSchema]) -> list[dict] | str:
    """How the datasets read meet: the second joined to the first on a key unique in it; a dataset
    the rows must have no match in ("customers without any orders"), anti-joined on a column they
    share. Why not, when no column fits."""
    joins: list[dict] = []
    if len(aliases) > 1:
        key = _key(by_alias[aliases[0]], by_alias[aliases[1]])
        if key is None:
            return f"the task reads {aliases[0]} and {aliases[1]}, which share no key column unique in {aliases[1]} to join on"
        joins = [{"alias": aliases[1], "on": [{"left": f"{aliases[0]}.{key}", "right": f"{aliases[1]}.{key}"}]}]
    for other in lacking:
        key = _shared(by_alias[aliases[0]], by_alias[other])
        if key is None:
            return f"the task asks for {aliases[0]} without {other}, which share no key column to match them on"
        joins = [{"alias": other, "kind": "anti", "on": [{"left": f"{aliases[0]}.{key}", "right": f"{other}.{key}"}]}]
    return joins


def _namer(several: bool) -> Callable[[ColumnSchema], str]:
    """How a plan names a column: after its dataset's alias when the plan reads several datasets."""
    return (lambda c: f"{c.alias}.{c.name}") if several else (lambda c: c.name)


def _where(
    r: TaskReading, picked: _Picked, aliases: list[str], several: bool, by_alias: dict[str, DatasetSchema]
) -> list[dict] | str:
    """The filters of one reading: its date ranges, the values named (several of one column are one
    `in`; a value excluded keeps the empty cells), the numbers compared, the columns asked empty,
    and each dataset's rows that total the others left out. Why not, when a column cannot be empty."""
    q = _namer(several)
    where = []
    for op, vals in r.ranges:
        where += date_filters(q(picked.date), picked.date.type, op, vals)
    by_column: dict = {}
    for match in picked.values:
        by_column.setdefault((match.column, match.negated), []).append(match.value)
    for (column, negated), vals in by_column.items():
        where.append(value_filter(q(column), column, vals, negated))
    for compare in picked.compares:
        if compare.number == AVERAGE:  # against the plan of the average beside the rows (_average)
            where.append({"column": q(compare.column), "op": compare.op, "other": _average_name(compare.column)})
        else:
            where.append({"column": q(compare.column), "op": compare.op, "value": compare.number})
    for span in r.empty:
        where_empty = empty_filter(span)
        if isinstance(where_empty, str):
            return where_empty
        (column,) = set(span.targets)
        where.append({**where_empty, "column": q(column)})
    for like in r.likes:
        where.append(like_filter(q(column_of(like)), like))
    for alias in aliases:
        where += by_alias[alias].without_totals(lambda name, alias=alias: f"{alias}.{name}" if several else name)
    return where


AVERAGE_ALIAS = "all_rows_average"


def _average_name(column: ColumnSchema) -> str:
    return f"average_{column.name}"


def _average(
    r: TaskReading, picked: _Picked, averaged: list, aliases: list[str], by_alias: dict[str, DatasetSchema]
) -> dict | str:
    """ "More than the average X": the plan of X's average over the rows the comparison reads, as
    a dataset of one row beside them. Only where nothing else narrows the rows: "players of team
    Red above the average" may mean Red's average or everyone's, so it is not guessed."""
    if len(aliases) != 1 or len(averaged) != 1:
        return "a comparison with an average reads one table and one average"
    if picked.values or r.ranges or r.empty or r.likes or len(picked.compares) > 1 or picked.groups or r.buckets:
        return "the task compares with an average and narrows the rows too: the average of all rows or of those kept is not said"
    (compare,) = averaged
    schema = by_alias[aliases[0]]
    if any(c.name.lower() == _average_name(compare.column).lower() for c in schema.columns):
        return f"the table has a column named {_average_name(compare.column)!r} already"
    inner = {
        "datasets": [schema.ref()],
        "aggregates": [{"fn": "avg", "column": compare.column.name, "as": _average_name(compare.column)}],
    }
    totals = schema.without_totals(lambda name: name)
    if totals:
        inner["where"] = totals  # the average of the rows, not of the rows and their Total
    return {"plan": inner, "alias": AVERAGE_ALIAS}


def _count_unreadable(fn: str, measure: _Measure | None, values: list[_Match]) -> str | None:
    """Why a count cannot be what the words ask, given the values they name: a value of a column of
    unique names pins one row ("number of cylinders the Standard 8 has": a count is 1 or 0, the
    words ask for something the row holds); a value of the column counted names what is counted."""
    if fn not in ("count", COUNT_FILLED, "count_distinct"):
        return None
    pinned = [v.column.name for v in values if v.column.unique and not v.negated]
    if pinned:
        return f"the task counts rows but names one row by its {pinned[0]}: name the column of that row to read"
    if fn != "count" and any(v.column == measure for v in values):
        # "the number of districts of Lima" where Lima is a district: the value names what the rows are of
        return f"the task counts {measure.name} but also names one of its values: say what is counted"
    return None


def _aggregate(fn: str, measure: _Measure | None, result: str, q: Callable[[ColumnSchema], str]) -> dict:
    """The plan's one aggregate: a count of rows, a count of a column's filled cells, or the
    calculation over a column or over two columns multiplied (named `result`)."""
    if fn == COUNT_FILLED:
        return {"fn": "count", "column": q(measure)}
    if isinstance(measure, _Product):
        return {"fn": fn, "expr": {"mul": [q(measure.left), q(measure.right)]}, "as": result}
    return {"fn": fn} if fn == "count" else {"fn": fn, "column": q(measure)}


def _difference(
    r: TaskReading, fn: str, measure: _Measure | None, values: list[_Match], q: Callable[[ColumnSchema], str]
) -> dict | str:
    """A difference's aggregates and measure: the total of the measure for each of the two values
    named, and the one less the other (its size when the words say "difference between").
    Why not, when the two values are not of one column or the measure is no column's total."""
    first, second = values
    if first.column != second.column or fn != "sum" or measure is None or isinstance(measure, (_Product, _Way)):
        return "a difference compares two values of one column"
    side = lambda value: [value_filter(q(first.column), first.column, [value])]
    gap = {"sub": ["first", "second"]}
    return {
        "aggregates": [
            {"fn": "sum", "column": q(measure), "where": side(first.value), "as": "first"},
            {"fn": "sum", "column": q(measure), "where": side(second.value), "as": "second"},
        ],
        "measures": [{"as": "difference", "expr": {"abs": gap} if r.difference == "abs" else gap}],
    }


def _order(r: TaskReading, result: str, names: list[str], grouped: bool, measures: list[dict]) -> dict | str:
    """How the answer's rows come out: "the top 3 products per region" ranks within each group and
    keeps the first n of each; a ranking keeps the first n groups; groups come all (up to 1000).
    Why not, when a ranking has nothing to rank."""
    if r.top and r.top_group is not None and len(names) > 1:
        n, desc = r.top
        within = names[:-1]
        rank = {"fn": "rank", "partition_by": within, "order_by": [{"column": result, "desc": desc}]}
        return {
            "measures": measures + [{"as": "rank", "window": rank}],
            "having": [{"column": "rank", "op": "le", "value": n}],
            "order_by": [{"column": name} for name in within] + [{"column": "rank"}, {"column": names[-1]}],
            "limit": 1000,
        }
    if r.top:
        n, desc = r.top
        if not grouped:
            return "a ranking ('top', 'which … highest') needs something to rank: name it"
        return {"order_by": [{"column": result, "desc": desc}] + [{"column": name} for name in names], "limit": n}
    return {"limit": 1000} if grouped else {}


def _shared(left: DatasetSchema, right: DatasetSchema) -> str | None:
    """A column both datasets have, of one type, that names rows in one of them (unique there):
    for "without any", where a match need not be unique."""
    for c in left.columns:
        other = next((o for o in right.columns if o.name == c.name and o.type == c.type), None)
        if other is not None and (c.unique or other.unique):
            return c.name
    return None


def _key(left: DatasetSchema, right: DatasetSchema) -> str | None:
    """A column both datasets have, of one type, unique in the one joined: each row of the first
    meets at most one row of the second, so no total counts a row twice."""
    for c in left.columns:
        other = next((o for o in right.columns if o.name == c.name and o.type == c.type), None)
        if other is not None and other.unique:
            return c.name
    return None
