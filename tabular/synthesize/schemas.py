"""What a proposer is shown of the datasets: columns, types, stats, open questions and the few
distinct values of low-cardinality string columns. Read through the ops, never around them:
ops/synthesize hands `gather` knowledge.query and knowledge.dataset_get as `Reads` (so this
package never imports ops/)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from planner.models import QueryDataset

from ..errors import ErrorItem, ValidationFailed
from ..models import DatasetGetOut
from .total_rows import total_rows

# A string column with at most this many distinct values has them shown to a chat proposer.
VALUES_SHOWN = 25
# ... and with at most this many, matched against a task's words ("Seville" in a column of 60 venues).
VALUES_MATCHED = 300
# A row whose text says it sums the others (a Wikipedia table's last row): left out of every plan,
# as the workbook reader leaves it out, so a total never counts itself.
# Snapshots never change: the Total rows found in one are found once (bounded, any org's ids are unique).
_TOTALS_FOUND: dict[str, tuple[tuple[str, str], ...]] = {}


@dataclass(frozen=True)
class Reads:
    """The two ops a proposer's schemas are read through, in the task's org and namespace:
    `query` takes a plan's fields (datasets, where, …) and answers knowledge.query's QueryOut;
    `dataset_get` takes (source_uri, dataset_id)."""

    query: Callable[..., Any]
    dataset_get: Callable[[str, str], DatasetGetOut]


@dataclass(frozen=True)
class ColumnSchema:
    alias: str
    name: str
    type: str
    physical: str
    unique: bool
    distinct: int
    min: Any = None
    max: Any = None
    values: tuple[str, ...] = ()
    questions: tuple[str, ...] = ()  # open questions on this column, in words


@dataclass(frozen=True)
class DatasetSchema:
    alias: str
    source_uri: str
    dataset_id: str
    snapshot_id: str
    rows: int
    columns: tuple[ColumnSchema, ...] = field(default_factory=tuple)
    totals: tuple[tuple[str, str], ...] = ()  # (column, value) of rows that total the others

    def without_totals(self, qualify) -> list[dict]:
        """Filters that leave the Total rows out (a null in the column stays in)."""
        by_column: dict[str, list[str]] = {}
        for column, value in self.totals:
            by_column.setdefault(column, []).append(value)
        if not by_column:
            return []
        # One column marks the row: one without an open question, so the filter asks nothing of its own.
        asked = {c.name for c in self.columns if c.questions}
        column = next((c for c in by_column if c not in asked), next(iter(by_column)))
        values = by_column[column]
        return [
            {
                "any": [
                    {"column": qualify(column), "op": "is_null"},
                    {"column": qualify(column), "op": "not_in", "values": values},
                ]
            }
        ]

    def ref(self) -> dict:
        """The plan's `datasets` entry for this dataset."""
        return {"source_uri": self.source_uri, "dataset_id": self.dataset_id, "alias": self.alias}

    def for_prompt(self) -> dict:
        return {
            **self.ref(),
            "rows": self.rows,
            "columns": [
                {
                    "name": c.name,
                    "type": c.type,
                    "physical": c.physical,
                    "unique": c.unique,
                    "distinct": c.distinct,
                    "min": c.min,
                    "max": c.max,
                    **({"values": list(c.values)} if c.values and len(c.values) <= VALUES_SHOWN else {}),
                    **({"open_questions": list(c.questions)} if c.questions else {}),
                }
                for c in self.columns
            ],
        }


def gather(reads: Reads, wanted: list[QueryDataset]) -> list[DatasetSchema]:
    """The schemas of the datasets a task may read. A missing source, an unnamed dataset of a
    several-table source or a stale snapshot fails exactly as knowledge.query fails on it."""
    out: list[DatasetSchema] = []
    aliases: set[str] = set()
    for i, item in enumerate(wanted):
        probe = _probe(reads, item, i)
        got = reads.dataset_get(item.source_uri, probe.dataset_id)
        (dataset,) = got.datasets
        alias = item.alias or dataset.dataset_id
        while alias.lower() in aliases:
            alias += "_2"
        aliases.add(alias.lower())
        asked: dict[str, list[str]] = {}
        for q in dataset.questions:
            asked.setdefault(q.column, []).append(f"{q.kind}: {q.question}")
        columns = tuple(
            ColumnSchema(
                alias,
                c.name,
                c.type,
                c.physical,
                c.unique,
                c.distinct,
                c.min,
                c.max,
                _values(reads, item, c.name) if c.type == "string" and 0 < c.distinct <= VALUES_MATCHED else (),
                tuple(asked.get(c.name, ())),
            )
            for c in dataset.columns
        )
        out.append(
            DatasetSchema(
                alias,
                item.source_uri,
                dataset.dataset_id,
                dataset.snapshot_id,
                dataset.rows,
                columns,
                _totals(reads, item, dataset.snapshot_id, list(columns)),
            )
        )
    return out


def _probe(reads: Reads, item: QueryDataset, i: int):
    """A dry run reading only this dataset: knowledge.query's own checks and errors."""
    try:
        return reads.query(
            datasets=[item.model_copy(update={"alias": ""})], aggregates=[{"fn": "count"}], dry_run=True
        ).receipt.datasets[0]
    except ValidationFailed as err:
        items = [
            ErrorItem(
                e.path.replace("datasets[0]", f"datasets[{i}]", 1), e.message, e.expected, e.received, e.did_you_mean
            )
            for e in err.errors
        ]
        raise ValidationFailed(err.message, items) from None


def _values(reads: Reads, item: QueryDataset, column: str) -> tuple[str, ...]:
    answer = reads.query(
        datasets=[item.model_copy(update={"alias": "d"})],
        group_by=[{"column": f"d.{column}"}],
        where=[{"column": f"d.{column}", "op": "not_null"}],
        limit=VALUES_MATCHED,
    )
    return tuple(row[0] for row in answer.rows)


def _totals(reads: Reads, item: QueryDataset, snapshot_id: str, columns: list) -> tuple[tuple[str, Any], ...]:
    """The (column, value) of rows that total the others (total_rows.py), found once a snapshot."""
    if snapshot_id in _TOTALS_FOUND:
        return _TOTALS_FOUND[snapshot_id]
    found = total_rows(reads.query, item, columns)
    if len(_TOTALS_FOUND) > 10_000:
        _TOTALS_FOUND.clear()
    _TOTALS_FOUND[snapshot_id] = found
    return found
