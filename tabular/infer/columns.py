"""Type inference by elimination over whole columns, in DuckDB.

Each column starts with every reading of readings.py; a reading is kept only if every
non-null value passes it. A sample (the first and a random set of rows) chooses quickly;
then the chosen reading is checked against every row, and a column the sample misled is
evaluated again whole. Where the values allow several readings that give different answers
(a date order, a decimal mark, 0/1, leading zeros, a few words among numbers) the column gets a
question, held as the option that rejects fewest rows (SPEC §4).
"""

from __future__ import annotations

import re
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import duckdb
from sqlglot import exp

from .. import readings as C
from ..readings import Reading
from ..settings import Settings

SAMPLE_HEAD = 10_000
SAMPLE_SPREAD = 10_000


@dataclass(frozen=True)
class Option:
    reading: Reading
    physical: str
    rows_rejected: int
    example: str | None


@dataclass(frozen=True)
class Question:
    kind: str  # one of models.QuestionKind
    text: str
    options: tuple[Option, ...]


@dataclass(frozen=True)
class Typing:
    """What a column became: its reading, storage type, how many rows it rejects, and why.

    `clean`: every row was checked, none is rejected, and no cell holds a null marker or
    surrounding blanks, so the snapshot converts the raw text without testing it again."""

    reading: Reading
    physical: str
    rejected: int = 0
    question: Question | None = None
    forced: bool = False
    clean: bool = False


class NumberStats(NamedTuple):
    """What a number reading's values need: their most decimals (scale), their most integer
    digits, and how many are integers that overflow BIGINT (see physical_from)."""

    scale: int
    digits: int
    misses: int


@dataclass(frozen=True)
class ReadingCount:
    """One reading tried on a column: how many non-null values it refutes, the first of them
    (when asked for), and for a number reading what its values need."""

    reading: Reading
    fails: int = 0
    example: str | None = None
    number: NumberStats | None = None


@dataclass
class Tally:
    """What a count of a column's cells found: facts of the values, and one ReadingCount per
    reading tried, in the order they were given (their precedence)."""

    nonnull: int = 0
    counts: list[ReadingCount] = field(default_factory=list)
    leading_zeros: int = 0
    plus_ids: int = 0  # integers of 7 digits or more written with a '+' (+31 20 …: a phone number)
    negatives: bool = False
    zero_one: bool = False
    binary: bool = False  # every value is 0 or 1 (one of them may be missing)
    plain: bool = False  # no null marker and no surrounding blanks in any cell (see Typing.clean)

    def count_of(self, reading: Reading) -> ReadingCount:
        """The count of `reading` (the first, should the column have tried it twice)."""
        return next(n for n in self.counts if n.reading == reading)


def text_of(column: str, markers: tuple[str, ...], compact: bool = False) -> exp.Expression:
    """A cell as the readings see it: trimmed, with null markers as NULL."""
    return text_of_expr(exp.column(column, quoted=True), markers, compact)


def text_of_expr(cell: exp.Expression, markers: tuple[str, ...], compact: bool = False) -> exp.Expression:
    """`compact`: the form for statements of hundreds of columns. DuckDB's common-subexpression
    pass takes time quadratic in the repeated subexpressions of a SELECT (1,000 columns of the
    short form below: 3 s to plan), so there the markers are matched on the raw cell, spaces
    around allowed, and the cell is trimmed once; it runs a little slower per cell."""
    trimmed = exp.func("trim", cell)
    pattern = "(" + "|".join(re.escape(m) for m in markers) + ")"
    if compact:
        return exp.Case().when(C.matches(cell, f" *{pattern} *"), exp.null()).else_(trimmed)
    # One regex for the markers, tried only on short text: cheaper than an IN list per cell.
    short = exp.LTE(this=exp.func("length", trimmed), expression=exp.Literal.number(max(len(m) for m in markers)))
    return exp.Case().when(exp.and_(short, C.matches(trimmed, pattern)), exp.null()).else_(trimmed)


