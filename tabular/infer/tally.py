"""The one vectorised pass over a column's cells: each reading's gate and conversion counted for
every column at once, in DuckDB, on cells in long form (one row per distinct text of a column),
with the statistics a number's storage type is chosen from."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import duckdb
from sqlglot import exp

from planner.dialect import DIALECT, duckdb_function

from .. import readings as C
from ..readings import Reading
from .cells import (
    PAST_ASCII,
    RAW,
    ROW_ID,
    Source,
    T,
    count,
    gated,
    grouped,
    not_null,
    one_row,
    only_where,
    text_of_expr,
)
from .cells import col as _col
from .cells import long_table as long_table  # tally's own name for it (ingest/ imports it from here)
from .survey import Survey as Survey  # the first elimination (columns, ingest/ and retype import it from here)
from .survey import survey as survey
from .survey import symbols_of as symbols_of


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
    """A cell as the readings see it: trimmed, with null markers as NULL (cells.text_of_expr)."""
    return text_of_expr(exp.column(column, quoted=True), markers, compact)


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
    empty = exp.Nullif(this=col, expression=exp.Literal.string(""))
    if spaces:
        return empty
    first = exp.StartsWith(this=col, expression=exp.Literal.string(" "))
    trimmed = exp.Case().when(exp.EQ(this=exp.Trim(this=col), expression=exp.Literal.string("")), exp.null())
    # Nested, so the trim runs only where the comparisons let a blank through (DuckDB may
    # reorder the terms of one AND).
    return exp.Case().when(exp.and_(first, maybe_blank(col, " ")), trimmed.else_(col)).else_(empty)


def maybe_blank(col: exp.Expression, prefix: str = "") -> exp.Expression:
    """False only for a cell (starting with `prefix`) whose next character is printable ASCII
    (byte 21 to 7E): no cell DuckDB's trim empties. A cheap test before trim: DuckDB compares
    text byte by byte, and a blank character is a space (20) or past ASCII (UTF-8 from C2)."""
    return exp.Or(
        this=exp.LT(this=col, expression=exp.Literal.string(prefix + "!")),
        expression=exp.GTE(this=col, expression=exp.Literal.string(prefix + PAST_ASCII)),
    )


def accepts(reading: Reading, t: exp.Expression) -> exp.Expression:
    """True where the reading reads the (non-null) text `t`. A number's gate is the whole test:
    text that passes it always converts."""
    if reading.type == "number":
        return C.matches(t, gate(reading))
    read = exp.not_(exp.Is(this=C.convert(reading, t, C.physical_of(reading)), expression=exp.null()))
    marks = written_marks(reading)
    if not marks:
        return read
    # A text without one of the marks is refuted by a comparison, not a conversion.
    held = exp.and_(*[exp.Contains(this=t.copy(), expression=_lit(m)) for m in marks], copy=False)
    return gated(held, read)


def written_marks(reading: Reading) -> list[str]:
    """The marks (no letter, digit or blank) between the fields of a strptime reading's format,
    which every text it reads holds as written (DuckDB's strptime and the format's regex both
    match them exactly): `/` for %d/%m/%Y, `-` and `:` for %Y-%m-%d %H:%M. None for a reading
    with a gate of its own or a format listing zones (`[…]`)."""
    if reading.gate is not None or reading.type not in ("date", "datetime", "time") or "[" in reading.format:
        return []
    between = re.sub("%.", "", reading.format)
    return sorted({c for c in between if not c.isalnum() and not c.isspace()})


# An integer written with a '+' and 7 digits or more is a phone number, not a signed quantity.
PLUS_ID = r"\+[0-9]{7,}"


def gate(reading: Reading) -> str:
    """A number reading's gate (every number reading has one)."""
    assert reading.gate is not None, reading
    return reading.gate


def _lit(text: str) -> exp.Literal:
    return exp.Literal.string(text)


def _or_false(e: exp.Expr) -> exp.Expression:
    """`e`, false where it is NULL (an aggregate over no value)."""
    return exp.Coalesce(this=e, expressions=[exp.false()])


def _starts(text: str) -> exp.Expression:
    return exp.StartsWith(this=_col(T), expression=_lit(text))


def _one_of(values: tuple[str, ...]) -> exp.Expression:
    return _col(T).isin(*map(_lit, values), copy=False)


# The bool words of one letter, each beside its other (y with n, t with f): every value one of
# them and no pair met is one side alone (Tally.one_sided), Female or False.
LETTER_PAIRS = tuple((yes, no) for yes, no in zip(C.TRUE_WORDS, C.FALSE_WORDS) if len(yes) == len(no) == 1)


