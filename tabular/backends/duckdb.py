"""Plans run on the catalog's DuckDB, the home's own engine (DuckDBBackend): a statement with a
deadline and a memory share (the watchdog interrupts it past either), its rows as JSON values or
streamed as Arrow batches. Writing the SQL is planner/'s; choosing what to run is ops/query's."""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import replace
from typing import Any

import duckdb
import pyarrow as pa
from sqlglot import exp

from planner.compile import Compiled
from planner.dialect import DIALECT
from planner.resolved import ROW_ID, Resolved
from planner.targets import DUCKDB

from ..errors import BackendTimeout, ErrorItem, TooLarge, ValidationFailed, past_38_digits
from ..jsonval import arrow_readable, iso_interval, json_columns, json_rows, rows_readable
from ..settings import Settings
from ..store.home import Catalog
from .base import Capabilities, HomeRef, intervals

# An answer's rows (at most 10,001) are read as Arrow from an executed statement, which DuckDB
# warns copies them once (see _run): that copy is the point, and no caller needs the warning.
warnings.filterwarnings("ignore", message="Arrow output on a DB-API result", category=UserWarning)

# An answer of at most this many cells (a decimal counted as DECIMAL_CELLS: made a Python Decimal,
# then text) is read as Python values, not as Arrow (run): Arrow costs DuckDB a statement more
# (0.3-1 ms), a Python value 0.2-0.5 µs (a decimal about 8 times that); each way cost alike at
# 1,500 to 2,000 of them (bench/README.md, profile_query.py).
FEW_CELLS = 1536
DECIMAL_CELLS = 8
# The statements whose rows were more than that when last run (at most MANY_KEPT, the first in
# first out): read as Arrow at once, their first rows not made Python values first. Only which
# way is chosen: both give one JSON.
_MANY: dict[int, None] = {}  # by the hash of the statement's text
MANY_KEPT = 512


def row_cost(types: Sequence[str]) -> int:
    """What one row of a result of these types counts against FEW_CELLS."""
    return sum(DECIMAL_CELLS if t.startswith("DECIMAL(") else 1 for t in types) or 1


def _many(sql: str) -> None:
    _MANY[hash(sql)] = None
    while len(_MANY) > MANY_KEPT:
        with suppress(StopIteration, KeyError, RuntimeError):  # another thread took it first
            del _MANY[next(iter(_MANY))]


# Rows per Arrow record batch of a streamed result.
BATCH_ROWS = 64 * 1024
# The metadata key of a streamed field that holds its DuckDB type (Stream).
DUCKDB_TYPE = b"duckdb_type"


def over_share(settings: Settings, what: str) -> TooLarge:
    """The watchdog stopped the statement at its memory share (413)."""
    return TooLarge(
        f"{what} needs more memory than its share allows (query_memory_share {settings.query_memory_share:g} of duckdb_memory "
        f"{settings.duckdb_memory}) and was stopped; filter first, or join on keys that match fewer rows"
    )


# What DuckDB says when a value leaves the range its type holds, by kind (its first line): a date
# or timestamp (date_add past 5881580 AD or 294247 AD), an integer past its type (a sum of
# durations past 2^63 microseconds), else an exact number past 38 digits.
_DATES = (
    "date out of range",
    "timestamp range",
    "date overflows",
    "timestamp field value out of range",
    "date and time",
)