def string_text(column: str) -> exp.Expression:
    """A string column keeps its text as written; only an empty or blank cell is NULL.

    Only a cell that starts with a space is trimmed to tell: trimming every cell of a column of
    long text costs several times the rest of its conversion."""
    col = exp.column(column, quoted=True)
    empty = exp.EQ(this=col, expression=exp.Literal.string(""))
    blank = exp.and_(
        exp.func("starts_with", col, exp.Literal.string(" ")),
        exp.EQ(this=exp.func("trim", col), expression=exp.Literal.string("")),
    )
    return exp.Case().when(exp.or_(empty, blank), exp.null()).else_(col)


def _sql(e: exp.Expression) -> str:
    return e.sql(dialect="duckdb")


def _q(name: str) -> str:
    return exp.to_identifier(name, quoted=True).sql(dialect="duckdb")


def _names(columns: list[str]) -> str:
    return ", ".join(exp.Literal.string(c).sql(dialect="duckdb") for c in columns)


def accepts(reading: Reading, t: exp.Expression) -> exp.Expression:
    """True where the reading reads the (non-null) text `t`. A number's gate is the whole test:
    text that passes it always converts."""
    if reading.type == "number":
        return C.matches(t, reading.gate)
    return exp.Not(this=exp.Is(this=C.convert(reading, t, C.physical_of(reading)), expression=exp.null()))


@dataclass(frozen=True)
class Source:
    """Cells to count over. `long`: a table already in long form (k, __row_id, raw, t, n), one
    row per distinct non-null text of a column, k the cell column's name, n how many cells hold
    it, __row_id the first; else a FROM clause in the extraction's wide form (__row_id and one
    text column per cell column), read as one row per cell (n = 1).

    Counting runs on the long form: a fixed set of expressions per cell, grouped by column, so
    the work grows with the cells counted and the statements stay the same size however wide
    the table is (DuckDB slows down past linear with thousands of aggregates in one SELECT)."""

    sql: str
    long: bool = False

    def cells(self, columns: list[str], markers: tuple[str, ...]) -> str:
        """The long form of `columns`' cells as a FROM clause; only those columns are read."""
        if self.long:
            return f"(SELECT * FROM {self.sql} WHERE k IN ({_names(columns)}))"
        return "(" + cells_sql(self.sql, columns, markers) + ")"


def cells_sql(relation: str, columns: list[str], markers: tuple[str, ...]) -> str:
    """SELECT of the long form (k, __row_id, raw, t, n = 1) of `columns` of a wide relation."""
    t = text_of_expr(exp.column("raw", quoted=True), markers)
    return f"SELECT k, __row_id, raw, {_sql(t)} AS t, 1 AS n FROM ({_raw_cells(relation, columns)})"


def _raw_cells(relation: str, columns: list[str]) -> str:
    """SELECT of (k, __row_id, raw): each non-null cell of `columns` with its column's name."""
    if len(columns) == 1:
        (c,) = columns
        inner = f"SELECT {_names([c])} AS k, __row_id, {_q(c)} AS raw FROM {relation} WHERE {_q(c)} IS NOT NULL"
    else:
        # Two lists unnested side by side pair each cell with its column's name.
        inner = (
            f"SELECT * FROM (SELECT unnest([{_names(columns)}]) AS k, __row_id, unnest([{', '.join(_q(c) for c in columns)}]) AS raw"
            f" FROM {relation}) WHERE raw IS NOT NULL"
        )
    return inner


def _count(condition: str) -> str:
    """The cells where `condition` holds, each counted n times (Source: n is 1, or how many
    cells hold a distinct text)."""
    return f"coalesce(sum(n) FILTER (WHERE {condition}), 0)"


def _grouped(con: duckdb.DuckDBPyConnection, source: str, selects: dict[Any, str]) -> dict[str, dict[Any, Any]]:
    """Run named aggregates per column (k) over long-form cells: {k: {name: value}}."""
    names = list(selects)
    sql = f"SELECT k, {', '.join(selects.values())} FROM {source} GROUP BY k"
    return {k: dict(zip(names, values)) for k, *values in con.execute(sql).fetchall()}


T = "t"
# An integer written with a '+' and 7 digits or more is a phone number, not a signed quantity.
PLUS_ID = r"\+[0-9]{7,}"


