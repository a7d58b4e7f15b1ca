"""Isolation: no plan ever returns or counts a row of another org or namespace.

The tenant (`prop`/`q`) holds the query fixtures (orders, customers, items). Another namespace of
the same org and another org's namespace of the same name hold sources under the *same*
source_uris with other rows (more of them, other values), and sources of their own. Plans drawn
by the property tests' generators (tests/plans/test_properties.py: `Gen`, `draw_rows_plan`,
`draw_aggregate_plan`, joins) are run in the tenant and must match that module's oracle, which
reads only the tenant's fixture files: one foreign row returned, counted or joined would differ.

Examples: ISOLATION_EXAMPLES (20) in `make test`, 30 times that under `-m slow`. The errors side
(a foreign source, job or receipt answers byte for byte as a missing one) is
tests/service/test_isolation_http.py; here, the reads by name and a whole result's receipt.
"""

from __future__ import annotations

import csv
import os
import sys
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tabular

sys.path.insert(0, str(Path(__file__).parent / "planner"))
from test_properties import (
    FAST,
    FIXTURES,
    JOIN_COMBOS,
    MAIN,
    SCHEMA,
    Env,
    Gen,
    draw_aggregate_plan,
    draw_rows_plan,
    run_and_compare,
)

EXAMPLES = int(os.environ.get("ISOLATION_EXAMPLES", 20))
FOREIGN = [("prop", "other"), ("rival", "q")]


def foreign_copy(source: Path, out: Path, shift: int) -> Path:
    """The fixture's rows, every number moved by `shift` and every text marked, plus as many again."""
    with source.open(newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]

    def alter(cell: str, k: int) -> str:
        if cell.lstrip("-").isdigit():
            return str(int(cell) + shift + k)
        if cell and cell[0].isalpha():
            return cell + "-foreign"
        return cell

    with out.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        for k in range(2):
            writer.writerows([alter(c, k) for c in row] for row in body)
    return out


@pytest.fixture(scope="module")
def tenant(tmp_path_factory):
    home = tmp_path_factory.mktemp("isolation")
    engine = tabular.connect(str(home / "home"))
    ns = engine.namespace("prop", "q")
    frames, values = {}, {}
    for ds in SCHEMA:
        for k, (org, name) in enumerate(FOREIGN):
            other = engine.namespace(org, name)
            copy = foreign_copy(FIXTURES / f"{ds}.csv", home / f"{org}-{name}-{ds}.csv", 1000 * (k + 1))
            assert other.ingest_file(copy, source_uri=f"{ds}.csv").state == "ready"
            assert other.ingest_file(copy, source_uri=f"only-{org}-{ds}.csv").state == "ready"
        assert ns.ingest_file(FIXTURES / f"{ds}.csv", source_uri=f"{ds}.csv").state == "ready"
        frame = pl.read_csv(FIXTURES / f"{ds}.csv", schema=SCHEMA[ds])
        frames[ds] = frame.with_row_index("__rid", offset=1).with_columns(pl.col("__rid").cast(pl.Int64))
        for c in SCHEMA[ds]:
            values[(ds, c)] = sorted(frame[c].drop_nulls().unique().to_list())
    yield Env(ns, frames, values)
    engine.close()


def check(env: Env, data) -> None:
    kind = data.draw(st.sampled_from(["rows", "aggregates", "joins"]))
    if kind == "joins":
        g = Gen(data.draw, env, data.draw(st.sampled_from(JOIN_COMBOS)))
        spec = draw_aggregate_plan(g) if data.draw(st.booleans()) else draw_rows_plan(g)
    else:
        g = Gen(data.draw, env, [data.draw(st.sampled_from(MAIN))])
        spec = draw_rows_plan(g) if kind == "rows" else draw_aggregate_plan(g)
    run_and_compare(spec, env)


@given(data=st.data())
@settings(max_examples=EXAMPLES, **FAST)
def test_no_plan_returns_or_counts_a_foreign_row(tenant, data):
    check(tenant, data)


@pytest.mark.slow
@given(data=st.data())
@settings(max_examples=EXAMPLES * 30, **FAST)
def test_no_plan_returns_or_counts_a_foreign_row_long(tenant, data):
    check(tenant, data)


def test_a_foreign_only_source_is_not_found_by_any_read(tenant):
    ns = tenant.ns
    for org, _ in FOREIGN:
        uri = f"only-{org}-orders.csv"
        assert not ns.dataset_get(uri).found
        assert not ns.call("knowledge.get", {"source_uri": uri})["found"]
        with pytest.raises(tabular.ValidationFailed):
            ns.query({"datasets": [{"source_uri": uri}], "aggregates": [{"fn": "count"}]})
    listed = ns.call("knowledge.list", {})["rows"]
    assert sorted(r["source_uri"] for r in listed) == sorted(f"{ds}.csv" for ds in SCHEMA)


def test_a_foreign_whole_results_receipt_answers_as_one_no_one_made(tenant):
    """knowledge.receipt by the id another namespace's (or org's) whole result was kept under
    answers as an id no one made, the id itself apart; its own namespace still finds it."""
    engine = tenant.ns.engine
    for org, name in FOREIGN:
        whole = engine.stream({"datasets": [{"source_uri": "orders.csv"}], "org": org, "namespace": name})
        whole.reader.read_all()
        assert whole.receipt_kept
        seen = tenant.ns.call("knowledge.receipt", {"receipt_id": whole.receipt_id})
        unseen = tenant.ns.call("knowledge.receipt", {"receipt_id": "r_" + "0" * 32})
        assert not seen["found"] and seen == {**unseen, "receipt_id": whole.receipt_id}
        assert engine.namespace(org, name).call("knowledge.receipt", {"receipt_id": whole.receipt_id})["found"]