def out_of_range(detail: str, dated: list[tuple[str, str]] | tuple = ()) -> ValidationFailed:
    """DuckDB's ConversionException or OutOfRangeException as what happened, refused (never a
    value rounded or wrapped): `detail` is its first line; `dated`, the plan's computed dates
    and timestamps as (path, name), where a date past the range can come from."""
    said = detail.lower()
    if any(kind in said for kind in _DATES):
        names = ", ".join(repr(name) for _, name in dated)
        return ValidationFailed(
            "a date or timestamp the plan computes leaves the range DuckDB holds (dates to 5881580 AD "
            "and from 5877642 BC, timestamps to 294247 AD and from 290309 BC)"
            + (f": the computed {'column' if len(dated) == 1 else 'columns'} {names}" if dated else ""),
            [
                ErrorItem(
                    path,
                    f"{what} past the range DuckDB holds ({detail})",
                    expected="dates and timestamps within DuckDB's range",
                )
                for path, what in (
                    [(p, f"{n!r}: a date or timestamp") for p, n in dated] or [("compute", "a date or timestamp")]
                )
            ],
        )
    if (
        ("overflow in" in said or "destination type" in said)
        and any(t in said for t in ("int64", "int32", "int16", "int8", "bigint"))
        and not any(t in said for t in ("decimal", "hugeint", "of int128"))
    ):  # a sum or product past HUGEINT's 128 bits is past 38 digits, as a DECIMAL's is
        return ValidationFailed(
            "a number the plan computes (a sum, a product, a duration's microseconds) passes the range of its "
            "integer type",
            [
                ErrorItem(
                    "",
                    f"an integer past its type's range: {detail}",
                    expected="integers within their type's range (BIGINT: ±9,223,372,036,854,775,807)",
                )
            ],
        )
    return past_38_digits(detail)


# Arrow carries an INTERVAL's time part as int64 nanoseconds: DuckDB's export multiplies its
# microseconds by 1000 and wraps past this many (292 years: -9.2e18 µs arrived as 2 µs).
ARROW_INTERVAL_MICROS = (2**63 - 1) // 1000
_PARTS = "__interval_parts"


def with_interval_parts(sql: str, names: list[str]) -> str:
    """The statement with, after all of its own columns, each named INTERVAL column's parts
    (months, days, microseconds, as BIGINT): what DuckDB holds, whole, where Arrow's interval
    type may not hold it (interval_columns reads them). Its rows keep the statement's order."""
    inner: exp.Expression = exp.maybe_parse(sql, dialect=DIALECT)
    parts = []
    for k, name in enumerate(names):

        def part(unit: str, name: str = name) -> exp.Expression:
            return exp.Extract(this=exp.var(unit), expression=exp.column(name, _PARTS, quoted=True))

        months = exp.Add(this=exp.Mul(this=part("year"), expression=exp.Literal.number(12)), expression=part("month"))
        micros = exp.Add(
            this=exp.Add(
                this=exp.Mul(this=part("hour"), expression=exp.Literal.number(3_600_000_000)),
                expression=exp.Mul(this=part("minute"), expression=exp.Literal.number(60_000_000)),
            ),
            expression=part("microseconds"),
        )
        for suffix, value in (("m", months), ("d", part("day")), ("u", micros)):
            parts.append(exp.alias_(value, f"{_PARTS}_{k}_{suffix}", quoted=True))
    outer = exp.select(exp.Star(), *parts).from_(
        exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier(_PARTS, quoted=True)))
    )
    return outer.sql(dialect=DIALECT)


def interval_text_of(months: pa.Array, days: pa.Array, micros: pa.Array) -> pa.Array:
    """An INTERVAL column as ISO 8601 text from its parts (jsonval.iso_interval), of any size."""
    return pa.array(
        [
            None if m is None else iso_interval(m, d, u * 1000)
            for m, d, u in zip(*(c.to_pylist() for c in (months, days, micros)))
        ],
        pa.string(),
    )


def arrow_json(table: pa.Table, types: list[str], intervals: list[int] | None = None) -> list[list]:
    """A result read as Arrow, its columns in their SPEC §3 JSON form (jsonval.json_columns, told
    DuckDB's `types`); `intervals`, the columns (by place) whose parts the statement added after
    all of its own (with_interval_parts), are read from those, whole, and the parts dropped."""
    own = table.num_columns - 3 * len(intervals or ())
    columns = json_columns(table.select(range(own)), types[:own])
    for k, place in enumerate(intervals or ()):
        columns[place] = interval_text_of(*table.columns[own + 3 * k : own + 3 * k + 3]).to_pylist()
    return columns


