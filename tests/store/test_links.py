"""tabular/store/links.py: the linked folders' rows on a real catalog in a tmp_path: a link and
its files read back as written, each org's links apart, a forgotten link gone with its files."""

from __future__ import annotations

import datetime as dt

import pytest

from tabular.store import catalog as C
from tabular.store import links as L
from tabular.store.home import Catalog

T0 = dt.datetime(2024, 1, 1, 12, 0, tzinfo=dt.UTC)


@pytest.fixture
def con(tmp_path):
    catalog = Catalog(str(tmp_path / "home"))
    yield catalog.conn()
    catalog.close()


def add_link(con, link_id, org="acme", namespace="one", at=T0):
    C.insert(
        con,
        "links",
        link_id=link_id,
        org=org,
        namespace=namespace,
        path=f"/data/{link_id}",
        label=link_id.upper(),
        prefix="files/",
        patterns=["*.csv"],
        recursive=True,
        created_at=at,
        last_scanned_at=None,
        missing=False,
        paused=None,
    )


def add_file(con, link_id, rel_path, state="ready"):
    C.insert(
        con,
        "link_files",
        link_id=link_id,
        rel_path=rel_path,
        source_uri=f"files/{rel_path}",
        size=10,
        mtime_ns=1,
        sha256="ab",
        state=state,
        revision=1,
    )


def test_a_link_reads_back_as_written(con):
    add_link(con, "l1")
    row = L.link_row(con, "l1")
    assert (row["org"], row["namespace"], row["path"], row["label"]) == ("acme", "one", "/data/l1", "L1")
    assert row["recursive"] is True and row["created_at"] == T0
    assert L.link_row(con, "nope") is None


def test_links_of_a_namespace_are_its_own_oldest_first(con):
    add_link(con, "late", at=T0 + dt.timedelta(hours=1))
    add_link(con, "early")
    add_link(con, "theirs", org="globex")
    add_link(con, "other_ns", namespace="two")
    assert [r["link_id"] for r in L.links_of(con, "acme", "one")] == ["early", "late"]
    assert [r["link_id"] for r in L.links_of(con, "globex", "one")] == ["theirs"]
    assert {r["link_id"] for r in L.links_of(con)} == {"early", "late", "theirs", "other_ns"}


def test_a_links_files_by_path_and_by_state(con):
    add_link(con, "l1")
    add_link(con, "l2")
    add_file(con, "l1", "b.csv", "failed")
    add_file(con, "l1", "a.csv")
    add_file(con, "l2", "c.csv")
    assert [r["rel_path"] for r in L.link_files(con, "l1")] == ["a.csv", "b.csv"]
    assert [r["rel_path"] for r in L.link_files(con, "l1", "failed")] == ["b.csv"]
    assert [r["source_uri"] for r in L.link_files(con, "l2")] == ["files/c.csv"]


def test_forgetting_a_link_forgets_its_files_and_no_other_links(con):
    add_link(con, "l1")
    add_link(con, "l2")
    add_file(con, "l1", "a.csv")
    add_file(con, "l1", "b.csv")
    add_file(con, "l2", "a.csv")
    L.forget_link_file(con, "l1", "a.csv")
    assert [r["rel_path"] for r in L.link_files(con, "l1")] == ["b.csv"]
    L.forget_link(con, "l1")
    assert L.link_row(con, "l1") is None and L.link_files(con, "l1") == []
    assert [r["rel_path"] for r in L.link_files(con, "l2")] == ["a.csv"]
