"""Typing a stored extraction again: the readings a person names, the typings kept per
snapshot, and the person-set types a new revision carries over.

Everything here reads the extraction Parquet a revision stored (SPEC §1), never the file.
"""

from __future__ import annotations

import dataclasses
import json
from typing import NamedTuple

import duckdb
from sqlglot import exp

from planner.dialect import DIALECT

from .. import readings as C
from ..errors import ErrorItem, close_names
from ..number_forms import NEGATIVES
from ..readings import Reading
from .questions import Option, Question, Typing
from .tally import Source, accepts, physical_from, symbols_of, tally, text_of

ORDERS = ("DMY", "MDY", "YMD")
NUMBER_KEYS = {
    "decimal_mark": (".", ","),
    "group_mark": (",", ".", " ", "'", ""),
    "unit": ("", *C.UNITS),
    "negative": NEGATIVES,
}
FIXED_FORMATS = {"bool": ("true/false", "1/0"), "duration": ("h:mm:ss", "m:ss.f", "ISO 8601")}


class Approved(NamedTuple):
    """A column type a person set: its typing, the revision it was set on, and who set it."""

    typing: Typing
    revision: int
    by: str | None


# Every reading of a type worth trying, most specific first (readings.py's order), by
# (date order or None, the marks and units the column's values hold).
POOLS = {
    "string": lambda order, symbols: [C.STRING],
    "bool": lambda order, symbols: [C.BOOL, C.BOOL_01],
    "number": lambda order, symbols: [r for r in C.candidate_readings(symbols) if r.type == "number"],
    # A date order a person names reads the column's own separators and year width (SPEC §4).
    "date": lambda order, symbols: C.order_dates(order) if order else C.date_readings(),
    "datetime": lambda order, symbols: _order_datetimes(order) if order else C.datetime_readings(),
    "time": lambda order, symbols: [C.CLOCK_TIME, C.date_reading("%I:%M %p", "time")],
    "duration": lambda order, symbols: [C.CLOCK_DURATION, C.MINUTES_DURATION, C.ISO_8601_DURATION],
}


def _order_datetimes(order: str) -> list[Reading]:
    """A named date order's datetimes: ISO's for YMD, then each of its dates with a clock."""
    dated = [
        Reading("datetime", f"{d.format} {clock}", order=order)
        for d in C.order_dates(order)
        for clock in ("%H:%M", "%H:%M:%S")
    ]
    twelve = [r for r in C.datetime_readings(order) if "%p" in r.format]
    return ([C.ISO_TIMESTAMP, C.ISO_TIMESTAMPTZ] if order == "YMD" else []) + dated + twelve


def _number_parts(fmt: str) -> dict[str, str]:
    return dict(part.split("=", 1) for part in fmt.split(";") if part)


def format_problem(con: duckdb.DuckDBPyConnection, type_: str, fmt: str) -> str | None:
    """Why `fmt` cannot be a format of `type_`, or None when it can."""
    if type_ == "string":
        return None if not fmt else "a string column takes no format"
    if type_ in FIXED_FORMATS:
        return (
            None
            if fmt in FIXED_FORMATS[type_]
            else f"a {type_} format is one of {', '.join(repr(f) for f in FIXED_FORMATS[type_])}"
        )
    if type_ == "number":
        for part in (p for p in fmt.split(";") if p):
            key, sep, value = part.partition("=")
            if key not in NUMBER_KEYS or not sep or value not in NUMBER_KEYS[key]:
                return (
                    "a number format is 'decimal_mark=.|,' with optional ';group_mark=…', ';unit=…' and "
                    "';negative=brackets|trailing' (e.g. 'decimal_mark=,;group_mark=.')"
                )
        return None
    if fmt in ORDERS:
        return None if type_ in ("date", "datetime") else "a time has no date order"
    if "%" not in fmt:
        return f"a {type_} format is a strptime pattern such as '%d/%m/%Y', or one of DMY, MDY, YMD"
    try:
        con.execute("SELECT try_strptime('', ?)", [fmt]).fetchone()
    except duckdb.Error as err:
        return f"not a strptime pattern: {str(err).splitlines()[0]}"
    return None


def _wanted(type_: str, fmt: str, pool: list[Reading]) -> list[Reading]:
    """The readings of `pool` that agree with what the person wrote (all of them for no format)."""
    if not fmt:
        return pool
    if fmt in ORDERS:
        return [r for r in pool if r.order == fmt]
    if type_ == "number":
        parts = _number_parts(fmt)
        keep = [r for r in pool if all((getattr(r, key) or "") == value for key, value in parts.items())]
        return keep or [C.reading_from(type_, fmt)]
    return [r for r in pool if r.format == fmt] or [C.reading_from(type_, fmt)]


def _best(
    con: duckdb.DuckDBPyConnection, relation: str, cell: str, readings: list[Reading], markers: tuple[str, ...]
) -> Typing:
    """Of `readings`, the one that rejects fewest rows of the column (the first on a tie), as a
    person's choice: every row is counted, and the rows it cannot read are its `rejected`."""
    if readings == [C.STRING]:
        return Typing(C.STRING, "VARCHAR", forced=True)
    counted = tally(con, Source(relation), [cell], {cell: readings}, markers)[cell]
    best = min(counted.counts, key=lambda n: n.fails)  # min keeps the first on a tie
    return Typing(
        best.reading,
        physical_from(best.reading, best.number),
        best.fails,
        None,
        forced=True,
        clean=counted.plain and not best.fails,
    )