def arrow_holds(micros: pa.Array) -> bool:
    """Whether every interval's time part (its microseconds) fits Arrow's int64 nanoseconds."""
    import pyarrow.compute as pc  # heavy: Arrow's compute functions, for a duration column only

    ends = pc.min_max(micros)
    low, high = ends["min"].as_py(), ends["max"].as_py()
    return low is None or (-ARROW_INTERVAL_MICROS <= low and high <= ARROW_INTERVAL_MICROS)


def past_arrow(name: str) -> ValidationFailed:
    """An interval Arrow's type cannot carry, in a result asked for as Arrow: refused, named."""
    return ValidationFailed(
        f"the duration column {name!r} holds a value whose time part is longer than Arrow's interval type "
        "carries (292 years of hours, minutes and seconds); ask for the result as NDJSON, CSV or Parquet, "
        "where durations are ISO 8601 text of any length",
        [
            ErrorItem(
                name,
                "a duration past Arrow's interval (its time part over ±9,223,372,036,854,775 microseconds)",
                expected="durations whose hours, minutes and seconds are within 292 years, or a text format",
            )
        ],
    )


def run(
    catalog: Catalog,
    settings: Settings,
    sql: str,
    params: dict,
    seconds: float,
    as_json: bool = False,
    intervals: list[int] | None = None,
    dated: list[tuple[str, str]] | tuple = (),
) -> list:
    """Run with a deadline (past it the statement is interrupted: 504) and a memory share (past
    it the longest-running statement is interrupted: 413; deadline.py). The rows as tuples; with
    `as_json`, as lists of JSON values, read a column at a time from Arrow where the result's
    types allow (jsonval.json_columns), else converted row by row. `intervals`: the result
    columns (by place) that are INTERVALs whose parts `sql` adds after all of its own columns
    (with_interval_parts): with `as_json` they are read from the parts, whole, and the parts
    are not among the rows."""
    cur = catalog.connections.reader()
    watchdog = catalog.connections.watchdog
    token = watchdog.watch(cur, seconds)
    try:
        if as_json:
            # Executed as a statement, then read as Arrow: a relation (cur.sql) binds and
            # prepares the SQL again, ~10 ms on TPC-H Q2, for a copy that costs nothing here.
            cur.execute(sql, params)
            types = [str(d[1]) for d in cur.description]
            # A few rows are read as Python values where those are written as Arrow's are: Arrow
            # costs DuckDB a statement more (0.3-1 ms, more than a few rows' values); the rest,
            # if any, come as Arrow.
            few: list = []
            if hash(sql) not in _MANY and rows_readable(types):
                most = FEW_CELLS // row_cost(types)
                few = json_rows(cur.fetchmany(most + 1), len(types))
                if len(few) <= most:
                    return few
                _many(sql)
            # A result holding an INTERVAL is read from Arrow whatever its other types: DuckDB's
            # Python values make a month 30 days (P1M came back P30D), Arrow keeps its parts.
            if arrow_readable(types) or "INTERVAL" in types:
                return few + list(map(list, zip(*arrow_json(cur.to_arrow_table(), types, intervals))))
            return json_rows(cur.fetchall(), len(types))
        rows = cur.execute(sql, params).fetchall()
    except duckdb.InterruptException:
        if watchdog.release(token) == "memory":
            raise over_share(settings, "the plan") from None
        raise BackendTimeout(f"the query ran past its time limit ({seconds:g} s) and was stopped") from None
    except duckdb.OutOfMemoryException:
        raise over_share(settings, "the plan") from None
    except (duckdb.OutOfRangeException, duckdb.ConversionException) as err:
        raise out_of_range(str(err).splitlines()[0], dated) from None
    finally:
        watchdog.release(token)
    return rows


