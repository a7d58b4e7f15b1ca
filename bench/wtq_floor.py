"""The floor of the confidence step (issue 55): how well could any model over the readings' features
(tabular/synthesize/features.py) separate right answers from wrong ones on questions the rules were
not written on, if it were fitted to those very questions?

    python bench/wtq_floor.py --home /tmp/wtqhome        # after: python bench/wtq.py --split calibrate --home /tmp/wtqhome

It reads the kept readings of `calibrate` (bench/wtq.py keeps each split's readings in --home),
fits a logistic regression and gradient-boosted trees on them, cross-validated by table (5 folds,
a table's questions in one fold), and prints totals only: the out-of-fold AUC, and the most
answers (and right answers) any threshold keeps at a wrong rate of at most 3% and 5%. This is an
upper bound, not a model to ship: it is fitted in distribution, which a shipped model never is.
The same totals for tune (cross-validated too) are printed beside it. `check` is never read here.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import wtq

RATES = (0.03, 0.05)


def judged(home: Path, split: str, seed: int) -> list[dict]:
    """The readings of the split that reached the confidence step and were judged."""
    kept = wtq.readings_file(home, split, seed)
    if not kept or not kept.exists():
        raise SystemExit(f"no kept readings for {split} in {home}: run bench/wtq.py --split {split} --home {home}")
    return [o for o in json.loads(kept.read_text()) if o.get("judged") in ("right", "wrong")]


def best_cover(scores, right, rate: float) -> tuple[int, int]:
    """(answered, right) of the threshold that answers the most while wrong ÷ answered ≤ rate."""
    import numpy as np

    order = np.argsort(-scores, kind="stable")
    best, wrong = (0, 0), 0
    for n, k in enumerate(order, 1):
        wrong += not right[k]
        if wrong <= rate * n:
            best = (n, n - wrong)
    return best


def floor(rows: list[dict], tables: dict[str, str], seed: int) -> list[dict]:
    """Out-of-fold scores of two model families fitted on `rows` themselves, grouped by table."""
    import numpy as np
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GroupKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    names = sorted({k for o in rows for k in o["features"]})
    X = np.array([[float(o["features"].get(k, 0.0) or 0.0) for k in names] for o in rows])
    y = np.array([o["judged"] == "right" for o in rows])
    groups = [tables[o["id"]] for o in rows]
    families = {
        "logistic regression (L2, C=0.1)": make_pipeline(StandardScaler(), LogisticRegression(C=0.1, max_iter=5000)),
        "gradient-boosted trees (depth 3)": HistGradientBoostingClassifier(
            max_depth=3, max_iter=200, learning_rate=0.05, random_state=seed
        ),
    }
    out = []
    for name, model in families.items():
        p = cross_val_predict(model, X, y, groups=groups, cv=GroupKFold(5), method="predict_proba")[:, 1]
        out.append({"model": name, "auc": float(roc_auc_score(y, p)), **{r: best_cover(p, y, r) for r in RATES}})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, default=wtq.DEFAULT)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=wtq.SEED)
    args = parser.parse_args()
    qs = wtq.questions(args.questions)
    tables = {q["id"]: q["context"] for q in qs}
    for split in ("tune", "calibrate"):
        rows = judged(args.home, split, args.seed)
        n = len(wtq.select(qs, split, args.seed))
        wrong = sum(o["judged"] == "wrong" for o in rows)
        print(f"{split}: {n} questions, {len(rows)} answered, {wrong} wrong ({wrong / max(len(rows), 1):.2%})")
        for row in floor(rows, tables, args.seed):
            covers = "; ".join(
                f"at ≤ {r:.0%} wrong: {row[r][0]} answered, {row[r][1]} right ({row[r][1] / n:.1%} of all)"
                for r in RATES
            )
            print(f"  {row['model']}: out-of-fold AUC {row['auc']:.3f}; {covers}")


if __name__ == "__main__":
    main()
