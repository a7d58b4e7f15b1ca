"""What the built-in proposer settles a task into before it builds plans: what the task computes
(Asked), each word it left open with the options it may be read as (Choice), the kinds of option
(a column, two columns multiplied, a column read one way, a value matched, a number compared), and
one option taken of each choice (Picked)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .schemas import ColumnSchema, DatasetSchema
from .spans import Span

ROWS = "rows"  # the option "count the rows" beside the columns a word may total
COUNT_FILLED = "count_filled"  # count the rows where a column holds a value
LOOKUP = "lookup"  # no calculation: the asked column of the rows that match


@dataclass
class Choice:
    """A word the task left open, the options it may be read as, and what it decides in a plan: the
    date column, the measure, a group, the column of a value named or of a number compared."""

    word: str
    options: list
    slot: Literal["date", "measure", "group", "value", "compare"]


@dataclass(frozen=True)
class Product:
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
class Way:
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


WAY_WORDS = {
    "count": "counting its rows",
    "count_distinct": "counting its different values",
    "sum": "summed per group",
    "max": "its largest single value",
    "min": "its smallest single value",
}

# What a calculation is over: a column, two columns multiplied, or a column read one way. Each has a
# column's alias and name, so that a plan and an answer name it as they name a column.
Measure = ColumnSchema | Product | Way


@dataclass(frozen=True)
class Match:
    """A value option: the column it is read in, the value, and whether the task excludes it."""

    column: ColumnSchema
    value: object
    negated: bool


@dataclass(frozen=True)
class Compare:
    """A compared number's option: the number column it is read in, the comparison, the number."""

    column: ColumnSchema
    op: str
    number: float | str  # a number, or AVERAGE (the column's own average)


@dataclass(frozen=True)
class Picked:
    """One reading of the task: the option taken of each choice, by what the choice decides."""

    date: ColumnSchema | None  # the date column the task's dates and periods are on
    measure: Measure | str | None  # what is computed over (ROWS: the rows themselves), or the column a lookup reads
    groups: list[ColumnSchema]
    values: list[Match]
    compares: list[Compare]

    @classmethod
    def of(cls, choices: list[Choice], options: tuple) -> Picked:
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
class Asked:
    """What the task computes, settled one step at a time from its reading."""

    fn: str | None  # an aggregate, COUNT_FILLED or LOOKUP; None for a ranking, or a total not yet chosen
    measures: list[Span]  # the spans that name what is computed over
    counted: DatasetSchema | None = None  # the dataset whose rows are counted
    dates: list[ColumnSchema] = field(default_factory=list)  # the columns the task's dates are on; none: no date
    one_row: str = ""  # a lookup's word, when the words ask for one row ("the title of …")
