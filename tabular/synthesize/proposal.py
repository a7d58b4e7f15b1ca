"""What a proposer answers, and what every proposer is: a task and the datasets' schemas in,
candidate plans out. The proposers (`builtin`, `chat`) import this; `proposers` chooses one."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol

from .schemas import DatasetSchema


@dataclass(frozen=True)
class Candidate:
    """One plan, and what it assumed where the task allowed several readings."""

    plan: dict
    assumes: tuple[tuple[str, str], ...] = ()  # (the task's word, the column taken for it)
    answer: tuple[str, ...] = ()  # the result columns that answer the task; () reads them off the plan
    # How the task's words were placed in this plan, as numbers (features.reading_facts): the
    # proposer's own account, which the confidence model reads; a chat proposer's plan has none.
    facts: Mapping[str, float] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class Proposal:
    """Plans for one task. Several candidates are several readings: if their answers differ the
    task is ambiguous and `question` is what to ask. No candidate: `why` says what was missing."""

    candidates: tuple[Candidate, ...] = ()
    question: str = ""
    why: str = ""
    abstain: Literal["", "ambiguous", "invalid_plan"] = ""  # a proposer's own abstention, if any
    one_row: str = ""  # the words ask for one row ("the title of …"): more than one different row is ambiguous
    rows_are: str = ""  # a count read the rows as this noun ("how many games"): a count of none says they may not be
    transcript: list = field(default_factory=list, compare=False)  # what the proposer needs for a repair


class Proposer(Protocol):
    name: str

    def propose(self, task: str, schemas: list[DatasetSchema]) -> Proposal:
        """Plans for the task over these datasets."""

    def repair(
        self, task: str, schemas: list[DatasetSchema], failed: Proposal, plan: dict, errors: list[dict]
    ) -> Proposal:
        """One more try after `plan` failed validation with `errors`; an empty Proposal gives up."""
