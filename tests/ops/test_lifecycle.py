"""knowledge.get, delete, restore and list: a source's lifecycle, revisions and retention."""

import json

import pytest
from conftest import CSV, ingest, snapshot_files

import tabular

COUNT = {"aggregates": [{"fn": "count"}]}


def test_get_answers_the_source_and_its_live_revision(ns):
    assert ns.call("knowledge.get", {"source_uri": "nothing"})["found"] is False
    ingest(ns, CSV / "currency.csv", source_uri="prices", title="Prices", tags=["money"], metadata={"owner": "ops"})
    got = ns.call("knowledge.get", {"source_uri": "prices", "colour": "red"})
    assert got["found"] and got["ignored_args"] == ["colour"]
    assert (got["title"], got["tags"], got["metadata"]) == ("Prices", ["money"], {"owner": "ops"})
    assert (got["revision"], got["format"], got["parser"], got["datasets"]) == (1, "csv", "csv", ["currency"])
    assert got["coverage"]["extracted"] == 6 and got["ingested_at"] and got["doc_id"].startswith("d_")
    assert got["history"] == [] and got["deleted"] is False


def test_delete_makes_nothing_live_and_restore_brings_the_revision_back(ns, engine):
    _, dataset = ingest(ns, CSV / "currency.csv", source_uri="prices")
    deleted = ns.call("knowledge.delete", {"source_uri": "prices"})
    assert (deleted["found"], deleted["deleted"], deleted["revision"]) == (True, True, 1)
    assert ns.dataset_get("prices").found is False
    with pytest.raises(tabular.ValidationFailed) as err:
        ns.query({"datasets": [{"source_uri": "prices"}], **COUNT})
    assert err.value.errors[0].path == "datasets[0].source_uri"
    got = ns.call("knowledge.get", {"source_uri": "prices"})
    assert (got["found"], got["revision"], got["deleted"], got["deleted_revision"]) == (True, None, True, 1)
    assert ns.call("knowledge.delete", {"source_uri": "prices"})["deleted"] is False  # nothing live to delete
    restored = ns.call("knowledge.restore", {"source_uri": "prices"})
    assert (restored["restored"], restored["revision"]) == (True, 1) and "live again" in restored["reason"]
    back = ns.dataset_get("prices").datasets[0]
    assert back.snapshot_id == dataset.snapshot_id
    assert ns.query({"datasets": [{"source_uri": "prices"}], **COUNT}).rows == [[6]]
    again = ns.call("knowledge.restore", {"source_uri": "prices"})
    assert again["restored"] is False and "revision 1 is live" in again["reason"]
    assert ns.call("knowledge.restore", {"source_uri": "nothing"})["found"] is False


def test_delete_with_a_stale_expected_revision_is_409(ns):
    ingest(ns, CSV / "currency.csv", source_uri="prices")
    ingest(ns, CSV / "floats.csv", source_uri="prices")  # other bytes: the same ones are no new revision
    with pytest.raises(tabular.PreconditionFailed) as err:
        ns.call("knowledge.delete", {"source_uri": "prices", "expected_revision": 1})
    assert err.value.status == 409 and err.value.errors[0].path == "expected_revision"
    assert ns.call("knowledge.delete", {"source_uri": "prices", "expected_revision": 2})["deleted"]


def test_an_ingest_after_a_delete_publishes_the_next_revision(ns):
    ingest(ns, CSV / "currency.csv", source_uri="prices")
    ns.call("knowledge.delete", {"source_uri": "prices"})
    status, dataset = ingest(ns, CSV / "currency.csv", source_uri="prices", expected_revision=0)
    assert (status.revision, dataset.dataset_id) == (2, "currency")
    assert ns.call("knowledge.restore", {"source_uri": "prices"})["restored"] is False


def test_list_pages_the_sources_with_a_cursor(ns, engine):
    for uri in ("b", "a", "c"):
        ingest(ns, CSV / "crlf.csv", source_uri=uri)
    ns.call("knowledge.delete", {"source_uri": "b"})
    first = ns.call("knowledge.list", {"limit": 2})
    assert [(r["source_uri"], r["deleted"]) for r in first["rows"]] == [("a", False), ("b", True)]
    second = ns.call("knowledge.list", {"limit": 2, "cursor": first["next_cursor"]})
    assert [r["source_uri"] for r in second["rows"]] == ["c"] and second["next_cursor"] is None
    assert [r["source_uri"] for r in ns.call("knowledge.list", {"prefix": "c"})["rows"]] == ["c"]
    assert engine.namespace("acme", "sales").call("knowledge.list")["rows"] == []
    with pytest.raises(tabular.ValidationFailed) as err:
        ns.call("knowledge.list", {"cursor": "not-a-cursor", "limit": 5000})
    assert {e.path for e in err.value.errors} == {"limit"}
    with pytest.raises(tabular.ValidationFailed) as err:
        ns.call("knowledge.list", {"cursor": "not-a-cursor"})
    assert [e.path for e in err.value.errors] == ["cursor"]
    import base64

    for forged in ({"after": 5}, {"after": None}, {"after": ["c"]}, [1]):  # well-formed base64 JSON, not ours: was 500
        cursor = base64.urlsafe_b64encode(json.dumps(forged).encode()).decode()
        with pytest.raises(tabular.ValidationFailed) as err:
            ns.call("knowledge.list", {"cursor": cursor})
        assert [e.path for e in err.value.errors] == ["cursor"], forged


def test_another_namespace_sees_nothing_and_changes_nothing(ns, engine):
    ingest(ns, CSV / "crlf.csv", source_uri="mine")
    theirs = engine.namespace("globex", "finance")
    assert theirs.call("knowledge.get", {"source_uri": "mine"})["found"] is False
    assert theirs.call("knowledge.delete", {"source_uri": "mine"})["found"] is False
    assert ns.dataset_get("mine").found


def test_retention_drops_old_revisions_but_never_what_serves(tmp_path):
    with tabular.connect(str(tmp_path / "home"), snapshots_kept=1, dropped_grace_seconds=0) as engine:
        ns = engine.namespace("acme", "finance")
        for _ in range(3):
            _, dataset = ingest(ns, CSV / "crlf.csv", source_uri="data")
        assert snapshot_files(engine) == {dataset.snapshot_id}
        ns.call("knowledge.delete", {"source_uri": "data"})
        assert ns.call("knowledge.restore", {"source_uri": "data"})["restored"]
        assert ns.dataset_get("data", sample_rows=1).datasets[0].sample
