"""tabular/store/stored.py: a dataset's extraction, written again from its stored upload when it
is not on disk, and refused when the upload no longer reads as the rows it was."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

import tabular
from tabular.errors import IngestFailed
from tabular.store.catalog import extraction_of
from tabular.store.stored import extraction


@pytest.fixture
def ingested(tmp_path):
    source = tmp_path / "a.csv"
    source.write_text("id;amount\n1;12,50\n2;7,25\n3;3,00\n", encoding="utf-8")
    with tabular.connect(str(tmp_path / "home")) as engine:
        ns = engine.namespace("acme", "fin")
        assert ns.ingest_file(source, source_uri="a.csv").state == "ready"
        dataset = ns.dataset_get("a.csv").datasets[0]
        yield engine, dataset


def call(engine, dataset):
    cur = engine.catalog.conn()
    return extraction(
        engine.catalog, engine.settings, cur, "acme", "fin", "a.csv", dataset.revision, dataset.dataset_id
    )


def test_an_extraction_on_disk_is_answered_as_it_is(ingested):
    engine, dataset = ingested
    path = Path(call(engine, dataset))
    assert path.is_file()
    before = path.stat().st_mtime_ns
    assert Path(call(engine, dataset)) == path
    assert path.stat().st_mtime_ns == before


def test_an_extraction_not_on_disk_is_read_again_from_the_upload_with_the_same_options(ingested):
    engine, dataset = ingested
    path = Path(call(engine, dataset))
    first = pq.read_table(path)
    path.unlink()
    assert Path(call(engine, dataset)) == path
    again = pq.read_table(path)
    assert again.num_rows == 3
    assert again.equals(first)
    assert not list(path.parent.glob("*.part"))


def test_an_upload_that_reads_as_other_rows_now_is_refused_and_leaves_no_file(ingested):
    engine, dataset = ingested
    path = Path(call(engine, dataset))
    path.unlink()
    *_, upload = extraction_of(engine.catalog.conn(), "acme", "fin", "a.csv", dataset.revision, dataset.dataset_id)
    with open(upload, "a", encoding="utf-8") as fh:
        fh.write("4;1,00\n")
    with pytest.raises(IngestFailed) as caught:
        call(engine, dataset)
    assert caught.value.error_code == "format_unavailable"
    assert "4 rows" in caught.value.message
    assert not path.exists()
    assert not list(path.parent.glob("*.part"))
