"""tabular/store/catalog.py: the catalog's named operations on a real catalog in a tmp_path:
rows written and read back as they were, one org's rows never another's, a failed change
leaving the catalog as it was, a busy catalog as 503."""

from __future__ import annotations

import datetime as dt
import sqlite3

import pytest

from planner.dialect import DIALECT
from tabular.errors import Overloaded
from tabular.store import catalog as C
from tabular.store.home import Catalog

T0 = dt.datetime(2024, 1, 1, 12, 0, tzinfo=dt.UTC)


@pytest.fixture
def home(tmp_path):
    catalog = Catalog(str(tmp_path / "home"))
    yield catalog
    catalog.close()


def add_source(con, org, namespace, uri, live=1, datasets=("sales",), at=T0):
    """A source with one live revision whose datasets each serve one snapshot."""
    C.insert(
        con,
        "sources",
        org=org,
        namespace=namespace,
        source_uri=uri,
        live_revision=live,
        last_revision=live,
        title=f"{uri} title",
        tags=["a", "b"],
        metadata={"k": "v"},
        created_at=at,
        updated_at=at,
    )
    C.insert(
        con,
        "revisions",
        org=org,
        namespace=namespace,
        source_uri=uri,
        revision=live,
        upload_id=f"u-{org}-{uri}",
        format="csv",
        state="ready",
        ingested_at=at,
        extraction_dir=f"x-{org}-{uri}",
    )
    for idx, dataset_id in enumerate(datasets):
        snapshot_id = f"s_{org}_{uri}_{dataset_id}".replace(".", "")
        C.insert(
            con,
            "datasets",
            org=org,
            namespace=namespace,
            source_uri=uri,
            revision=live,
            dataset_id=dataset_id,
            name=dataset_id,
            idx=idx,
            live_snapshot=snapshot_id,
            rows=3,
        )
        C.insert(
            con,
            "snapshots",
            snapshot_id=snapshot_id,
            org=org,
            namespace=namespace,
            source_uri=uri,
            revision=live,
            dataset_id=dataset_id,
            rows=3,
            rows_rejected=0,
            columns=[],
            questions=[],
            approved=False,
            created_at=at,
        )


def test_a_row_reads_back_with_its_json_times_and_flags(home):
    with home.change() as con:
        add_source(con, "acme", "fin", "a.csv")
        C.insert(
            con,
            "jobs",
            ingestion_id="j1",
            org="acme",
            namespace="fin",
            source_uri="a.csv",
            state="pending",
            attempts=0,
            progress={"rows": 5},
            cancel_requested=False,
            created_at=T0,
            updated_at=T0,
        )
    row = C.source_row(home.conn(), "acme", "fin", "a.csv")
    assert (row["live_revision"], row["title"]) == (1, "a.csv title")
    assert row["tags"] == '["a", "b"]'
    status = C.job_status(home.conn(), "j1", "acme", "fin")
    assert status["created_at"] == T0
    assert status["cancel_requested"] is False
    assert status["state"] == "pending"


def test_update_sets_only_the_rows_its_key_matches(home):
    with home.change() as con:
        add_source(con, "acme", "fin", "a.csv")
        add_source(con, "acme", "fin", "b.csv")
        C.update(con, "sources", {"org": "acme", "namespace": "fin", "source_uri": "a.csv"}, title="renamed")
    assert C.source_row(home.conn(), "acme", "fin", "a.csv")["title"] == "renamed"
    assert C.source_row(home.conn(), "acme", "fin", "b.csv")["title"] == "b.csv title"


def test_one_orgs_rows_are_never_anothers(home):
    with home.change() as con:
        add_source(con, "acme", "fin", "a.csv")
        add_source(con, "rival", "fin", "r.csv")
        C.insert(con, "uploads", upload_id="u1", org="acme", namespace="fin", path="/x", filename="a.csv", bytes=10)
        C.insert(con, "jobs", ingestion_id="j1", org="acme", namespace="fin", source_uri="a.csv", state="pending")
    con = home.conn()
    assert C.live_source_uris(con, "acme", "fin") == ["a.csv"]
    assert C.live_source_uris(con, "rival", "fin") == ["r.csv"]
    assert C.source_row(con, "rival", "fin", "a.csv") is None
    assert C.live_datasets(con, "rival", "fin", "a.csv") == []
    assert C.upload_row(con, "u1", "rival", "fin") is None
    assert C.upload_row(con, "u1", "acme", "fin")["filename"] == "a.csv"
    assert C.job_status(con, "j1", "rival", "fin") is None
    assert C.job_state(con, "j1", "acme", "other") is None
    assert C.serving_snapshots(con, "rival") == ["s_rival_rcsv_sales"]
    assert C.stored_bytes(con, "acme") == 10 and C.stored_bytes(con, "rival") == 0


