"""How knowledge.synthesize says what it read and how sure it is (SPEC §4, issue 55): the plan said
back in words (synthesize/words.py), the reading's features (synthesize/features.py) scored by
the confidence model (synthesize/confidence.py) under the setting `synthesize_max_wrong`, and,
where the score is under the threshold that setting needs, the question that asks the user to
confirm the reading (the answer abstains `low_confidence`, its calculation returned)."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

from pydantic import BaseModel, Field

from ..synthesize.confidence import Confidence, judge
from ..synthesize.features import features_of
from ..synthesize.proposal import Candidate, Proposal
from ..synthesize.schemas import DatasetSchema
from ..synthesize.words import reading_of
from .query import QueryOut


class SynthesizeConfidence(BaseModel):
    score: float = Field(description="The estimated chance that the reading is right, from 0 to 1.")
    wrong_bound: float = Field(
        description="The upper bound (at 90%) of the wrong rate among answers whose score is at or above the "
        "threshold the setting synthesize_max_wrong picks, measured on calibrated_on."
    )
    calibrated_on: str = Field(description="The questions that bound was measured on: their count and the set's name.")


@dataclass(frozen=True)
class Judged:
    """A reading in words, its confidence, the features it was scored from (for training), and
    the question to ask when the score is under the threshold ("" when it answers)."""

    reading: str
    confidence: SynthesizeConfidence
    features: dict[str, float] = field(default_factory=dict)
    question: str = ""


# The receipt's warnings by what they warn of, as the features name them (`near:<name>`).
_WARNINGS = (
    ("unique on neither side", "join_key_not_unique"),
    ("could not be read by cast", "cast_unread"),
    ("counts a month as 30 days", "months_as_days"),
)


def near(result: QueryOut) -> list[str]:
    """What came near a wrong answer without stopping it: each receipt warning by its kind
    (`warning` for one of no kind named here), and a result cut by its limit (`truncated`)."""
    said = [next((name for words, name in _WARNINGS if words in w), "warning") for w in result.receipt.warnings]
    return said + (["truncated"] if result.truncated else [])


def judged(
    task: str,
    proposal: Proposal,
    candidate: Candidate,
    plan: dict,
    result: QueryOut,
    answer: list[str],
    schemas: list[DatasetSchema],
    max_wrong: float,
) -> Judged:
    """The reading of `plan` and how sure it is, under the setting `max_wrong`."""
    reading = reading_of(plan)
    names = [c.name for c in result.columns]
    features = features_of(
        task, proposal, candidate, plan, names, result.rows, answer, schemas, result.complete, near(result)
    )
    sure = judge(features, max_wrong)
    confidence = SynthesizeConfidence(score=sure.score, wrong_bound=sure.wrong_bound, calibrated_on=sure.calibrated_on)
    question = "" if sure.score >= sure.threshold else confirm(reading, sure, max_wrong)
    return Judged(reading, confidence, features, question)


def confirm(reading: str, sure: Confidence, max_wrong: float) -> str:
    """The low_confidence question: the reading in words, its score against the one needed, and
    "is that what you mean?". The score is said rounded down and the threshold rounded up, so
    the one said is under the other as it is (0.7996 against 0.8 is "0.79, below the 0.80")."""
    score = _said(sure.score, 2, ROUND_FLOOR)
    if sure.threshold > 1:  # no score answers within the setting
        need = f"and no score is enough to keep wrong answers within synthesize_max_wrong {max_wrong:g}"
        return f"I read this as: {reading} (confidence {score}, {need}): is that what you mean?"
    threshold = _said(sure.threshold, 2, ROUND_CEILING)
    return f"I read this as: {reading} (confidence {score}, below the {threshold} this answer needs): is that what you mean?"


def _said(x: float, digits: int, rounding: str) -> str:
    """`x` with `digits` decimals, rounded as asked (exactly: a float's shortest text, not its binary value)."""
    return str(Decimal(repr(float(x))).quantize(Decimal(1).scaleb(-digits), rounding=rounding))
