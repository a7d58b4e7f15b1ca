"""The ClickHouse backend of knowledge.query: snapshots exported as Parquet (export.py), loaded
once into a ClickHouse table each, plans compiled for ClickHouse (planner/targets.py) and run
there, answers brought back to the Python values DuckDB gives, so the JSON is the same.

Two connections: a server through clickhouse-connect (`clickhouse_host`, port, user, password,
database, secure), or `chdb`, ClickHouse in this process (tests, one machine)."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp

from planner.compile import Compiled
from planner.resolved import ROW_ID, Resolved
from planner.schema import DatasetInfo
from planner.targets import CLICKHOUSE, CLICKHOUSE_SETTINGS, clickhouse_type

from ..errors import BackendTimeout, Overloaded, past_38_digits
from ..jsonval import json_rows
from ..settings import Settings
from ..store.export import destination, export_snapshot
from ..store.home import Catalog
from .base import Capabilities, HomeRef, Streamed

DIALECT = "clickhouse"
# ClickHouse error codes met while running a plan.
TIMEOUT_EXCEEDED = 159
TOO_SLOW = 160
DECIMAL_OVERFLOW = 407
ARGUMENT_OUT_OF_BOUND = 69
THROW_IF = 395  # a sum past 38 digits (planner/targets.py)

TABLE_EXISTS = "SELECT count() AS n FROM system.tables WHERE database = {db:String} AND name = {name:String}"
# A snapshot's table: its columns are set on the parsed statement (an empty sort key: rows in load order).
MERGE_TREE = "CREATE TABLE t (x Int64) ENGINE = MergeTree ORDER BY tuple()"


class ClickHouseError(Exception):
    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


def _code(message: str) -> int:
    head = message.split("Code: ", 1)
    try:
        return int(head[1].split(".", 1)[0]) if len(head) == 2 else 0
    except ValueError:
        return 0


def _escaped(value: Any) -> str:
    """A parameter as ClickHouse reads `{p:Type}` values from text (the Escaped format)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.UTC).replace(tzinfo=None)
        return value.isoformat(sep=" ")
    if isinstance(value, (dt.date, int, float)):
        return str(value) if not isinstance(value, float) else repr(value)
    text = str(value)
    for raw, escaped in (
        ("\\", "\\\\"),
        ("\t", "\\t"),
        ("\n", "\\n"),
        ("\r", "\\r"),
        ("\0", "\\0"),
        ("\b", "\\b"),
        ("\f", "\\f"),
    ):
        text = text.replace(raw, escaped)
    return text


class _Chdb:
    """ClickHouse in this process. chdb holds one session per process (at the path the first
    engine named) and is not thread-safe: every engine of the process shares it (`shared`),
    and every call takes the lock. Snapshot ids are unique, so engines' tables never meet."""

    _lock = threading.Lock()
    _shared: _Chdb | None = None

    @classmethod
    def shared(cls, path: str) -> _Chdb:
        with cls._lock:
            if cls._shared is None:
                Path(path).mkdir(parents=True, exist_ok=True)
                cls._shared = cls(path)
            return cls._shared

    def __init__(self, path: str):
        import chdb
        from chdb.state.sqlitelike import connect

        self.conn = connect(path)
        self.version = f"clickhouse {chdb.engine_version} (chdb {chdb.__version__})"
        self.seconds: float | None = None
        for name, value in CLICKHOUSE_SETTINGS.items():
            self._query(_set(name, value), {})

    def query(self, sql: str, params: dict[str, Any], seconds: float = 0):
        """Run one statement; `seconds` limits it (0: no limit, as for loading a snapshot)."""
        with self._lock:
            if seconds != self.seconds:
                # One session serves every engine of the process: each run sets its own limit.
                self._query(_set("max_execution_time", seconds), {})
                self.seconds = seconds
            return self._query(sql, params)

    def _query(self, sql: str, params: dict[str, Any]):
        try:
            return self.conn.query(sql, "ArrowTable", params={k: _escaped(v) for k, v in params.items()})
        except Exception as err:  # chdb raises its own error, or RuntimeError from the binding
            # After an error chdb hands the next statement's Arrow answer over broken: flush it.
            try:
                self.conn.query("SELECT 1", "CSV")
            except Exception:
                pass
            raise ClickHouseError(_code(str(err)), str(err)) from None

    def command(self, sql: str, params: dict[str, Any] | None = None) -> None:
        self.query(sql, params or {})

    def load(self, table: str, columns: list[str], location: str) -> None:
        """Read the Parquet file (a path, or a URL ClickHouse's s3() takes) into `table` (quoted SQL)."""
        names = [exp.to_identifier(c, quoted=True) for c in columns]
        source = _table_function(location)
        insert = exp.insert(exp.select(*names).from_(source), exp.to_table(table, dialect=DIALECT), columns=names)
        self.command(insert.sql(DIALECT), {"location": location})


