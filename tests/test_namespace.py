"""tabular/namespace.py: the namespace methods shared by the engine and the client, each one op
with a typed answer, bound to its (org, namespace)."""

import csv

import pytest

from tabular.errors import NotFound
from tabular.namespace import local_file

PRICES = "item,amount\npen,1.50\nink,2.25\npad,4.00\n"


@pytest.fixture
def prices(ns, tmp_path):
    path = tmp_path / "prices.csv"
    path.write_text(PRICES)
    assert ns.ingest_file(path, progress=False).state == "ready"  # source_uri: the file's name
    return ns


def test_a_local_file_has_its_media_type_by_name(tmp_path):
    (tmp_path / "a.csv").write_text("x\n")
    (tmp_path / "blob").write_bytes(b"\x00")
    assert local_file(tmp_path / "a.csv") == (tmp_path / "a.csv", "text/csv")
    assert local_file(tmp_path / "blob")[1] == "application/octet-stream"
    with pytest.raises(NotFound):
        local_file(tmp_path / "missing.csv")
    with pytest.raises(NotFound):
        local_file(tmp_path)  # a folder is no file


def test_ingest_file_follows_the_job_to_its_end(prices):
    got = prices.dataset_get("prices.csv", sample_rows=1)
    assert got.found and got.datasets[0].rows == 3
    assert got.datasets[0].sample == [{"item": "pen", "amount": "1.50"}]


def test_call_fills_the_namespace_and_other_namespaces_do_not_see_it(prices):
    assert prices.call("knowledge.get", {"source_uri": "prices.csv"})["found"]
    other = prices.engine.namespace("acme", "sales")
    assert not other.call("knowledge.get", {"source_uri": "prices.csv"})["found"]


def test_query_answers_rows(prices):
    got = prices.query({"datasets": [{"source_uri": "prices.csv"}], "aggregates": [{"fn": "sum", "column": "amount"}]})
    assert got.rows == [["7.75"]]


def test_export_writes_every_row_by_the_paths_extension(prices, tmp_path):
    out = tmp_path / "out.csv"
    assert prices.export({"datasets": [{"source_uri": "prices.csv"}], "limit": 1}, str(out)) == 3
    with out.open(newline="") as f:
        assert [row["item"] for row in csv.DictReader(f)] == ["pen", "ink", "pad"]


def test_export_to_a_path_without_a_known_format_is_refused(prices, tmp_path):
    with pytest.raises(ValueError, match="say the format"):
        prices.export({"datasets": [{"source_uri": "prices.csv"}]}, str(tmp_path / "out.xyz"))


def test_read_gives_the_whole_snapshot_as_a_frame(prices):
    frame = prices.read("prices.csv")
    assert frame.columns == ["item", "amount"] and frame["item"].to_list() == ["pen", "ink", "pad"]


def test_approve_retypes_a_column_and_history_remembers_it(prices):
    snapshot = prices.dataset_get("prices.csv").datasets[0].snapshot_id
    assert list(prices.history("prices.csv")) == []
    prices.approve("prices.csv", snapshot, columns={"amount": "string"})
    [column] = [c for c in prices.dataset_get("prices.csv").datasets[0].columns if c.name == "amount"]
    assert column.type == "string"
    assert len(prices.history("prices.csv")) == 1
