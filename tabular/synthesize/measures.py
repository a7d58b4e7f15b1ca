"""What a calculation is over, as a choice of options: two columns multiplied, the columns a
measure may be (each read the ways the words allow), the column a lookup reads, or the rows."""

from __future__ import annotations

from dataclasses import replace

from .choices import COUNT_FILLED, ROWS, Asked, Choice, Product, Way
from .columns import measurable, ordinal, timelike, yearlike
from .kinds.lookup import lookup_choice
from .proposal import Proposal
from .schemas import ColumnSchema, DatasetSchema
from .spans import Span, TaskReading


def _needs_measure(r: TaskReading, asked: Asked, groups: list[Choice]) -> bool:
    """Whether the calculation is over a column: a total, average, median or count of values is;
    a least or most is, unless it is of the dates; a ranking or groups are, when a measure is named."""
    return bool(
        asked.fn in ("sum", "avg", "median", "count_distinct", COUNT_FILLED)
        or (asked.fn in ("min", "max") and not (r.date_words and not asked.measures))
        or (asked.fn is None and (r.top or groups) and asked.measures)
    )


def measure_choice(
    r: TaskReading, asked: Asked, groups: list[Choice], schemas: list[DatasetSchema]
) -> tuple[Asked, Choice | None] | Proposal:
    """What the calculation is over, as a choice of options: two columns multiplied; the columns
    a measure may be; the column a lookup reads; or, for a ranking or groups with nothing named to
    total, the rows or a measure of them. None when the calculation needs no column."""
    if r.product:
        return _product_choice(r.product, asked)
    if r.difference or _needs_measure(r, asked, groups):
        return _measured_choice(r, asked, schemas)
    if asked.fn is not None:
        return asked, None
    if not (groups or r.top or r.buckets or r.share or r.lacking) and (r.values or r.compares or r.ranges or r.likes):
        return lookup_choice(r, asked, schemas)
    return _rows_or_total_choice(r, asked, groups, schemas)


def _product_choice(product: tuple[Span, Span], asked: Asked) -> tuple[Asked, Choice] | Proposal:
    """Two columns multiplied ("units times price"): the pairs of number columns the two words may
    be, totalled unless another calculation is asked; refused beside a count or another measure named."""
    if asked.fn in ("count", "count_distinct") or asked.measures:
        return Proposal(
            why="the task multiplies two columns but also "
            + ("counts" if asked.fn else "names " + ", ".join(f"'{m.text}'" for m in asked.measures))
            + ": ask for one calculation"
        )
    a, b = product
    options = [Product(x, y) for x in measurable(a.targets) for y in measurable(b.targets)]
    if not options:
        return Proposal(why=f"'{a.text} times {b.text}' needs two number columns to multiply")
    return replace(asked, fn=asked.fn or "sum"), Choice(f"{a.text} times {b.text}", options, "measure")


def _rows_or_total_choice(
    r: TaskReading, asked: Asked, groups: list[Choice], schemas: list[DatasetSchema]
) -> tuple[Asked, Choice | None] | Proposal:
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
    return replace(asked, counted=counted), Choice(word, [ROWS, *pool], "measure")


def _measured_choice(r: TaskReading, asked: Asked, schemas: list[DatasetSchema]) -> tuple[Asked, Choice] | Proposal:
    """The measure of a calculation, as a choice of the columns it may be; a count of a column's
    values, or a ranking by a measure, is read each way the words allow (Way). A total unless
    another calculation is asked."""
    choice = _measure_columns(r, asked, schemas)
    if isinstance(choice, Proposal):
        return choice
    options = choice.options
    if asked.fn == COUNT_FILLED:
        # "how many circuits": the rows that name one, or the different circuits; both readings
        options = [Way(c, way) for c in options for way in ("count", "count_distinct")]
    elif asked.fn is None and r.top:
        # "which team did the most laps": a team's total, or the team of the largest single value
        options = [
            Way(c, way)
            for c in options
            for way in (("sum",) if c.type == "number" and not yearlike(c) else ()) + ("max" if r.top[1] else "min",)
        ]
    return replace(asked, fn=asked.fn or "sum"), replace(choice, options=options)


def _measure_columns(r: TaskReading, asked: Asked, schemas: list[DatasetSchema]) -> Choice | Proposal:
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
        fn_or_sum = fn or "sum"
        options, word = pool, {"sum": "total", "avg": "average"}.get(fn_or_sum, fn_or_sum)
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
    return Choice(word, options, "measure")
