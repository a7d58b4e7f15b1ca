"""The difference kind: one number for each of two values of one column, and the one less the
other. "the difference between A and B" (how far apart: its size), "how many more medals did A
win than B" (A's less B's). Built as part of the one calculation (calculation.py, plans.py): its
checks (`unreadable`) and its plan parts (`plan_parts`) are here."""

from __future__ import annotations

from collections.abc import Callable

from ..choices import Asked, Match, Measure, Product, Way
from ..filters import value_filter
from ..proposal import Proposal
from ..schemas import ColumnSchema, DatasetSchema
from ..spans import TaskReading, TaskSpans

# --- grammar ---------------------------------------------------------------------------------------


def how_many_more(task: TaskSpans, i: int) -> bool:
    """ "how many more medals did A win than B": A's less B's."""
    if not (task.seq(i, ("how", "many", "more")) or task.seq(i, ("how", "much", "more"))):
        return False
    task.reading.difference = "signed"
    task.take(i, i + 1, i + 2)
    return True


def difference(task: TaskSpans, i: int) -> bool:
    """ "the difference between A and B": how far apart."""
    if not task.word(i, "difference"):
        return False
    task.reading.difference = "abs"
    task.take(i)
    return True


RULES = {"shapes": (how_many_more, difference)}
STEPS = ()

# --- plans -----------------------------------------------------------------------------------------


def propose(r: TaskReading, schemas: list[DatasetSchema]) -> Proposal | None:
    """None: a difference is built by the one calculation, with `unreadable` and `plan_parts`."""
    return None


def unreadable(r: TaskReading, asked: Asked) -> str | None:
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


def plan_parts(
    r: TaskReading, fn: str, measure: Measure | None, values: list[Match], q: Callable[[ColumnSchema], str]
) -> dict | str:
    """A difference's aggregates and measure: the total of the measure for each of the two values
    named, and the one less the other (its size when the words say "difference between").
    Why not, when the two values are not of one column or the measure is no column's total."""
    first, second = values
    if first.column != second.column or fn != "sum" or measure is None or isinstance(measure, (Product, Way)):
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


# --- features --------------------------------------------------------------------------------------


def made(plan: dict) -> str | None:
    """A plan that measures a difference."""
    said = {m.get("as") for m in plan.get("measures") or [] if isinstance(m, dict)}
    return "difference" if "difference" in said else None
