"""The typing a column gets and the question its values leave open, asked of the kinds table
(infer/kinds.py) in its order, from the tallies (tally.py); and the questions another column of
the table asks or answers."""

from __future__ import annotations

import duckdb

from ..settings import Settings
from .kinds import KINDS, Kind
from .tally import ReadingCount, Source, Tally
from .typings import Column, Option, Question, Typing

__all__ = ["KINDS", "Kind", "Option", "Question", "Typing", "choose", "decide", "settle_by_evidence"]


def choose(tally: Tally, share: float) -> tuple[ReadingCount | None, list[ReadingCount]]:
    """The first reading that reads every value, else (None, readings ranked by what they read)."""
    if tally.nonnull == 0:
        return None, []
    for count in tally.counts:
        if count.fails == 0:
            return count, []
    ranked = sorted(tally.counts, key=lambda n: n.fails)  # stable: the first reading on a tie
    return None, [n for n in ranked if (tally.nonnull - n.fails) / tally.nonnull >= share]


def decide(
    con: duckdb.DuckDBPyConnection,
    rel: Source,
    col: str,
    counted: Tally,
    settings: Settings,
    markers: tuple[str, ...],
) -> Typing:
    """A column's typing from the counts of its readings, with the question its values leave
    open: the first kind of KINDS that asks one, else the reading as chosen (or text)."""
    column = Column(con, rel, col, counted, markers, *choose(counted, settings.mixed_values_share))
    for kind in KINDS.values():
        ask = kind.ask(column) if kind.ask is not None else None
        if ask is not None:
            return kind.asked(ask)
    return column.held()


def settle_by_evidence(typings: dict[str, Typing]) -> dict[str, Typing]:
    """A question another column of the same table answers is no question (one file, one habit),
    and one it raises is asked: each kind's `across`, all read from the typings as they came."""
    out = dict(typings)
    for kind in KINDS.values():
        if kind.across is not None:
            for col, found in kind.across(typings).items():
                out[col] = found if isinstance(found, Typing) else kind.asked(found)
    return out