class Stream:
    """One statement's result streamed: `reader` yields Arrow record batches of its first `width`
    columns, named `names`, while DuckDB computes them, so memory stays flat in the result's
    size; `counted` is told each batch's rows as it goes, `ended` when the last is read. Watched
    for export_seconds and the memory share, and stopped by `cancel` (a client that went away);
    read to its end, closed, or dropped unread, the statement and its watch are let go.

    Each field carries DuckDB's type in its metadata (DUCKDB_TYPE: Arrow gives a HUGEINT and a
    DECIMAL(38,0) one type). `intervals`: the result columns (by place) that are INTERVALs, whose
    parts `sql` adds after its own columns (with_interval_parts): with `interval_text` they are
    ISO 8601 text of any length; else Arrow's interval, and a batch holding one Arrow's type
    cannot carry is refused (past_arrow), never wrapped. `dated`: as out_of_range's."""

    def __init__(
        self,
        catalog: Catalog,
        settings: Settings,
        sql: str,
        params: dict,
        names: list[str],
        counted=lambda rows: None,
        ended=lambda: None,
        intervals: list[int] | None = None,
        interval_text: bool = False,
        dated: list[tuple[str, str]] | tuple = (),
    ):
        self._watchdog, self._settings = catalog.connections.watchdog, settings
        self._cancelled = False
        self._cursor = catalog.connections.cursor()  # its own: the reader outlives this call
        self._token = self._watchdog.watch(self._cursor, settings.export_seconds)
        self._release = weakref.finalize(self, _release, self._watchdog, self._token, self._cursor)
        try:
            # A relation, not a DB-API result: its Arrow reader streams without a copy of the rows.
            relation = self._cursor.sql(sql, params=params)
            types = [str(t) for t in relation.types]
            batches = relation.to_arrow_reader(BATCH_ROWS)
        except duckdb.InterruptException:
            raise self._stopped() from None
        except duckdb.OutOfMemoryException:
            self.close()
            raise TooLarge("the result needs more memory than duckdb_memory allows") from None
        except (duckdb.OutOfRangeException, duckdb.ConversionException) as err:
            self.close()
            raise out_of_range(str(err).splitlines()[0], dated) from None
        width, intervals = len(names), list(intervals or ())
        parts = len(types) - 3 * len(intervals)
        fields = [
            batches.schema.field(k).with_name(n).with_metadata({DUCKDB_TYPE: types[k]}) for k, n in enumerate(names)
        ]
        for k in intervals if interval_text else ():
            fields[k] = fields[k].with_type(pa.string())
        schema = pa.schema(fields)

        def columns(batch: pa.RecordBatch) -> list[pa.Array]:
            out = batch.columns[:width]
            for k, place in enumerate(intervals):
                months, days, micros = batch.columns[parts + 3 * k : parts + 3 * k + 3]
                if interval_text:
                    out[place] = interval_text_of(months, days, micros)
                elif not arrow_holds(micros):
                    raise past_arrow(names[place])
            return out

        def only_results():
            try:
                for batch in batches:
                    counted(batch.num_rows)
                    yield pa.RecordBatch.from_arrays(columns(batch), schema=schema)
            except (duckdb.InterruptException, OSError) as err:
                # Through Arrow's reader DuckDB's interrupt comes as an OSError ("INTERRUPT Error"),
                # and a value past its type's range as one saying so ("Conversion Error: …").
                said = str(err).splitlines()[0] if str(err) else ""
                if said.startswith(("Conversion Error", "Out of Range Error")):
                    raise out_of_range(said, dated) from None
                if isinstance(err, OSError) and not said.startswith("INTERRUPT"):
                    raise
                raise self._stopped() from None
            finally:
                self.close()
            ended()

        self.reader = pa.RecordBatchReader.from_batches(schema, only_results())

    def _stopped(self) -> TooLarge | BackendTimeout | Cancelled:
        """Why the statement was interrupted (before its first batch or while streaming): its
        memory share (413), export_seconds (504), or its reader cancelled it; it is let go."""
        why = self._watchdog.release(self._token)
        self.close()
        if self._cancelled:
            return Cancelled("the result was cancelled: its reader went away")
        if why == "memory":
            return over_share(self._settings, "the result")
        return BackendTimeout(
            f"the result ran past export_seconds ({self._settings.export_seconds:g} s) and was stopped"
        )

    def cancel(self) -> None:
        """Interrupt the statement from any thread: the reader's next batch raises Cancelled."""
        if self._release.alive:
            self._cancelled = True
            with suppress(duckdb.Error):
                self._cursor.interrupt()

    @property
    def done(self) -> bool:
        """Whether the statement and its watch are let go (read to its end, closed, cancelled)."""
        return not self._release.alive

    def close(self) -> None:
        self._release()


