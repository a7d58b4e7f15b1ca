"""Rows compared with one row the task names: "which pylon has the same height as the London
pylon", "which buildings have more floors than X". The named row's value is a window over all
rows (it must name exactly one row); the other rows are kept by comparing with it."""

from __future__ import annotations

from .filters import value_filter
from .proposal import Candidate, Proposal
from .reading import TaskReading
from .schemas import DatasetSchema


def same_as(r: TaskReading, schemas: list[DatasetSchema]) -> Proposal:
    """ "Which pylon has the same height as the London pylon": the rows, other than the one the value
    names, whose column holds what that row holds. The named row's value is a window over all rows
    (it must name exactly one row), the others are kept by comparing with it."""
    span, anchor = r.same
    if anchor is None:
        return Proposal(why="'the same … as' names no row to compare with")
    if (
        len(schemas) != 1
        or r.values
        or r.compares
        or r.ranges
        or r.groups
        or r.top
        or r.fns
        or r.count_of
        or r.position
        or r.difference
    ):
        return Proposal(
            why="the task asks for rows with the same value as another, with more than the built-in proposer reads beside it"
        )
    schema = schemas[0]
    (held, value), *more_held = anchor.targets
    sames = list(dict.fromkeys(span.targets))
    if more_held or len(sames) > 1:
        return Proposal(why=f"'{anchor.text if more_held else span.text}' names several columns; name the one meant")
    (same,) = sames
    if r.than and same.type != "number":
        return Proposal(why=f"'{span.text}' is no number column to compare with {anchor.text}'s")
    asked = list(dict.fromkeys(c for m in r.measures for c in m.targets if c != same))
    if len(asked) > 1:
        return Proposal(why="the task names several columns to read: ask for one")
    if not asked:
        # "what delegate is the same age as Rita …": one of what the named row is (its column),
        # whatever column names the rows
        asked = [held]
    (column,) = asked
    # text is the same whatever its case ("Middle blocker", "Middle Blocker"), as filters compare it
    compared = {"lower": same.name} if same.type == "string" else same.name
    plan = {
        "datasets": [schema.ref()],
        "where": schema.without_totals(lambda name: name) + [{"column": same.name, "op": "not_null"}],
        "select": [{"column": column.name}, {"column": same.name}]
        + ([{"column": held.name}] if held not in (column, same) else []),
        "measures": [
            {
                "as": "anchor",
                "expr": {"case": [{"when": value_filter(held.name, held, [value]), "then": compared}]},
            },
            {"as": "anchor_value", "window": {"fn": "max", "of": "anchor"}},
            {"as": "anchors", "window": {"fn": "count", "of": "anchor"}},
            {
                "as": "differs",
                "expr": {"sub": [same.name, "anchor_value"]} if r.than else {"nullif": [compared, "anchor_value"]},
            },
        ],
        # the named row is one row, it is not its own answer, and the others hold what it holds (or more, or less)
        "having": [
            {"column": "anchors", "op": "eq", "value": 1},
            {"column": "anchor", "op": "is_null"},
            {"column": "differs", "op": r.than, "value": 0} if r.than else {"column": "differs", "op": "is_null"},
        ],
        "limit": 50,
    }
    said = r.measures[0].text if r.measures else r.row_noun
    return Proposal((Candidate(plan, answer=(column.name,)),), one_row=said if said and not said.endswith("s") else "")
