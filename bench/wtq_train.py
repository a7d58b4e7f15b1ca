"""Retrain the confidence model of knowledge.synthesize (tabular/synthesize/confidence.json) on
WikiTableQuestions, one command:

    python bench/wtq.py --train [--home DIR]      # or: python bench/wtq_train.py [--home DIR]

1. Every `tune` question is asked (bench/wtq.py); each reading that reaches the confidence step
   (answered, or abstained low_confidence) is a row: its features (tabular/synthesize/features.py)
   and whether its answer columns are right.
2. A logistic regression (scikit-learn, L2, its strength chosen by 5-fold cross-validation on
   tune's log loss; class weights as the folds choose) is fitted on tune alone, and its output
   calibrated by Platt scaling on its out-of-fold scores.
3. Every `calibrate` question is asked; its readings scored by the new model; for each setting of
   synthesize_max_wrong the threshold is the lowest score at which the Clopper–Pearson upper
   bound (one-sided, 90%) of wrong ÷ answered among the readings at or above it is at most the
   setting.
4. The model is written as JSON (features, means, scales, weights, calibration, thresholds, the
   hash of the tune questions and the date): no pickle, scored in plain Python at run time.
`check` is never read here: `python bench/wtq.py --split check --plot docs/images/wtq-risk-coverage.png`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
from datetime import UTC, datetime
from pathlib import Path

import wtq

OUT = wtq.HERE.parent / "tabular" / "synthesize" / "confidence.json"
SETTINGS = (0.005, 0.01, 0.02, 0.03, 0.05, 0.10, 0.20, 1.0)
LEVEL = 0.90  # the upper bound's confidence


def questions_hash(qs: list[dict]) -> str:
    """What the model was trained on: sha256 of the questions' ids, words and answers, in order."""
    h = hashlib.sha256()
    for q in qs:
        h.update("\t".join((q["id"], q["utterance"], q["context"], q["targetValue"])).encode() + b"\n")
    return h.hexdigest()


def upper_bound(wrong: int, answered: int, level: float = LEVEL) -> float:
    """The Clopper–Pearson upper bound of a wrong rate (one-sided, at `level`)."""
    from scipy.stats import beta

    if answered == 0:
        return 1.0
    if wrong >= answered:
        return 1.0
    return float(beta.ppf(level, wrong + 1, answered - wrong))


def choose_thresholds(pairs: list[tuple[float, bool]], settings=SETTINGS) -> list[dict]:
    """Per setting, the lowest score whose answers (every reading at or above it) keep the upper
    bound of wrong ÷ answered within the setting; a setting no score holds is left out (a setting
    below every measured one answers nothing). `pairs`: (score, right), highest first."""
    cuts, wrong = [], 0
    for i, (s, ok) in enumerate(pairs):
        wrong += not ok
        if i + 1 < len(pairs) and pairs[i + 1][0] == s:
            continue  # a threshold keeps every reading of its score
        cuts.append((s, i + 1, wrong, upper_bound(wrong, i + 1)))
    out = []
    for setting in settings:
        if setting >= 1.0:
            answered = len(pairs)
            k = sum(not ok for _, ok in pairs)
            out.append(_entry(setting, 0.0, upper_bound(k, answered), answered, k))
            continue
        held = [c for c in cuts if c[3] <= setting]
        if held:
            s, answered, k, bound = min(held, key=lambda c: c[0])
            out.append(_entry(setting, s, bound, answered, k))
    return out


def _entry(setting: float, threshold: float, bound: float, answered: int, wrong: int) -> dict:
    return {
        "max_wrong": setting,
        "threshold": threshold,
        "wrong_bound": round(bound, 6),
        "answered": answered,
        "wrong": wrong,
    }