def tally(
    con: duckdb.DuckDBPyConnection,
    source: Source,
    columns: list[str],
    readings: dict[str, list[Reading]],
    markers: tuple[str, ...],
    examples: bool = False,
) -> dict[str, Tally]:
    """Count, per column and reading, the non-null values the reading refutes, and for number
    readings the scale and digits their values need.

    One statement for what every column needs (non-null cells, blanks, zeros), then one per
    reading over just the columns that try it: each cell is tested once per reading of its
    own column, whatever the width of the table."""
    out = {col: Tally(plain=True) for col in columns}
    if not columns:
        return out
    t = exp.column(T, quoted=True)
    zeros = exp.and_(
        exp.or_(*[exp.func("starts_with", t, exp.Literal.string(p)) for p in ("0", "-0", "+0")]),
        C.matches(t, r"[+-]?0[0-9]+"),
    )
    base = _grouped(
        con,
        source.cells(columns, markers),
        {
            "nonnull": _count("t IS NOT NULL"),
            "plain": "bool_and(t IS NOT NULL AND raw = t)",
            "leading_zeros": _count(_sql(zeros)),
            # 0/1 is a question only when both appear: a column of zeros is a number.
            "zero_one": "coalesce(bool_and(t IN ('0', '1')) AND bool_or(t = '0') AND bool_or(t = '1'), false)",
            "binary": "coalesce(bool_and(t IN ('0', '1')), false)",
            "plus_ids": _count(
                _sql(exp.and_(exp.func("starts_with", t, exp.Literal.string("+")), C.matches(t, PLUS_ID)))
            ),
            "negatives": "coalesce(bool_or(starts_with(t, '-')), false)",
        },
    )
    for col, got in base.items():
        out[col] = Tally(
            nonnull=got["nonnull"],
            plain=bool(got["plain"]),
            leading_zeros=got["leading_zeros"],
            zero_one=bool(got["zero_one"]),
            binary=bool(got["binary"]),
            plus_ids=got["plus_ids"],
            negatives=bool(got["negatives"]),
        )
    by_reading: dict[Reading, list[str]] = {}
    for col in columns:
        for reading in readings[col]:
            by_reading.setdefault(reading, []).append(col)
    found: dict[Reading, dict[str, dict[str, Any]]] = {}
    for reading, cols in by_reading.items():
        accepted = exp.column("a", quoted=True)
        a = _sql(accepted)
        selects = {"fails": _count(f"NOT {a}")}
        if examples:
            selects["example"] = f"arg_min(t, __row_id) FILTER (WHERE NOT {a})"
        if _has_stats(reading):
            selects |= _number_stats(reading, t, a)
        inner = f"(SELECT k, __row_id, t, n, {_sql(accepts(reading, t))} AS a FROM {source.cells(cols, markers)} WHERE t IS NOT NULL)"
        found[reading] = _grouped(con, inner, selects)
    for col in columns:
        # Each count holds the column's own reading object (_decide tells readings by identity).
        counts = [_reading_count(reading, found[reading].get(col, {})) for reading in readings[col]]
        # A magnitude a DOUBLE cannot count exactly (_digits says 99) is counted on the text.
        out[col].counts = [
            replace(n, number=_exact_digits(con, source, col, n.reading, markers, n.number))
            if n.number is not None and n.number.digits == 99
            else n
            for n in counts
        ]
    return out


def _has_stats(reading: Reading) -> bool:
    """A number reading whose values' scale and digits decide its storage type (not DOUBLE)."""
    return reading.type == "number" and not reading.exponent


def _reading_count(reading: Reading, got: dict[str, Any]) -> ReadingCount:
    """A reading's count from its aggregates in tally ({} where the column has no value to test)."""
    number = None
    if _has_stats(reading):
        number = NumberStats(got.get("scale") or 0, _digits(got.get("magnitude")), got.get("misses") or 0)
    return ReadingCount(reading, got.get("fails", 0), got.get("example"), number)