def test_a_change_that_raises_leaves_the_catalog_as_it_was(home):
    with home.change() as con:
        add_source(con, "acme", "fin", "a.csv")
    with pytest.raises(RuntimeError):
        with home.change() as con:
            C.update(con, "sources", {"org": "acme", "namespace": "fin", "source_uri": "a.csv"}, title="half")
            add_source(con, "acme", "fin", "b.csv")
            raise RuntimeError("the snapshot could not be written")
    assert C.source_row(home.conn(), "acme", "fin", "a.csv")["title"] == "a.csv title"
    assert C.live_source_uris(home.conn(), "acme", "fin") == ["a.csv"]


def test_live_datasets_are_in_the_files_order_and_none_once_nothing_is_live(home):
    with home.change() as con:
        add_source(con, "acme", "fin", "book.xlsx", datasets=("sales", "costs", "notes"))
    rows = C.live_datasets(home.conn(), "acme", "fin", "book.xlsx")
    assert [r["dataset_id"] for r in rows] == ["sales", "costs", "notes"]
    assert rows[0]["state"] == "ready"
    with home.change() as con:
        C.update(con, "sources", {"org": "acme", "namespace": "fin", "source_uri": "book.xlsx"}, live_revision=None)
    assert C.live_datasets(home.conn(), "acme", "fin", "book.xlsx") == []
    assert C.live_source_uris(home.conn(), "acme", "fin") == []


def test_snapshots_past_the_newest_kept_and_a_dropped_one_is_forgotten(home):
    with home.change() as con:
        for i in range(4):
            C.insert(
                con,
                "snapshots",
                snapshot_id=f"s_{i}",
                org="acme",
                namespace="fin",
                source_uri="a.csv",
                revision=1,
                dataset_id="sales",
                created_at=T0 + dt.timedelta(minutes=i),
            )
        C.insert(
            con,
            "snapshots",
            snapshot_id="s_other",
            org="acme",
            namespace="fin",
            source_uri="a.csv",
            revision=1,
            dataset_id="costs",
            created_at=T0,
        )
    assert sorted(C.snapshots_past(home.conn(), "acme", "fin", "a.csv", 2)) == ["s_0", "s_1"]
    with home.change() as con:
        C.drop_snapshot(con, "s_0")
    assert not C.snapshot_known(home.conn(), "s_0")
    assert C.dropped_before(home.conn(), C.now() + dt.timedelta(seconds=1)) == ["s_0"]
    assert C.dropped_before(home.conn(), C.now() - dt.timedelta(hours=1)) == []


def test_a_pending_job_is_claimed_once_by_its_owner_and_cancelled_only_while_pending(home):
    with home.change() as con:
        C.insert(con, "jobs", ingestion_id="j1", org="acme", namespace="fin", state="pending", attempts=0, owner=None)
        C.insert(con, "jobs", ingestion_id="j2", org="acme", namespace="fin", state="pending", attempts=0, owner=None)
    con = home.conn()
    assert C.take_job(con, "j1", "me", None)
    assert not C.take_job(con, "j1", "you", None)  # taken already
    assert C.job_owner(con, "j1") == (True, "me")
    assert C.job_owner(con, "nope") == (False, None)
    assert not C.claim_job(con, "j1", "you")
    assert C.claim_job(con, "j1", "me")
    assert not C.claim_job(con, "j1", "me")  # processing now
    assert C.job_status(con, "j1", "acme", "fin")["attempts"] == 1
    assert not C.cancel_pending(con, "j1")
    assert C.cancel_pending(con, "j2")
    assert C.cancel_requested(con, "j2")
    assert [r["ingestion_id"] for r in C.unfinished_jobs(con)] == ["j1"]


def test_an_upload_no_ingest_names_is_unused_once_old_enough(home):
    with home.change() as con:
        C.insert(con, "uploads", upload_id="u1", org="acme", namespace="fin", created_at=T0, path="/u1")
        C.insert(con, "uploads", upload_id="u2", org="acme", namespace="fin", created_at=T0, path="/u2")
        C.insert(con, "jobs", ingestion_id="j1", org="acme", namespace="fin", upload_id="u2", state="ready")
    con = home.conn()
    assert [tuple(r) for r in C.unused_uploads(con, T0 + dt.timedelta(seconds=1))] == [("u1", "/u1")]
    assert C.unused_uploads(con, T0) == []
    C.forget_upload(con, "u1")
    assert C.upload_ids(con) == {"u2"}


def test_a_locked_catalog_is_overloaded_and_another_error_is_itself():
    assert isinstance(C.busy(sqlite3.OperationalError("database is locked")), Overloaded)
    other = sqlite3.OperationalError("no such table: catalog.nothing")
    assert C.busy(other) is other


def test_a_snapshots_tables_are_named_inside_its_own_file():
    assert C.snapshot_table("s_ab12").sql(dialect=DIALECT) == '"s_ab12"."main"."data"'
    assert C.rejected_table("s_ab12").sql(dialect=DIALECT) == '"s_ab12"."main"."rejected"'