class _Server:
    """A ClickHouse server through clickhouse-connect (HTTP)."""

    def __init__(self, settings: Settings):
        import clickhouse_connect

        self.where, self.retry_after = (
            f"{settings.clickhouse_host}:{settings.clickhouse_port}",
            settings.retry_after_seconds,
        )
        try:
            self.client = clickhouse_connect.get_client(
                host=settings.clickhouse_host,
                port=settings.clickhouse_port,
                username=settings.clickhouse_user,
                password=settings.clickhouse_password,
                secure=bool(settings.clickhouse_secure),
                settings=CLICKHOUSE_SETTINGS,
            )
        except Exception as err:
            raise self._failed(err) from None
        self.version = (
            f"clickhouse {self.client.server_version} (server {settings.clickhouse_host}:{settings.clickhouse_port})"
        )

    def query(self, sql: str, params: dict[str, Any], seconds: float = 0):
        try:
            return self.client.query_arrow(
                sql, parameters=params, settings={"max_execution_time": seconds} if seconds else None
            )
        except Exception as err:  # clickhouse_connect's DatabaseError and its kind
            raise self._failed(err) from None

    def command(self, sql: str, params: dict[str, Any] | None = None) -> None:
        try:
            self.client.command(sql, parameters=params or None)
        except Exception as err:
            raise self._failed(err) from None

    def _failed(self, err: Exception) -> Exception:
        """The server's own error (with its code), or, when no server answered, 503 OVERLOADED:
        the backend is unavailable for now, which is the caller's to retry, not a defect."""
        code = getattr(err, "code", None) or _code(str(err))
        if not code and type(err).__name__ == "OperationalError":
            return Overloaded(f"the ClickHouse server {self.where} does not answer; try again later", self.retry_after)
        return ClickHouseError(code, str(err))

    def load(self, table: str, columns: list[str], location: str) -> None:
        if "://" not in location or location.startswith("file://"):
            # The server cannot see this machine's files: the client sends the Parquet bytes.
            path = location[len("file://") :] if location.startswith("file://") else location
            with open(path, "rb") as stream:  # a quoted db.table is taken as it is
                self.client.raw_insert(table, columns, insert_block=stream, fmt="Parquet")
            return
        names = [exp.to_identifier(c, quoted=True) for c in columns]
        insert = exp.insert(
            exp.select(*names).from_(_table_function(location)), exp.to_table(table, dialect=DIALECT), columns=names
        )
        self.command(insert.sql(DIALECT), {"location": location})


def _set(name: str, value: Any) -> str:
    return exp.Set(expressions=[exp.SetItem(this=exp.EQ(this=exp.var(name), expression=_literal(value)))]).sql(DIALECT)


def _literal(value: Any) -> exp.Expression:
    return exp.Literal.number(value) if isinstance(value, (int, float)) else exp.Literal.string(str(value))


def _table_function(location: str) -> exp.Expression:
    """file() for a local path, s3() for an object-store URL; the location is a parameter."""
    kind = "file" if "://" not in location or location.startswith("file://") else "s3"
    # sqlglot has no node for ClickHouse's file() and s3() table functions: called by name.
    return exp.Anonymous(
        this=kind,
        expressions=[
            exp.Placeholder(this="location", kind=exp.DataType.build("String")),
            exp.Literal.string("Parquet"),
        ],
    )


