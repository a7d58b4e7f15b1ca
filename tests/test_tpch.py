"""TPC-H as an outside oracle (issue 17): every query bench/tpch/ writes as a plan, answered by
tabular over SF0.01 data it typed itself, gives the answer DuckDB gives for the official SQL text
on the same CSV files under the official schema: decimals digit for digit, DOUBLEs within 1e-9,
rows in the official order."""

from __future__ import annotations

import importlib.util

import duckdb
import pytest
from conftest import ROOT

import tabular

# bench/tpch.py: the plans, the official SQL and the comparison (loaded by path: bench/ on the
# import path would shadow the standard library's http with bench/http.py).
_spec = importlib.util.spec_from_file_location("tpch", ROOT / "bench" / "tpch.py")
tpch = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tpch)


@pytest.fixture(scope="module")
def tpch_data(tmp_path_factory):
    csvs = tpch.generate(0.01, tmp_path_factory.mktemp("tpch") / "sf0.01")
    reference = duckdb.connect()
    tpch.reference_tables(reference, csvs)
    with tabular.connect(str(tmp_path_factory.mktemp("tpch-home") / "home")) as engine:
        ns = engine.namespace("bench", "tpch")
        tpch.ingest(ns, csvs)
        yield ns, reference


def test_the_plans_cover_the_queries_the_issue_names():
    assert {"q01", "q03", "q04", "q05", "q06", "q07", "q08", "q09", "q10", "q12", "q14", "q19"} <= set(tpch.queries())


@pytest.mark.parametrize("name", tpch.queries())
def test_each_plan_gives_the_official_answer(tpch_data, name):
    ns, reference = tpch_data
    answer = ns.query({"limit": 10_000, **tpch.plan(name)})
    names, rows = tpch.official(reference, name)
    assert rows, "the official query answers something at SF0.01"
    assert tpch.differences(name, answer.model_dump(mode="json"), names, rows) == []
    assert answer.complete