class Cancelled(Exception):
    """A streamed statement stopped because its reader went away (no one is told: no one is there)."""


def _release(watchdog, token: int, cursor) -> None:
    watchdog.release(token)
    with suppress(duckdb.Error):
        cursor.close()


class DuckDBBackend:
    """The home's own engine: this process's DuckDB, reading the snapshot files where they are
    (attached READ_ONLY on first use), a duration's parts read beside it, whole results streamed."""

    name = "duckdb"
    target = DUCKDB
    engine = f"duckdb {duckdb.__version__}"
    capabilities = Capabilities(reuses_resolutions=True, counts_unread=True, streams=True)

    def __init__(self, catalog: Catalog, settings: Settings) -> None:
        self._home = HomeRef(catalog)

    def place(self, resolved: Resolved, dry_run: bool) -> None:
        if not dry_run:
            self._home.catalog.snapshots.attach(s.info.snapshot_id for _, s, _ in resolved.read_sources())

    def finish(self, compiled: Compiled) -> Compiled:
        """Arrow carries an INTERVAL's time as int64 nanoseconds, which wrap past 292 years: the
        statement also hands over each duration's parts, which the answer is read from."""
        durations = intervals(compiled)
        if not durations:
            return compiled
        names = [compiled.columns[k].name for k in durations]
        return replace(compiled, sql=with_interval_parts(compiled.sql, names))

    def deadline(self, left: float, settings: Settings) -> float:
        return left  # checking and compiling counted inside query_seconds

    def run(
        self, compiled: Compiled, settings: Settings, seconds: float, dated: Sequence[tuple[str, str]] = ()
    ) -> list[list[Any]]:
        return run(
            self._home.catalog,
            settings,
            compiled.sql,
            compiled.params,
            seconds,
            as_json=True,
            intervals=intervals(compiled),
            dated=tuple(dated),
        )

    def first_rows(self, cursor: Any, table: exp.Table, names: list[str], n: int) -> tuple[list[dict], list[int]]:
        """A snapshot's first `n` rows in their SPEC §3 JSON form, as a query's rows are (arrow_json):
        every value DuckDB holds, a column at a time; a duration from its parts (Arrow's interval
        wraps past 292 years); and their row ids. `table` is the snapshot's table with `__row_id`
        first, `names` its columns after it."""
        select = exp.select("*").from_(table).order_by(exp.column(ROW_ID, quoted=True)).limit(n)
        described = cursor.execute(exp.Describe(this=select).sql(dialect=DIALECT)).fetchall()
        types = [str(d[1]) for d in described]
        durations = [k for k, t in enumerate(types) if t == "INTERVAL"]
        sql = select.sql(dialect=DIALECT)
        if durations:
            sql = with_interval_parts(sql, [described[k][0] for k in durations])
        arrow = cursor.execute(sql).to_arrow_table()
        columns = arrow_json(arrow, types, durations) if arrow.num_columns else []
        rows = list(zip(*columns))
        return [dict(zip(names, r[1:])) for r in rows], [r[0] for r in rows]

    def counts(self, check: Any, settings: Settings, seconds: float) -> tuple[Any, ...]:
        (row,) = run(self._home.catalog, settings, check.sql, check.params, seconds)
        return tuple(row)

    def stream(
        self,
        compiled: Compiled,
        settings: Settings,
        names: list[str],
        counted: Callable[[int], None] | None = None,
        ended: Callable[[], None] | None = None,
        interval_text: bool = False,
        dated: Sequence[tuple[str, str]] = (),
    ) -> Stream:
        return Stream(
            self._home.catalog,
            settings,
            compiled.sql,
            compiled.params,
            names,
            counted or (lambda rows: None),
            ended or (lambda: None),
            intervals=intervals(compiled),
            interval_text=interval_text,
            dated=tuple(dated),
        )


# The class backends/base.py's backend_for makes for this engine.
BACKEND = DuckDBBackend
