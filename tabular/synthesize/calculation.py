"""One calculation over the datasets, settled step by step from a task's reading: what is
measured and counted, the most or least asked, the groups, the dates, and a choice for each word
that fits several columns (the builtin proposer's shape for every question but the yes-or-no,
same-as, row-order and one row's share ones). Each kind it builds keeps its own parts in kinds/
(what "how many" counts, which rows a most ranks, when a difference is read), called here."""

from __future__ import annotations

import re
from dataclasses import replace

from .choices import Asked, Choice, Compare, Match
from .columns import is_venue, label_column, yearlike
from .filters import whole_years
from .kinds.count import counting
from .kinds.difference import unreadable as difference_unreadable
from .kinds.ranking import most_or_least
from .measures import measure_choice
from .plans import candidates
from .proposal import Proposal
from .schemas import DatasetSchema
from .spans import Span, TaskReading
from .vocabulary import DIMENSIONS, words


def calculation(r: TaskReading, schemas: list[DatasetSchema]) -> Proposal:
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
    asked = counting(r, Asked(r.fn, measures))
    if isinstance(asked, Proposal):
        return asked
    if r.row_noun and asked.fn == "count" and not r.count_of and not (r.values or r.compares or r.ranges or r.likes):
        # "how many images are listed" over a list of monuments: the rows are not surely images
        return Proposal(
            why=f"'{r.row_noun}' names no column, and with nothing to filter by, the rows are not surely {r.row_noun}: name the column that holds them"
        )
    if asked.counted is None and asked.fn == "count" and r.datasets:
        asked = replace(asked, counted=r.datasets[0].targets[0])
    asked = most_or_least(r, asked, schemas)
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
        why = difference_unreadable(r, asked)
        if why:
            return Proposal(why=why)
        asked = replace(asked, fn=None)  # one number for each value: no calculation of its own
    measured = measure_choice(r, asked, groups, schemas)
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
    dated = [Choice("date", asked.dates, "date")] if asked.dates else []
    choices = [*dated, *([measure] if measure else []), *groups, *filters]
    if any(not ch.options for ch in choices):
        return Proposal(why="a comparison with a number names no number column")
    return candidates(r, asked, choices, {s.alias: s for s in schemas})


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


def _group_choices(r: TaskReading, measures: list[Span]) -> list[Choice] | Proposal:
    """A choice for each group the task names, and for the row a ranking names: the columns it may
    be. A dataset named as a group is grouped by its column of names, unless it is the dataset
    measured ("amount per sale": per row of it, no group); why not, when it has no such column."""
    groups = []
    for g in r.groups + ([r.top_group] if r.top_group else []):
        if g.kind != "dataset":
            groups.append(
                Choice(g.text, [c for c in g.targets if c.type in ("string", "date", "number", "bool")], "group")
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
        groups.append(Choice(g.text, [label], "group"))
    return groups


def _dates(r: TaskReading, asked: Asked, schemas: list[DatasetSchema]) -> Asked | Proposal:
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
    cut = [whole_years(op, vals) for op, vals in r.ranges]  # None: a range that cuts a year
    years = [y for y in cut if y is not None]
    year_cols = [c for sc in schemas for c in sc.columns if c.type == "number" and yearlike(c)]
    if not (
        r.ranges
        and not r.buckets
        and len(years) == len(cut)
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


def _filter_choices(r: TaskReading) -> list[Choice] | Proposal:
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
        choices.append(Choice(span.text, [Match(c, v, negated) for c, v in span.targets], "value"))
    for span, op, number in r.compares:
        choices.append(
            Choice(span.text, [Compare(c, op, number) for c in span.targets if c.type == "number"], "compare")
        )
    return choices
