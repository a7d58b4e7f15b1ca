"""The engine the synthesize tests share (a module, not a conftest: tests import `conftest` by name)."""

import pytest
from synth_oracle import SYNTH

import tabular

SOURCES = ("sales", "invoices", "orders", "customers", "shipments")


@pytest.fixture(scope="session")
def synth(tmp_path_factory):
    """One engine with the five synthesize fixtures ingested (source_uri `<name>.csv`)."""
    with tabular.connect(str(tmp_path_factory.mktemp("synth") / "home")) as engine:
        ns = engine.namespace("acme", "synth")
        for name in SOURCES:
            assert ns.ingest_file(SYNTH / f"{name}.csv", source_uri=f"{name}.csv").state == "ready"
        yield ns
