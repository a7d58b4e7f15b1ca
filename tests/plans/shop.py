"""The query fixtures (fixtures/query: customers, orders, items) as a test's oracle reads them
(the csv module, every value as written) and as the engine serves them (one namespace)."""

from __future__ import annotations

import csv
from contextlib import contextmanager

from conftest import ROOT

import tabular

QUERY = ROOT / "fixtures" / "query"


def rows(name: str) -> list[dict]:
    with (QUERY / name).open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


@contextmanager
def shop_namespace(folder, names=("customers.csv", "orders.csv", "items.csv")):
    """A home in `folder` whose namespace acme/shop holds the fixtures `names`, each ingested ready."""
    with tabular.connect(str(folder / "home")) as engine:
        ns = engine.namespace("acme", "shop")
        for name in names:
            assert ns.ingest_file(QUERY / name, source_uri=name).state == "ready"
        yield ns
