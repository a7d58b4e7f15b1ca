"""tabular/store/retention.py: each dataset keeps its newest `snapshots_kept` snapshots; older
ones are dropped, never one that serves."""

from __future__ import annotations

import pytest

import tabular
from tabular.store.catalog import named_files, snapshot_known
from tabular.store.retention import prune, serving


@pytest.fixture
def engine(tmp_path):
    with tabular.connect(str(tmp_path / "home"), snapshots_kept=2) as engine:
        yield engine


def ingest(engine, tmp_path, times, org="acme", uri="a.csv"):
    ns = engine.namespace(org, "fin")
    ids = []
    for i in range(times):
        path = tmp_path / f"{org}-{i}" / "a.csv"  # one name: one dataset, revision after revision
        path.parent.mkdir()
        path.write_text(f"id,amount\n1,{i}\n2,{i + 1}\n", encoding="utf-8")
        assert ns.ingest_file(path, source_uri=uri).state == "ready"
        ids.append(ns.dataset_get(uri).datasets[0].snapshot_id)
    return ids


def test_publishing_keeps_only_the_newest_snapshots(engine, tmp_path):
    ids = ingest(engine, tmp_path, 4)
    con = engine.catalog.conn()
    assert [snapshot_known(con, s) for s in ids] == [False, False, True, True]
    assert serving(con, "acme", "fin", "a.csv") == {ids[-1]}


def test_a_serving_snapshot_is_never_dropped_whatever_is_kept(engine, tmp_path):
    ids = ingest(engine, tmp_path, 2)
    with engine.catalog.change() as con:
        dropped = prune(con, "acme", "fin", "a.csv", 0)  # at least one is kept: the one serving
    assert dropped == [ids[0]]
    assert snapshot_known(engine.catalog.conn(), ids[1])
    _, gone, _, _ = named_files(engine.catalog.conn())
    assert ids[0] in gone  # its file goes after the grace (Catalog.collect)


def test_pruning_one_source_leaves_another_orgs_alone(engine, tmp_path):
    mine = ingest(engine, tmp_path, 2, org="acme")
    theirs = ingest(engine, tmp_path, 2, org="rival")
    with engine.catalog.change() as con:
        assert prune(con, "acme", "fin", "a.csv", 1) == [mine[0]]
    con = engine.catalog.conn()
    assert all(snapshot_known(con, s) for s in theirs)
    assert serving(con, "rival", "fin", "a.csv") == {theirs[-1]}


def test_a_source_with_nothing_live_serves_nothing(engine):
    assert serving(engine.catalog.conn(), "acme", "fin", "nothing.csv") == set()
    with engine.catalog.change() as con:
        assert prune(con, "acme", "fin", "nothing.csv", 1) == []
