"""Type inference by elimination over whole columns, in DuckDB.

Each column starts with every reading of readings.py; a reading is kept only if every
non-null value passes it. A sample (the first and a random set of rows) chooses quickly;
then the chosen reading is checked against every row, and a column the sample misled is
evaluated again whole. Where the values allow several readings that give different answers
(a date order, a decimal mark, 0/1, leading zeros, a few words among numbers) the column gets a
question, held as the option that rejects fewest rows (SPEC §4).
"""

from __future__ import annotations

from dataclasses import replace

import duckdb
from sqlglot import exp

from .. import readings as C
from ..readings import Reading
from ..settings import Settings
from .cells import ROW_ID, K, T, col, not_null, relation, temp_table
from .questions import Typing, decide
from .tally import ReadingCount, Source, Tally, facts_of, long_table, physical_from, survey, tally

SAMPLE_HEAD = 10_000
SAMPLE_SPREAD = 10_000


PROBE_CELLS = 64


def _recount(
    con: duckdb.DuckDBPyConnection,
    source: Source,
    again: dict[str, list[Reading]],
    markers: tuple[str, ...],
    before: dict[str, Tally],
    known: dict[str, Tally] | None = None,
) -> dict[str, Tally]:
    """Count over `source` only the readings `again` names per column; the column's other
    readings keep just their fail counts from `before`, which already rule them out. Each
    column's counts stay in the order of `before`. `known`: the columns' facts over `source`."""
    if not again:
        return {}
    counted = tally(con, source, list(again), again, markers, known=known)
    for c, merged in counted.items():
        fresh = {n.reading: n for n in merged.counts}
        merged.counts = [
            fresh[n.reading] if n.reading in fresh else ReadingCount(n.reading, n.fails) for n in before[c].counts
        ]
    return counted


def _sample_tallies(
    con: duckdb.DuckDBPyConnection,
    sample: Source,
    columns: list[str],
    readings: dict[str, list[Reading]],
    markers: tuple[str, ...],
) -> dict[str, Tally]:
    """The sample's tallies, exact for every reading that could be chosen.

    Each column's first cells (a probe) rule out most readings at once, and only the readings
    the probe leaves are counted over the whole sample. A column where none of those reads
    every value is counted again with every reading, for the ranking a mixed_values question
    needs. So a typed column costs a few readings per cell, not every reading there is."""
    if not sample.long:
        return tally(con, sample, columns, readings, markers)
    # The facts of every column's values over the whole sample, in one statement; each tally
    # below counts only readings. (The probe's tallies carry them too: only their counts, and
    # whether a column has a value at all, which the probe and the sample agree on, are read.)
    known = facts_of(con, sample, columns, markers)
    with temp_table(con, "__probe_", _probe(sample)) as probe_name:
        probed = tally(
            # The probe holds the first cells of every column the sample holds, not only these.
            con,
            Source(probe_name, long=True, holds=sample.holds),
            columns,
            readings,
            markers,
            known=known,
        )
    left = {c: [n.reading for n in probed[c].counts if n.fails == 0] for c in columns}
    counted = _recount(con, sample, {c: rs for c, rs in left.items() if rs}, markers, probed, known)
    out = {}
    for c in columns:
        out[c] = counted.get(c) or probed[c]
    mixed = [c for c in columns if probed[c].nonnull and not any(n.fails == 0 for n in out[c].counts)]
    if mixed:
        out.update(tally(con, sample, mixed, {c: readings[c] for c in mixed}, markers, known=known))
    # Columns no reading was counted for keep the probe's fail counts beside their facts.
    for c in columns:
        if c not in counted and c not in mixed:
            out[c] = replace(known[c], counts=[ReadingCount(n.reading, n.fails) for n in probed[c].counts])
    return out


def _probe(sample: Source) -> exp.Select:
    """The first PROBE_CELLS non-null cells of each column of a long-form sample."""
    window = exp.Window(
        this=exp.RowNumber(), partition_by=[col(K)], order=exp.Order(expressions=[exp.Ordered(this=col(ROW_ID))])
    )
    first = exp.LTE(this=window, expression=exp.Literal.number(PROBE_CELLS))
    return (
        exp.select(exp.Star())
        .from_(sample.relation(), copy=False)
        .where(not_null(col(T)), copy=False)
        .qualify(first, copy=False)
    )


