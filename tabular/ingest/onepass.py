"""Delimited text typed and stored in one pass over the file: the upload is the extraction (SPEC §1).

The fast reader's first rows are the sample, and infer/columns.py chooses each column's reading on them
by its usual rules. When the sample is the whole file, that typing is final and the snapshot is
built from the rows in memory. Otherwise the snapshot is written straight from the rest of the
stream, each value converted by its column's reading behind a guard: a value the reading cannot
read, one with more decimals or digits than the sample's type holds, a leading zero in a number
column, or text in a column the sample saw empty stops the statement (DuckDB's `error()`), and
the file goes the careful way (extract, count every row, then build). So does a column the
sample saw as text that the careful way's own sample (rows spread over the whole file, looked at
once stored) sees as mostly values some reading could take. Whatever the one pass publishes is
therefore what the careful way would have published, at the cost of one parse and one write.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import cast

import duckdb
import pyarrow as pa
from sqlglot import exp

from planner.dialect import DIALECT, duckdb_function

from .. import readings as C
from ..errors import Internal
from ..infer.columns import SAMPLE_HEAD, SAMPLE_SPREAD, infer_from, sampled
from ..infer.questions import KINDS, Typing, settle_by_evidence
from ..infer.tally import Tally, double_exact, long_table, maybe_blank, string_text, survey, text_of
from ..read import duckcsv
from ..read.extraction import FastRead, Irregular
from ..settings import Settings
from ..store.catalog import snapshot_table

MISLED = "tabular: the sample misled typing"


class Misled(Exception):
    """A value past the sample refuted its column's typing: the careful way must type the file."""


@dataclass
class Head:
    """The first batches of the file, the batches after them (none when `whole`), and the
    sample: the first rows of the head, as many as asked for."""

    table: pa.Table
    rest: Iterator[pa.RecordBatch]
    whole: bool
    sample: pa.Table


