"""A plan's every row, streamed (knowledge.query_export, to_arrow(whole=True)): Arrow record
batches while the home's engine computes them, memory flat in the result's size, with the receipt of what
was read, kept for knowledge.receipt."""

from __future__ import annotations

import json
import time
from contextlib import suppress

from ..backends.base import backend_for
from ..display import whole_html, whole_repr
from ..errors import TabularError
from ..store import receipts
from .answer import checks, dated, elapsed, fresh_columns, fresh_receipt, shared_parts, unread
from .context import Context
from .plancache import plan_text, prepared


class Whole:
    """Every row a plan matches, streamed: `reader` yields Arrow record batches (the result
    columns, exact types: decimals stay decimal128) while the engine computes them, so memory stays
    flat in the result's size. `receipt` says what was read (its rows_returned is 0 until the
    stream ends). Close it, or read it to its end, to free the statement."""

    def __init__(self, ctx: Context, body):
        started = time.perf_counter()
        text = plan_text(body)
        # Streamed by the query_engine's backend, or the home's own when that one cannot stream.
        backend = backend_for(ctx.catalog, ctx.settings, streams=True)
        resolved, compiled, validated, shared = prepared(ctx, body, backend.target, text, whole=True)
        compiled_at = time.perf_counter()
        parts = shared_parts(ctx, body, text, resolved, compiled, backend.engine, shared)
        self.columns = fresh_columns(parts)
        self.incomplete = list(parts.incomplete)
        self.ignored_args: list[str] = []  # the plan's keys not read (Engine.run says which)
        self.format = "arrow"  # how a transport writes the rows (knowledge.query_export's `format`)
        # execute and total: until the statement starts (the rows come while the stream is read).
        self.receipt = fresh_receipt(
            parts, 0, elapsed(validated - started, compiled_at - validated, 0.0, compiled_at - started)
        )
        backend.place(resolved, False)
        for check in checks(compiled):
            self.receipt.warnings.extend(unread(ctx, check, ctx.settings.query_seconds))

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

        self._stream = backend.stream(
            compiled,
            ctx.settings,
            [c.name for c in self.columns],
            counted,
            ended,
            # Every format but Arrow writes a duration as ISO text: of any length, from its parts.
            interval_text=getattr(body, "format", "arrow") != "arrow",
            dated=dated(body, resolved),
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
