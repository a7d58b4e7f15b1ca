"""The aggregate kinds: a total, an average (or median), a least or a most of a column, or of two
columns multiplied. "total sales", "the average points", "the earliest date", "units times
price". Built by the one calculation (calculation.py, measures.py, plans.py); the plan's one
aggregate (`aggregate_of`) is made here."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from ..choices import COUNT_FILLED, Measure, Product
from ..proposal import Proposal
from ..schemas import ColumnSchema, DatasetSchema
from ..spans import TaskReading, TaskSpans
from ..vocabulary import AGGREGATE_WORDS, PRODUCT_WORDS

# --- grammar ---------------------------------------------------------------------------------------


def product(task: TaskSpans, i: int) -> bool:
    """ "units times price", "units multiplied by price": one measure, the two columns' product."""
    spans, n, s = task.spans, task.n, task.spans[i]
    if s.kind != "column":
        return False
    phrase = next((p for p in PRODUCT_WORDS if task.seq(i + 1, p)), None)
    after = i + 1 + len(phrase) if phrase else -1
    if not (phrase and after < n and spans[after].kind == "column"):
        return False
    task.reading.product = (s, spans[after])
    task.take(i, *range(i + 1, after + 1))
    return True


def aggregate_column_as_word(task: TaskSpans, i: int) -> bool:
    """ "the total gold" in a table with a Total column: before another column it is the word, not
    the column."""
    spans, r, s = task.spans, task.reading, task.spans[i]
    if not (s.kind == "column" and s.text in AGGREGATE_WORDS and i + 1 < task.n and spans[i + 1].kind == "column"):
        return False
    r.fn = r.fn or AGGREGATE_WORDS[s.text]
    r.fns.add(AGGREGATE_WORDS[s.text])
    task.take(i)
    return True


def aggregate(task: TaskSpans, i: int) -> bool:
    """ "total", "average", "the most", "the earliest": the calculation the word names; not "first
    quarter" (a period), not "at least" or "at most" (a comparison)."""
    r, s = task.reading, task.spans[i]
    if not (
        task.word(i, *AGGREGATE_WORDS)
        and not (s.text == "first" and task.word(i + 1, "quarter"))
        and not (s.text in ("least", "most") and task.word(i - 1, "at"))
    ):
        return False
    r.fn = r.fn or AGGREGATE_WORDS[s.text]
    r.fns.add(AGGREGATE_WORDS[s.text])
    task.take(i)
    return True


RULES = {"products": (product,), "calculations": (aggregate_column_as_word, aggregate)}
STEPS = ()

# --- plans -----------------------------------------------------------------------------------------


def propose(r: TaskReading, schemas: list[DatasetSchema]) -> Proposal | None:
    """None: a total, average, least or most is built by the one calculation."""
    return None


def aggregate_of(fn: str, measure: Measure | None, result: str, q: Callable[[ColumnSchema], str]) -> dict:
    """The plan's one aggregate: a count of rows, a count of a column's filled cells, or the
    calculation over a column or over two columns multiplied (named `result`)."""
    column = cast(ColumnSchema, measure)  # a column here: a Product is multiplied above, a Way settled before
    if fn == COUNT_FILLED:
        return {"fn": "count", "column": q(column)}
    if isinstance(measure, Product):
        return {"fn": fn, "expr": {"mul": [q(measure.left), q(measure.right)]}, "as": result}
    return {"fn": fn} if fn == "count" else {"fn": fn, "column": q(column)}


# --- features --------------------------------------------------------------------------------------


def made(plan: dict) -> str | None:
    """A plan of a total (sum), an average (avg, median) or a least or most (min, max), in that
    order of precedence."""
    fns = {a.get("fn") for a in plan.get("aggregates") or [] if isinstance(a, dict)}
    if "sum" in fns:
        return "sum"
    if fns & {"avg", "median"}:
        return "average"
    if fns & {"min", "max"}:
        return "extreme"
    return None