def _one_sided() -> exp.Expr:
    """Tally.one_sided of a column's values."""

    def lower() -> exp.Expression:
        return exp.Lower(this=_col(T))

    def met(word: str) -> exp.Expression:
        return exp.LogicalOr(this=exp.EQ(this=lower(), expression=_lit(word)))

    letters = [_lit(w) for pair in LETTER_PAIRS for w in pair]
    every = _or_false(exp.LogicalAnd(this=exp.In(this=lower(), expressions=letters)))
    return exp.and_(
        every, *[exp.not_(exp.and_(met(yes), met(no), copy=False), copy=False) for yes, no in LETTER_PAIRS], copy=False
    )


def _facts() -> dict[str, exp.Expr]:
    """The aggregates of what every column needs (Tally's facts), fresh nodes each call."""
    t = _col
    # A text starting 0, -0 or +0 sorts before '1' (DuckDB compares text byte by byte).
    zeros = gated(exp.LT(this=t(T), expression=_lit("1")), C.matches(t(T), r"[+-]?0[0-9]+"))
    binary = exp.LogicalAnd(this=_one_of(("0", "1")))
    blank = exp.EQ(this=exp.Trim(this=t(RAW)), expression=_lit(""))
    exponent = exp.or_(*[exp.Contains(this=t(T), expression=_lit(e)) for e in "eE"], copy=False)
    return {
        "nonnull": count(not_null(t(T))),
        "plain": exp.LogicalAnd(this=exp.and_(not_null(t(T)), exp.EQ(this=t(RAW), expression=t(T)), copy=False)),
        "leading_zeros": count(zeros),
        # 0/1 is a question only when both appear: a column of zeros is a number.
        "zero_one": _or_false(
            exp.and_(
                binary.copy(),
                exp.LogicalOr(this=exp.EQ(this=t(T), expression=_lit("0"))),
                exp.LogicalOr(this=exp.EQ(this=t(T), expression=_lit("1"))),
                copy=False,
            )
        ),
        "binary": _or_false(binary),
        "plus_ids": count(gated(_starts("+"), C.matches(t(T), PLUS_ID))),
        "negatives": _or_false(exp.LogicalOr(this=_starts("-"))),
        "single": _or_false(exp.LogicalAnd(this=exp.EQ(this=exp.Length(this=t(T)), expression=exp.Literal.number(1)))),
        "spaces": count(
            gated(exp.and_(t(T).is_(exp.null()), exp.NEQ(this=t(RAW), expression=_lit("")), copy=False), blank)
        ),
        "one_sided": _one_sided(),
        "coded_exponents": _or_false(
            exp.LogicalAnd(this=gated(exponent, C.matches(t(T), "[0-9]+[eE][0-9]+"), null=True))
        ),
    }


def facts_of(
    con: duckdb.DuckDBPyConnection, source: Source, columns: list[str], markers: tuple[str, ...]
) -> dict[str, Tally]:
    """The facts of each column's values (Tally with no reading counted), in one statement."""
    out = {col: Tally(plain=True) for col in columns}
    if not columns:
        return out
    for col, got in grouped(con, source.cells(columns, markers), _facts()).items():
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
    return out


def tally(
    con: duckdb.DuckDBPyConnection,
    source: Source,
    columns: list[str],
    readings: dict[str, list[Reading]],
    markers: tuple[str, ...],
    examples: bool = False,
    known: dict[str, Tally] | None = None,
) -> dict[str, Tally]:
    """Count, per column and reading, the non-null values the reading refutes, and for number
    readings the scale and digits their values need.

    One statement for what every column needs (non-null cells, blanks, zeros; taken from
    `known`, the columns' facts already counted over `source`, where given), then one per
    family of readings, the readings tried by the same columns (dates in every order, numbers
    with each mark): each cell is tested once per reading of its own column, in one pass over
    those columns' cells, whatever the width of the table."""
    if known is None:
        out = facts_of(con, source, columns, markers)
    else:
        out = {col: replace(known[col], counts=[]) for col in columns}
    if not columns:
        return out
    by_reading: dict[Reading, list[str]] = {}
    for col in columns:
        for reading in readings[col]:
            by_reading.setdefault(reading, []).append(col)
    found = _counted_readings(con, source, by_reading, markers, examples)
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


# The most readings counted in one statement: DuckDB plans a SELECT of many aggregates in time
# that grows faster than their number.
FAMILY_MOST = 24


