"""The count kind: how many rows, or how many of a column's values. "how many", "number of",
"count of", "how many different products", "how many times did X win", "how many times did they
finish ninth" (a count of a place won, read again here from a row by place). Built as part of
the one calculation (calculation.py, plans.py): what "how many X" counts (`counting`) and when a
count cannot be what the words ask (`count_unreadable`) are here, and so are the checks of a
count's answer from the plan alone, for verify.py: a sum where the task counts names
(`sum_where_counted`), a count of rows where a column holds how many (`count_where_held`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..choices import COUNT_FILLED, Asked, Match, Measure
from ..columns import measurable, ordinal, place_columns, yearlike
from ..placed import stem
from ..proposal import Proposal
from ..schemas import DatasetSchema
from ..spans import Span, TaskReading, TaskSpans
from ..vocabulary import COUNT_PHRASES, DISTINCT_WORDS, words

# --- grammar ---------------------------------------------------------------------------------------


def how_many(task: TaskSpans, i: int) -> bool:
    """ "how many", "number of", "count of": a count, of the column or dataset after it ("how many
    different products"), or of rows a noun names ("how many games were at Braly Stadium"), or of
    times ("how many times did X win": the rows where X is)."""
    spans, n, r = task.spans, task.n, task.reading
    word = task.word
    counted = next((p for p in COUNT_PHRASES if task.seq(i, p)), None)
    if not counted:
        return False
    r.fn = r.fn or "count"
    r.fns.add("count")
    task.take(*range(i, i + len(counted)))
    k = i + len(counted)
    if word(k, "times") or (word(k, "total") and word(k + 1, "times")):
        task.take(k, k + 1 if word(k, "total") else k)
        k += 2 if word(k, "total") else 1
    while word(k, *DISTINCT_WORDS, "of", "the", "total"):
        r.distinct |= spans[k].text in DISTINCT_WORDS
        task.take(k)
        k += 1
    if task.row_noun(k) and spans[k].text.endswith("s"):
        r.row_noun = spans[k].text
        task.take(k)
    if k < n and spans[k].kind in ("column", "dataset") and k not in task.used:
        r.count_of.append(spans[k])
        task.take(k)
    return True


def distinct(task: TaskSpans, i: int) -> bool:
    """ "distinct", "unique", "different": of the different values."""
    if not task.word(i, *DISTINCT_WORDS):
        return False
    task.reading.distinct = True
    task.take(i)
    return True


def total_number_of(task: TaskSpans, i: int) -> bool:
    """ "the total number of X" is a count of X, not a sum beside it."""
    if not (task.spans[i].text == "total" and task.seq(i + 1, ("number", "of"))):
        return False
    task.take(i)
    return True


def count_said_again(task: TaskSpans, i: int) -> bool:
    """ "how many songs in total", "how many total titles": the count, said again."""
    s = task.spans[i]
    if not (
        s.kind == "word"
        and s.text in ("total", "all", "altogether", "combined")
        and "count" in task.reading.fns
        and (task.word(i - 1, "in") or task.seq(i - 2, ("how", "many")))
    ):
        return False
    task.take(i, *((i - 1,) if task.word(i - 1, "in") else ()))
    return True


RULES = {"calculations": (how_many, distinct, total_number_of, count_said_again)}
STEPS = ()

# --- plans -----------------------------------------------------------------------------------------


def propose(r: TaskReading, schemas: list[DatasetSchema]) -> Proposal | None:
    """A count of a place won ("how many times did they finish ninth") read as a count of the rows
    whose place is that number (rewriting the reading, so the one calculation builds it); why not,
    when no one column holds places. None otherwise: a count is built by the one calculation."""
    why = place_counted(r, schemas)
    return Proposal(why=why) if why else None


def place_counted(r: TaskReading, schemas: list[DatasetSchema]) -> str | None:
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


def counting(r: TaskReading, asked: Asked) -> Asked | Proposal:
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


def count_unreadable(fn: str, measure: Measure | None, values: list[Match]) -> str | None:
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
        return f"the task counts {getattr(measure, 'name', '')} but also names one of its values: say what is counted"
    return None


# --- checks of a count's answer, from the plan alone (verify.py) ------------------------------------

# Words between "how many" and the noun counted ("how many total medals", "the number of the different clubs").
_BEFORE_NOUN = {"total", "different", "distinct", "unique", "separate", "individual", "the", "of", "overall", "in"}


_COUNTING = {("how", "many"), ("number", "of"), ("count", "of"), ("amount", "of")}


# Nouns that count the rows themselves ("how many times", "how many rows").
_ROW_WORDS = {"times", "time", "rows", "row", "entries", "entry", "items", "occasions", "instances"}


def counted_noun(tokens: list[str]) -> str:
    """The noun the task counts ("how many total medals" -> "medals"), or ""."""
    alpha = [t.lower() for t in tokens]
    for k in range(len(alpha) - 1):
        if (alpha[k], alpha[k + 1]) in _COUNTING:
            j = k + 2
            while j < len(alpha) and alpha[j] in _BEFORE_NOUN:
                j += 1
            if j < len(alpha) and alpha[j].isalpha() and alpha[j] not in _ROW_WORDS:
                return alpha[j]
            return ""
    return ""


def _names(column: Any) -> set[str]:
    return {stem(w) for w in words(column.name) if w.isalpha()}


def _plan_columns(plan: Any) -> set[str]:
    """Every column a plan names, anywhere (filters, groups, measures)."""
    if isinstance(plan, list):
        return set().union(*(_plan_columns(v) for v in plan)) if plan else set()
    if not isinstance(plan, dict):
        return set()
    found = {plan["column"]} if isinstance(plan.get("column"), str) else set()
    return found.union(*(_plan_columns(v) for v in plan.values()))


def sum_where_counted(tokens: list[str], plan: dict, columns: dict) -> str:
    """ "How many nations won gold" answered by adding up Gold: the noun counted names a column
    of names (Nation), and the plan adds up a number column the noun does not name."""
    noun = counted_noun(tokens)
    aggregates = plan.get("aggregates") or []
    if not noun or len(aggregates) != 1 or aggregates[0].get("fn") != "sum" or plan.get("group_by"):
        return ""
    summed = columns.get(aggregates[0].get("column")) if isinstance(aggregates[0].get("column"), str) else None
    if summed is None or stem(noun) in _names(summed):
        return ""
    named = [c for name, c in columns.items() if "." not in name and c.type == "string" and stem(noun) in _names(c)]
    if named:
        return (
            f"the task counts {noun} ({named[0].name} names them), and the plan adds up {summed.name}: "
            f"count the {noun}, or add {summed.name}?"
        )
    return ""


def count_where_held(tokens: list[str], plan: dict, columns: dict) -> str:
    """ "How many wins did X have" answered by counting rows, where a number column (Wins) holds
    how many each row has: the rows counted may each hold several; add the column, or count?"""
    noun = counted_noun(tokens)
    aggregates = plan.get("aggregates") or []
    if not noun or len(aggregates) != 1 or aggregates[0].get("fn") != "count" or plan.get("group_by"):
        return ""
    counted = columns.get(aggregates[0].get("column")) if isinstance(aggregates[0].get("column"), str) else None
    if counted is not None and counted.type == "number":
        return ""  # a count of a number column's cells: verify's own rule (_counts_a_number)
    used = _plan_columns(plan)
    held = [
        c
        for name, c in columns.items()
        if "." not in name
        and c.type == "number"
        and c.name not in used
        and stem(noun) in _names(c)
        and 0 < len(words(c.name)) <= 3
        and words(c.name)[-1].endswith("s")  # "Wins", "No. of Titles": how many a row has
    ]
    if held:
        return (
            f"the task asks how many {noun}, and the plan counts rows where {held[0].name} holds how many "
            f"each row has: add {held[0].name}, or count the rows?"
        )
    return ""


# --- features --------------------------------------------------------------------------------------


def made(plan: dict) -> str | None:
    """A plan whose every aggregate counts."""
    fns = {a.get("fn") for a in plan.get("aggregates") or [] if isinstance(a, dict)}
    return "count" if fns and fns <= {"count", "count_distinct"} else None
