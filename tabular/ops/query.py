"""knowledge.query: a typed plan checked against the live snapshots, compiled, run, answered
exactly, with a receipt. The planner knows no storage; this op hands it the schemas."""

from __future__ import annotations

import datetime as dt
import json
import logging
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import replace
from typing import Any, ClassVar, Literal

import duckdb
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from planner.compile import compile_plan
from planner.models import QueryPlan, QueryPlanDataset
from planner.rebind import rebind, slot_values
from planner.receipt import ComputedColumn, QueryReceipt, ReceiptDataset, plan_hash
from planner.resolve import resolve
from planner.resolved import Limits, PlanInvalid, Resolved
from planner.targets import TARGETS

from ..backends.duckdb import Stream, run, with_interval_parts
from ..charts import MAX_BARS, plot
from ..display import query_html, query_repr, whole_html, whole_repr
from ..errors import BackendTimeout, ErrorItem, PreconditionFailed, TabularError, TooLarge, ValidationFailed
from ..jsonval import json_rows, to_json
from ..models import OpOut
from ..results import FORMATS as RESULT_FORMATS
from ..results import polars_ready
from ..store import receipts
from ..store.schemas import known_sources, live_schemas
from .context import Context
from .typed import arrow_array, typed

log = logging.getLogger("tabular.query")


class QueryIn(QueryPlan):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    # A plan is closed (SPEC §2): a key that is no clause is refused at its path, never skipped;
    # identity and transport fields pass and are named in ignored_args.
    closed: ClassVar[bool] = True
    org: str = Field("", description="Organisation; filled from the token or the install's default.")
    namespace: str = Field("", description="Namespace inside the org; filled from the install's default when empty.")


class ResultColumn(BaseModel):
    name: str
    type: str


class QueryExportIn(QueryIn):
    format: Literal[tuple(RESULT_FORMATS)] = Field(
        "arrow", description="How the rows are written: an Arrow IPC stream, CSV, Parquet or newline-delimited JSON."
    )


class QueryExportOut(BaseModel):
    """What comes with knowledge.query_export's rows (over HTTP, in headers of 4 KB at most:
    X-Tabular-Receipt-Id, X-Tabular-Ignored-Args, and X-Tabular-Columns when it fits); the whole
    receipt and the columns are knowledge.receipt's answer for the id."""

    receipt_id: str = Field(description="knowledge.receipt answers the whole receipt by this id for receipt_seconds.")
    columns: list[ResultColumn]
    receipt: QueryReceipt
    ignored_args: list[str] = Field(default_factory=list)

    def _repr_html_(self) -> str:
        return whole_html(self)

    def __repr__(self) -> str:
        return whole_repr(self)


