"""knowledge.query: a typed plan checked against the live snapshots, compiled, run, answered
exactly, with a receipt. The planner knows no storage; this op hands it the schemas
(plancheck.py), keeps what a plan's calls share (plancache.py), builds what comes with the
rows (answer.py) and streams a whole result (whole.py)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from planner.models import QueryPlan
from planner.receipt import QueryReceipt

from ..backends.base import backend_for
from ..charts import MAX_BARS, plot
from ..display import query_html, query_repr, whole_html, whole_repr
from ..models import OpOut
from ..results import FORMATS as RESULT_FORMATS
from ..results import polars_ready
from .answer import Kept, ResultColumn, checks, dated, elapsed, fresh_columns, fresh_receipt, shared_parts, unread
from .context import Context
from .plancache import compiled as compiled_plan
from .plancache import plan_text, prepared
from .plancheck import resolve_plan, time_left
from .typed import arrow_array, typed
from .whole import Whole

__all__ = ["QueryExportIn", "QueryExportOut", "QueryIn", "QueryOut", "ResultColumn", "Whole", "query", "query_export"]

log = logging.getLogger("tabular.query")


class QueryIn(QueryPlan):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    # A plan is closed (SPEC §2): a key that is no clause is refused at its path, never skipped;
    # identity and transport fields pass and are named in ignored_args.
    closed: ClassVar[bool] = True
    org: str = Field(default="", description="Organisation; filled from the token or the install's default.")
    namespace: str = Field(
        default="", description="Namespace inside the org; filled from the install's default when empty."
    )


class QueryExportIn(QueryIn):
    format: Literal[tuple(RESULT_FORMATS)] = Field(  # type: ignore[valid-type]  # the formats' one table
        default="arrow",
        description="How the rows are written: an Arrow IPC stream, CSV, Parquet or newline-delimited JSON.",
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
        default=None, description="Without aggregates: per row, its row id in each dataset, in plan order."
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
    _stream_whole: Callable[..., Any] | None = PrivateAttr(None)  # (format: str = 'arrow')

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


def query(ctx: Context, body: QueryIn) -> QueryOut:
    """Answer a typed plan over ingested datasets: filters, joins, groups, aggregates, exact results and a receipt of what was read."""
    started = time.perf_counter()
    settings = ctx.settings
    backend = backend_for(ctx.catalog, settings)
    target = backend.target
    text = plan_text(body)
    shared: dict[str, Any] = {}
    if backend.capabilities.reuses_resolutions:
        resolved, compiled, validated, shared = prepared(ctx, body, target, text)
    else:
        resolved, compiled = resolve_plan(ctx, body, target), None
        validated = time.perf_counter()
    prepared_at = time.perf_counter()
    # The plan's snapshots made readable by the backend (a first load there is not counted).
    backend.place(resolved, body.dry_run)
    placed = time.perf_counter()
    if compiled is None:
        compiled = compiled_plan(ctx, body, resolved, target, text)
        compiled_at = time.perf_counter()
        spent = (prepared_at - started) + (compiled_at - placed)
    else:
        compiled_at = prepared_at
        spent = prepared_at - started
    # Checking and compiling count inside query_seconds.
    left = time_left(spent, settings.query_seconds)
    rows: list = []
    warnings: list[str] = []
    if not body.dry_run:
        rows = backend.run(compiled, settings, backend.deadline(left, settings), dated(body, resolved))
        if backend.capabilities.counts_unread:
            for check in checks(compiled):
                left = settings.query_seconds - (time.perf_counter() - started)
                warnings.extend(unread(ctx, check, max(left, 0.001)))
    executed = time.perf_counter()
    times = (started, validated, compiled_at, executed)
    parts = shared_parts(ctx, body, text, resolved, compiled, backend.engine, shared)
    return _answer(body, compiled, rows, parts, times, warnings)


def _answer(body: QueryIn, compiled, rows: list, parts: Kept, times: tuple, warnings: list[str]) -> QueryOut:
    """The rows the statement gave (JSON values, with row ids and ordering columns after the
    result's) cut to the plan's limit, with what comes with them. The rows are not looked at
    again: QueryOut takes them as they are (model_construct), every value already JSON."""
    started, validated, compiled_at, executed = times
    truncated = len(rows) > body.limit
    rows = rows[: body.limit]
    width = len(compiled.columns)
    if rows and len(rows[0]) > width:
        out_rows = [row[:width] for row in rows]
    else:  # no row ids or ordering columns after the result's: the rows as they came
        out_rows = rows
    # The row ids after the result columns; after them, columns that only ordered the rows.
    row_ids = [list(row[width : width + compiled.row_id_columns]) for row in rows] if compiled.row_id_columns else None
    answer_receipt = fresh_receipt(
        parts,
        len(out_rows),
        elapsed(validated - started, compiled_at - validated, executed - compiled_at, time.perf_counter() - started),
        warnings,
    )
    return QueryOut.model_construct(
        columns=fresh_columns(parts),
        rows=out_rows,
        row_ids=row_ids,
        truncated=truncated,
        complete=not parts.incomplete,
        incomplete=list(parts.incomplete),
        receipt=answer_receipt,
        ignored_args=[],  # given: model_construct would ask pydantic for the default, ~0.7 ms (its factory's signature)
    )


def query_export(ctx: Context, body: QueryExportIn) -> Whole:
    """Stream every row a plan matches (arrow, csv, parquet or ndjson) as it is computed, in the engine's order unless the plan has order_by, memory flat in its size; over HTTP the X-Tabular-Receipt-Id header names its receipt, which knowledge.receipt answers for an hour."""
    whole = Whole(ctx, body)
    whole.format = body.format
    try:
        read = [d.snapshot_id for d in whole.receipt.datasets]
        whole.reader = ctx.catalog.snapshots.checked(whole.reader, read, body.org, body.namespace)
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
