"""Type inference by elimination over whole columns, in DuckDB.

Each column starts with every reading of candidates.py; a reading is kept only if every
non-null value passes it. A sample (the first and a random set of rows) chooses quickly;
then the chosen reading is checked against every row, and a column the sample misled is
evaluated again whole. Where the values allow several readings that give different answers
(a date order, a decimal mark, 0/1, leading zeros, a few words among numbers) the column gets a
question, held as the option that rejects fewest rows (SPEC §4).
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field

import duckdb
from sqlglot import exp

from . import candidates as C
from .candidates import Reading
from .settings import Settings

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
    kind: str
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


@dataclass
class _Tally:
    nonnull: int = 0
    fails: dict[int, int] = field(default_factory=dict)
    examples: dict[int, str | None] = field(default_factory=dict)
    leading_zeros: int = 0
    zero_one: bool = False
    numbers: dict[int, tuple[int, int, int]] = field(default_factory=dict)  # reading -> (scale, digits, bigint misses)
    plain: bool = False  # no null marker and no surrounding blanks in any cell (see Typing.clean)


def text_of(column: str, markers: tuple[str, ...]) -> exp.Expression:
    """A cell as the readings see it: trimmed, with null markers as NULL."""
    trimmed = exp.func("trim", exp.column(column, quoted=True))
    # One regex for the markers: DuckDB plans it in a fraction of the time of an IN list,
    # which matters on tables of hundreds of columns.
    pattern = "(" + "|".join(re.escape(m) for m in markers) + ")"
    short = exp.LTE(this=exp.func("length", trimmed), expression=exp.Literal.number(max(len(m) for m in markers)))
    return exp.Case().when(exp.and_(short, C.matches(trimmed, pattern)), exp.null()).else_(trimmed)


def string_text(column: str) -> exp.Expression:
    """A string column keeps its text as written; only an empty or blank cell is NULL."""
    col = exp.column(column, quoted=True)
    return exp.Case().when(exp.EQ(this=exp.func("trim", col), expression=exp.Literal.string("")), exp.null()).else_(col)


def _sql(e: exp.Expression) -> str:
    return e.sql(dialect="duckdb")


def accepts(reading: Reading, t: exp.Expression) -> exp.Expression:
    """True where the reading reads the (non-null) text `t`. A number's gate is the whole test:
    text that passes it always converts."""
    if reading.type == "number":
        return C.matches(t, reading.gate)
    return exp.Not(this=exp.Is(this=C.convert(reading, t, C.physical_of(reading)), expression=exp.null()))


def _texts(rel: str, columns: list[str], markers) -> str:
    """A relation holding each column's text once (t_<cell>), so readings do not repeat it."""
    selects = [exp.column("__row_id", quoted=True)]
    selects += [exp.column(c, quoted=True) for c in columns]
    selects += [exp.alias_(text_of(c, markers), f"t_{c}", quoted=True) for c in columns]
    return "(" + exp.select(*selects).from_(rel).sql(dialect="duckdb") + ")"


@dataclass(frozen=True)
class Relation:
    """Extraction rows to count over: a FROM clause, and whether it already holds t_<cell> texts."""

    sql: str
    has_texts: bool = False

    def texts(self, columns: list[str], markers) -> str:
        return self.sql if self.has_texts else _texts(self.sql, columns, markers)