def _counted_readings(
    con: duckdb.DuckDBPyConnection,
    source: Source,
    by_reading: dict[Reading, list[str]],
    markers: tuple[str, ...],
    examples: bool,
) -> dict[Reading, dict[str, dict[str, Any]]]:
    """Each reading's aggregates per column ({reading: {column: {name: value}}}): the readings
    tried by the same columns (a family) in one grouped pass over those columns' cells, each
    cell read once per reading of the family instead of once per statement."""
    families: dict[tuple[str, ...], list[Reading]] = {}
    for reading, tried_by in by_reading.items():
        families.setdefault(tuple(tried_by), []).append(reading)
    found: dict[Reading, dict[str, dict[str, Any]]] = {}
    for cols, family in families.items():
        for start in range(0, len(family), FAMILY_MOST):
            part = family[start : start + FAMILY_MOST]
            selects: dict[Any, exp.Expr] = {}
            for i, reading in enumerate(part):
                selects |= {(i, name): e for name, e in _reading_selects(reading, examples, _accepted_name(i)).items()}
            got = grouped(con, _accepted(part, source.cells(list(cols), markers)), selects)
            mine: list[dict[str, dict[str, Any]]] = [found.setdefault(reading, {}) for reading in part]
            for c, row in got.items():  # each aggregate handed to its reading once
                for (i, name), v in row.items():
                    mine[i].setdefault(c, {})[name] = v
    return found


def _accepted_name(i: int) -> str:
    """The column saying whether the family's i-th reading reads the cell's text (_accepted)."""
    return f"a{i}"


def _accepted(family: list[Reading], cells: exp.Expression) -> exp.Subquery:
    """The non-null cells (k, __row_id, t, n) with whether each reading of `family` reads each
    (a0, a1, …)."""
    accepted = [accepts(r, _col(T)).as_(_accepted_name(i), quoted=True, copy=False) for i, r in enumerate(family)]
    return (
        exp.select(_col("k"), _col(ROW_ID), _col(T), _col("n"), *accepted, copy=False)
        .from_(cells, copy=False)
        .where(not_null(_col(T)), copy=False)
        .subquery(copy=False)
    )


def _reading_selects(reading: Reading, examples: bool, a: str) -> dict[str, exp.Expr]:
    """The aggregates of one reading over _accepted's cells (`a`: its column there): its fails,
    the first of them, and a number's statistics."""
    selects: dict[str, exp.Expr] = {"fails": count(exp.not_(_col(a)))}
    if examples:
        selects["example"] = only_where(exp.ArgMin(this=_col(T), expression=_col(ROW_ID)), exp.not_(_col(a)))
    if _has_stats(reading):
        selects |= _number_stats(reading, a)
    return selects


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
    lost = exp.and_(C.matches(_col(T), gate(reading)), exp.not_(double_exact(reading, _col(T))), copy=False)
    return _counted(con, source, col, markers, lost)


def doubtful_years(
    con: duckdb.DuckDBPyConnection, source: Source, col: str, reading: Reading, markers: tuple[str, ...]
) -> tuple[int, str | None]:
    """How many values of a column of two-digit years `reading` reads after
    readings.doubtful_year_after (`05/06/60` as 2060), and the first of them."""
    year = exp.Year(this=C.convert(reading, _col(T), "TIMESTAMP" if reading.type == "datetime" else "DATE"))
    return _counted(
        con, source, col, markers, exp.GT(this=year, expression=exp.Literal.number(C.doubtful_year_after()))
    )


def _counted(
    con: duckdb.DuckDBPyConnection, source: Source, col: str, markers: tuple[str, ...], where: exp.Expr
) -> tuple[int, str | None]:
    """How many values of the column `where` holds for, and the first of them."""
    selects = [
        exp.Coalesce(this=exp.Sum(this=_col("n")), expressions=[exp.Literal.number(0)]),
        exp.ArgMin(this=_col(T), expression=_col(ROW_ID)),
    ]
    found, example = one_row(con, selects, source.cells([col], markers), exp.and_(not_null(_col(T)), where, copy=False))
    return found, example


# How many times the largest other value a lone-group value read as thousands must be to be in doubt.
OUTLIER = 100