class QueryOut(OpOut):
    columns: list[ResultColumn]
    rows: list[list[Any]] = Field(
        description="One list per row, in `columns` order; decimals and big integers as text (SPEC §3)."
    )
    row_ids: list[list[int | None]] | None = Field(
        None, description="Without aggregates: per row, its row id in each dataset, in plan order."
    )
    truncated: bool = Field(description="More rows matched than offset + limit reached.")
    complete: bool = Field(
        description="False when a dataset read rejected rows, is partial, or has an open question on a column read."
    )
    incomplete: list[str] = Field(
        default_factory=list, description="Why not complete, one reason per dataset, in words."
    )
    receipt: QueryReceipt
    # Set by the namespace that ran it: every row of the same plan, streamed (to_arrow(whole=True)).
    _stream_whole: Callable[[], Any] | None = PrivateAttr(None)

    def typed_rows(self) -> list[list[Any]]:
        """The rows as Python values, in `columns` order: Decimal for a decimal column (exactly as
        written: Decimal('1234.50')), int for an integer one (big ones too), float for floating
        point, date / datetime / time / timedelta, None for null. `rows` keeps the JSON form
        (decimals and big integers as text, SPEC §3)."""
        columns = [typed([r[k] for r in self.rows], c.type)[0] for k, c in enumerate(self.columns)]
        return [list(row) for row in zip(*columns)] if columns else [[] for _ in self.rows]

    def records(self) -> list[dict[str, Any]]:
        """The rows as dicts by column name, with the values of `typed_rows()`."""
        names = [c.name for c in self.columns]
        return [dict(zip(names, row)) for row in self.typed_rows()]

    def to_arrow(self, whole: bool = False):
        """The rows as an Arrow table with exact types (decimal128 with the values' scale, int64,
        date …); `whole`: every row the plan matches, past `limit`, read again streamed, in the
        engine's order unless the plan has order_by (or whole_order "stable")."""
        import pyarrow as pa

        if whole:
            if self._stream_whole is None:
                raise ValueError("this answer was not made by a namespace that can stream (ns.query)")
            return self._stream_whole().read_all()
        arrays = []
        for k, c in enumerate(self.columns):
            as_json = [r[k] for r in self.rows]
            arrays.append(arrow_array(*typed(as_json, c.type), as_json))
        return pa.Table.from_arrays(arrays, names=[c.name for c in self.columns])

    def to_polars(self, whole: bool = False):
        """The rows as a Polars frame (the types of `to_arrow`: Decimal, Int64, Date …)."""
        import polars as pl

        if whole and self._stream_whole is not None:
            # Streamed as a Parquet export is (durations as ISO text, of any length: Polars has no
            # type that keeps a month a month, and Arrow's interval wraps past 292 years).
            return pl.from_arrow(polars_ready(self._stream_whole("parquet").read_all()))
        return pl.from_arrow(polars_ready(self.to_arrow(whole)))

    def to_pandas(self):
        return self.to_arrow().to_pandas()

    def plot(self, kind=None, x=None, y=None, *, path=None, title=None, max_bars=MAX_BARS):
        """The answer as a chart (a matplotlib Figure, drawn inline in a notebook): a line over a
        date first column, bars by a text column, a scatter of numbers, unless `kind` ("bar",
        "line", "scatter"), `x` and `y` (column names) say; `path` saves it (.png, .svg, .pdf).
        Under the title it says what it leaves out (a truncated or incomplete answer, bars past
        `max_bars`). Refused (VALIDATION_FAILED) saying why when nothing can be drawn."""
        return plot(self, kind, x, y, path=path, title=title, max_bars=max_bars)

    def _repr_html_(self) -> str:
        return query_html(self)

    def __repr__(self) -> str:
        return query_repr(self)


def _refused(invalid: PlanInvalid) -> TooLarge | ValidationFailed:
    items = [ErrorItem(p.path, p.message, p.expected, p.received, p.did_you_mean) for p in invalid.problems]
    if all(p.over_limit for p in invalid.problems):  # SPEC §2: a plan over the plan limits is 413
        return TooLarge(f"the plan is over a limit: {invalid.problems[0].message}", items)
    return ValidationFailed(f"the plan does not fit the datasets: {invalid.problems[0].message}", items)


