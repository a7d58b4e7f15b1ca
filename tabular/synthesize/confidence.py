"""How sure a reading is: the confidence model (confidence.json, written by bench/wtq_train.py)
scores a reading's features (features.py) as the chance that its answer is right, and the
threshold for a setting `synthesize_max_wrong` is the one measured on held-out questions so that
the upper bound of the wrong rate among the answers at or above it stays within the setting.

The model is data, not code: a logistic regression over standardised features, its output
calibrated (Platt), with a table of thresholds per setting; loaded from JSON (never a pickle) and
scored here in plain Python; a feature named `a*b` is the product of two of the reading's. A feature the model knows but the reading lacks (a chat proposer's
plan has no built-in facts) is read at its `default`: the training mean for a proposer's own facts,
which adds nothing to the score, and 0 for the rest (a check that did not come near is absent)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

# Above every score: the threshold when no measured threshold keeps the wrong rate within the setting.
NEVER = math.nextafter(1.0, 2.0)


@dataclass(frozen=True)
class Confidence:
    """A reading's score (the estimated chance it is right), the upper bound of the wrong rate among
    answers at or above `threshold` measured on `calibrated_on`; answered iff score >= threshold."""

    score: float
    wrong_bound: float
    calibrated_on: str
    threshold: float

    @property
    def answered(self) -> bool:
        return self.score >= self.threshold


@cache
def model() -> dict[str, Any]:
    """The shipped model (tabular/synthesize/confidence.json)."""
    text = resources.files(__package__).joinpath("confidence.json").read_text(encoding="utf-8")
    return json.loads(text)


def score(features: dict[str, float], fitted: dict[str, Any] | None = None) -> float:
    """The calibrated chance that the reading with these features is right."""
    m = fitted or model()
    z = float(m["intercept"])
    defaults = m.get("default") or m["mean"]
    for name, mean, scale, weight, default in zip(
        m["features"], m["mean"], m["scale"], m["coef"], defaults, strict=True
    ):
        x = features.get(name, default) if "*" not in name else product(features, name)
        z += weight * (float(x) - mean) / scale
    a, b = m["calibration"]["a"], m["calibration"]["b"]
    t = a * z + b
    return 1.0 / (1.0 + math.exp(-t)) if t >= 0 else math.exp(t) / (1.0 + math.exp(t))


def product(features: dict[str, float], name: str) -> float:
    """A feature the model makes of two ("asks:how_many*kind:sum": a count asked, a sum made):
    the product of its parts, each 0 when the reading lacks it."""
    x = 1.0
    for part in name.split("*"):
        x *= float(features.get(part, 0.0))
    return x


def threshold_for(max_wrong: float, fitted: dict[str, Any] | None = None) -> tuple[float, float]:
    """(threshold, wrong bound) for a setting: the measured entry of the largest setting at most
    `max_wrong`; none (a setting below every measured one) answers nothing."""
    m = fitted or model()
    fits = [t for t in m["thresholds"] if t["max_wrong"] <= max_wrong + 1e-12]
    if not fits:
        return NEVER, 0.0
    best = max(fits, key=lambda t: t["max_wrong"])
    return float(best["threshold"]), float(best["wrong_bound"])


def judge(features: dict[str, float], max_wrong: float) -> Confidence:
    """The reading's confidence under the setting `max_wrong` (synthesize_max_wrong)."""
    m = model()
    threshold, bound = threshold_for(max_wrong, m)
    return Confidence(
        score=score(features, m), wrong_bound=bound, calibrated_on=m["calibrated_on"], threshold=threshold
    )
