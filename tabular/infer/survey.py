"""A column's first elimination, before any reading is counted: the unit symbols and number marks
its values hold at all, and the reading families (readings.FAMILIES) enough of its values could
belong to, in one grouped statement over the long-form cells (cells.py)."""

from __future__ import annotations

from typing import Any, NamedTuple

import duckdb
from sqlglot import exp

from planner.dialect import duckdb_function

from .. import number_forms as N
from .. import readings as C
from .cells import PAST_ASCII, RAW, Source, T, count, gated, grouped, not_null
from .cells import col as _col


def _lit(text: str) -> exp.Literal:
    return exp.Literal.string(text)


SYMBOLS = (*C.UNITS, ",", ".", " ", "\u00a0", "\u202f", "'", "’", "e", "E")
WIDE = "__wide"  # survey: whether a cell holds a character past ASCII


def family_gate(family: str) -> exp.Expression | None:
    """A cheap test every text of a reading family (C.FAMILIES) passes, tried before the
    family's regex (None: the regex alone): a bool word is short, a time or a datetime has a
    ':', a duration a ':' or a 'P'."""
    t = _col(T)
    if family == "bool":
        return exp.LTE(this=exp.Length(this=t), expression=exp.Literal.number(max(map(len, C.BOOL_WORDS))))
    if family in ("datetime", "time"):
        return exp.Contains(this=t, expression=_lit(":"))
    if family == "duration":
        return exp.Or(
            this=exp.Contains(this=_col(T), expression=_lit(":")),
            expression=exp.Contains(this=t.copy(), expression=_lit("P")),
        )
    return None


class Survey(NamedTuple):
    """A column's first elimination: the unit symbols and number marks its values hold at all,
    and the reading families (readings.FAMILIES) enough of its values could belong to."""

    symbols: set[str]
    families: set[str]


def survey(
    con: duckdb.DuckDBPyConnection, source: Source, columns: list[str], markers: tuple[str, ...], share: float
) -> dict[str, Survey]:
    """A cheap first elimination per column: families are those at least `share` of its values
    could belong to."""
    t = _col
    selects: dict[Any, exp.Expr] = {"nonnull": count(not_null(t(T)))}
    for family, pattern in C.FAMILIES.items():
        gate = family_gate(family)
        read = C.matches(t(T), pattern) if gate is None else gated(gate, C.matches(t(T), pattern))
        selects["misses", family] = count(exp.and_(not_null(t(T)), exp.not_(read), copy=False))
    for symbol in SYMBOLS:
        holds = exp.Contains(this=t(RAW), expression=_lit(symbol))
        # A symbol past ASCII only in a cell that holds such a character (most cells hold none).
        selects["holds", symbol] = exp.LogicalOr(this=gated(t(WIDE), holds) if symbol >= PAST_ASCII else holds)

    def contains(text: str) -> exp.Expression:
        return exp.Contains(this=t(T), expression=_lit(text))

    # Brackets around, or a minus after, a value written as an amount: that negative convention's
    # readings are worth trying (number_forms.negatives_for).
    amount = C.matches(t(T), N.AMOUNT)
    bracketed = gated(exp.and_(contains("("), contains(")"), copy=False), amount.copy())
    selects["holds", N.BRACKETED] = exp.LogicalOr(this=bracketed)
    trailing = gated(exp.EndsWith(this=t(T), expression=_lit("-")), amount)
    selects["holds", N.TRAILING] = exp.LogicalOr(this=trailing)
    # Whether a cell holds a character past ASCII: more bytes than characters.
    wide = exp.NEQ(this=duckdb_function("strlen", t(RAW)), expression=exp.Length(this=t(RAW)))
    cells = (
        exp.select(exp.Star(), wide.as_(WIDE, quoted=True), copy=False)
        .from_(source.cells(columns, markers), copy=False)
        .subquery(copy=False)
    )
    found = grouped(con, cells, selects)
    out = {c: Survey(set(), set()) for c in columns}
    for column, got in found.items():
        nonnull = got["nonnull"]
        families = {f for f in C.FAMILIES if nonnull and (nonnull - got["misses", f]) / nonnull >= share}
        symbols = {
            " " if symbol in ("\u00a0", "\u202f") else "'" if symbol == "’" else symbol
            for symbol in (*SYMBOLS, N.BRACKETED, N.TRAILING)
            if got["holds", symbol]
        }
        out[column] = Survey(symbols, families)
    return out


def symbols_of(
    con: duckdb.DuckDBPyConnection, source: Source, columns: list[str], markers: tuple[str, ...]
) -> dict[str, set[str]]:
    """Which unit symbols and number marks each column's values contain at all."""
    return {c: surveyed.symbols for c, surveyed in survey(con, source, columns, markers, 1.0).items()}
