"""What a proposer is shown of the datasets: columns, types, stats, open questions and the few
distinct values of low-cardinality string columns. Read through the ops, never around them:
ops/synthesize hands `gather` knowledge.query and knowledge.dataset_get as `Reads` (so this
package never imports ops/)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from planner.models import QueryDataset

from ..errors import ErrorItem, ValidationFailed
from ..models import DatasetGetOut
from ..read.sheets.rules import TOTAL_CELL

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


# Words a row's label uses to say it totals the others, in several languages: left out on the
# label alone. A weaker word ("Overall", "All", "Sum", "Combined") also names categories, so
# a row it labels is left out only when its numbers are the sum of the other rows'.
TOTAL_WORDS = (
    "total",
    "totals",
    "grand total",
    "sub-total",
    "subtotal",
    "gesamt",
    "insgesamt",
    "summe",
    "totaal",
    "totale",
    "totali",
    "totaux",
    "suma",
    "razem",
    "ogółem",
    "итого",
    "всего",
    "celkem",
    "yhteensä",
    "i alt",
    "totalt",
    "samtals",
    "σύνολο",
    "toplam",
    "合計",
    "合计",
    "总计",
    "總計",
)
WEAK_TOTAL_WORDS = ("overall", "all", "sum", "combined", "aggregate", "career", "cumulative")
_WORD_TOTAL = re.compile(r"(?i)\s*(" + "|".join(re.escape(w) for w in TOTAL_WORDS) + r")(\s*:|\s+(for|of|in)\b.*|\s*)")
_WEAK_TOTAL = re.compile(r"(?i)\s*(" + "|".join(WEAK_TOTAL_WORDS) + r")(\s*:|\s+(for|of|in)\b.*|\s+total|\s*)")


def _totals(reads: Reads, item: QueryDataset, snapshot_id: str, columns: list) -> tuple[tuple[str, str], ...]:
    """The (column, value) of rows that total the others: a text cell that says so ("Total",
    "Gesamt", "Итого", "Totals:"), or says so weakly ("Overall", "All") in a row whose whole
    numbers are the sums of the other rows'."""
    strings = [c.name for c in columns if c.type == "string"]
    if not strings:
        return ()
    if snapshot_id in _TOTALS_FOUND:
        return _TOTALS_FOUND[snapshot_id]
    item = item.model_copy(update={"alias": "d"})
    said = [*TOTAL_WORDS, *WEAK_TOTAL_WORDS]
    said += [f"{w}:" for w in said]
    wholes = [c.name for c in columns if c.type == "number" and c.physical in ("BIGINT", "INTEGER", "HUGEINT")]
    found: list[tuple[str, str]] = []
    weak: list[tuple[str, str, list]] = []
    for part in range(0, len(strings), 30):  # three filters a column, under the plan's limit of filters
        some = strings[part : part + 30]
        where = [
            {
                "any": [
                    f
                    for c in some
                    for f in (
                        {"column": f"d.{c}", "op": "in", "values": said, "ignore_case": True},
                        {"column": f"d.{c}", "op": "starts_with", "value": "total ", "ignore_case": True},
                        {"column": f"d.{c}", "op": "starts_with", "value": "grand total", "ignore_case": True},
                    )
                ]
            }
        ]
        answer = reads.query(
            datasets=[item], where=where, select=[{"column": f"d.{c}"} for c in some + wholes], limit=20
        )
        for row in answer.rows:
            for c, v in zip(some, row):
                if not isinstance(v, str) or (c, v) in found:
                    continue
                if _WORD_TOTAL.fullmatch(v) or TOTAL_CELL.fullmatch(v):
                    found.append((c, v))
                elif _WEAK_TOTAL.fullmatch(v):
                    weak.append((c, v, list(row[len(some) :])))
    if weak and wholes:
        found += _summing(reads, item, wholes, weak, found)
    if len(_TOTALS_FOUND) > 10_000:
        _TOTALS_FOUND.clear()
    _TOTALS_FOUND[snapshot_id] = tuple(found)
    return _TOTALS_FOUND[snapshot_id]


def _summing(reads: Reads, item: QueryDataset, wholes: list[str], weak: list, found: list) -> list[tuple[str, str]]:
    """Of the rows a weak word labels, those whose whole numbers (two or more of them filled, not
    all zero) are each the sum of every other row's: sum of the column = twice the row's value."""
    answer = reads.query(
        datasets=[item],
        where=[
            {"any": [{"column": f"d.{c}", "op": "is_null"}, {"column": f"d.{c}", "op": "ne", "value": v}]}
            for c, v in found
        ],
        aggregates=[{"fn": "sum", "column": f"d.{c}", "as": f"s{k}"} for k, c in enumerate(wholes)]
        + [{"fn": "count", "as": "rows"}],
    )
    *sums, rows = answer.rows[0]
    out = []
    for c, v, values in weak:
        filled = [(int(x), int(t)) for x, t in zip(values, sums) if x is not None and t is not None]
        if int(rows) >= 4 and len(filled) >= 2 and any(x for x, _ in filled) and all(2 * x == t for x, t in filled):
            out.append((c, v))
    return out