def _exact_digits(
    con: duckdb.DuckDBPyConnection,
    source: Source,
    col: str,
    reading: Reading,
    markers: tuple[str, ...],
    stats: NumberStats,
) -> NumberStats:
    """Digits counted on the text, for columns whose magnitude a DOUBLE cannot count exactly."""
    t = exp.column(T, quoted=True)
    plain = _sql(C.number_text(reading, t))
    gate = _sql(C.matches(t, reading.gate))
    (digits,) = con.execute(
        f"SELECT coalesce(max(length(ltrim(split_part({plain}, '.', 1), '+-0'))), 0) FROM {source.cells([col], markers)} WHERE t IS NOT NULL AND {gate}"
    ).fetchone()
    return stats._replace(digits=digits)


def _number_stats(reading: Reading, t: exp.Expression, accepted: str) -> dict[str, str]:
    """Aggregates giving the scale and integer digits of a number reading's values, and the
    integers that overflow BIGINT (only 19-digit ones can).

    The digits come from the largest magnitude as a DOUBLE, which is exact for the digit count
    below 15 digits; wider columns are counted on the text (see physical_from)."""
    plain = _sql(C.number_text(reading, t))
    mark = f"strpos({plain}, '.')"
    return {
        "scale": f"max(CASE WHEN {mark} > 0 THEN length({plain}) - {mark} ELSE 0 END) FILTER (WHERE {accepted})",
        "magnitude": f"max(abs(try_cast({plain} AS DOUBLE))) FILTER (WHERE {accepted})",
        "misses": _count(f"{accepted} AND length({plain}) >= 19 AND try_cast({plain} AS BIGINT) IS NULL"),
    }


def _digits(magnitude: float | None) -> int:
    """Integer digits of the largest magnitude; 15 and over only says 'wide' (counted exactly later)."""
    if not magnitude:
        return 0
    return len(str(int(magnitude))) if magnitude < 1e15 else 99


SYMBOLS = (*C.UNITS, ",", ".", " ", "\u00a0", "\u202f", "'", "’", "e", "E")


class Survey(NamedTuple):
    """A column's first elimination: the unit symbols and number marks its values hold at all,
    and the reading families (candidates.FAMILIES) enough of its values could belong to."""

    symbols: set[str]
    families: set[str]


def survey(
    con: duckdb.DuckDBPyConnection, source: Source, columns: list[str], markers: tuple[str, ...], share: float
) -> dict[str, Survey]:
    """A cheap first elimination per column: families are those at least `share` of its values
    could belong to."""
    t = exp.column(T, quoted=True)
    selects: dict[Any, str] = {"nonnull": _count("t IS NOT NULL")}
    for family, pattern in C.FAMILIES.items():
        selects["misses", family] = _count(f"t IS NOT NULL AND NOT {_sql(C.matches(t, pattern))}")
    for symbol in SYMBOLS:
        selects["holds", symbol] = f"bool_or(contains(raw, {_sql(exp.Literal.string(symbol))}))"
    found = _grouped(con, source.cells(columns, markers), selects)
    out = {c: Survey(set(), set()) for c in columns}
    for col, got in found.items():
        nonnull = got["nonnull"]
        families = {f for f in C.FAMILIES if nonnull and (nonnull - got["misses", f]) / nonnull >= share}
        symbols = {
            " " if symbol in ("\u00a0", "\u202f") else "'" if symbol == "’" else symbol
            for symbol in SYMBOLS
            if got["holds", symbol]
        }
        out[col] = Survey(symbols, families)
    return out


def symbols_of(
    con: duckdb.DuckDBPyConnection, source: Source, columns: list[str], markers: tuple[str, ...]
) -> dict[str, set[str]]:
    """Which unit symbols and number marks each column's values contain at all."""
    return {c: surveyed.symbols for c, surveyed in survey(con, source, columns, markers, 1.0).items()}


def physical_from(reading: Reading, stats: NumberStats | None) -> str:
    """BIGINT, DECIMAL(p, s) or DOUBLE for a reading, from its values' scale and digits (SPEC §3)."""
    if reading.type != "number":
        return C.physical_of(reading)
    if reading.exponent or stats is None:
        return "DOUBLE"
    scale, digits = stats.scale, stats.digits
    if scale == 0 and (digits <= 18 or digits == 19 and stats.misses == 0):
        return "BIGINT"
    if digits + scale > 38:
        return "DOUBLE"
    return f"DECIMAL({max(digits, 1) + scale}, {scale})"


