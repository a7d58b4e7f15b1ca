"""A count against a total, read from the noun the task counts ("how many X", "the number of X",
"the total number of X") and the plan alone, for verify.py: a sum of a number column where X
names a column of names (the task counts nations, the plan adds up their Gold), and a count of
rows where X names a number column the rows hold (the task asks how many wins, each row holds its
Wins, the plan counts rows). Either answers another number than the task asks."""

from __future__ import annotations

from typing import Any

from .placed import stem
from .vocabulary import words

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