def lone_groups(
    con: duckdb.DuckDBPyConnection, source: Source, col: str, reading: Reading, markers: tuple[str, ...]
) -> tuple[int, str | None]:
    """The values with one group mark and no decimal mark (7.125 under decimal_mark=,;group_mark=.),
    and the first of them, where read as thousands they stand far above every other value of the
    column (OUTLIER times): decimals written the other way, perhaps. (0, None) otherwise."""
    t = _col
    g = re.escape(reading.group_mark or "")

    def lone() -> exp.Expr:
        return exp.and_(
            not_null(t(T)),
            exp.not_(exp.Contains(this=t(T), expression=_lit(reading.decimal_mark))),
            C.matches(t(T), rf"[^0-9]*[0-9]{{1,3}}{g}[0-9]{{3}}[^0-9]*"),
            copy=False,
        )

    def size() -> exp.Expression:
        return exp.Abs(this=exp.TryCast(this=C.number_text(reading, t(T)), to=exp.DataType.build("DOUBLE")))

    selects: dict[str, exp.Expr] = {
        "lone": count(lone()),
        "first": only_where(exp.ArgMin(this=t(RAW), expression=t(ROW_ID)), lone()),
        "smallest": only_where(exp.Min(this=size()), lone()),
        "others": only_where(exp.Max(this=size()), exp.and_(not_null(t(T)), exp.not_(lone(), copy=False), copy=False)),
    }
    got = grouped(con, source.cells([col], markers), selects).get(col, {})
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
    # Anonymous: sqlglot drops the group number (1) from exp.func's REGEXP_EXTRACT, which then
    # answers the whole match, space and all (' EST').
    pattern = rf"\s({C.ZONE_ABBREVIATION})$"

    def ends() -> exp.Expression:
        return duckdb_function("regexp_extract", _col(T), _lit(pattern), exp.Literal.number(1))

    listed = only_where(exp.func("list", ends(), dialect=DIALECT), exp.NEQ(this=ends(), expression=_lit("")))
    names = exp.func("list_sort", exp.func("list_distinct", listed, dialect=DIALECT), dialect=DIALECT)
    bare = only_where(exp.Count(this=exp.Star()), exp.EQ(this=ends(), expression=_lit("")))
    found, none = one_row(con, [names, bare], source.cells([col], markers), not_null(_col(T)))
    return (found or [])[: most + 1], none


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
    first = exp.func("split_part", C.number_text(reading, _col(T)), _lit("."), exp.Literal.number(1), dialect=DIALECT)
    width = exp.Length(this=exp.func("ltrim", first, _lit("+-0"), dialect=DIALECT))
    selects = [exp.Coalesce(this=exp.Max(this=width), expressions=[exp.Literal.number(0)])]
    where = exp.and_(not_null(_col(T)), C.matches(_col(T), gate(reading)), copy=False)
    (digits,) = one_row(con, selects, source.cells([col], markers), where)
    return stats._replace(digits=digits)


def _number_stats(reading: Reading, a: str) -> dict[str, exp.Expr]:
    """Aggregates giving the scale and integer digits of a number reading's values, and the
    integers that overflow BIGINT (only 19-digit ones can), over _accepted's cells.

    The digits come from the largest magnitude as a DOUBLE, which is exact for the digit count
    below 15 digits; wider columns are counted on the text (see physical_from)."""
    text = C.number_text(reading, _col(T))

    def plain() -> exp.Expression:
        return text.copy()

    def length() -> exp.Expression:
        return exp.Length(this=plain())

    def mark() -> exp.Expression:
        return exp.StrPosition(this=plain(), substr=_lit("."))

    def has_mark() -> exp.Expression:
        return exp.GT(this=mark(), expression=exp.Literal.number(0))

    def number(to: str) -> exp.Expression:
        return exp.TryCast(this=plain(), to=exp.DataType.build(to))

    def accepted() -> exp.Expression:
        return _col(a)

    decimals = exp.Sub(this=length(), expression=mark())
    scale = exp.Case().when(has_mark(), decimals.copy(), copy=False).else_(exp.Literal.number(0), copy=False)
    wide = exp.GTE(this=length(), expression=exp.Literal.number(19))
    return {
        "scale": only_where(exp.Max(this=scale), accepted()),
        "least_scale": only_where(exp.Min(this=decimals), exp.and_(accepted(), has_mark(), copy=False)),
        "magnitude": only_where(exp.Max(this=exp.Abs(this=number("DOUBLE"))), accepted()),
        "misses": count(gated(exp.and_(accepted(), wide, copy=False), number("BIGINT").is_(exp.null()))),
    }


def _digits(magnitude: float | None) -> int:
    """Integer digits of the largest magnitude; 15 and over only says 'wide' (counted exactly later)."""
    if not magnitude:
        return 0
    return len(str(int(magnitude))) if magnitude < 1e15 else 99


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
