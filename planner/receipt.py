"""What a query read and how (SPEC §4 QueryReceipt), and the plan's canonical hash."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, Field

from .models import QueryPlan

# The plan's own fields: a plan given as a model that extends QueryPlan (an op's input, with who
# asks and how the rows are sent) hashes as the plan alone, with no copy made of it first.
_HASHED = frozenset(QueryPlan.model_fields) - {"dry_run"}


def plan_hash(plan: QueryPlan) -> str:
    """sha256 of the plan in canonical form: key order, defaults and `dry_run` do not change it,
    nor the fields a model extending QueryPlan adds (an op's `org`, `namespace`, `format`).
    A nested plan's `limit` and `offset` count when given, even at their default: resolution reads
    them only then (a nested `limit: 100` is the top 100, no limit is every row), so the two are
    different questions and hash apart."""
    canonical = plan.model_dump(mode="json", by_alias=True, exclude_defaults=True, include=set(_HASHED))
    _nested_given(plan, canonical)
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _nested_given(plan: QueryPlan, dumped: dict[str, Any]) -> None:
    """Put back into `dumped` each nested plan's `limit` and `offset` that were given."""
    for k, wanted in enumerate(plan.datasets):
        inner = getattr(wanted, "plan", None)
        if inner is None:
            continue
        out = dumped["datasets"][k].setdefault("plan", {})
        for key in ("limit", "offset"):
            if key in inner.model_fields_set:
                out[key] = getattr(inner, key)
        _nested_given(inner, out)


class ReceiptDataset(BaseModel):
    alias: str
    within: str = Field(
        "", description="The nested plan that read it, by path (datasets[1].plan); '' for the plan itself."
    )
    source_uri: str
    dataset_id: str
    snapshot_id: str
    revision: int
    rows: int
    rows_rejected: int
    open_questions: list[str] = Field(description="Columns the plan reads that have an open question, with its kind.")
    columns_read: list[str]


class Resolution(BaseModel):
    input: str
    column: str
    how: str = Field(description="exact, or case-insensitive (accepted, but say so)")


class Elapsed(BaseModel):
    validate_: float = Field(alias="validate")
    compile: float
    execute: float
    total: float

    model_config = {"populate_by_name": True, "serialize_by_alias": True}


class ComputedColumn(BaseModel):
    name: str
    type: str = Field(description="Its logical type (SPEC §3).")
    physical: str = Field(
        description="Its exact storage type: DECIMAL(p, s) with the precision and scale of the exact result, BIGINT, DOUBLE …"
    )
    stage: str = Field(
        description="row (compute, an aggregate's expr: per row, after the joins) or result (measures: per result row)"
    )


class QueryReceipt(BaseModel):
    plan_hash: str
    sql: str = Field(description="The statement exactly as it ran; parameters apart from it.")
    params: dict[str, object]
    engine: str
    datasets: list[ReceiptDataset]
    resolved: list[Resolution]
    warnings: list[str]
    conditions: list[str] = Field(
        default_factory=list,
        description="Every condition the plan applied, in words as it ran, one per clause (its where, an aggregate's own "
        "where, a semi or anti join, having, a nested plan's after its alias): case ignored ('status is paid, any case'), "
        "ranges, in lists, and the rows a negation leaves out for being empty.",
    )
    computed: list[ComputedColumn] = Field(
        default_factory=list, description="Every computed column and measure, with its type."
    )
    rows_returned: int
    elapsed_ms: Elapsed
    computed_at: str
