"""tabular/store/schemas.py: a source's live datasets as the planner sees them (columns, types,
uniqueness, open questions, integer digits), cached until the catalog's generation moves."""

from __future__ import annotations

import pytest

import tabular
from tabular.store.schemas import known_sources, live_schemas


@pytest.fixture
def engine(tmp_path):
    with tabular.connect(str(tmp_path / "home")) as engine:
        yield engine


def ingest(engine, tmp_path, text, uri="a.csv", org="acme"):
    path = tmp_path / org / uri
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    assert engine.namespace(org, "fin").ingest_file(path, source_uri=uri).state == "ready"


def test_a_sources_live_dataset_reads_as_the_planner_sees_it(engine, tmp_path):
    ingest(engine, tmp_path, "id,amount,flag,city\n1,12.50,0,Oslo\n22,-7.25,1,Oslo\n-333,3.00,1,Bergen\n")
    (info,) = live_schemas(engine.catalog, "acme", "fin", "a.csv")
    assert (info.source_uri, info.dataset_id, info.revision, info.rows, info.rows_rejected, info.partial) == (
        "a.csv",
        "a",
        1,
        3,
        0,
        False,
    )
    assert info.table == (info.snapshot_id, "main", "data")
    cols = {c.name: c for c in info.columns}
    assert (cols["id"].type, cols["id"].physical, cols["id"].unique, cols["id"].digits) == ("number", "BIGINT", True, 3)
    assert (cols["amount"].physical, cols["amount"].digits) == ("DECIMAL(4, 2)", None)
    assert cols["city"].unique is False
    assert cols["flag"].open_questions == ("bool_or_number",)


def test_the_cache_serves_until_a_commit_moves_the_generation(engine, tmp_path):
    ingest(engine, tmp_path, "id\n1\n2\n")
    first = live_schemas(engine.catalog, "acme", "fin", "a.csv")
    assert live_schemas(engine.catalog, "acme", "fin", "a.csv") is first
    ingest(engine, tmp_path, "id,name\n1,x\n2,y\n3,z\n")
    (again,) = live_schemas(engine.catalog, "acme", "fin", "a.csv")
    assert (again.revision, again.rows, [c.name for c in again.columns]) == (2, 3, ["id", "name"])


def test_another_orgs_source_and_a_missing_one_have_no_schemas(engine, tmp_path):
    ingest(engine, tmp_path, "id\n1\n", org="acme")
    assert live_schemas(engine.catalog, "rival", "fin", "a.csv") == []
    assert live_schemas(engine.catalog, "acme", "fin", "b.csv") == []


def test_known_sources_are_the_namespaces_live_sources(engine, tmp_path):
    ingest(engine, tmp_path, "id\n1\n", uri="a.csv")
    ingest(engine, tmp_path, "id\n1\n", uri="b.csv")
    ingest(engine, tmp_path, "id\n1\n", uri="c.csv", org="rival")
    assert sorted(known_sources(engine.catalog, "acme", "fin")) == ["a.csv", "b.csv"]
    assert known_sources(engine.catalog, "rival", "fin") == ["c.csv"]