def _tally(
    con: duckdb.DuckDBPyConnection, rel: Relation, columns: list[str], readings: dict[str, list[Reading]], markers, examples: bool = False
) -> dict[str, _Tally]:
    """Count, per column and reading, the non-null values the reading refutes, and for number
    readings the scale and digits their values need: one scan of `rel` for all of it.

    Each reading's test is computed once per row in an inner projection (a_<cell>_<i>), then
    counted, so a regex gate is not evaluated again for every statistic."""
    inner = [exp.column("__row_id", quoted=True)]
    selects: list[str] = []
    keys: list[tuple[str, str, int]] = []
    for col in columns:
        raw, t = exp.column(col, quoted=True), exp.column(f"t_{col}", quoted=True)
        inner += [raw, t]
        selects += [f"count({_sql(t)})", f"count({_sql(raw)}) = count({_sql(t)}) AND coalesce(bool_and({_sql(raw)} = trim({_sql(raw)})), true)"]
        keys += [(col, "nonnull", 0), (col, "plain", 0)]
        if any(r.type == "number" for r in readings[col]):
            starts = exp.or_(*[exp.func("starts_with", t, exp.Literal.string(p)) for p in ("0", "-0", "+0")])
            zeros = exp.and_(starts, C.matches(t, r"[+-]?0[0-9]+"))
            # 0/1 is a question only when both appear: a column of zeros is a number.
            zero_one = f"coalesce(bool_and({_sql(t)} IN ('0', '1')) AND bool_or({_sql(t)} = '0') AND bool_or({_sql(t)} = '1'), false)"
            selects += [f"count(*) FILTER (WHERE {_sql(zeros)})", zero_one]
            keys += [(col, "zeros", 0), (col, "zero_one", 0)]
        for i, reading in enumerate(readings[col]):
            flag = f"a_{col}_{i}"
            inner.append(exp.alias_(exp.and_(exp.Not(this=exp.Is(this=t, expression=exp.null())), accepts(reading, t)), flag, quoted=True))
            a = _sql(exp.column(flag, quoted=True))
            selects.append(f"count({_sql(t)}) - count(*) FILTER (WHERE {a})")
            keys.append((col, "fails", i))
            if examples:
                selects.append(f"arg_min({_sql(t)}, __row_id) FILTER (WHERE {_sql(t)} IS NOT NULL AND NOT {a})")
                keys.append((col, "example", i))
            if reading.type == "number" and not reading.exponent:
                selects += _number_stats(reading, t, a)
                keys += [(col, "scale", i), (col, "digits", i), (col, "misses", i)]
    source = "(" + exp.select(*inner).from_(rel.texts(columns, markers)).sql(dialect="duckdb") + ")"
    row = _aggregate(con, source, selects) if selects else ()
    out = {col: _Tally() for col in columns}
    for (col, what, i), value in zip(keys, row):
        tally = out[col]
        if what == "nonnull":
            tally.nonnull = value
        elif what == "plain":
            tally.plain = bool(value)
        elif what == "zeros":
            tally.leading_zeros = value
        elif what == "zero_one":
            tally.zero_one = bool(value)
        elif what == "fails":
            tally.fails[i] = value
        elif what == "example":
            tally.examples[i] = value
        else:
            scale, digits, misses = tally.numbers.get(i, (0, 0, 0))
            value = _digits(value) if what == "digits" else (value or 0)
            tally.numbers[i] = (value, digits, misses) if what == "scale" else (scale, value, misses) if what == "digits" else (scale, digits, value)
    wide = [(col, i) for col in columns for i, n in out[col].numbers.items() if n[1] == 99]
    for col, i in wide:
        out[col].numbers[i] = _exact_digits(con, rel, col, readings[col][i], markers, out[col].numbers[i])
    return out


def _exact_digits(con, rel: Relation, col: str, reading: Reading, markers, stats: tuple[int, int, int]) -> tuple[int, int, int]:
    """Digits counted on the text, for columns whose magnitude a DOUBLE cannot count exactly."""
    t = exp.column(f"t_{col}", quoted=True)
    plain = _sql(C.number_text(reading, t))
    gate = _sql(C.matches(t, reading.gate))
    (digits,) = con.execute(
        f"SELECT coalesce(max(length(ltrim(split_part({plain}, '.', 1), '+-0'))), 0) FROM {rel.texts([col], markers)} WHERE {gate}"
    ).fetchone()
    return (stats[0], digits, stats[2])