def products(names: list[str]) -> list[str]:
    """The pairs the model weighs together (confidence.product): the question word with the plan's
    kind ("how many" read as a sum), and the answer's type with the plan's kind."""
    kinds = [n for n in names if n.startswith("kind:")]
    return [f"{a}*{k}" for a in names if a.startswith(("asks:", "answer:")) for k in kinds]


def value(features: dict, name: str) -> float:
    from tabular.synthesize.confidence import product

    return product(features, name) if "*" in name else float(features.get(name, 0.0))


def fit(reached: list[dict], seed: int, extra: list[dict] = ()) -> dict:
    """The calibrated logistic regression over the readings' features, as JSON-ready numbers: fitted
    on the answered readings and `extra` (readings synthesize refused), its scores calibrated on the
    answered readings' out-of-fold scores alone (the population it scores at run time)."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_predict

    rows = [*reached, *extra]
    names = sorted({k for o in rows for k in o["features"]})
    names += products(names)
    X = np.array([[value(o["features"], k) for k in names] for o in rows])
    y = np.array([o["judged"] == "right" for o in rows], dtype=int)
    answered = np.arange(len(rows)) < len(reached)
    mean, scale = X.mean(axis=0), X.std(axis=0)
    keep = scale > 1e-9  # a feature constant on tune says nothing
    names = [n for n, k in zip(names, keep, strict=True) if k]
    X, mean, scale = X[:, keep], mean[keep], scale[keep]
    Z = (X - mean) / scale
    folds = StratifiedKFold(5, shuffle=True, random_state=seed)
    grid = GridSearchCV(
        LogisticRegression(max_iter=5000),
        {"C": list(np.logspace(-3, 1, 9)), "class_weight": [None, "balanced"]},
        scoring="roc_auc",
        cv=folds,
    )
    grid.fit(Z, y)
    best = grid.best_estimator_
    oof = cross_val_predict(
        LogisticRegression(max_iter=5000, **grid.best_params_), Z, y, cv=folds, method="decision_function"
    )
    platt = LogisticRegression(C=1e6, max_iter=5000).fit(oof[answered].reshape(-1, 1), y[answered])
    defaults = [
        float(m) if (n.startswith("fact:") or n == "builtin") else 0.0 for n, m in zip(names, mean, strict=True)
    ]
    order = np.argsort(-np.abs(best.coef_[0]))
    return {
        "features": names,
        "mean": [round(float(v), 6) for v in mean],
        "scale": [round(float(v), 6) for v in scale],
        "default": [round(v, 6) for v in defaults],
        "coef": [round(float(v), 6) for v in best.coef_[0]],
        "intercept": round(float(best.intercept_[0]), 6),
        "calibration": {"a": round(float(platt.coef_[0][0]), 6), "b": round(float(platt.intercept_[0]), 6)},
        "fit": {
            "C": float(grid.best_params_["C"]),
            "class_weight": grid.best_params_["class_weight"] or "none",
            "cv_auc": round(float(grid.best_score_), 4),
            "oof_auc_answered": round(float(roc_auc_score(y[answered], oof[answered])), 4),
            "readings": int(answered.sum()),
            "right": int(y[answered].sum()),
            "wrong": int(answered.sum() - y[answered].sum()),
            "refused_readings": len(extra),
            "refused_right": int(y[~answered].sum()),
            "strongest": [[names[k], round(float(best.coef_[0][k]), 3)] for k in order[:12]],
        },
    }


def asked(
    split: str, qs: list[dict], folder: Path, home: Path | None, reuse: bool, seed: int, limit: int
) -> list[dict]:
    """The split's outcomes (run now, or those of the last run kept in home with --reuse)."""
    kept = wtq.readings_file(home, split, seed)
    if reuse and kept and kept.exists():
        return json.loads(kept.read_text())
    outcomes, took = wtq.run(qs, folder, home, refused=split == "tune")
    print(
        f"{split}: {len(qs)} questions over {took['tables']} tables, ingest {took['ingest_s']:.0f} s, synthesize {took['ask_s']:.0f} s"
    )
    return wtq.keep_readings(home if not limit else None, split, outcomes, seed)


