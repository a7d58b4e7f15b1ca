"""Rows compared with one row the task names: "which pylon has the same height as the London
pylon", "which buildings have more floors than X", "how many players scored more points than
Bob". The named row's value is a window over all rows (it must name exactly one row); the other
rows are kept by comparing with it, or counted."""

from __future__ import annotations

from .filters import value_filter
from .proposal import Candidate, Proposal
from .schemas import ColumnSchema, DatasetSchema
from .spans import TaskReading


def same_as(r: TaskReading, schemas: list[DatasetSchema]) -> Proposal:
    """ "Which pylon has the same height as the London pylon": the rows, other than the one the value
    names, whose column holds what that row holds. The named row's value is a window over all rows
    (it must name exactly one row), the others are kept by comparing with it."""
    span, anchor = r.same
    if anchor is None:
        return Proposal(why="'the same … as' names no row to compare with")
    counted = r.fns == {"count"} and not r.distinct  # "how many players scored more points than Bob"
    if r.values or r.compares or r.ranges or r.empty or r.likes or r.lacking:
        # "players of Red with more points than Bob": is Bob one of the rows kept, or any row?
        said = f" ('{r.values[0][0].text}')" if r.values else ""
        return Proposal(
            why=f"the task compares rows with one it names and says more of the rows{said}: which rows are compared, "
            "and whether the named row must be among them, is not said"
        )
    if len(schemas) != 1 or r.groups or r.top or (r.fns and not counted) or r.position or r.difference or r.share:
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
    if counted:
        return _counted(r, schema, held, value, same)
    if r.count_of:
        return Proposal(why=f"'{r.count_of[0].text}' is counted, and nothing asks for a count")
    asked = list(dict.fromkeys(c for m in r.measures for c in m.targets if c != same))
    if len(asked) > 1:
        return Proposal(why="the task names several columns to read: ask for one")
    if not asked:
        # "what delegate is the same age as Rita …": one of what the named row is (its column),
        # whatever column names the rows
        asked = [held]
    (column,) = asked
    plan = {
        **_compared(r, schema, held, value, same),
        "select": [{"column": column.name}, {"column": same.name}]
        + ([{"column": held.name}] if held not in (column, same) else []),
        # the named row is one row, it is not its own answer, and the others hold what it holds (or more, or less)
        "having": [{"column": "anchors", "op": "eq", "value": 1}, *_kept(r)],
        "limit": 50,
    }
    said = r.measures[0].text if r.measures else r.row_noun
    return Proposal((Candidate(plan, answer=(column.name,)),), one_row=said if said and not said.endswith("s") else "")


COMPARED_ALIAS = "compared"


def _compared(r: TaskReading, schema: DatasetSchema, held: ColumnSchema, value, same: ColumnSchema) -> dict:
    """The rows with the named row's value beside each (`anchor_value`, a window over all rows),
    how many rows the value names (`anchors`), and how each row's value differs from it."""
    # text is the same whatever its case ("Middle blocker", "Middle Blocker"), as filters compare it
    compared = {"lower": same.name} if same.type == "string" else same.name
    return {
        "datasets": [schema.ref()],
        "where": schema.without_totals(lambda name: name) + [{"column": same.name, "op": "not_null"}],
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
    }


def _kept(r: TaskReading) -> list[dict]:
    """The rows kept beside the named one: those more or less than it, or (not it) the same."""
    if r.than:
        return [{"column": "differs", "op": r.than, "value": 0}]
    return [{"column": "anchor", "op": "is_null"}, {"column": "differs", "op": "is_null"}]


def _counted(r: TaskReading, schema: DatasetSchema, held: ColumnSchema, value, same: ColumnSchema) -> Proposal:
    """ "How many players scored more points than Bob": the rows compared (a plan of their own)
    counted where they are kept, and the rows the value names counted beside them; no answer
    unless that is one row. "How many teams …" over a Team column that repeats may count its
    rows or its different values: both are read, and asked about when they differ."""
    counted = list(dict.fromkeys(c for span in r.count_of if span.kind == "column" for c in span.targets))
    if len(counted) > 1 or same in counted:
        return Proposal(why=f"'{r.count_of[0].text}' is no one column of the rows to count")
    inner = _compared(r, schema, held, value, same)
    inner["select"] = [{"column": c.name} for c in dict.fromkeys([same, held, *counted])]
    tallies = [{"fn": "count", "where": _kept(r), "as": "count"}]
    if counted and not counted[0].unique:
        tallies.append({"fn": "count_distinct", "column": counted[0].name, "where": _kept(r), "as": "count"})
    candidates = []
    for tally in tallies:
        plan = {
            "datasets": [{"plan": inner, "alias": COMPARED_ALIAS}],
            "aggregates": [tally, {"fn": "max", "column": "anchors", "as": "anchors"}],
            "having": [{"column": "anchors", "op": "eq", "value": 1}],  # the value names one row
        }
        way = "counting its different values" if tally["fn"] == "count_distinct" else "counting the rows"
        candidates.append(Candidate(plan, ((r.count_of[0].text, way),) if len(tallies) > 1 else (), ("count",)))
    return Proposal(
        tuple(candidates),
        question=f"{r.count_of[0].text}: the rows, or the different values of {counted[0].name}?"
        if len(tallies) > 1
        else "",
        rows_are=r.row_noun if not r.count_of else "",
    )