def _number_stats(reading: Reading, t: exp.Expression, accepted: str) -> list[str]:
    """Aggregates giving the scale and integer digits of a number reading's values, and the
    integers that overflow BIGINT (only 19-digit ones can).

    The digits come from the largest magnitude as a DOUBLE, which is exact for the digit count
    below 15 digits; wider columns are counted on the text (see physical_from)."""
    plain = _sql(C.number_text(reading, t))
    mark = f"strpos({plain}, '.')"
    return [
        f"max(CASE WHEN {mark} > 0 THEN length({plain}) - {mark} ELSE 0 END) FILTER (WHERE {accepted})",
        f"max(abs(try_cast({plain} AS DOUBLE))) FILTER (WHERE {accepted})",
        f"count(*) FILTER (WHERE {accepted} AND length({plain}) >= 19 AND try_cast({plain} AS BIGINT) IS NULL)",
    ]


def _digits(magnitude: float | None) -> int:
    """Integer digits of the largest magnitude; 15 and over only says 'wide' (counted exactly later)."""
    if not magnitude:
        return 0
    return len(str(int(magnitude))) if magnitude < 1e15 else 99


def _families(con, rel: str, columns: list[str], markers, share: float) -> dict[str, set[str]]:
    """The reading families each column's values could belong to (a cheap first elimination)."""
    selects = []
    for col in columns:
        t = exp.column(f"t_{col}", quoted=True)
        selects.append(f"count({_sql(t)})")
        for pattern in C.FAMILIES.values():
            selects.append(f"count(*) FILTER (WHERE {_sql(t)} IS NOT NULL AND NOT {_sql(C.matches(t, pattern))})")
    row = _aggregate(con, rel.texts(columns, markers), selects)
    width = len(C.FAMILIES) + 1
    out = {}
    for k, col in enumerate(columns):
        nonnull, *misses = row[k * width : (k + 1) * width]
        out[col] = {f for f, miss in zip(C.FAMILIES, misses) if nonnull and (nonnull - miss) / nonnull >= share}
    return out


SYMBOLS = (*C.UNITS, ",", ".", " ", "\u00a0", "\u202f", "'", "’", "e", "E")
BATCH = 200


def _aggregate(con, rel: str, selects: list[str]) -> list:
    """Run many aggregates over one relation, a bounded number per statement (wide tables)."""
    out: list = []
    for start in range(0, len(selects), BATCH):
        out += con.execute(f"SELECT {', '.join(selects[start:start + BATCH])} FROM {rel}").fetchone()
    return out


