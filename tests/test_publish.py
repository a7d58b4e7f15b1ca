"""Revisions publish whole or not at all, honour expected_revision, and stay in their namespace."""

import pytest

import tabular
from conftest import CSV, ingest


def test_each_ingest_publishes_the_next_revision(ns):
    first, _ = ingest(ns, CSV / "dates_dmy.csv", source_uri="books")
    second, dataset = ingest(ns, CSV / "dates_mdy.csv", source_uri="books")
    assert (first.revision, second.revision) == (1, 2)
    assert dataset.revision == 2 and dataset.dataset_id == "dates_mdy"
    assert dataset.columns[1].format == "%m/%d/%Y"


def test_expected_revision_conflict_leaves_the_live_revision(ns):
    ingest(ns, CSV / "dates_dmy.csv", source_uri="books")
    status, _ = ingest(ns, CSV / "dates_mdy.csv", source_uri="books", expected_revision=0)
    assert (status.state, status.error_code) == ("failed", "revision_conflict")
    got = ns.dataset_get("books")
    assert got.revision == 1 and got.datasets[0].columns[1].format == "%d/%m/%Y"
    status, _ = ingest(ns, CSV / "dates_mdy.csv", source_uri="books", expected_revision=1)
    assert (status.state, status.revision) == ("ready", 2)


def test_a_failed_ingest_keeps_the_previous_revision_serving(ns, engine):
    ingest(ns, CSV / "crlf.csv", source_uri="data")
    status, _ = ingest(ns, CSV / "binary.csv", source_uri="data")
    assert status.state == "failed"
    got = ns.dataset_get("data")
    assert got.found and got.revision == 1 and got.datasets[0].rows == 4
    # Nothing half-written: one extraction folder and one snapshot table, for revision 1.
    assert len(list(engine.catalog.extractions_dir.iterdir())) == 1
    tables = engine.catalog.cursor().execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'snapshots' AND NOT ends_with(table_name, '.rejected')").fetchone()[0]
    assert tables == 1


def test_namespaces_do_not_see_each_other(engine):
    mine, theirs = engine.namespace("acme", "finance"), engine.namespace("globex", "finance")
    ingest(mine, CSV / "crlf.csv", source_uri="shared-name")
    assert theirs.dataset_get("shared-name").found is False
    assert engine.namespace("acme", "sales").dataset_get("shared-name").found is False
    status = mine.ingest_file(CSV / "crlf.csv", source_uri="x")
    assert theirs.call("knowledge.ingest_status", {"ingestion_id": status.ingestion_id})["found"] is False


def test_upload_over_the_limit_is_refused_and_nothing_is_kept(tmp_path):
    with tabular.connect(str(tmp_path / "home"), max_upload_bytes=100) as engine:
        with pytest.raises(tabular.TooLarge) as err:
            engine.namespace("a", "b").upload_file(CSV / "nulls.csv")
        assert err.value.status == 413
        assert list(engine.catalog.uploads_dir.iterdir()) == []


def test_the_catalog_survives_a_restart(tmp_path):
    home = str(tmp_path / "home")
    with tabular.connect(home) as engine:
        ingest(engine.namespace("a", "b"), CSV / "currency.csv")
    with tabular.connect(home) as engine:
        got = engine.namespace("a", "b").dataset_get("currency.csv", sample_rows=2)
        assert got.found and [r["price_usd"] for r in got.datasets[0].sample] == ["12.00", "1234.50"]


def test_dataset_get_answers_by_id_and_reports_unknown_fields(ns):
    ingest(ns, CSV / "crlf.csv", source_uri="c")
    answer = ns.call("knowledge.dataset_get", {"source_uri": "c", "dataset_id": "crlf", "colour": "blue"})
    assert answer["found"] and answer["ignored_args"] == ["colour"]
    assert ns.call("knowledge.dataset_get", {"source_uri": "c", "dataset_id": "nope"})["found"] is False


def test_bad_input_is_a_validation_error_with_a_path(engine):
    with pytest.raises(tabular.ValidationFailed) as err:
        engine.call("knowledge.dataset_get", {"source_uri": "", "sample_rows": -1})
    paths = {e.path for e in err.value.errors}
    assert paths == {"source_uri", "sample_rows"}
    with pytest.raises(tabular.ValidationFailed) as err:
        engine.call("knowledge.ingest", {"upload_id": "u_missing", "source_uri": "x", "options": {"delimiter": ";;"}})
    assert [e.path for e in err.value.errors] == ["options.delimiter"]


def test_a_home_that_kept_rejected_rows_in_the_catalog_is_moved_on_open(tmp_path):
    # Homes made before rejected rows lived beside their snapshot held them in catalog.rejected.
    home = tmp_path / "home"
    with tabular.connect(str(home)) as engine:
        _, dataset = ingest(engine.namespace("acme", "finance"), CSV / "ragged.csv", source_uri="r")
        before = engine.namespace("acme", "finance").dataset_get("r").datasets[0].rejected
        assert before  # the row with too many cells
        cur = engine.catalog.cursor()
        table = f'snapshots."{dataset.snapshot_id}.rejected"'
        cur.execute(f"CREATE TABLE catalog.rejected AS SELECT '{dataset.snapshot_id}' AS snapshot_id, * FROM {table}")
        cur.execute(f"DROP TABLE {table}")
    with tabular.connect(str(home)) as engine:
        assert engine.namespace("acme", "finance").dataset_get("r").datasets[0].rejected == before
        left = engine.catalog.cursor().execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'catalog' AND table_name = 'rejected'").fetchone()[0]
        assert left == 0