class ClickHouseBackend:
    """Runs compiled plans on ClickHouse over the snapshots' Parquet exports, each loaded once
    into a table of its own (place); a whole result streams from the home's own engine."""

    name = "clickhouse"
    target = CLICKHOUSE
    capabilities = Capabilities(reuses_resolutions=False, counts_unread=False, streams=False)

    def __init__(self, catalog: Catalog, settings: Settings) -> None:
        self._home, self.settings = HomeRef(catalog), settings
        self.database = settings.clickhouse_database
        self.loaded: set[str] = set()
        self._loading, self._connecting = threading.Lock(), threading.Lock()
        self._conn: _Chdb | _Server | None = None

    @property
    def conn(self) -> _Chdb | _Server:
        """The connection, made on first use (a plan is checked before ClickHouse is asked)."""
        if self._conn is None:
            with self._connecting:
                if self._conn is None:
                    settings = self.settings
                    if settings.clickhouse_host == "chdb":
                        conn: _Chdb | _Server = _Chdb.shared(str(self._home.catalog.home / "chdb"))
                    else:
                        conn = _Server(settings)
                    database = exp.Create(
                        this=exp.to_identifier(self.database, quoted=True), kind="DATABASE", exists=True
                    )
                    conn.command(database.sql(DIALECT))
                    self._conn = conn
        return self._conn

    @property
    def engine(self) -> str:
        return self.conn.version

    def place(self, resolved: Resolved, dry_run: bool) -> None:
        """The plan's snapshots named as ClickHouse names them (exported and loaded there on
        first use; a dry run loads nothing). Resolutions are renamed per call: never kept."""
        for _, s, _ in resolved.read_sources():
            s.info = replace(s.info, table=self.table(s.info) if not dry_run else (self.database, s.info.snapshot_id))

    def finish(self, compiled: Compiled) -> Compiled:
        return compiled

    def deadline(self, left: float, settings: Settings) -> float:
        """ClickHouse's own max_execution_time: query_seconds whole (its first load of a
        snapshot, checking and compiling are not counted in it)."""
        return settings.query_seconds

    def table(self, info: DatasetInfo) -> tuple[str, str]:
        """The snapshot's table in ClickHouse, exported and loaded on first use."""
        sid = info.snapshot_id
        if sid not in self.loaded:
            with self._loading:
                if sid not in self.loaded:
                    self._load(info)
                    self.loaded.add(sid)
        return (self.database, sid)

    def _load(self, info: DatasetInfo) -> None:
        sid = info.snapshot_id
        found = self.conn.query(TABLE_EXISTS, {"db": self.database, "name": sid})
        if found.column("n")[0].as_py():
            return
        catalog = self._home.catalog
        export = export_snapshot(catalog, sid, destination(catalog, self.settings.snapshot_export))
        columns = [(ROW_ID, "Int64")] + [(c.name, clickhouse_type(c.physical) or "String") for c in info.columns]
        loading = f"{sid}__loading"
        qualified = lambda name: exp.table_(name, db=self.database, quoted=True)
        self.conn.command(exp.Drop(tables=[qualified(loading)], kind="TABLE", exists=True).sql(DIALECT))
        schema = exp.Schema(
            this=qualified(loading),
            expressions=[
                exp.ColumnDef(
                    this=exp.to_identifier(name, quoted=True),
                    kind=exp.DataType.build(f"Nullable({kind})" if name != ROW_ID else kind, dialect=DIALECT),
                )
                for name, kind in columns
            ],
        )
        create = sqlglot.parse_one(MERGE_TREE, read=DIALECT)
        create.set("this", schema)
        self.conn.command(create.sql(DIALECT))
        self.conn.load(qualified(loading).sql(DIALECT), [name for name, _ in columns], export.location)
        # Loaded whole, then renamed: a reader never meets half a snapshot. sqlglot has no node
        # for ClickHouse's RENAME TABLE: a Command, its two names quoted by sqlglot.
        names = " TO ".join(qualified(name).sql(DIALECT) for name in (loading, sid))
        self.conn.command(exp.Command(this="RENAME", expression="TABLE " + names).sql(DIALECT))

    def run(
        self, compiled: Compiled, settings: Settings, seconds: float, dated: Sequence[tuple[str, str]] = ()
    ) -> list[list[Any]]:
        """The rows as DuckDB gives them (_as_duckdb), in their JSON form."""
        try:
            answer = self.conn.query(compiled.sql, compiled.params, seconds)
        except ClickHouseError as err:
            if err.code in (TIMEOUT_EXCEEDED, TOO_SLOW):
                raise BackendTimeout(f"the query ran past its time limit ({seconds:g} s) and was stopped") from None
            if err.code in (DECIMAL_OVERFLOW, ARGUMENT_OUT_OF_BOUND, THROW_IF):
                raise past_38_digits(str(err).splitlines()[0][:300]) from None
            raise
        physicals = [o.physical for o in compiled.columns] + ["BIGINT"] * compiled.row_id_columns
        columns = [[_as_duckdb(v, p) for v in answer.column(k).to_pylist()] for k, p in enumerate(physicals)]
        rows = list(zip(*columns)) if columns else []
        return json_rows(rows, len(physicals))

    def counts(self, check: Any, settings: Settings, seconds: float) -> tuple[Any, ...]:
        raise NotImplementedError("a plan's cast checks run on the home's own engine (counts_unread)")

    def stream(
        self,
        compiled: Compiled,
        settings: Settings,
        names: list[str],
        counted: Callable[[int], None] | None = None,
        ended: Callable[[], None] | None = None,
        interval_text: bool = False,
        dated: Sequence[tuple[str, str]] = (),
    ) -> Streamed:
        raise NotImplementedError("a whole result streams from the home's own engine (backend_for(streams=True))")


def _as_duckdb(value: Any, physical: str) -> Any:
    """The Python value DuckDB gives for a result of type `physical`: ClickHouse's Decimal(38, 0)
    sums of integers are ints, and a TIMESTAMP has no time zone."""
    if value is None:
        return None
    if physical in ("BIGINT", "HUGEINT") and isinstance(value, Decimal):
        return int(value)
    if physical == "TIMESTAMP" and isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).replace(tzinfo=None)
    if physical == "TIMESTAMPTZ" and isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC)
    if physical == "DATE" and isinstance(value, dt.datetime):
        return value.date()
    return value


# The class backends/base.py's backend_for makes for this engine.
BACKEND = ClickHouseBackend