def _shape(value: Any) -> Any:
    """A plan's JSON with every filter's values replaced by their count: its shape."""
    if isinstance(value, list):
        return [_shape(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: _shape(v) for k, v in value.items()}
    if "column" in value and "op" in value:  # a filter: its values are parameters
        for key in ("value", "values"):
            if key in value:
                out[key] = ["?"] * len(value[key]) if isinstance(value[key], list) else "?"
    # What the SQL takes from a value besides binding it (a like pattern's backslash) the
    # compiled statement records itself: rebind.rebind declines it for a value unlike it.
    return out


def _shape_key(ctx: Context, body: QueryIn, resolved: Resolved, target, whole: bool) -> tuple:
    plan = body.model_dump(
        mode="json", by_alias=True, exclude={"org", "namespace", *(body.model_extra or {})}, exclude_defaults=True
    )
    snapshots = tuple((within, s.index, s.info.table) for within, s, _ in resolved.read_sources())
    text = json.dumps(_shape(plan), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return (target.name, whole, text, snapshots, ctx.settings.expression_nodes_max)


def _compiled(ctx: Context, body: QueryIn, resolved: Resolved, target, whole: bool = False):
    """The plan compiled, for an answer or a whole result alike: one that writes out too much
    as it compiles (planner/compile.py), or whose SQL is past `max_sql_bytes`, is 413. A plan
    of a shape compiled before (the same plan over the same snapshots but for its filters'
    values) takes that statement with its own values bound (rebind.rebind)."""
    max_sql_bytes = ctx.settings.max_sql_bytes
    cache = ctx.catalog.compiled_cache
    key = _shape_key(ctx, body, resolved, target, whole)
    cached = cache.get(key)
    if cached is not None:
        compiled = rebind(cached, resolved)
        if compiled is not None:
            cache.move_to_end(key)
            return compiled
    try:
        compiled = compile_plan(resolved, target, whole=whole, stable=body.whole_order == "stable")
    except PlanInvalid as invalid:
        raise _refused(invalid) from None
    if len(compiled.sql) > max_sql_bytes:
        raise TooLarge(
            f"the plan compiles to {len(compiled.sql)} bytes of SQL, over {max_sql_bytes} (max_sql_bytes): fewer computed columns or filters"
        )
    if target.name == "duckdb" and _intervals(compiled):
        # Arrow carries an INTERVAL's time as int64 nanoseconds, which wrap past 292 years: the
        # statement also hands over each duration's parts, which the answer is read from.
        names = [compiled.columns[k].name for k in _intervals(compiled)]
        compiled = replace(compiled, sql=with_interval_parts(compiled.sql, names))
    if ctx.settings.compiled_cache_entries and slot_values(resolved) is not None:
        cache[key] = compiled
        while len(cache) > ctx.settings.compiled_cache_entries:
            cache.popitem(last=False)
    return compiled


def _intervals(compiled) -> list[int]:
    """The result columns (by place) that are DuckDB INTERVALs (durations)."""
    return [k for k, o in enumerate(compiled.columns) if o.physical == "INTERVAL" or o.type == "duration"]


def _dated(body: QueryIn, resolved: Resolved) -> list[tuple[str, str]]:
    """The plan's computed dates and timestamps, as (path, name): where a value past DuckDB's
    range (date_add past 5881580 AD) can come from, for the error that says so."""
    typed = {ref.column.name: ref.column.type for ref in resolved.computed}
    return [(f"compute[{k}]", c.as_) for k, c in enumerate(body.compute) if typed.get(c.as_) in ("date", "datetime")]


def _found(ctx: Context, org: str, namespace: str, plan) -> list:
    """Per dataset of the plan, the live datasets of its source; for a plan as a dataset, the same of its plan."""
    return [
        _found(ctx, org, namespace, d.plan)
        if isinstance(d, QueryPlanDataset)
        else live_schemas(ctx.catalog, org, namespace, d.source_uri)
        for d in plan.datasets
    ]


def _all_found(plan, found: list) -> bool:
    """Whether every dataset the plan names (nested plans' too: _found's shape) was found."""
    return all(
        _all_found(d.plan, f) if isinstance(d, QueryPlanDataset) else bool(f) for d, f in zip(plan.datasets, found)
    )


def _resolve(ctx: Context, body: QueryIn, target) -> Resolved:
    """The plan checked against the live datasets it names (422 / 413 / 409 otherwise)."""
    found = _found(ctx, body.org, body.namespace, body)
    settings = ctx.settings
    limits = Limits(
        settings.datasets_per_plan,
        settings.filters_per_plan,
        settings.in_values_max,
        settings.result_limit_max,
        settings.computed_per_plan,
        settings.computed_depth_max,
        settings.expression_nodes_max,
        settings.plan_nesting_max,
    )
    try:
        resolved = resolve(
            body,
            found,
            known_sources(ctx.catalog, body.org, body.namespace) if not _all_found(body, found) else [],
            limits,
            target,
        )
    except PlanInvalid as invalid:
        raise _refused(invalid) from None
    for within, source, _ in resolved.read_sources():
        if source.pinned and source.pinned != source.info.snapshot_id:
            raise PreconditionFailed(
                f"snapshot {source.pinned!r} of {source.info.source_uri!r} no longer serves (the live one is {source.info.snapshot_id!r}): read again",
                [
                    ErrorItem(
                        f"{within}{'.' if within else ''}datasets[{source.index}].snapshot_id",
                        "stale snapshot",
                        expected=source.info.snapshot_id,
                        received=source.pinned,
                    )
                ],
            )
    return resolved


def _left(spent: float, seconds: float) -> float:
    """The seconds a compiled plan has left to run: resolving and compiling count inside
    `query_seconds` (504 past it)."""
    if spent >= seconds:
        raise BackendTimeout(
            f"checking and compiling the plan took {spent:.1f} s, past query_seconds ({seconds:g} s); nothing ran"
        )
    return seconds - spent


def query(ctx: Context, body: QueryIn) -> QueryOut:
    """Answer a typed plan over ingested datasets: filters, joins, groups, aggregates, exact results and a receipt of what was read."""
    started = time.perf_counter()
    settings = ctx.settings
    target = TARGETS.get(settings.query_engine)
    if target is None:
        raise ValueError(f"query_engine {settings.query_engine!r} is none of {', '.join(TARGETS)}")
    resolved = _resolve(ctx, body, target)
    validated = time.perf_counter()
    clickhouse = None
    if target.name == "clickhouse":
        # The snapshots as ClickHouse names them (exported and loaded there on first use).
        from ..backends.clickhouse import backend  # optional backend: chdb is heavy and only loaded when asked

        clickhouse = backend(ctx.catalog, settings)
        for _, s, _ in resolved.read_sources():
            s.info = replace(
                s.info,
                table=clickhouse.table(s.info)
                if not body.dry_run
                else (settings.clickhouse_database, s.info.snapshot_id),
            )
    compiling = time.perf_counter()
    compiled = _compiled(ctx, body, resolved, target)
    compiled_at = time.perf_counter()
    # Checking and compiling count inside query_seconds (ClickHouse's first load of a snapshot does not).
    spent = (validated - started) + (compiled_at - compiling)
    left = _left(spent, settings.query_seconds)
    rows: list[tuple] = []
    if not body.dry_run:
        if not clickhouse:
            ctx.catalog.attach(s.info.snapshot_id for _, s, _ in resolved.read_sources())
        rows = (
            clickhouse.run(compiled, settings.query_seconds)  # ClickHouse's own max_execution_time
            if clickhouse
            else run(
                ctx.catalog,
                ctx.settings,
                compiled.sql,
                compiled.params,
                left,
                as_json=True,
                intervals=_intervals(compiled),
                dated=_dated(body, resolved),
            )
        )
        if not clickhouse:
            for check in _checks(compiled):
                left = settings.query_seconds - (time.perf_counter() - started)
                resolved.warnings.extend(_unread(ctx, check, max(left, 0.001)))
    executed = time.perf_counter()
    truncated = len(rows) > body.limit
    rows = rows[: body.limit]
    width = len(compiled.columns)
    if clickhouse:
        out_rows = json_rows(rows, width)
    elif rows and len(rows[0]) > width:
        out_rows = [row[:width] for row in rows]
    else:  # no row ids or ordering columns after the result's: the rows as they came
        out_rows = rows
    # The row ids after the result columns; after them, columns that only ordered the rows.
    row_ids = [list(row[width : width + compiled.row_id_columns]) for row in rows] if compiled.row_id_columns else None
    incomplete = _incomplete(resolved)
    finished = time.perf_counter()
    receipt = _receipt(
        body,
        resolved,
        compiled,
        clickhouse.engine if clickhouse else f"duckdb {duckdb.__version__}",
        len(out_rows),
        {
            "validate": round((validated - started) * 1000, 3),
            "compile": round((compiled_at - validated) * 1000, 3),
            "execute": round((executed - compiled_at) * 1000, 3),
            "total": round((finished - started) * 1000, 3),
        },
    )
    return QueryOut(
        columns=[ResultColumn(name=o.name, type=o.type) for o in compiled.columns],
        rows=out_rows,
        row_ids=row_ids,
        truncated=truncated,
        complete=not incomplete,
        incomplete=incomplete,
        receipt=receipt,
    )


def _receipt(
    body: QueryIn, resolved: Resolved, compiled, engine: str, rows_returned: int, elapsed_ms: dict
) -> QueryReceipt:
    return QueryReceipt(
        plan_hash=plan_hash(
            QueryPlan.model_validate(
                # the plan alone: not who asks, nor how its rows are sent (an export's format)
                body.model_dump(by_alias=True, include=set(QueryPlan.model_fields))
            )
        ),
        sql=compiled.sql,
        params={k: to_json(v) for k, v in compiled.params.items()},
        engine=engine,
        datasets=[
            ReceiptDataset(
                alias=s.alias,
                within=within,
                source_uri=s.info.source_uri,
                dataset_id=s.info.dataset_id,
                snapshot_id=s.info.snapshot_id,
                revision=s.info.revision,
                rows=s.info.rows,
                rows_rejected=s.info.rows_rejected,
                open_questions=[
                    f"{c.name}: {', '.join(c.open_questions)}"
                    for c in s.info.columns
                    if c.open_questions and c.name in owner.read.get(s.alias, set())
                ],
                columns_read=sorted(owner.read.get(s.alias, set())),
            )
            for within, s, owner in resolved.read_sources()
        ],
        resolved=resolved.resolved,
        warnings=resolved.warnings,
        computed=[
            ComputedColumn(name=ref.column.name, type=ref.column.type, physical=ref.column.physical, stage="row")
            for ref in resolved.computed
        ]
        + [
            ComputedColumn(name=o.name, type=o.type, physical=o.physical, stage="result")
            for o in resolved.outputs
            if o.kind == "measure"
        ],
        rows_returned=rows_returned,
        elapsed_ms=elapsed_ms,
        computed_at=dt.datetime.now(dt.UTC).isoformat(),
    )


class Whole:
    """Every row a plan matches, streamed: `reader` yields Arrow record batches (the result
    columns, exact types: decimals stay decimal128) while DuckDB computes them, so memory stays
    flat in the result's size. `receipt` says what was read (its rows_returned is 0 until the
    stream ends). Close it, or read it to its end, to free the statement."""

    def __init__(self, ctx: Context, body: QueryIn):
        started = time.perf_counter()
        resolved = _resolve(ctx, body, TARGETS["duckdb"])  # streamed from DuckDB whatever query_engine says
        validated = time.perf_counter()
        compiled = _compiled(ctx, body, resolved, TARGETS["duckdb"], whole=True)
        compiled_at = time.perf_counter()
        self.columns = [ResultColumn(name=o.name, type=o.type) for o in compiled.columns]
        self.incomplete = _incomplete(resolved)
        self.ignored_args: list[str] = []  # the plan's keys not read (Engine.run says which)
        self.format = "arrow"  # how a transport writes the rows (knowledge.query_export's `format`)
        # execute and total: until the statement starts (the rows come while the stream is read).
        self.receipt = _receipt(
            body,
            resolved,
            compiled,
            f"duckdb {duckdb.__version__}",
            0,
            {
                "validate": round((validated - started) * 1000, 3),
                "compile": round((compiled_at - validated) * 1000, 3),
                "execute": 0.0,
                "total": round((compiled_at - started) * 1000, 3),
            },
        )
        ctx.catalog.attach(s.info.snapshot_id for _, s, _ in resolved.read_sources())
        for check in _checks(compiled):
            self.receipt.warnings.extend(_unread(ctx, check, ctx.settings.query_seconds))

        self.receipt_id = receipts.new_id()
        self.receipt_kept = False  # knowledge.receipt answers it (a disk that refuses the write: not)
        self._ctx, self._org, self._namespace = ctx, body.org, body.namespace
        streamed = time.perf_counter()

        def counted(rows: int) -> None:
            self.receipt.rows_returned += rows

        def ended() -> None:
            # The receipt kept again with what the stream counted (a CLI or a client asks later).
            self.receipt.elapsed_ms.execute = round((time.perf_counter() - streamed) * 1000, 3)
            self.receipt.elapsed_ms.total = round(self.receipt.elapsed_ms.total + self.receipt.elapsed_ms.execute, 3)
            if self.receipt_kept:
                with suppress(OSError, TabularError):  # the rows are sent; the first receipt stays
                    self.keep()

        self._stream = Stream(
            ctx.catalog,
            ctx.settings,
            compiled.sql,
            compiled.params,
            [c.name for c in self.columns],
            counted,
            ended,
            intervals=_intervals(compiled),
            # Every format but Arrow writes a duration as ISO text: of any length, from its parts.
            interval_text=getattr(body, "format", "arrow") != "arrow",
            dated=_dated(body, resolved),
        )
        self.reader = self._stream.reader

    def keep(self) -> None:
        """Keep the receipt for knowledge.receipt (store/receipts.py): its id answers it for receipt_seconds."""
        kept = json.dumps(
            {
                "columns": [c.model_dump() for c in self.columns],
                "receipt": self.receipt.model_dump(mode="json"),
                "incomplete": self.incomplete,
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )
        settings = self._ctx.settings
        receipts.keep(
            self._ctx.catalog.home,
            self.receipt_id,
            self._org,
            self._namespace,
            kept,
            settings.receipt_seconds,
            settings.receipts_max_bytes,
            settings.catalog_wait_seconds,
        )

    def cancel(self) -> None:
        """Stop the statement now, from any thread (its reader then raises): a client that went away."""
        self._stream.cancel()

    def _repr_html_(self) -> str:
        return whole_html(self)

    def __repr__(self) -> str:
        return whole_repr(self)

    @property
    def done(self) -> bool:
        """Whether its statement is let go (read to its end, closed, or cancelled and stopped)."""
        return self._stream.done

    def close(self) -> None:
        self._stream.close()


def query_export(ctx: Context, body: QueryExportIn) -> Whole:
    """Stream every row a plan matches (arrow, csv, parquet or ndjson) as it is computed, in the engine's order unless the plan has order_by, memory flat in its size; over HTTP the X-Tabular-Receipt-Id header names its receipt, which knowledge.receipt answers for an hour."""
    whole = Whole(ctx, body)
    whole.format = body.format
    try:
        whole.reader = ctx.catalog.checked(whole.reader, whole.receipt, body.org, body.namespace)
        try:
            whole.keep()
            whole.receipt_kept = True
        except OSError as err:
            # A full or read-only disk refuses the receipt, not the rows: they stream, and the
            # answer names no receipt id (the receipt is the Whole's own in Python).
            log.warning("the receipt of a whole result could not be kept: %s", err)
    except BaseException:
        whole.close()
        raise
    return whole


def _checks(compiled) -> list:
    """The statements counting what the plan's casts (and its nested plans') could not read."""
    return [*compiled.nested_checks, *([compiled.check] if compiled.check is not None else [])]


def _unread(ctx: Context, check, seconds: float) -> list[str]:
    """One warning per cast that met values it could not read (they are null in the answer)."""
    (counts,) = run(ctx.catalog, ctx.settings, check.sql, check.params, seconds)
    return [f"{path}: {n} value(s) could not be read by cast and are null" for path, n in zip(check.paths, counts) if n]


def _incomplete(resolved) -> list[str]:
    out = []
    for within, s, owner in resolved.read_sources():
        reasons = []
        if s.info.rows_rejected:
            n = s.info.rows_rejected
            reasons.append(
                f"{n:,} row{' was' if n == 1 else 's were'} rejected at ingest and {'is' if n == 1 else 'are'} not counted"
            )
        if s.info.partial:
            reasons.append("the source was read only in part")
        asked = [
            f"{c.name} ({', '.join(c.open_questions)})"
            for c in s.info.columns
            if c.open_questions and c.name in owner.read.get(s.alias, set())
        ]
        if asked:
            reasons.append("open questions on " + ", ".join(asked) + ": answer them with knowledge.dataset_approve")
        if reasons:
            out.append(f"{s.alias}{f' (in {within})' if within else ''}: " + "; ".join(reasons))
    return out
