"""Plans run on the catalog's DuckDB: a statement with a deadline and a memory share (the
watchdog interrupts it past either), its rows as JSON values or streamed as Arrow batches.
Writing the SQL is planner/'s; choosing what to run is ops/query's."""

from __future__ import annotations

import warnings
import weakref
from contextlib import suppress

import duckdb
import pyarrow as pa

from ..errors import BackendTimeout, TooLarge, past_38_digits
from ..jsonval import arrow_readable, json_columns, json_rows
from ..settings import Settings
from ..store.home import Catalog

# An answer's rows (at most 10,001) are read as Arrow from an executed statement, which DuckDB
# warns copies them once (see _run): that copy is the point, and no caller needs the warning.
warnings.filterwarnings("ignore", message="Arrow output on a DB-API result", category=UserWarning)

# Rows per Arrow record batch of a streamed result.
BATCH_ROWS = 64 * 1024


def over_share(settings: Settings, what: str) -> TooLarge:
    """The watchdog stopped the statement at its memory share (413)."""
    return TooLarge(
        f"{what} needs more memory than its share allows (query_memory_share {settings.query_memory_share:g} of duckdb_memory "
        f"{settings.duckdb_memory}) and was stopped; filter first, or join on keys that match fewer rows"
    )


def run(catalog: Catalog, settings: Settings, sql: str, params: dict, seconds: float, as_json: bool = False) -> list:
    """Run with a deadline (past it the statement is interrupted: 504) and a memory share (past
    it the longest-running statement is interrupted: 413; deadline.py). The rows as tuples; with
    `as_json`, as lists of JSON values, read a column at a time from Arrow where the result's
    types allow (jsonval.json_columns), else converted row by row."""
    cur = catalog.reader()
    token = catalog.watchdog.watch(cur, seconds)
    try:
        if as_json:
            # Executed as a statement, then read as Arrow: a relation (cur.sql) binds and
            # prepares the SQL again, ~10 ms on TPC-H Q2, for a copy that costs nothing here.
            cur.execute(sql, params)
            types = [str(d[1]) for d in cur.description]
            # A result holding an INTERVAL is read from Arrow whatever its other types: DuckDB's
            # Python values make a month 30 days (P1M came back P30D), Arrow keeps its parts.
            if arrow_readable(types) or "INTERVAL" in types:
                columns = json_columns(cur.to_arrow_table(), types)
                return [list(row) for row in zip(*columns)]
            return json_rows(cur.fetchall(), len(types))
        rows = cur.execute(sql, params).fetchall()
    except duckdb.InterruptException:
        if catalog.watchdog.release(token) == "memory":
            raise over_share(settings, "the plan") from None
        raise BackendTimeout(f"the query ran past its time limit ({seconds:g} s) and was stopped") from None
    except duckdb.OutOfMemoryException:
        raise over_share(settings, "the plan") from None
    except (duckdb.OutOfRangeException, duckdb.ConversionException) as err:
        raise past_38_digits(str(err).splitlines()[0]) from None
    finally:
        catalog.watchdog.release(token)
    return rows


class Stream:
    """One statement's result streamed: `reader` yields Arrow record batches of its first `width`
    columns, named `names`, while DuckDB computes them, so memory stays flat in the result's
    size; `counted` is told each batch's rows as it goes, `ended` when the last is read. Watched
    for export_seconds and the memory share, and stopped by `cancel` (a client that went away);
    read to its end, closed, or dropped unread, the statement and its watch are let go."""

    def __init__(
        self,
        catalog: Catalog,
        settings: Settings,
        sql: str,
        params: dict,
        names: list[str],
        counted=lambda rows: None,
        ended=lambda: None,
    ):
        self._catalog, self._settings = catalog, settings
        self._cancelled = False
        self._cursor = catalog.cursor()  # its own: the reader outlives this call
        self._token = catalog.watchdog.watch(self._cursor, settings.export_seconds)
        self._release = weakref.finalize(self, _release, catalog.watchdog, self._token, self._cursor)
        try:
            # A relation, not a DB-API result: its Arrow reader streams without a copy of the rows.
            batches = self._cursor.sql(sql, params=params).to_arrow_reader(BATCH_ROWS)
        except duckdb.InterruptException:
            raise self._stopped() from None
        except duckdb.OutOfMemoryException:
            self.close()
            raise TooLarge("the result needs more memory than duckdb_memory allows") from None
        except (duckdb.OutOfRangeException, duckdb.ConversionException) as err:
            self.close()
            raise past_38_digits(str(err).splitlines()[0]) from None
        width = len(names)
        schema = pa.schema([batches.schema.field(k).with_name(n) for k, n in enumerate(names)])

        def only_results():
            try:
                for batch in batches:
                    counted(batch.num_rows)
                    yield pa.RecordBatch.from_arrays(batch.columns[:width], schema=schema)
            except (duckdb.InterruptException, OSError) as err:
                # Through Arrow's reader DuckDB's interrupt comes as an OSError ("INTERRUPT Error").
                if isinstance(err, OSError) and not str(err).startswith("INTERRUPT"):
                    raise
                raise self._stopped() from None
            finally:
                self.close()
            ended()

        self.reader = pa.RecordBatchReader.from_batches(schema, only_results())

    def _stopped(self) -> TooLarge | BackendTimeout | Cancelled:
        """Why the statement was interrupted (before its first batch or while streaming): its
        memory share (413), export_seconds (504), or its reader cancelled it; it is let go."""
        why = self._catalog.watchdog.release(self._token)
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