def typing_for(
    con: duckdb.DuckDBPyConnection, relation: str, cell: str, type_: str, fmt: str, markers: tuple[str, ...]
) -> Typing:
    """The reading of `type_`, narrowed by `fmt`, that rejects fewest rows of the column."""
    symbols = symbols_of(con, Source(relation), [cell], markers)[cell] if type_ == "number" else set()
    return _best(
        con, relation, cell, _wanted(type_, fmt, POOLS[type_](fmt if fmt in ORDERS else None, symbols)), markers
    )


def refused_values(
    con: duckdb.DuckDBPyConnection, relation: str, cell: str, typing: Typing, markers: tuple[str, ...], limit: int = 5
) -> tuple[int, list[str]]:
    """How many non-empty values the column holds, and the first `limit` of those `typing`
    does not read (in row order), as written."""
    t = text_of(cell, markers)
    filled = exp.not_(exp.Is(this=t, expression=exp.null()))
    total = con.execute(
        exp.select(exp.func("count", exp.Star())).from_(relation).where(filled).sql(dialect=DIALECT)
    ).fetchone()
    assert total is not None  # count(*) gives one row
    (nonempty,) = total
    if typing.reading.type == "string" or not typing.rejected:
        return nonempty, []
    failing = exp.and_(filled, exp.not_(accepts(typing.reading, t)))
    rows = con.execute(
        exp.select(exp.column(cell, quoted=True))
        .from_(relation)
        .where(failing)
        .order_by(exp.column("__row_id", quoted=True))
        .limit(limit)
        .sql(dialect=DIALECT)
    ).fetchall()
    return nonempty, [r[0] for r in rows]


def check_request(
    con, names: list[str], current: dict[str, Typing], cells: dict[str, str], columns: dict, formats: dict
) -> list[ErrorItem]:
    """Every problem with an approval's `columns` and `formats`, each with its JSON path."""
    errors = []
    for field, given in (("columns", columns), ("formats", formats)):
        for name in given:
            if name not in cells:
                errors.append(
                    ErrorItem(
                        f"{field}.{name}",
                        f"no column {name!r} in this dataset",
                        expected="a column name",
                        received=name,
                        did_you_mean=close_names(name, names),
                    )
                )
    for name, type_ in columns.items():
        if name in cells and type_ not in C.TYPES:
            errors.append(
                ErrorItem(
                    f"columns.{name}",
                    f"no type {type_!r}",
                    expected=" | ".join(C.TYPES),
                    received=type_,
                    did_you_mean=close_names(str(type_), list(C.TYPES)),
                )
            )
    for name, fmt in formats.items():
        type_ = columns.get(name) or (current[cells[name]].reading.type if name in cells else None)
        if type_ not in C.TYPES:
            continue
        problem = format_problem(con, type_, fmt)
        if problem:
            errors.append(ErrorItem(f"formats.{name}", problem, expected=f"a {type_} format", received=fmt))
    return errors


def dump(typings: dict[str, Typing]) -> str:
    return json.dumps({cell: dataclasses.asdict(t) for cell, t in typings.items()}, ensure_ascii=False)


def load(text: str) -> dict[str, Typing]:
    out = {}
    for cell, d in json.loads(text).items():
        q = d["question"]
        question = (
            Question(
                q["kind"],
                q["text"],
                tuple(
                    Option(Reading(**o["reading"]), o["physical"], o["rows_rejected"], o["example"])
                    for o in q["options"]
                ),
            )
            if q
            else None
        )
        out[cell] = Typing(
            Reading(**d["reading"]),
            d["physical"],
            d["rejected"],
            question,
            d["forced"],
            d["clean"],
            d.get("spaces", False),  # stored since 2026-12-02
        )
    return out


def carry(
    con: duckdb.DuckDBPyConnection,
    relation: str,
    names: list[str],
    typings: dict[str, Typing],
    before: dict[str, Approved],
    markers: tuple[str, ...],
) -> dict[str, Typing]:
    """Apply the previous revision's person-set types to a new revision's typings.

    `before` holds the columns a person set, by name (person_set). A type carries when a column
    of that name is still there and every value still reads that way: it is kept as the person
    set it, with no question (the person answered it already, issue 56). One that no longer
    reads leaves the engine's typing, with an `approval_not_carried` question saying how many
    values the person's type would reject."""
    cells = dict(zip(names, typings))
    out = dict(typings)
    for name, approved in before.items():
        cell = cells.get(name)
        if cell is None:
            continue
        own = typings[cell]
        old = approved.typing
        person = _best(con, relation, cell, [old.reading], markers)
        if not person.rejected:
            out[cell] = person
            continue
        said = f"{approved.by or 'a person'} set {name!r} to {old.reading.label} at revision {approved.revision}"
        keep = Option(person.reading, person.physical, person.rejected, None)
        engine = Option(own.reading, own.physical, own.rejected, None)
        others = tuple(
            o for o in (own.question.options if own.question else ()) if o.reading not in (person.reading, own.reading)
        )
        text = (
            f"{said}, but {person.rejected} values of this revision do not read that way, so it is typed afresh as "
            f"{own.reading.label}. Keep that, or the earlier type and reject those rows?"
        )
        out[cell] = dataclasses.replace(own, question=Question("approval_not_carried", text, (engine, keep, *others)))
    return out


def person_set(row) -> dict[str, Approved]:
    """The columns a person set in a live revision's dataset, by name, from its stored typings
    (store.catalog.live_typings: revision, names, typings, approved_by; None for none)."""
    if row is None:
        return {}
    # The stored names and typings are in the dataset's column order.
    typings = load(row["typings"]).values()
    return {
        name: Approved(t, row["revision"], row["approved_by"])
        for name, t in zip(json.loads(row["names"]), typings)
        if t.forced
    }
