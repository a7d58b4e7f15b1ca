"""The lookup kind: no calculation, the column asked of the rows that match. "what is the title of
the episode written by X", "who won in 2005", "was Fran Bailey from Vic or WA". Built by the one
calculation (calculation.py, measures.py, plans.py): the column a lookup reads (`lookup_choice`)
and its plan's parts (`plan_parts`: the column's different values, each said once) are here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ..choices import LOOKUP, Asked, Choice
from ..columns import label_column
from ..proposal import Proposal
from ..schemas import ColumnSchema, DatasetSchema
from ..spans import Span, TaskReading

# --- grammar: none of its own (the values named, the columns left: reading.py) -----------------------

RULES: dict = {}
STEPS = ()

# --- plans -----------------------------------------------------------------------------------------


def propose(r: TaskReading, schemas: list[DatasetSchema]) -> Proposal | None:
    """None: a lookup is built by the one calculation, with `lookup_choice` and `plan_parts`."""
    return None


def lookup_choice(r: TaskReading, asked: Asked, schemas: list[DatasetSchema]) -> tuple[Asked, Choice] | Proposal:
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
    return replace(asked, fn=LOOKUP, measures=measures, one_row=one_row), Choice(word, columns, "measure")


def plan_parts(measure: ColumnSchema, q: Callable[[ColumnSchema], str]) -> dict:
    """A lookup's plan parts: the column read, grouped (its different values: one answer said once)."""
    return {"group_by": [{"column": q(measure)}], "limit": 50}


# --- features --------------------------------------------------------------------------------------


def made(plan: dict) -> str | None:
    """Any plan no other kind claims reads the rows that match."""
    return "lookup"
