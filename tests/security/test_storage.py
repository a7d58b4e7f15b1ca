"""A snapshot file cut short or overwritten answers STORAGE_DAMAGED (500) naming the file, relative
to the home, and its dataset, on every read (dataset_get, query, a whole result, an export, and
query_export over HTTP), while the home's other datasets keep answering (issue 30: it was a
generic 500 INTERNAL carrying DuckDB's words and the home's absolute path)."""

from __future__ import annotations

import shutil

import pytest
from service.support import Server, envelope

import tabular
from tabular.errors import TabularError

from .conftest import TOKENS, tokens_file

ROWS = 5000


def _csv(path, factor: int):
    path.write_text("k,v,label\n" + "".join(f"{i},{i * factor},row {i % 31}\n" for i in range(ROWS)))
    return path


def _damage(path, how: str) -> None:
    size = path.stat().st_size
    with open(path, "r+b") as f:
        if how == "truncated":
            f.truncate(size // 2)
        elif how == "overwritten":  # bytes in the middle, the file's length kept
            f.seek(size // 4)
            f.write(b"\xa5" * (size // 2))
        elif how == "header":
            f.write(bytes(4096))
        elif how == "emptied":
            f.truncate(0)


WHOLE_PLAN = {"datasets": [{"source_uri": "a.csv"}], "limit": ROWS}
SUM_B = {"datasets": [{"source_uri": "b.csv"}], "aggregates": [{"fn": "sum", "column": "v"}]}


@pytest.fixture(scope="module")
def made_home(tmp_path_factory):
    """A home with two datasets, made once for the module (closed: each test damages a copy)."""
    folder = tmp_path_factory.mktemp("storage")
    with tabular.connect(str(folder / "home")) as engine:
        ns = engine.namespace("acme", "finance")
        for name, factor in (("a.csv", 2), ("b.csv", 3)):
            assert ns.ingest_file(_csv(folder / name, factor), source_uri=name).state == "ready"
        snapshot_id = ns.dataset_get("a.csv").datasets[0].snapshot_id
    return folder / "home", snapshot_id


@pytest.fixture
def damaged_home(made_home, tmp_path, request):
    """A copy of the made home, the first dataset's snapshot file damaged as `request.param` says,
    opened again (as a server restarted on it would be)."""
    made, snapshot_id = made_home
    home = tmp_path / "home"
    shutil.copytree(made, home)
    _damage(home / "snapshots" / f"{snapshot_id}.duckdb", request.param)
    with tabular.connect(str(home)) as engine:
        yield engine, snapshot_id


def _refused(call, snapshot_id: str, home) -> TabularError:
    with pytest.raises(TabularError) as caught:
        call()
    err = caught.value
    assert (err.code, err.status) == ("STORAGE_DAMAGED", 500), err
    assert f"snapshots/{snapshot_id}.duckdb" in err.message and "'a.csv'" in err.message
    assert str(home) not in err.message  # relative to the home: no server path handed out
    return err


@pytest.mark.parametrize("damaged_home", ["truncated", "overwritten", "header", "emptied"], indirect=True)
def test_a_damaged_snapshot_is_named_on_every_read_and_the_rest_keeps_serving(damaged_home, tmp_path):
    engine, snapshot_id = damaged_home
    ns = engine.namespace("acme", "finance")
    home = engine.catalog.home
    reads = [
        lambda: ns.dataset_get("a.csv", sample_rows=5),
        lambda: ns.query(WHOLE_PLAN),
        lambda: ns.read("a.csv"),
        lambda: ns.export(WHOLE_PLAN, str(tmp_path / "out.csv")),
    ]
    for read in reads:
        _refused(read, snapshot_id, home)
        # The other dataset answers between and after, exactly.
        assert ns.query(SUM_B).rows == [[sum(i * 3 for i in range(ROWS))]]
    assert ns.dataset_get("b.csv", sample_rows=2).datasets[0].rows == ROWS
    assert ns.read("b.csv").height == ROWS


@pytest.mark.parametrize("damaged_home", ["overwritten"], indirect=True)
def test_ingesting_the_source_again_serves_it_again(damaged_home, tmp_path):
    engine, _ = damaged_home
    ns = engine.namespace("acme", "finance")
    status = ns.ingest_file(_csv(tmp_path / "a.csv", 2), source_uri="a.csv")
    assert status.state == "ready" and status.revision == 2
    assert len(ns.query(WHOLE_PLAN).rows) == ROWS


@pytest.mark.parametrize("damaged_home", ["truncated"], indirect=True)
def test_another_namespace_is_never_told_of_the_file(damaged_home):
    engine, _ = damaged_home
    other = engine.namespace("globex", "finance")
    with pytest.raises(TabularError) as caught:
        other.query({"datasets": [{"source_uri": "a.csv"}]})
    assert caught.value.code == "RESOURCE_NOT_FOUND" or caught.value.code == "VALIDATION_FAILED"
    assert "snapshots/" not in caught.value.message


def test_over_http_a_damaged_snapshot_is_the_storage_damaged_envelope(tmp_path):
    # The home is made (each org's sources in the namespace its token serves) and damaged before
    # the server starts on it: a running one may hold the file's blocks in memory.
    with tabular.connect(str(tmp_path / "home")) as engine:
        acme_ns, globex_ns = (engine.namespace(org, engine.settings.default_namespace) for org in ("acme", "globex"))
        for name, factor in (("a.csv", 2), ("b.csv", 3)):
            assert acme_ns.ingest_file(_csv(tmp_path / name, factor), source_uri=name).state == "ready"
        assert globex_ns.ingest_file(_csv(tmp_path / "g.csv", 5), source_uri="g.csv").state == "ready"
        snapshot_id = acme_ns.dataset_get("a.csv").datasets[0].snapshot_id
    _damage(tmp_path / "home" / "snapshots" / f"{snapshot_id}.duckdb", "overwritten")
    server = Server(tmp_path / "home", tokens=tokens_file(tmp_path)).start()
    try:
        with server.client(TOKENS["acme-writer"][0]) as acme, server.client(TOKENS["globex-writer"][0]) as globex:
            detail = envelope(acme.post("/v1/knowledge.query", json=WHOLE_PLAN), 500, "STORAGE_DAMAGED")
            assert f"snapshots/{snapshot_id}.duckdb" in detail["message"]
            exported = acme.post("/v1/knowledge.query_export", json={**WHOLE_PLAN, "format": "csv"})
            detail = envelope(exported, 500, "STORAGE_DAMAGED")
            assert f"snapshots/{snapshot_id}.duckdb" in detail["message"]
            mine = acme.post("/v1/knowledge.query", json=SUM_B)
            sums = {"aggregates": [{"fn": "sum", "column": "v"}]}
            theirs = globex.post("/v1/knowledge.query", json={"datasets": [{"source_uri": "g.csv"}], **sums})
            assert mine.status_code == 200 and mine.json()["rows"] == [[sum(i * 3 for i in range(ROWS))]]
            assert theirs.status_code == 200 and theirs.json()["rows"] == [[sum(i * 5 for i in range(ROWS))]]
    finally:
        server.stop()
