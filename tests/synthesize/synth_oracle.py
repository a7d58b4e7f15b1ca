"""Answers a person would give, computed from the fixture CSVs with the csv module and Decimal:
nothing here goes through tabular, so the test set checks the engine from outside."""

from __future__ import annotations

import csv
import datetime as dt
import statistics
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

SYNTH = Path(__file__).resolve().parents[2] / "fixtures" / "synth"

TYPES = {
    "sale_id": int,
    "units": int,
    "amount": Decimal,
    "sold_on": dt.date.fromisoformat,
    "net": Decimal,
    "tax": Decimal,
    "gross": Decimal,
    "issued_on": dt.date.fromisoformat,
    "order_id": int,
    "customer_id": int,
    "ordered_on": dt.date.fromisoformat,
    "shipment_id": int,
    "weight_kg": Decimal,
}


def load(name: str) -> list[dict]:
    with open(SYNTH / f"{name}.csv", encoding="utf-8", newline="") as f:
        return [{k: TYPES.get(k, str)(v) for k, v in row.items()} for row in csv.DictReader(f)]


SALES, INVOICES, ORDERS, CUSTOMERS, SHIPMENTS = (
    load(n) for n in ("sales", "invoices", "orders", "customers", "shipments")
)
BY_CUSTOMER = {c["customer_id"]: c for c in CUSTOMERS}
ORDERS_WITH_CUSTOMERS = [
    {**o, **{k: v for k, v in BY_CUSTOMER[o["customer_id"]].items() if k != "customer_id"}} for o in ORDERS
]


def total(rows, column):
    return sum((r[column] for r in rows), Decimal(0))


def mean(rows, column):
    return float(total(rows, column) / len(rows))


def median(rows, column):
    return statistics.median(r[column] for r in rows)


def by(rows, key, measure):
    """[[group, measure(rows of the group)]] in group order."""
    groups = defaultdict(list)
    for r in rows:
        groups[key(r) if callable(key) else r[key]].append(r)
    return [[k, measure(v)] for k, v in sorted(groups.items())]


def top(rows, key, measure, n, desc=True):
    ranked = sorted(by(rows, key, measure), key=lambda kv: kv[1], reverse=desc)
    return ranked[:n]


def year(column):
    return lambda r: dt.date(r[column].year, 1, 1)


def quarter(column):
    return lambda r: dt.date(r[column].year, 3 * ((r[column].month - 1) // 3) + 1, 1)


def month(column):
    return lambda r: r[column].replace(day=1)


def within(rows, column, lo, hi):
    lo, hi = dt.date.fromisoformat(lo), dt.date.fromisoformat(hi)
    return [r for r in rows if lo <= r[column] <= hi]


def where(rows, **equal):
    return [r for r in rows if all(r[k] == v for k, v in equal.items())]


def shares(rows, key, column):
    """[[group, its total, its total / the total of all groups]]."""
    groups = by(rows, key, lambda g: total(g, column))
    whole = sum((t for _, t in groups), Decimal(0))
    return [[k, t, float(t / whole)] for k, t in groups]


def top_within(rows, within, key, measure, n):
    """[[within, key, measure, rank]] for the first n keys of each `within` group by measure
    (rank: 1 + how many are higher), ordered by the group, the rank, then the key."""
    out = []
    for group, _ in by(rows, within, len):
        ranked = by([r for r in rows if r[within] == group], key, measure)
        for k, value in ranked:
            rank = 1 + sum(1 for _, other in ranked if other > value)
            if rank <= n:
                out.append([group, k, value, rank])
    return sorted(out, key=lambda row: (row[0], row[3], row[1]))
