"""What a column is to a task's words, from its name, type and values: a column of years, of times,
of places won, of sequence numbers, of ids, of the names of the rows. The built-in proposer's
builders read the schemas through these, so each of them decides a column's kind alike."""

from __future__ import annotations

import re

from .schemas import ColumnSchema, DatasetSchema
from .vocabulary import words


def yearlike(c: ColumnSchema) -> bool:
    """A number column that holds years or seasons: never a quantity to total or average. Named
    so, or named for a moment (Founded, Built, Opened …) with every value a year."""
    names = set(words(c.name))
    if names & {"year", "years", "season", "seasons"}:
        # "Years in NBA" holding 1 … 18 counts years; a Year column holds them
        return c.type != "number" or c.min is None or (_a_year(c.min) and _a_year(c.max))
    return bool(names & _MOMENT_NAMES) and c.type == "number" and _a_year(c.min) and _a_year(c.max)


# Columns named for the moment a thing happened: a number in one is a year when it looks like one.
_MOMENT_NAMES = {
    "founded",
    "built",
    "established",
    "opened",
    "closed",
    "born",
    "died",
    "released",
    "formed",
    "elected",
    "started",
    "ended",
    "debut",
    "introduced",
    "completed",
    "launched",
    "created",
    "joined",
    "inducted",
    "constructed",
    "commissioned",
}


def _a_year(value) -> bool:
    try:
        return 1000 <= int(str(value)) <= 2100
    except ValueError:
        return False


# Nouns of a numbered sequence: a column named so numbers its rows ("Round 3"), it counts nothing.
ORDINAL_NAMES = {
    "round",
    "week",
    "game",
    "match",
    "episode",
    "stage",
    "leg",
    "heat",
    "race",
    "day",
    "edition",
    "no",
    "number",
    "pick",
    "rank",
    "place",
    "position",
    "pos",
    "seed",
    "order",
    "track",
    "chapter",
    "series",
    "event",
}


# Columns that hold the place a row won: "finished first" is their smallest value.
PLACE_NAMES = {"rank", "place", "position", "pos", "finish", "standing", "ranking", "placing"}
# Columns that say where a row took place: "from" a value of one is no origin of the row's people.
_VENUE_NAMES = {"location", "venue", "site", "host", "stadium", "ground", "arena", "circuit", "track", "course"}


def place_columns(schema: DatasetSchema) -> list[ColumnSchema]:
    """The number columns of a dataset that hold the place each row won (Rank, Place, Pos …)."""
    return [c for c in schema.columns if c.type == "number" and set(words(c.name)) & PLACE_NAMES]


def is_venue(c: ColumnSchema) -> bool:
    """A column that says where a row took place (Venue, Location, Circuit …)."""
    return bool(set(words(c.name)) & _VENUE_NAMES)


def date_columns(schema: DatasetSchema) -> list[ColumnSchema]:
    """The columns of days, and of days with a time of day."""
    return [c for c in schema.columns if c.type in ("date", "datetime")]


def time_columns(schema: DatasetSchema) -> list[ColumnSchema]:
    """The columns that say when a row happened: its dates, else its number columns of years."""
    return date_columns(schema) or [c for c in schema.columns if c.type == "number" and yearlike(c)]


def timelike(c: ColumnSchema) -> bool:
    return c.type in ("time", "duration") or "time" in words(c.name)


def ordinal(c: ColumnSchema) -> bool:
    """A column that numbers the rows: named so ("Round", "#"), or an unnamed one of unique numbers (an index)."""
    return (
        bool(set(words(c.name)) & ORDINAL_NAMES)
        or "#" in c.name
        or (c.unique and re.fullmatch(r"column_\d+", c.name) is not None)
    )


def is_id(c: ColumnSchema) -> bool:
    return c.name.lower().endswith("id") or (c.unique and c.physical == "BIGINT" and "id" in words(c.name))


def measurable(cols: list[ColumnSchema]) -> list[ColumnSchema]:
    """The columns a calculation may be over: the numbers, not the ids."""
    return [c for c in cols if c.type == "number" and not is_id(c)]


def label_column(schema: DatasetSchema) -> ColumnSchema | None:
    """The column that names a dataset's rows, for "by customer" and "who": a unique string column
    of names (not of numbers written as text, "79 037 121"); of several, the first, as a table
    names its rows in its first column of names (Driver before Co-driver)."""
    found = [c for c in schema.columns if c.type == "string" and c.unique and not _numeric_text(c)]
    return found[0] if found else None


def _numeric_text(c: ColumnSchema) -> bool:
    """Text that is mostly numbers, seasons or dates ("2010–11", "1:48.64", "79 037 121")."""
    return bool(c.values) and sum(v[:1].isdigit() for v in c.values) * 2 > len(c.values)