def _choose(tally: Tally, share: float) -> tuple[ReadingCount | None, list[ReadingCount]]:
    """The first reading that reads every value, else (None, readings ranked by what they read)."""
    if tally.nonnull == 0:
        return None, []
    for count in tally.counts:
        if count.fails == 0:
            return count, []
    ranked = sorted(tally.counts, key=lambda n: n.fails)  # stable: the first reading on a tie
    return None, [n for n in ranked if (tally.nonnull - n.fails) / tally.nonnull >= share]


PROBE_CELLS = 64


def _recount(
    con: duckdb.DuckDBPyConnection,
    source: Source,
    again: dict[str, list[Reading]],
    markers: tuple[str, ...],
    before: dict[str, Tally],
) -> dict[str, Tally]:
    """Count over `source` only the readings `again` names per column; the column's other
    readings keep just their fail counts from `before`, which already rule them out. Each
    column's counts stay in the order of `before`."""
    if not again:
        return {}
    counted = tally(con, source, list(again), again, markers)
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
    probe_name = f"__probe_{uuid.uuid4().hex[:12]}"
    con.execute(
        f"CREATE TEMP TABLE {probe_name} AS SELECT * FROM {sample.sql} WHERE t IS NOT NULL"
        f" QUALIFY row_number() OVER (PARTITION BY k ORDER BY __row_id) <= {PROBE_CELLS}"
    )
    try:
        probed = tally(con, Source(probe_name, long=True), columns, readings, markers)
    finally:
        con.execute(f"DROP TABLE IF EXISTS {probe_name}")
    left = {c: [n.reading for n in probed[c].counts if n.fails == 0] for c in columns}
    counted = _recount(con, sample, {c: rs for c, rs in left.items() if rs}, markers, probed)
    out = {}
    for c in columns:
        out[c] = counted.get(c) or probed[c]
    mixed = [c for c in columns if probed[c].nonnull and not any(n.fails == 0 for n in out[c].counts)]
    if mixed:
        out.update(tally(con, sample, mixed, {c: readings[c] for c in mixed}, markers))
    # Columns no reading was counted for still need their sample-wide base counts.
    bare = [c for c in columns if c not in counted and c not in mixed]
    if bare:
        out.update(tally(con, sample, bare, {c: [] for c in bare}, markers))
        for c in bare:
            out[c].counts = [ReadingCount(n.reading, n.fails) for n in probed[c].counts]
    return out


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
        whole = Source(rel) if picked != rel else sample
        return infer_from(con, sample, whole, columns, free, forced, settings, options)[0]