def infer_columns(
    con: duckdb.DuckDBPyConnection,
    rel: str,
    columns: list[str],
    rows: int,
    settings: Settings,
    options: dict | None = None,
    forced: dict[str, Reading] | None = None,
) -> dict[str, Typing]:
    """Type every column of an extraction relation (`rel`: a FROM clause holding __row_id and cN)."""
    options = options or {}
    forced = forced or {}
    markers = settings.nulls(options)
    free = [c for c in columns if c not in forced]
    picked = sampled(rel, rows)
    with long_table(con, picked, columns, markers) as sample:
        whole = Source(rel) if picked is not rel else sample
        return infer_from(con, sample, whole, columns, free, forced, settings, options)[0]


def sampled(rel: str | exp.Expression, rows: int) -> str | exp.Expression:
    """The sample of an extraction relation of `rows` rows: every row of a short one (`rel`
    itself); else the first rows, then rows spread evenly over the rest (row ids filter the
    Parquet scan, so neither part sorts or samples the whole file)."""
    if rows <= SAMPLE_HEAD + SAMPLE_SPREAD:
        return rel
    step = max(1, (rows - SAMPLE_HEAD) // SAMPLE_SPREAD)
    head = exp.LTE(this=col(ROW_ID), expression=exp.Literal.number(SAMPLE_HEAD))
    spread = exp.EQ(
        this=exp.Mod(this=col(ROW_ID), expression=exp.Literal.number(step)), expression=exp.Literal.number(0)
    )
    picked = (
        exp.select(exp.Star()).from_(relation(rel), copy=False).where(exp.or_(head, spread, copy=False), copy=False)
    )
    return picked.subquery(copy=False)


def _candidates(
    con: duckdb.DuckDBPyConnection, source: Source, columns: list[str], settings: Settings, options: dict
) -> dict[str, list[Reading]]:
    """Each column's readings worth trying, from the symbols and families its values in `source` hold."""
    if not columns:
        return {}
    surveyed = survey(con, source, columns, settings.nulls(options), settings.mixed_values_share)
    # Columns of one kind hold the same symbols: their readings are listed once.
    listed: dict[frozenset[str], list[Reading]] = {}
    out = {}
    for c in columns:
        symbols = frozenset(surveyed[c].symbols)
        if symbols not in listed:
            listed[symbols] = C.candidate_readings(set(symbols), options.get("decimal_mark"), options.get("date_order"))
        out[c] = [r for r in listed[symbols] if r.type in surveyed[c].families]
    return out


def infer_from(
    con: duckdb.DuckDBPyConnection,
    sample: Source,
    whole: Source,
    columns: list[str],
    free: list[str],
    forced: dict[str, Reading],
    settings: Settings,
    options: dict,
) -> tuple[dict[str, Typing], dict[str, Tally]]:
    """Typings of `columns` chosen on `sample` and checked on `whole` (the same Source when the
    sample is every row), and the tallies they were decided on."""
    markers = settings.nulls(options)
    readings = _candidates(con, sample, free, settings, options)
    tallies = _sample_tallies(con, sample, free, readings, markers) if free else {}
    rel = whole
    if rel != sample and free:
        # The sample chose; one scan of every row checks each choice and the alternatives a
        # question would offer. A column the sample misled is counted whole, every reading.
        kept = {c: [n.reading for n in tallies[c].counts if n.fails == 0] for c in free}
        kept = {c: rs for c, rs in kept.items() if rs}
        checked = _recount(con, rel, kept, markers, tallies)
        misled = [c for c, rs in kept.items() if checked[c].count_of(rs[0]).fails > 0]
        # Surveyed again over every row: a unit or a negative convention first met past the
        # sample (credit notes in brackets after row 20,000) brings its readings.
        readings |= _candidates(con, rel, misled, settings, options)
        recount = tally(con, rel, misled, {c: readings[c] for c in misled}, markers) if misled else {}
        tallies.update(checked)
        tallies.update(recount)
    out: dict[str, Typing] = {}
    for c in free:
        out[c] = decide(con, rel, c, tallies[c], settings, markers)
    if forced:
        forced_tallies = tally(con, rel, list(forced), {c: [r] for c, r in forced.items()}, markers)
        for c, reading in forced.items():
            forced_tally = forced_tallies[c]
            (count,) = forced_tally.counts
            out[c] = Typing(
                reading,
                physical_from(reading, count.number),
                count.fails,
                None,
                forced=True,
                clean=forced_tally.plain and count.fails == 0,
            )
            tallies[c] = forced_tally
    return {c: out[c] for c in columns}, tallies
