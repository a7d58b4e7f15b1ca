"""The one vectorised pass over a column's cells: each reading's gate and conversion counted for
every column at once, in DuckDB, on cells in long form (one row per distinct text of a column),
with the statistics a number's storage type is chosen from."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import duckdb
from sqlglot import exp

from planner.dialect import DIALECT, duckdb_function

from .. import number_forms as N
from .. import readings as C
from ..readings import Reading


class NumberStats(NamedTuple):
    """What a number reading's values need: their most decimals (scale), their most integer
    digits, how many are integers that overflow BIGINT, and whether they are measurements a
    DOUBLE holds exactly (`floating`; see physical_from)."""

    scale: int
    digits: int
    misses: int
    floating: bool = False


# A column is floating point, not fixed point, when its values carry at least this many decimals
# and not all the same number of them (0.980268513777 beside -0.0412318367011; 216.215 beside
# 211.83900000000003), and every value reads back from a DOUBLE as written. Money and fixed
# scales (0.50, 1.000000000000000000 wei) keep one scale, so they stay DECIMAL.
FLOAT_SCALE = 9


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
    single: bool = False  # every value is one character (a column of characters: ' ' may be one)
    spaces: int = 0  # cells of only whitespace (not empty)
    # Every value one of the letters y, n, t, f, and only one letter of a pair among them (F
    # alone, not beside T): Female or False? See infer/questions.decide.
    one_sided: bool = False
    # Every value a whole number with an exponent and no sign on it (12E3, 1E5, 0E1): written
    # as codes are, not as floating point writes a number (1.5E-7, 1e+20). See decide.
    coded_exponents: bool = False

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


def string_text(column: str, spaces: bool = False) -> exp.Expression:
    """A string column keeps its text as written; only an empty or blank cell is NULL (only an
    empty one with `spaces`: a column of single characters, where ' ' is a character).

    Only a cell that starts with a space and may be blank is trimmed to tell: trimming every cell
    of a column of long text costs several times the rest of its conversion, and text often
    starts with a space (13% of TPC-H's comments). A blank cell's second character is another
    blank (a space, or a Unicode space, which UTF-8 writes from byte C2 up) or nothing, so a
    cell whose second byte is printable ASCII is no blank: two comparisons of bytes tell,
    before any trim (`maybe_blank`)."""
    col = exp.column(column, quoted=True)
    empty = exp.func("nullif", col, exp.Literal.string(""))
    if spaces:
        return empty
    first = exp.func("starts_with", col, exp.Literal.string(" "))
    trimmed = exp.Case().when(exp.EQ(this=exp.func("trim", col), expression=exp.Literal.string("")), exp.null())
    # Nested, so the trim runs only where the comparisons let a blank through (DuckDB may
    # reorder the terms of one AND).
    return exp.Case().when(exp.and_(first, maybe_blank(col, " ")), trimmed.else_(col)).else_(empty)


# The least byte string a Unicode space (or any character past ASCII) starts with in UTF-8.
PAST_ASCII = "\u0080"


def maybe_blank(col: exp.Expression, prefix: str = "") -> exp.Expression:
    """False only for a cell (starting with `prefix`) whose next character is printable ASCII
    (byte 21 to 7E): no cell DuckDB's trim empties. A cheap test before trim: DuckDB compares
    text byte by byte, and a blank character is a space (20) or past ASCII (UTF-8 from C2)."""
    return exp.or_(
        exp.LT(this=col, expression=exp.Literal.string(prefix + "!")),
        exp.GTE(this=col, expression=exp.Literal.string(prefix + PAST_ASCII)),
    )


def _sql(e: exp.Expression) -> str:
    return e.sql(dialect=DIALECT)


def _q(name: str) -> str:
    return exp.to_identifier(name, quoted=True).sql(dialect=DIALECT)


def _names(columns: list[str]) -> str:
    return ", ".join(exp.Literal.string(c).sql(dialect=DIALECT) for c in columns)


def accepts(reading: Reading, t: exp.Expression) -> exp.Expression:
    """True where the reading reads the (non-null) text `t`. A number's gate is the whole test:
    text that passes it always converts."""
    if reading.type == "number":
        return C.matches(t, reading.gate)
    return exp.not_(exp.Is(this=C.convert(reading, t, C.physical_of(reading)), expression=exp.null()))


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


# The bool words of one letter, each beside its other (y with n, t with f): every value one of
# them and no pair met is one side alone (Tally.one_sided), Female or False.
LETTER_PAIRS = tuple((yes, no) for yes, no in zip(C.TRUE_WORDS, C.FALSE_WORDS) if len(yes) == len(no) == 1)
ONE_SIDED = f"coalesce(bool_and(lower(t) IN {tuple(w for pair in LETTER_PAIRS for w in pair)}), false)" + "".join(
    f" AND NOT (bool_or(lower(t) = '{yes}') AND bool_or(lower(t) = '{no}'))" for yes, no in LETTER_PAIRS
)


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
            "single": "coalesce(bool_and(length(t) = 1), false)",
            "spaces": _count("raw <> '' AND t IS NULL AND trim(raw) = ''"),
            "one_sided": ONE_SIDED,
            "coded_exponents": "coalesce(bool_and(regexp_full_match(t, '[0-9]+[eE][0-9]+')), false)",
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
            single=bool(got["single"]),
            spaces=got["spaces"],
            one_sided=bool(got["one_sided"]),
            coded_exponents=bool(got["coded_exponents"]),
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
        counts = [
            replace(n, number=_exact_digits(con, source, col, n.reading, markers, n.number))
            if n.number is not None and n.number.digits == 99
            else n
            for n in counts
        ]
        # A column that looks floating point is one only if a DOUBLE holds every value as written.
        out[col].counts = [
            replace(n, number=n.number._replace(floating=doubles_lost(con, source, col, n.reading, markers)[0] == 0))
            if n.number is not None and n.number.floating
            else n
            for n in counts
        ]
    return out


def double_exact(reading: Reading, t: exp.Expression) -> exp.Expression:
    """A number value a DOUBLE holds as written: the shortest text of its DOUBLE is the same
    number. Fifteen characters or fewer always are (15 significant digits survive a DOUBLE);
    a longer value is compared as DECIMAL(38, 20), so one with more than 20 decimals or 18
    integer digits is not."""
    plain = C.number_text(reading, t)
    decimal = exp.DataType.build("DECIMAL(38, 20)")
    # try_cast: SQL's AND does not guard the cast from a value the reading does not read.
    double = exp.TryCast(this=plain, to=exp.DataType.build("DOUBLE"))
    back = exp.cast(double, "VARCHAR")
    mark = exp.func("strpos", plain, exp.Literal.string("."))
    same = exp.EQ(this=exp.TryCast(this=plain, to=decimal), expression=exp.TryCast(this=back, to=decimal))
    # Within a DOUBLE's normal range: 1E400 is no inf, 1E-400 no 0 (only a zero written is 0).
    normal = exp.GTE(this=exp.func("abs", double), expression=exp.Literal.number(SMALLEST_NORMAL))
    zero = exp.and_(
        exp.EQ(this=double, expression=exp.Literal.number(0)),
        exp.func("regexp_full_match", plain, exp.Literal.string(r"[-+]?[0.]*([eE][-+]?[0-9]+)?")),
    )
    in_range = exp.func("coalesce", exp.and_(exp.func("isfinite", double), exp.or_(normal, zero)), exp.false())
    # Parenthesised: sqlglot writes NOT over an AND without them, which would negate in_range alone.
    return exp.paren(
        exp.and_(
            in_range,
            exp.or_(
                exp.LTE(this=exp.func("length", plain), expression=exp.Literal.number(15)),
                exp.and_(
                    exp.func("coalesce", same, exp.false()),
                    exp.or_(
                        exp.EQ(this=mark, expression=exp.Literal.number(0)),
                        exp.LTE(
                            this=exp.Sub(this=exp.func("length", plain), expression=mark),
                            expression=exp.Literal.number(20),
                        ),
                    ),
                ),
            ),
        )
    )


SMALLEST_NORMAL = "2.2250738585072014e-308"  # below it a DOUBLE keeps fewer digits (subnormal)


def doubles_lost(
    con: duckdb.DuckDBPyConnection, source: Source, col: str, reading: Reading, markers: tuple[str, ...]
) -> tuple[int, str | None]:
    """How many values of the column that `reading` reads a DOUBLE does not hold as written,
    and the first of them."""
    t = exp.column(T, quoted=True)
    gate = _sql(C.matches(t, reading.gate))
    lost, example = con.execute(
        f"SELECT coalesce(sum(n), 0), arg_min(t, __row_id) FROM {source.cells([col], markers)} WHERE t IS NOT NULL AND {gate}"
        f" AND NOT ({_sql(double_exact(reading, t))})"
    ).fetchone()
    return lost, example


def doubtful_years(
    con: duckdb.DuckDBPyConnection, source: Source, col: str, reading: Reading, markers: tuple[str, ...]
) -> tuple[int, str | None]:
    """How many values of a column of two-digit years `reading` reads after
    readings.doubtful_year_after (`05/06/60` as 2060), and the first of them."""
    t = exp.column(T, quoted=True)
    year = exp.func("year", C.convert(reading, t, "TIMESTAMP" if reading.type == "datetime" else "DATE"))
    late = _sql(exp.GT(this=year, expression=exp.Literal.number(C.doubtful_year_after())))
    doubtful, example = con.execute(
        f"SELECT coalesce(sum(n), 0), arg_min(t, __row_id) FROM {source.cells([col], markers)} WHERE t IS NOT NULL AND {late}"
    ).fetchone()
    return doubtful, example


# How many times the largest other value a lone-group value read as thousands must be to be in doubt.
OUTLIER = 100


def lone_groups(
    con: duckdb.DuckDBPyConnection, source: Source, col: str, reading: Reading, markers: tuple[str, ...]
) -> tuple[int, str | None]:
    """The values with one group mark and no decimal mark (7.125 under decimal_mark=,;group_mark=.),
    and the first of them, where read as thousands they stand far above every other value of the
    column (OUTLIER times): decimals written the other way, perhaps. (0, None) otherwise."""
    t = exp.column(T, quoted=True)
    g = re.escape(reading.group_mark or "")
    lone = _sql(
        exp.and_(
            exp.not_(exp.Is(this=t, expression=exp.null())),
            exp.not_(exp.func("contains", t, exp.Literal.string(reading.decimal_mark))),
            C.matches(t, rf"[^0-9]*[0-9]{{1,3}}{g}[0-9]{{3}}[^0-9]*"),
        )
    )
    size = f"abs(try_cast({_sql(C.number_text(reading, t))} AS DOUBLE))"
    got = _grouped(
        con,
        source.cells([col], markers),
        {
            "lone": _count(lone),
            "first": f"arg_min(raw, __row_id) FILTER (WHERE {lone})",
            "smallest": f"min({size}) FILTER (WHERE {lone})",
            "others": f"max({size}) FILTER (WHERE t IS NOT NULL AND NOT ({lone}))",
        },
    ).get(col, {})
    # 1,204 beside 123.5 and 3,238 is a thousands mark like theirs; 7.125 read as 7125 beside
    # 7,5 and 9,5 would be a thousand times every other value: only that is in doubt.
    if not got.get("lone") or (got["others"] or 0) * OUTLIER > (got["smallest"] or 0):
        return 0, None
    return got["lone"], got["first"]


def zone_endings(
    con: duckdb.DuckDBPyConnection, source: Source, col: str, markers: tuple[str, ...], most: int = 8
) -> tuple[list[str], int]:
    """The zone abbreviations ending the column's values (`… EST`), in order, and how many values
    end in none; no more than `most` names (a column of more is no column of zones)."""
    t = exp.column(T, quoted=True)
    # Anonymous: sqlglot drops the group number (1) from exp.func's REGEXP_EXTRACT, which then
    # answers the whole match, space and all (' EST').
    pattern = exp.Literal.string(rf"\s({C.ZONE_ABBREVIATION})$")
    ends = _sql(duckdb_function("regexp_extract", t, pattern, exp.Literal.number(1)))
    names, bare = con.execute(
        f"SELECT list_sort(list_distinct(list({ends}) FILTER (WHERE {ends} <> ''))), count(*) FILTER (WHERE {ends} = '') "
        f"FROM {source.cells([col], markers)} WHERE t IS NOT NULL"
    ).fetchone()
    return (names or [])[: most + 1], bare


def _has_stats(reading: Reading) -> bool:
    """A number reading whose values' scale and digits decide its storage type (not DOUBLE)."""
    return reading.type == "number" and not reading.exponent


def _reading_count(reading: Reading, got: dict[str, Any]) -> ReadingCount:
    """A reading's count from its aggregates in tally ({} where the column has no value to test)."""
    number = None
    if _has_stats(reading):
        scale = got.get("scale") or 0
        # Floating only in looks here: tally confirms it on the values (doubles_lost).
        looks = scale >= FLOAT_SCALE and (got.get("least_scale") or 0) < scale
        number = NumberStats(scale, _digits(got.get("magnitude")), got.get("misses") or 0, looks)
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
        "least_scale": f"min(length({plain}) - {mark}) FILTER (WHERE {accepted} AND {mark} > 0)",
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
    # Brackets around, or a minus after, a value written as an amount: that negative convention's
    # readings are worth trying (number_forms.negatives_for).
    amount = _sql(C.matches(t, N.AMOUNT))
    selects["holds", N.BRACKETED] = f"bool_or(contains(t, '(') AND contains(t, ')') AND {amount})"
    selects["holds", N.TRAILING] = f"bool_or(ends_with(t, '-') AND {amount})"
    found = _grouped(con, source.cells(columns, markers), selects)
    out = {c: Survey(set(), set()) for c in columns}
    for col, got in found.items():
        nonnull = got["nonnull"]
        families = {f for f in C.FAMILIES if nonnull and (nonnull - got["misses", f]) / nonnull >= share}
        symbols = {
            " " if symbol in ("\u00a0", "\u202f") else "'" if symbol == "’" else symbol
            for symbol in (*SYMBOLS, N.BRACKETED, N.TRAILING)
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
    if stats.floating:
        return "DOUBLE"
    if scale == 0 and (digits <= 18 or digits == 19 and stats.misses == 0):
        return "BIGINT"
    if digits + scale > 38:
        return "DOUBLE"
    return f"DECIMAL({max(digits, 1) + scale}, {scale})"


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