def sampled(rel: str, rows: int) -> str:
    """The sample of an extraction relation of `rows` rows: every row of a short one; else the
    first rows, then rows spread evenly over the rest (row ids filter the Parquet scan, so
    neither part sorts or samples the whole file)."""
    if rows <= SAMPLE_HEAD + SAMPLE_SPREAD:
        return rel
    step = max(1, (rows - SAMPLE_HEAD) // SAMPLE_SPREAD)
    return f"(SELECT * FROM {rel} WHERE __row_id <= {SAMPLE_HEAD} OR __row_id % {step} = 0)"


@contextmanager
def long_table(
    con: duckdb.DuckDBPyConnection, relation: str, columns: list[str], markers: tuple[str, ...]
) -> Iterator[Source]:
    """A temporary table of `relation`'s cells in long form, each cell's text computed once:
    the counts of a sample run on it many times."""
    name = f"__cells_{uuid.uuid4().hex[:12]}"
    # Each distinct text of a column once, with how many cells hold it (n) and the first row
    # that does: every count below weighs by n, so a column of repeated values costs its
    # distinct values, not its rows.
    t = text_of_expr(exp.column("raw", quoted=True), markers)
    con.execute(
        f"CREATE TEMP TABLE {name} AS SELECT k, __row_id, raw, {_sql(t)} AS t, n FROM"
        f" (SELECT k, min(__row_id) AS __row_id, raw, count(*) AS n FROM ({_raw_cells(relation, columns)}) GROUP BY k, raw)"
    )
    try:
        yield Source(name, long=True)
    finally:
        con.execute(f"DROP TABLE IF EXISTS {name}")


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
    surveyed = survey(con, sample, free, markers, settings.mixed_values_share) if free else {}
    readings = {
        c: [
            r
            for r in C.candidate_readings(surveyed[c].symbols, options.get("decimal_mark"), options.get("date_order"))
            if r.type in surveyed[c].families
        ]
        for c in free
    }
    tallies = _sample_tallies(con, sample, free, readings, markers) if free else {}
    rel = whole
    if rel != sample and free:
        # The sample chose; one scan of every row checks each choice and the alternatives a
        # question would offer. A column the sample misled is counted whole, every reading.
        kept = {c: [n.reading for n in tallies[c].counts if n.fails == 0] for c in free}
        kept = {c: rs for c, rs in kept.items() if rs}
        checked = _recount(con, rel, kept, markers, tallies)
        misled = [c for c, rs in kept.items() if checked[c].count_of(rs[0]).fails > 0]
        recount = tally(con, rel, misled, {c: readings[c] for c in misled}, markers) if misled else {}
        tallies.update(checked)
        tallies.update(recount)
    out: dict[str, Typing] = {}
    for c in free:
        out[c] = _decide(con, rel, c, tallies[c], settings, markers)
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


def _decide(
    con: duckdb.DuckDBPyConnection,
    rel: Source,
    col: str,
    counted: Tally,
    settings: Settings,
    markers: tuple[str, ...],
) -> Typing:
    """A column's typing from the counts of its readings, with the question its values leave open."""
    chosen, ranked = _choose(counted, settings.mixed_values_share)
    if chosen is None:
        if not ranked:
            return Typing(C.STRING, "VARCHAR")
        best = ranked[0].reading
        (whole,) = tally(con, rel, [col], {col: [best]}, markers, examples=True)[col].counts
        physical = physical_from(best, whole.number)
        fails, example = whole.fails, whole.example
        question = Question(
            "mixed_values",
            f"Most values read as {best.type} but {fails} do not (e.g. {example!r}). "
            f"Keep the column as text, or read it as {best.type} and reject those rows?",
            (Option(C.STRING, "VARCHAR", 0, None), Option(best, physical, fails, example)),
        )
        return Typing(C.STRING, "VARCHAR", 0, question)
    reading = chosen.reading
    full = [n for n in counted.counts if n.fails == 0]
    if reading.type == "number":
        physical = physical_from(reading, chosen.number)
        plain_integer = physical == "BIGINT" and reading.unit is None and reading.group_mark is None
        if plain_integer and counted.leading_zeros:
            return _held_as_text(
                "leading_zeros",
                f"{counted.leading_zeros} values start with 0 (e.g. an identifier like '007'). "
                "Keep them as text, or read them as numbers and drop the zeros?",
                reading,
                physical,
            )
        if plain_integer and counted.plus_ids and not counted.negatives:
            return _held_as_text(
                "leading_plus",
                f"{counted.plus_ids} values start with + (e.g. a phone number like '+31205550123'). "
                "Keep them as text, or read them as numbers and drop the +?",
                reading,
                physical,
            )
        if physical == "BIGINT" and counted.zero_one:
            question = Question(
                "bool_or_number",
                "Every value is 0 or 1. Is this a number, or a yes/no flag?",
                (Option(reading, physical, 0, None), Option(C.BOOL_01, "BOOLEAN", 0, None)),
            )
            return Typing(reading, physical, 0, question)
        rivals = [
            n
            for n in full
            if n.reading.type == "number"
            and n.reading.decimal_mark != reading.decimal_mark
            and n.reading.unit == reading.unit
        ]
        if rivals and physical.startswith("DECIMAL") and not physical.endswith(", 0)"):
            rival = rivals[0].reading
            rival_physical = physical_from(rival, rivals[0].number)
            question = Question(
                "decimal_mark",
                f"Is '{reading.decimal_mark}' the decimal mark here, or a thousands separator?",
                (Option(reading, physical, 0, None), Option(rival, rival_physical, 0, None)),
            )
            return Typing(reading, physical, 0, question, clean=counted.plain)
        return Typing(reading, physical, clean=counted.plain)
    physical = C.physical_of(reading)
    if reading is C.ISO_TIMESTAMPTZ:
        # Counted on every value: the sample's tally of the plain reading may stop at a probe.
        offsets = tally(con, rel, [col], {col: [C.ISO_TIMESTAMP]}, markers)[col]
        plain = offsets.nonnull - offsets.count_of(C.ISO_TIMESTAMP).fails
        if plain:
            question = Question(
                "mixed_values",
                f"{plain} values have no time zone or offset while the others do. Read them as UTC, or keep the column as text?",
                (Option(reading, physical, 0, None), Option(C.STRING, "VARCHAR", 0, None)),
            )
            return Typing(reading, physical, 0, question, clean=counted.plain)
    if reading.order in ("DMY", "MDY"):
        twin = _twin(reading)
        match = [n.reading for n in full if n.reading.format == twin]
        if match:
            question = Question(
                "date_order",
                "Every value reads both as day/month and as month/day (like 03/04/2024). Which order is it?",
                (Option(reading, physical, 0, None), Option(match[0], physical, 0, None)),
            )
            return Typing(reading, physical, 0, question, clean=counted.plain)
    return Typing(reading, physical, clean=counted.plain)


def _held_as_text(kind: str, question: str, reading: Reading, physical: str) -> Typing:
    """A column whose values all read as `reading`, held as text until a person says which it is."""
    return Typing(
        C.STRING,
        "VARCHAR",
        0,
        Question(kind, question, (Option(C.STRING, "VARCHAR", 0, None), Option(reading, physical, 0, None))),
    )


def _fractional(t: Typing) -> bool:
    """Numbers with decimals: a decimal mark was read, not only integers."""
    return (
        t.physical.startswith("DECIMAL")
        and not t.physical.endswith(", 0)")
        or t.physical == "DOUBLE"
        and t.reading.decimal_mark != "."
    )


def _twin(reading: Reading) -> str:
    """The same pattern with day and month swapped."""
    return reading.format.replace("%d", "\0").replace("%m", "%d").replace("\0", "%m")


def settle_by_evidence(typings: dict[str, Typing]) -> dict[str, Typing]:
    """A question another column of the same table answers is no question (one file, one habit)."""
    proven_orders = {
        t.reading.order for t in typings.values() if t.question is None and t.reading.order in ("DMY", "MDY")
    }
    proven_marks = {
        t.reading.decimal_mark
        for t in typings.values()
        if t.question is None
        and t.reading.type == "number"
        and (t.physical.startswith("DECIMAL") or t.reading.group_mark)
    }
    out = dict(typings)
    for col, t in typings.items():
        if t.question is None and not t.forced and t.reading.type == "number" and _fractional(t):
            # '1,7' read with a decimal comma in a file whose other numbers use '.': ask.
            # Compared among columns of the same unit: euros may be written 11,10 beside dollars 12.00.
            marks = Counter(
                u.reading.decimal_mark
                for c, u in typings.items()
                if c != col
                and u.question is None
                and u.reading.type == "number"
                and u.reading.unit == t.reading.unit
                and _fractional(u)
            )
            own = marks[t.reading.decimal_mark] + 1
            # As many columns each way: each side is asked (a ';' file's amounts use ',', its
            # coordinates may use '.'; a ',' file's quoted "1,7" may be a list): no silent pick.
            mark, count = max(
                ((m, n) for m, n in marks.items() if m != t.reading.decimal_mark),
                key=lambda kv: kv[1],
                default=(None, 0),
            )
            if mark is not None and count >= own:
                out[col] = _held_as_text(
                    "decimal_mark",
                    f"The other numbers of this table use '{mark}' as the decimal mark, but these read as numbers only with "
                    f"'{t.reading.decimal_mark}'. Keep them as text, or read '{t.reading.decimal_mark}' as the decimal mark here?",
                    t.reading,
                    t.physical,
                )
            continue
        if t.question is None or t.question.kind not in ("date_order", "decimal_mark"):
            continue
        proven = proven_orders if t.question.kind == "date_order" else proven_marks
        if len(proven) != 1:
            continue
        (value,) = proven
        for opt in t.question.options:
            if (opt.reading.order if t.question.kind == "date_order" else opt.reading.decimal_mark) == value:
                out[col] = Typing(opt.reading, opt.physical, opt.rows_rejected)
    return out
