"""What the planner knows of the data: schemas handed to it as plain values (no storage here)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ColumnInfo:
    name: str
    type: str  # one of SPEC §3's seven
    physical: str
    unique: bool = False
    open_questions: tuple[str, ...] = ()
    digits: int | None = None  # an integer column: the most digits its values have (a snapshot never changes)
    shape: tuple[int, int] | None = None  # a plan's result column: the most digits its exact values have


@dataclass(frozen=True)
class DatasetInfo:
    source_uri: str
    dataset_id: str
    snapshot_id: str
    revision: int
    table: tuple[str, ...]  # ([database,] schema, table) of the snapshot
    rows: int
    rows_rejected: int
    partial: bool
    columns: tuple[ColumnInfo, ...] = field(default_factory=tuple)

    def column(self, name: str) -> ColumnInfo | None:
        return next((c for c in self.columns if c.name == name), None)
