"""Cells that list several values ("Spain, Italy", "Ada Lind & Bo Park", "Hard / Clay"), read
from a column's known values (up to 300, schemas.py) with the plan alone, for verify.py: a value
the plan matches whole in a test (a filter, kept or excluded, inside an `any` or not; the row a
measure names) where another cell of its column lists it among others, so the rows counted,
kept or left out miss the cells that list it. (Groups by such a column, "which genre is listed
the most" beside "Comedy, drama", are left to the reading: refusing them cost three right answers
on tune and fixed none.) A cell is looked at only against the value tested: "Miami, Ohio"
stops a test of "Miami" (the rows of Miami may be that cell), never one of "Dayton"."""

from __future__ import annotations

import re
from typing import Any

# Between the values a cell lists: a comma, an ampersand, "and", a slash, a semicolon, a new line.
_BETWEEN = re.compile(r"\s*(?:,|&|/|;|\n|\band\b)\s*", re.IGNORECASE)


def parts(cell: str) -> list[str]:
    """The values a cell lists, lower case, each trimmed ("Ada & Bo" -> ["ada", "bo"])."""
    return [p.strip().lower() for p in _BETWEEN.split(cell) if p and p.strip()]


def _tests(plan: Any) -> list[dict]:
    """Every test of a value in a plan, anywhere (its filters, kept or excluded, inside `any` and
    `all`; the row a measure names)."""
    if isinstance(plan, list):
        return [t for v in plan for t in _tests(v)]
    if not isinstance(plan, dict):
        return []
    found = [plan] if plan.get("op") in ("eq", "ne", "in", "not_in") and isinstance(plan.get("column"), str) else []
    return found + [t for v in plan.values() for t in _tests(v)]


def listing(value: str, known: tuple) -> str:
    """A known cell other than `value` that lists it among other values, or ""."""
    want = value.strip().lower()
    for cell in known:
        if not isinstance(cell, str) or cell.strip().lower() == want:
            continue
        listed = parts(cell)
        if len(listed) > 1 and want in listed:
            return cell
    return ""


def matched_whole_where_listed(plan: dict, columns: dict) -> str:
    """Why a value the plan matches whole is not sure to find its rows: another cell of its column
    lists it among others ("Spain" beside "Spain, Italy"); "" when none does."""
    for test in _tests(plan):
        column = columns.get(test["column"])
        if column is None or column.type != "string" or not column.values:
            continue
        values = [test.get("value")] if test.get("op") in ("eq", "ne") else list(test.get("values") or [])
        for value in values:
            if not isinstance(value, str) or not value.strip():
                continue
            cell = listing(value, column.values)
            if cell:
                return (
                    f"the plan matches {value!r} whole in {column.name}, and the cell {cell!r} lists it among others: "
                    "count those cells too, or only the cells that are it alone?"
                )
    return ""