def train(
    folder: Path,
    home: Path | None,
    seed: int = wtq.SEED,
    limit: int = 0,
    reuse: bool = False,
    out: Path = OUT,
    refused: bool = True,
) -> dict:
    everything = wtq.questions(folder)
    tune, calibrate = wtq.select(everything, "tune", seed), wtq.select(everything, "calibrate", seed)
    if limit:
        tune, calibrate = tune[:limit], calibrate[:limit]
    tuned = asked("tune", tune, folder, home, reuse, seed, limit)
    reached = [o for o in tuned if o.get("judged") and o.get("features")]
    extra = [o["refused"] for o in tuned if o.get("refused")] if refused else []
    fitted = fit(reached, seed, extra)
    held = asked("calibrate", calibrate, folder, home, reuse, seed, limit)
    pairs = wtq.scored(held, fitted)
    fitted["thresholds"] = choose_thresholds(pairs)
    fitted["calibrated_on"] = f"{len(calibrate)} calibrate questions"
    fitted["model"] = (
        "logistic regression (scikit-learn, L2) over standardised features, Platt-calibrated on its out-of-fold scores"
    )
    fitted["trained_on"] = {
        "set": "tune (WikiTableQuestions training set, PROVENANCE.md)",
        "questions": len(tune),
        "sha256": questions_hash(tune),
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%MZ"),
    }
    fitted["calibration_set"] = {
        "set": f"calibrate (the held-out questions' tables, half of them, seed {seed})",
        "questions": len(calibrate),
        "sha256": questions_hash(calibrate),
        "level": LEVEL,
        "bound": "Clopper-Pearson, one-sided",
    }
    fitted["version"] = 1
    ordered = {k: fitted[k] for k in ("version", "model", "trained_on", "calibration_set", "calibrated_on", "fit")}
    ordered.update({k: v for k, v in fitted.items() if k not in ordered})
    out.write_text(json.dumps(ordered, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    _say(fitted, tuned, held, pairs, len(calibrate), out)
    return fitted


def _say(fitted: dict, tuned: list[dict], held: list[dict], pairs: list, n_cal: int, out: Path) -> None:
    f = fitted["fit"]
    print(
        f"model: {len(fitted['features'])} features, C={f['C']:g}, class weight {f['class_weight']}, "
        f"tune cross-validated AUC {f['cv_auc']}, out-of-fold on the answered {f['oof_auc_answered']} "
        f"({f['readings']} readings: {f['right']} right, {f['wrong']} wrong; and {f['refused_readings']} refused, "
        f"{f['refused_right']} of them right)"
    )
    print("  strongest: " + ", ".join(f"{n} {w:+}" for n, w in f["strongest"]))
    tune_pairs = wtq.scored(tuned, fitted)
    wtq.print_settings(wtq.setting_rows(tune_pairs, len(tuned), fitted), "tune (fitted here: optimistic)")
    wtq.print_settings(wtq.setting_rows(pairs, n_cal, fitted), "calibrate")
    print(f"written: {out}")
    if not math.isfinite(fitted["intercept"]):
        raise SystemExit("the fit did not converge")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, default=wtq.DEFAULT)
    parser.add_argument("--home", type=Path, help="keep the ingested tables here (and the readings, for --reuse)")
    parser.add_argument("--seed", type=int, default=wtq.SEED)
    parser.add_argument("--limit", type=int, default=0, help="only the first N questions of each split (a trial)")
    parser.add_argument("--reuse", action="store_true", help="refit on the readings of the last run kept in --home")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--answered-only", action="store_true", help="fit on the answered readings alone")
    args = parser.parse_args()
    train(args.questions, args.home, args.seed, args.limit, args.reuse, args.out, not args.answered_only)


if __name__ == "__main__":
    main()
