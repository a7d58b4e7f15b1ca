"""A column's change of typing by an approval: what knowledge.dataset_approve answers and what a
source's history (knowledge.get) reads back. Its own module, so reading a source's history does
not load the approval's machinery (the readers, the snapshot builder)."""

from __future__ import annotations

from pydantic import Field

from ..models import Model, TypeFormat


class Change(Model):
    column: str
    before: TypeFormat
    after: TypeFormat
    rows_rejected: int = Field(
        description="Rows of the dataset the new type cannot read (they are left out, with the reason)."
    )
    values: int = Field(default=0, description="The column's non-empty values.")
    examples: list[str] = Field(default_factory=list, description="Up to five values the new type does not read.")
