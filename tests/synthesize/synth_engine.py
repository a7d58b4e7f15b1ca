"""The engine the synthesize tests share (a module, not a conftest: tests import `conftest` by name)."""

import csv
import io
from contextlib import contextmanager

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


@contextmanager
def tables_namespace(folder, tables):
    """A home in `folder` whose namespace acme/tables holds each table written here as CSV
    (`tables`: (name, delimiter, header, rows) each; source_uri `<name>.csv`), ingested ready."""
    with tabular.connect(str(folder / "home")) as engine:
        ns = engine.namespace("acme", "tables")
        for name, delimiter, header, rows in tables:
            out = io.StringIO()
            csv.writer(out, delimiter=delimiter, lineterminator="\n").writerows([header, *rows])
            path = folder / f"{name}.csv"
            path.write_text(out.getvalue(), encoding="utf-8")
            assert ns.ingest_file(path, source_uri=f"{name}.csv").state == "ready"
        yield ns


def answer(ns, task, table):
    """The answer columns' values, row by row, of `task` over `<table>.csv`, which must be answered."""
    out = ns.synthesize(task, [f"{table}.csv"])
    assert not out.abstain, (task, out.abstain_reason, out.clarification)
    calc = out.calculations[0]
    names = [c.name for c in calc.columns]
    return [[row[names.index(a)] for a in calc.answer_columns] for row in calc.rows]


def abstains(ns, task, table):
    """(reason, clarification) of `task` over `<table>.csv`, which must be abstained on."""
    out = ns.synthesize(task, [f"{table}.csv"])
    assert out.abstain, (task, out.calculations[0].rows if out.calculations else None)
    return out.abstain_reason, out.clarification
