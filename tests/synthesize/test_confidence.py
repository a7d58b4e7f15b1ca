"""The confidence model (synthesize/confidence.py): a reading's features scored from JSON in plain
Python, and the threshold measured for each setting of synthesize_max_wrong."""

from __future__ import annotations

import json
import math
from importlib import resources

import pytest

from tabular.synthesize import confidence
from tabular.synthesize.confidence import NEVER, Confidence, judge, score, threshold_for

FITTED = {
    "features": ["good", "bad"],
    "mean": [0.5, 0.5],
    "scale": [0.5, 0.5],
    "coef": [1.0, -2.0],
    "intercept": 1.0,
    "calibration": {"a": 1.0, "b": 0.0},
    "thresholds": [
        {"max_wrong": 0.01, "threshold": 0.9, "wrong_bound": 0.009},
        {"max_wrong": 0.05, "threshold": 0.6, "wrong_bound": 0.048},
    ],
    "calibrated_on": "100 calibrate questions",
}


def test_the_score_is_a_calibrated_logistic_of_the_standardised_features():
    z = 1.0 + 1.0 * (1 - 0.5) / 0.5 - 2.0 * (0 - 0.5) / 0.5
    assert score({"good": 1.0, "bad": 0.0}, FITTED) == pytest.approx(1 / (1 + math.exp(-z)))
    assert score({"good": 0.0, "bad": 1.0}, FITTED) < 0.5 < score({"good": 1.0, "bad": 0.0}, FITTED)


def test_a_feature_the_reading_lacks_is_read_at_its_mean_and_adds_nothing():
    assert score({}, FITTED) == pytest.approx(1 / (1 + math.exp(-1.0)))
    assert score({"good": 0.5, "unknown": 7.0}, FITTED) == score({}, FITTED)


def test_a_feature_with_a_default_is_read_at_it_when_missing():
    fitted = {**FITTED, "default": [0.5, 0.0]}  # "bad": a check that did not come near is absent, so 0
    assert score({}, fitted) == score({"good": 0.5, "bad": 0.0}, fitted) > score({}, FITTED)


def test_a_feature_of_two_is_their_product():
    fitted = {**FITTED, "features": ["good*bad", "bad"], "default": [0.0, 0.0]}
    assert score({"good": 1.0, "bad": 1.0}, fitted) > score({"good": 0.0, "bad": 1.0}, fitted)  # the product counts
    assert score({"good": 1.0}, fitted) == score({}, fitted)


def test_a_very_sure_or_very_unsure_reading_does_not_overflow():
    assert score({"good": 1e6}, FITTED) == 1.0 and score({"bad": 1e6}, FITTED) == 0.0


def test_a_setting_takes_the_threshold_of_the_largest_measured_setting_within_it():
    assert threshold_for(0.05, FITTED) == (0.6, 0.048)
    assert threshold_for(0.02, FITTED) == (0.9, 0.009)
    assert threshold_for(0.5, FITTED) == (0.6, 0.048)
    assert threshold_for(0.001, FITTED) == (NEVER, 0.0)  # nothing measured holds it: nothing is answered
    assert NEVER > 1.0


def test_the_shipped_model_is_json_with_what_it_was_trained_and_calibrated_on():
    text = resources.files("tabular.synthesize").joinpath("confidence.json").read_text(encoding="utf-8")
    shipped = json.loads(text)
    n = len(shipped["features"])
    assert n == len(shipped["mean"]) == len(shipped["scale"]) == len(shipped["coef"]) == len(shipped["default"])
    assert all(s > 0 for s in shipped["scale"])
    assert shipped["calibrated_on"] and isinstance(shipped["trained_on"], dict)
    settings = [t["max_wrong"] for t in shipped["thresholds"]]
    assert settings == sorted(settings)


def test_judge_answers_iff_the_score_reaches_the_threshold(monkeypatch):
    monkeypatch.setattr(confidence, "model", lambda: FITTED)
    sure, unsure = judge({"good": 1.0, "bad": 0.0}, 0.02), judge({"good": 0.0, "bad": 1.0}, 0.02)
    assert isinstance(sure, Confidence) and sure.threshold == 0.9 and sure.wrong_bound == 0.009
    assert sure.answered and not unsure.answered
    assert sure.calibrated_on == "100 calibrate questions"
    assert judge({"good": 1.0, "bad": 0.0}, 0.0).answered is False
