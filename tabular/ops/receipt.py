"""knowledge.receipt: a whole result's receipt by its id (SPEC §4). A query_export's headers carry
only the id (X-Tabular-Receipt-Id) and short fields; the whole receipt (its SQL, every
parameter), the result's columns and why it is incomplete are answered here for
`receipt_seconds`, from any process sharing the home (store/receipts.py)."""

from __future__ import annotations

import json

from pydantic import Field

from planner.receipt import QueryReceipt

from ..models import OpIn, OpOut
from ..store import receipts
from .context import Context
from .query import ResultColumn


class ReceiptIn(OpIn):
    receipt_id: str = Field(
        min_length=1,
        max_length=100,
        description="The id a whole result answered with (the X-Tabular-Receipt-Id header of knowledge.query_export).",
    )


class ReceiptOut(OpOut):
    found: bool = Field(
        description="False when no receipt of this org and namespace has the id, or it is older than receipt_seconds."
    )
    receipt_id: str
    columns: list[ResultColumn] = Field(default_factory=list, description="The result's columns and their types.")
    receipt: QueryReceipt | None = Field(
        default=None,
        description="What was read and how: snapshots, the SQL and every parameter (SPEC §4 QueryReceipt).",
    )
    incomplete: list[str] = Field(
        default_factory=list, description="Why the result is not complete, one reason per dataset, in words."
    )


def kept(whole) -> str:
    """What a whole result keeps for knowledge.receipt (ops/query.Whole), as JSON."""
    return json.dumps(
        {
            "columns": [c.model_dump() for c in whole.columns],
            "receipt": whole.receipt.model_dump(mode="json"),
            "incomplete": whole.incomplete,
        },
        ensure_ascii=False,
        separators=(",", ":"),
    )


def receipt(ctx: Context, body: ReceiptIn) -> ReceiptOut:
    """A whole result's receipt by its id (knowledge.query_export's X-Tabular-Receipt-Id), for an hour after it ran: the SQL, every parameter, the snapshots read, the columns."""
    found = receipts.find(
        ctx.catalog.home,
        body.receipt_id,
        body.org,
        body.namespace,
        ctx.settings.receipt_seconds,
        ctx.settings.catalog_wait_seconds,
    )
    if found is None:
        return ReceiptOut(found=False, receipt_id=body.receipt_id)
    return ReceiptOut(found=True, receipt_id=body.receipt_id, **json.loads(found))