def sample_rows(width: int, settings: Settings) -> int:
    """Rows of the sample: as many as the infer sample, fewer for a wide table, so typing a
    sample costs about the same whatever the width."""
    return max(1, min(SAMPLE_HEAD + SAMPLE_SPREAD, settings.typing_sample_cells // max(width, 1)))


def read_head(fast: FastRead, rows: int) -> Head:
    """Batches from the start of the file until `rows` are read or the file ends. A file of
    exactly `rows` rows is whole, as a shorter one is: its sample is every row (one more batch
    is asked for only when the batches end right at `rows`)."""
    batches, got = [], 0
    stream = fast.batches()
    for batch in stream:
        batches.append(batch)
        got += batch.num_rows
        if got > rows:
            table = pa.Table.from_batches(batches, fast.schema)
            return Head(table, stream, False, table.slice(0, rows))
        if got == rows:
            after = next(stream, None)
            if after is None:
                break
            table = pa.Table.from_batches(batches, fast.schema)
            return Head(table, itertools.chain([after], stream), False, table)
    table = pa.Table.from_batches(batches, fast.schema)
    return Head(table, iter(()), True, table)


def registered(cur: duckdb.DuckDBPyConnection, table: pa.Table, name: str) -> str:
    """Make an Arrow table readable by this cursor under `name`; answers the FROM clause."""
    cur.register(name, table)
    return exp.to_identifier(name, quoted=True).sql(dialect=DIALECT)


def sample_typings(
    cur: duckdb.DuckDBPyConnection, relation: str, columns: list[str], settings: Settings, options: dict
) -> tuple[dict[str, Typing], dict[str, Tally]]:
    """Typings chosen on the sample alone, and the tallies they came from."""
    markers = settings.nulls(options)
    with long_table(cur, relation, columns, markers) as sample:
        typings, tallies = infer_from(cur, sample, sample, columns, columns, {}, settings, options)
    return settle_by_evidence(typings), tallies


@dataclass
class Guards:
    """What the one pass's statement needs: each cell's value expression, guarded so a value
    past the sample that would change the typing stops the statement, and the cells the sample
    saw as text. A text column has no value to stop at: the rows past the sample could still
    be mostly values some reading takes, and the careful way, which looks at rows spread over
    the whole file, would then type it otherwise or ask. So those columns are typed again once
    stored, on the careful way's own sample (`create`)."""

    values: dict[str, exp.Expression]
    texts: set[str]
    settings: Settings
    options: dict

    @property
    def markers(self) -> tuple[str, ...]:
        return self.settings.nulls(self.options)


def guards(
    cur, typings: dict[str, Typing], tallies: dict[str, Tally], settings: Settings, options: dict
) -> Guards | None:
    """The guarded statement's values; None when a column's typing rests on facts only a count
    of every row can give (an open question, rejected rows, a column of only 0s and 1s)."""
    out = {}
    markers = settings.nulls(options)
    clashing = colliding(
        cur, {(t.reading, t.physical) for t in typings.values() if t.reading.type not in ("string", "number")}, markers
    )
    built: dict = {}  # a typed column's guard, by (reading, storage type): see _typed
    for cell, typing in typings.items():
        value = _guarded(cell, typing, tallies[cell], markers, (typing.reading, typing.physical) in clashing, built)
        if value is None:
            return None
        out[cell] = value
    texts = {c for c, t in typings.items() if t.reading.type == "string" and tallies[c].nonnull}
    return Guards(out, texts, settings, options)


def careful_sample_reads(
    cur: duckdb.DuckDBPyConnection, table: exp.Table, rows: int, columns: list[str], guarded: Guards
) -> bool:
    """True when the careful way would not keep some stored text column as plain text: typed on
    the sample it takes of the whole file (its first rows and rows spread over the rest:
    infer.sampled), a reading reads it, or enough of it for a mixed_values question. Only the
    columns a reading family could take (survey) are typed; a phone number or a version string
    passes the number gate yet no reading reads it, and stays text, as the careful way keeps it."""
    if not columns:
        return False
    markers, share = guarded.markers, guarded.settings.mixed_values_share
    with long_table(cur, sampled(table.sql(dialect=DIALECT), rows), columns, markers) as sample:
        tried = [c for c, found in survey(cur, sample, columns, markers, share).items() if found.families]
        if not tried:
            return False
        typings, _ = infer_from(cur, sample, sample, tried, tried, {}, guarded.settings, guarded.options)
    return any(t.reading.type != "string" or t.question is not None for t in typings.values())


def _fail() -> exp.Expression:
    # Anonymous: sqlglot has no node for DuckDB's error(), which stops the statement.
    return duckdb_function("error", exp.Literal.string(MISLED))


def _stop(condition: exp.Expr, value: exp.Expr) -> exp.Expression:
    return exp.Case().when(condition, _fail()).else_(value)


def _guarded(cell: str, typing: Typing, tally: Tally, markers, clashes: bool, built: dict) -> exp.Expression | None:
    if typing.question is not None or typing.rejected:
        return None
    if any(kind.open_past_sample(typing, tally) for kind in KINDS.values()):
        return None
    if typing.reading.type == "string":
        if tally.single:
            # Single characters so far: a cell of whitespace may be one (Typing.spaces), which
            # only the careful way's count decides; the pass stops at the first such cell.
            if typing.spaces:
                return None
            # A cheap look at the first byte comes first (maybe_blank): trim only where it may empty.
            raw = exp.column(cell, quoted=True)
            blank = exp.and_(
                maybe_blank(raw),
                exp.NEQ(this=raw, expression=exp.Literal.string("")),
                exp.EQ(this=exp.func("trim", raw), expression=exp.Literal.string("")),
            )
            return _stop(blank, string_text(cell))
        if tally.nonnull:
            return string_text(cell)  # counted once stored: see Guards.texts
        # The sample saw nothing here: any value past it must be typed by the careful way.
        blank = exp.Is(this=text_of(cell, markers, compact=True), expression=exp.null())
        return _stop(exp.not_(blank), string_text(cell))
    return _typed(cell, typing.reading, typing.physical, markers, clashes, built)


# The stand-in cell a typed column's guard is built for once (_typed).
_CELL = "__cell__"


def _typed(cell: str, reading: C.Reading, physical: str, markers, clashes: bool, built: dict) -> exp.Expression:
    """The guard of a typed cell. It depends on the cell only by its name, so it is built once
    per (reading, storage type) for a stand-in cell and renamed for each: a wide table's columns
    share a few readings, and building a guard costs more than renaming one."""
    key = (reading, physical, clashes)
    if key not in built:
        built[key] = _typed_value(_CELL, reading, physical, text_of(_CELL, markers, compact=True), markers, clashes)
    return built[key].transform(
        lambda node: exp.column(cell, quoted=True) if isinstance(node, exp.Column) and node.name == _CELL else node
    )


def _typed_value(
    cell: str, reading: C.Reading, physical: str, t: exp.Expression, markers, clashes: bool
) -> exp.Expression:
    if reading.type == "number" and not reading.exponent and physical != "DOUBLE":
        return _number(cell, reading, physical, t, markers)
    if reading.type == "date" and reading.format == "%Y-%m-%d" and physical == "DATE" and not clashes:
        return iso_date(exp.column(cell, quoted=True), _plain(cell, reading, physical, t))
    if C.two_digit_year(reading):
        # The sample read no two-digit year past next year (else it asks `century`): a later one stops.
        value = _plain(cell, reading, physical, t, clashes)
        year = exp.func("year", value)
        return _stop(exp.GT(this=year, expression=exp.Literal.number(C.doubtful_year_after())), value)
    return _plain(cell, reading, physical, t, clashes)


def _canonical(
    raw: exp.Expression, physical: str, guarded: exp.Expression, also: exp.Expression | None = None
) -> exp.Expression:
    """`guarded`, with its common value first read by one cast: a cell written exactly as DuckDB
    writes the value the cast gives (`21168.23` in a DECIMAL(8,2), `1996-03-13`) is that value,
    whatever the reading's rules, which admit that text and read it so; any other cell takes
    the guarded way. Only readings whose values DuckDB writes as they read call this."""
    value = exp.TryCast(this=raw, to=exp.DataType.build(physical, dialect=DIALECT))
    written = exp.EQ(this=exp.cast(value, "VARCHAR"), expression=raw)
    return exp.Case().when(exp.and_(also, written) if also is not None else written, value).else_(guarded)


def iso_date(raw: exp.Expression, guarded: exp.Expression) -> exp.Expression:
    """`guarded`, with a cell written `YYYY-MM-DD` (year 1000 to 9999) first read by DuckDB's
    cast, told by comparisons instead of writing the date back as text (_canonical), which costs
    twice as much: the cast reads the cell as a date of those years, its first `-` is the fifth
    character, it is ten characters long and does not end in a space. The cast reads a year,
    a separator, a month and a day of one or two digits each, the same separator, then only
    spaces (or ` (BC)`, a year the range leaves out): four digits of a year from 1000 leave six
    characters for `-M-D` with no space after it, so both are two digits. Any other cell takes
    the guarded way, which reads what the reading reads (tests/ingest/test_guards.py tries
    the look-alikes: `2020-1-01 `, `02020-1-1`, `1-1-1 (BC)`, `0999-12-01`)."""
    value = exp.TryCast(this=raw, to=exp.DataType.build("DATE", dialect=DIALECT))
    written = exp.and_(
        exp.Between(
            this=value,
            low=exp.cast(exp.Literal.string("1000-01-01"), "DATE"),
            high=exp.cast(exp.Literal.string("9999-12-31"), "DATE"),
        ),
        exp.EQ(this=exp.func("strpos", raw, exp.Literal.string("-")), expression=exp.Literal.number(5)),
        exp.EQ(this=exp.func("length", raw), expression=exp.Literal.number(10)),
        exp.not_(exp.func("ends_with", raw, exp.Literal.string(" "))),
    )
    return exp.Case().when(written, value).else_(guarded)


def _plain(cell: str, reading: C.Reading, physical: str, t: exp.Expression, clashes: bool = False) -> exp.Expression:
    """The guarded value of a cell of a typed column other than a fixed-point number."""
    if clashes:
        value = C.convert(reading, t, physical)
        refuted = exp.and_(exp.not_(exp.Is(this=t, expression=exp.null())), exp.Is(this=value, expression=exp.null()))
        return _stop(refuted, value)
    # The common value costs one conversion of the cell as it is; a cell with spaces around is
    # converted again trimmed, and only a cell that reads neither way is tested for a null
    # marker (no marker reads as a value of this reading: checked above). Trimming every cell
    # would cost more than converting it.
    raw = exp.column(cell, quoted=True)
    value = C.convert(reading, raw, physical)
    trimmed = C.convert(reading, exp.Trim(this=raw.copy()), physical)
    converted = exp.Coalesce(
        this=value,
        expressions=[trimmed, exp.Case().when(exp.Is(this=t, expression=exp.null()), exp.null()).else_(_fail())],
    )
    if reading.type == "number" and physical == "DOUBLE":
        # Floating point chosen on the sample (NumberStats.floating, or numbers in scientific
        # notation): a later value a DOUBLE would not hold as written stops the pass.
        lost = exp.and_(C.matches(t, cast(str, reading.gate)), exp.not_(double_exact(reading, t)))
        return _stop(lost, converted)
    return converted


def colliding(
    cur: duckdb.DuckDBPyConnection, readings: set[tuple[C.Reading, str]], markers
) -> set[tuple[C.Reading, str]]:
    """The (reading, storage type) pairs some null marker would read as a value of (a marker
    '1900-01-01' in a date column): their cells are tested for a marker before conversion.
    One statement for all of them."""
    pairs = sorted(readings, key=repr)
    values = [C.convert(r, exp.Literal.string(m.strip()), physical) for r, physical in pairs for m in markers]
    if not values:
        return set()
    row = cur.execute(
        exp.select(*[exp.alias_(v, f"v{i}") for i, v in enumerate(values)]).sql(dialect=DIALECT)
    ).fetchall()[0]
    width = len(markers)
    return {pair for k, pair in enumerate(pairs) if any(v is not None for v in row[k * width : (k + 1) * width])}


def _number(cell: str, reading: C.Reading, physical: str, t: exp.Expression, markers) -> exp.Expression:
    """A number column typed on the sample: its values must keep to the sample's type. A cast
    rounds decimals it has no room for, so the gate is narrowed to the sample's scale (and, for
    an integer column, to no leading zero, which would make it an identifier question); a value
    with more digits than the type holds fails the cast. Either stops the statement.

    The narrowed gate runs on the raw cell (spaces around allowed, as trim removes them), so the
    common value costs one match and one cast; only a cell that fails it is tested for a null
    marker, unless a marker could pass the gate itself."""
    leading = physical == "BIGINT" and reading.unit is None and reading.group_mark is None
    tight = C.number_gate(reading, _scale(physical), leading)
    raw = exp.column(cell, quoted=True)
    # The cast ignores the spaces the narrowed gate lets through around a value: no trim.
    value = exp.func(
        "coalesce",
        exp.TryCast(this=C.number_text(reading, raw), to=exp.DataType.build(physical, dialect=DIALECT)),
        _fail(),
    )
    if any(re.fullmatch(tight, m.strip()) for m in markers):
        return (
            exp.Case()
            .when(exp.Is(this=t, expression=exp.null()), exp.null())
            .when(C.matches(t, tight), value)
            .else_(_fail())
        )
    guarded = (
        exp.Case()
        .when(C.matches(raw, f" *(?:{tight}) *"), value)
        .when(exp.Is(this=t, expression=exp.null()), exp.null())
        .else_(_fail())
    )
    if reading.decimal_mark == "." and reading.group_mark is None and reading.unit is None:
        # '-5', '21168.23' as DuckDB writes a BIGINT or a DECIMAL(p, s) pass the narrowed gate:
        # digits, no leading zero, exactly s decimals (and no marker passes it: above).
        return _canonical(raw, physical, guarded)
    return guarded


def _scale(physical: str) -> int:
    return int(physical.rstrip(")").split(",")[1]) if physical.startswith("DECIMAL") else 0


def write(
    cur: duckdb.DuckDBPyConnection,
    head: Head,
    schema: pa.Schema,
    snapshot_id: str,
    cells: list[str],
    names: list[str],
    guarded: Guards,
) -> int:
    """CREATE the snapshot from the head and the rest of the stream in one statement; answers
    its rows. Raises Misled when a guard stops it and Irregular when the stream meets a row the
    careful reader must read; either way no table is left behind."""
    irregular: list[Irregular] = []

    def batches() -> Iterator[pa.RecordBatch]:
        yield from head.table.to_batches()
        try:
            yield from head.rest
        except Irregular as err:  # DuckDB reports it as its own error: keep what it was
            irregular.append(err)
            raise

    stream = pa.RecordBatchReader.from_batches(schema, batches())
    name = f"__stream_{snapshot_id}"
    try:
        return create(cur, registered(cur, stream, name), snapshot_id, cells, names, guarded)
    except (duckdb.Error, Irregular):
        if irregular:
            raise irregular[0] from None
        raise
    finally:
        cur.unregister(name)


def create(
    cur: duckdb.DuckDBPyConnection,
    source: str,
    snapshot_id: str,
    cells: list[str],
    names: list[str],
    guarded: Guards,
) -> int:
    """CREATE the snapshot from `source` (a FROM clause of __row_id and the cells) with the
    guarded values; answers its rows. Raises Misled when a guard stops it or a text column
    turns out readable enough to be tried (Guards); nothing is left."""
    select = exp.select(
        exp.column("__row_id", quoted=True),
        *[exp.alias_(guarded.values[c], n, quoted=True, copy=False) for c, n in zip(cells, names)],
        copy=False,
    ).from_(source, copy=False)
    table = snapshot_table(snapshot_id)
    try:
        rows = _create(cur, table, select)
    except (duckdb.Error, Irregular) as err:
        _drop(cur, table)
        if MISLED in str(err):
            raise Misled() from None
        raise
    return _checked(cur, table, rows, cells, names, guarded)


def write_parallel(
    cur: duckdb.DuckDBPyConnection,
    fast: FastRead,
    snapshot_id: str,
    cells: list[str],
    names: list[str],
    guarded: Guards,
) -> int | None:
    """CREATE the snapshot from DuckDB's parallel read of the file (read/duckcsv.py) with the
    guarded values, as `create` does from a stream; answers its rows, or None, with nothing
    left, when DuckDB's reader refused the file or skipped a line of it (Arrow's stream must
    read it). Raises Misled or Irregular as `write` does. Row numbers follow the file's order,
    which DuckDB keeps as it inserts (preserve_insertion_order): a row's number is its rowid + 1,
    set once the cells are written (numbering rows in the statement would make it one stream)."""
    skipped = fast.first_line - 1
    # Built without copies (copy=False): a wide table's guarded values are a large tree, and
    # each builder step would copy all of it.
    select = (
        exp.select(
            exp.alias_(exp.cast(exp.null(), "BIGINT"), "__row_id", quoted=True),
            *[exp.alias_(guarded.values[c], n, quoted=True, copy=False) for c, n in zip(cells, names)],
            copy=False,
        )
        .from_(
            duckcsv.relation(fast.path, fast.layout, skipped, len(cells), guarded.settings.parallel_csv_buffer_bytes),
            copy=False,
        )
        .where(duckcsv.regular(cells), copy=False)
    )
    table = snapshot_table(snapshot_id)
    try:
        rows = _create(cur, table, select)
    except duckdb.InterruptException:
        _drop(cur, table)
        raise
    except duckdb.Error as err:
        _drop(cur, table)
        if MISLED in str(err):
            raise Misled() from None
        if duckcsv.IRREGULAR in str(err):
            raise Irregular() from None
        return None  # refused: Arrow's stream reads the file (once the look at its bytes allows)
    if not fast.regular:
        _drop(cur, table)
        raise Irregular()
    if fast.lines is None or not duckcsv.complete(rows, fast.lines, skipped):
        _drop(cur, table)
        return None
    number = exp.Add(this=exp.column("rowid"), expression=exp.Literal.number(1))
    cur.execute(
        exp.Update(this=table, expressions=[exp.EQ(this=exp.column("__row_id", quoted=True), expression=number)]).sql(
            dialect=DIALECT
        )
    )
    rows = _checked(cur, table, rows, cells, names, guarded)
    fast.extraction.rows, fast.extraction.origin.parser = rows, "duckdb"
    return rows


def _create(cur: duckdb.DuckDBPyConnection, table: exp.Table, select: exp.Select) -> int:
    """The rows CREATE TABLE … AS wrote. The statement is written without copying its tree
    first (copy=False): a wide table's guarded values are a large tree, which sqlglot would
    otherwise copy whole (at 500 columns, 0.25 s of the 0.33 s its text takes)."""
    create = exp.Create(this=table, kind="TABLE", expression=select)
    return cur.execute(create.sql(dialect=DIALECT, copy=False)).fetchall()[0][0]


def _drop(cur: duckdb.DuckDBPyConnection, table: exp.Table) -> None:
    cur.execute(exp.Drop(tables=[table], kind="TABLE", exists=True).sql(dialect=DIALECT))


def _checked(
    cur: duckdb.DuckDBPyConnection, table: exp.Table, rows: int, cells: list[str], names: list[str], guarded: Guards
) -> int:
    """`rows`, once the stored text columns are looked at on the careful way's sample (Guards);
    raises Misled, with the table dropped, when one is readable enough to be tried."""
    if careful_sample_reads(cur, table, rows, [n for c, n in zip(cells, names) if c in guarded.texts], guarded):
        _drop(cur, table)
        raise Misled()
    return rows


def accounted(fast: FastRead, rows: int) -> None:
    """Every line of the file is a row, a header or a preamble line (issue 54): the fast readers
    stop at anything else (a blank, comment or ragged line, a note or total row at the end) and
    hand the file to the careful reader. Raises Internal, naming the counts, where the rows the
    pass wrote and the lines before them do not add up to the file's lines (quoting.ByteScan
    counts them in its look at every byte; a file whose values may hold a line break has no
    count, and DuckDB's reader is held to the same count in `write_parallel`)."""
    lines, skipped = fast.lines, fast.first_line - 1
    if lines is not None and rows + skipped != lines:
        raise Internal(
            f"this is a bug: {fast.extraction.name!r} has {lines} lines but the one pass accounts for "
            f"{rows + skipped} ({rows} rows, {skipped} header and preamble lines); "
            "a line would be lost without a word, so nothing was published"
        )


class Ticker:
    """Calls `tick` every `seconds` on its own thread while the block runs (progress reports
    while one long statement works)."""

    def __init__(self, tick: Callable[[], None], seconds: float = 0.5):
        self.tick, self.seconds = tick, seconds
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="ingest-progress", daemon=True)

    def _run(self) -> None:
        while not self.stop.wait(self.seconds):
            self.tick()

    def __enter__(self) -> Ticker:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join()


def unclean(typings: dict[str, Typing]) -> dict[str, Typing]:
    """The typings as stored: a sample cannot promise the whole file is free of blanks and null
    markers, so later builds test every value (Typing.clean)."""
    return {c: replace(t, clean=False) for c, t in typings.items()}