def _symbols(con, rel: str, columns: list[str]) -> dict[str, set[str]]:
    """Which unit symbols and number marks each column's values contain at all."""
    selects = [f"bool_or(contains({_sql(exp.column(c, quoted=True))}, {_sql(exp.Literal.string(u))}))" for c in columns for u in SYMBOLS]
    row = _aggregate(con, rel, selects)
    found: dict[str, set[str]] = {c: set() for c in columns}
    for k, hit in enumerate(row):
        if hit:
            symbol = SYMBOLS[k % len(SYMBOLS)]
            found[columns[k // len(SYMBOLS)]].add(" " if symbol in ("\u00a0", "\u202f") else "'" if symbol == "’" else symbol)
    return found


def physical_from(reading: Reading, stats: tuple[int, int, int] | None) -> str:
    """BIGINT, DECIMAL(p, s) or DOUBLE for a reading, from its values' scale and digits (SPEC §3)."""
    if reading.type != "number":
        return C.physical_of(reading)
    if reading.exponent or stats is None:
        return "DOUBLE"
    scale, digits, misses = stats
    if scale == 0 and (digits <= 18 or digits == 19 and misses == 0):
        return "BIGINT"
    if digits + scale > 38:
        return "DOUBLE"
    return f"DECIMAL({max(digits, 1) + scale}, {scale})"


def _choose(tally: _Tally, readings: list[Reading], share: float) -> tuple[int | None, list[int]]:
    """The first reading that reads every value, else (None, readings ranked by what they read)."""
    if tally.nonnull == 0:
        return None, []
    for i, r in enumerate(readings):
        if tally.fails[i] == 0:
            return i, []
    ranked = sorted(range(len(readings)), key=lambda i: (tally.fails[i], i))
    return None, [i for i in ranked if (tally.nonnull - tally.fails[i]) / tally.nonnull >= share]


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
    name = f"__sample_{uuid.uuid4().hex[:12]}"
    picked = rel
    if rows > SAMPLE_HEAD + SAMPLE_SPREAD:
        # The first rows, then rows spread evenly over the rest: row ids filter the Parquet
        # scan, so neither part sorts or samples the whole file.
        step = max(1, (rows - SAMPLE_HEAD) // SAMPLE_SPREAD)
        picked = f"(SELECT * FROM {rel} WHERE __row_id <= {SAMPLE_HEAD} OR __row_id % {step} = 0)"
    # The sample, with every column's text computed once: the many counts below run on it.
    texts = [exp.alias_(text_of(c, markers), f"t_{c}", quoted=True) for c in columns]
    con.execute(f"CREATE TEMP TABLE {name} AS {exp.select('*', *texts).from_(picked).sql(dialect='duckdb')}")
    try:
        return _infer(con, Relation(name, True), Relation(rel) if picked != rel else Relation(name, True), columns, free, forced, settings, options, markers)
    finally:
        con.execute(f"DROP TABLE IF EXISTS {name}")


def _infer(con, sample: Relation, whole_rel: Relation, columns, free, forced, settings: Settings, options: dict, markers) -> dict[str, Typing]:
    symbols = _symbols(con, sample.sql, free) if free else {}
    families = _families(con, sample, free, markers, settings.mixed_values_share) if free else {}
    readings = {
        c: [r for r in C.candidate_readings(symbols[c], options.get("decimal_mark"), options.get("date_order")) if r.type in families[c]]
        for c in free
    }
    tallies = _tally(con, sample, free, readings, markers) if free else {}
    rel = whole_rel
    if rel.sql != sample.sql and free:
        # The sample chose; one scan of every row checks each choice and the alternatives a
        # question would offer. A column the sample misled is counted whole, every reading.
        kept = {c: [i for i in range(len(readings[c])) if tallies[c].fails[i] == 0] for c in free}
        kept = {c: ix for c, ix in kept.items() if ix}
        whole = _tally(con, rel, list(kept), {c: [readings[c][i] for i in ix] for c, ix in kept.items()}, markers) if kept else {}
        misled = [c for c, ix in kept.items() if whole[c].fails[0] > 0]
        recount = _tally(con, rel, misled, {c: readings[c] for c in misled}, markers) if misled else {}
        for c, ix in kept.items():
            if c in recount:
                tallies[c] = recount[c]
                continue
            merged = whole[c]
            merged.fails = {**tallies[c].fails, **{i: merged.fails[k] for k, i in enumerate(ix)}}
            merged.numbers = {i: merged.numbers[k] for k, i in enumerate(ix) if k in merged.numbers}
            tallies[c] = merged
    out: dict[str, Typing] = {}
    for c in free:
        out[c] = _decide(con, rel, c, readings[c], tallies[c], settings, markers)
    if forced:
        forced_tallies = _tally(con, rel, list(forced), {c: [r] for c, r in forced.items()}, markers)
        for c, reading in forced.items():
            tally = forced_tallies[c]
            clean = tally.plain and tally.fails[0] == 0
            out[c] = Typing(reading, physical_from(reading, tally.numbers.get(0)), tally.fails[0], None, forced=True, clean=clean)
    return {c: out[c] for c in columns}


def _decide(con, rel: str, col: str, readings: list[Reading], tally: _Tally, settings: Settings, markers) -> Typing:
    chosen, ranked = _choose(tally, readings, settings.mixed_values_share)
    if chosen is None:
        if not ranked:
            return Typing(C.STRING, "VARCHAR")
        best = readings[ranked[0]]
        whole = _tally(con, rel, [col], {col: [best]}, markers, examples=True)[col]
        physical = physical_from(best, whole.numbers.get(0))
        fails, example = whole.fails[0], whole.examples[0]
        question = Question(
            "mixed_values",
            f"Most values read as {best.type} but {fails} do not (e.g. {example!r}). "
            f"Keep the column as text, or read it as {best.type} and reject those rows?",
            (Option(C.STRING, "VARCHAR", 0, None), Option(best, physical, fails, example)),
        )
        return Typing(C.STRING, "VARCHAR", 0, question)
    reading = readings[chosen]
    full = [i for i, r in enumerate(readings) if tally.fails[i] == 0]
    if reading.type == "number":
        physical = physical_from(reading, tally.numbers.get(chosen))
        if physical == "BIGINT" and tally.leading_zeros and reading.unit is None and reading.group_mark is None:
            question = Question(
                "leading_zeros",
                f"{tally.leading_zeros} values start with 0 (e.g. an identifier like '007'). "
                "Keep them as text, or read them as numbers and drop the zeros?",
                (Option(C.STRING, "VARCHAR", 0, None), Option(reading, physical, 0, None)),
            )
            return Typing(C.STRING, "VARCHAR", 0, question)
        if physical == "BIGINT" and tally.zero_one:
            question = Question(
                "bool_or_number",
                "Every value is 0 or 1. Is this a number, or a yes/no flag?",
                (Option(reading, physical, 0, None), Option(C.BOOL_01, "BOOLEAN", 0, None)),
            )
            return Typing(reading, physical, 0, question)
        rivals = [i for i in full if readings[i].type == "number" and readings[i].decimal_mark != reading.decimal_mark and readings[i].unit == reading.unit]
        if rivals and physical.startswith("DECIMAL") and not physical.endswith(", 0)"):
            rival = readings[rivals[0]]
            rival_physical = physical_from(rival, tally.numbers.get(rivals[0]))
            question = Question(
                "decimal_mark",
                f"Is '{reading.decimal_mark}' the decimal mark here, or a thousands separator?",
                (Option(reading, physical, 0, None), Option(rival, rival_physical, 0, None)),
            )
            return Typing(reading, physical, 0, question, clean=tally.plain)
        return Typing(reading, physical, clean=tally.plain)
    physical = C.physical_of(reading)
    if reading.order in ("DMY", "MDY"):
        twin = _twin(reading)
        match = [readings[i] for i in full if readings[i].format == twin]
        if match:
            question = Question(
                "date_order",
                f"Every value reads both as day/month and as month/day (like 03/04/2024). Which order is it?",
                (Option(reading, physical, 0, None), Option(match[0], physical, 0, None)),
            )
            return Typing(reading, physical, 0, question, clean=tally.plain)
    return Typing(reading, physical, clean=tally.plain)


def _twin(reading: Reading) -> str:
    """The same pattern with day and month swapped."""
    return reading.format.replace("%d", "\0").replace("%m", "%d").replace("\0", "%m")


def settle_by_evidence(typings: dict[str, Typing]) -> dict[str, Typing]:
    """A question another column of the same table answers is no question (one file, one habit)."""
    proven_orders = {t.reading.order for t in typings.values() if t.question is None and t.reading.order in ("DMY", "MDY")}
    proven_marks = {
        t.reading.decimal_mark
        for t in typings.values()
        if t.question is None and t.reading.type == "number" and (t.physical.startswith("DECIMAL") or t.reading.group_mark)
    }
    out = dict(typings)
    for col, t in typings.items():
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
