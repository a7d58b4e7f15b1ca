"""Stored uploads under attack (issue 30): an upload refused because the catalog is busy keeps no
bytes, a restart sweeps upload files no catalog row names, and a multipart body with two `file`
parts is refused instead of keeping the last."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from service.support import Server, envelope

from .conftest import TOKENS


def rowless(home: Path) -> list[str]:
    """Files under uploads/ that no catalog row names."""
    con = sqlite3.connect(f"file:{home / 'catalog.sqlite'}?mode=ro", uri=True)
    try:
        named = {row[0] for row in con.execute("SELECT upload_id FROM uploads")}
    finally:
        con.close()
    return sorted(p.name for p in (home / "uploads").iterdir() if p.name not in named)


def test_an_upload_refused_while_the_catalog_is_busy_keeps_nothing_and_a_restart_sweeps_leftovers(tmp_path):
    srv = Server(tmp_path / "home", catalog_wait_seconds=0.5).start()
    try:
        with srv.client() as c:
            assert c.post("/v1/knowledge.upload", params={"filename": "a.csv"}, content=b"id\n1\n").status_code == 200
            holder = sqlite3.connect(srv.home / "catalog.sqlite", isolation_level=None, check_same_thread=False)
            holder.execute("BEGIN IMMEDIATE")  # another process's long write holds the catalog
            try:
                r = c.post("/v1/knowledge.upload", params={"filename": "b.csv"}, content=b"id\n2\n")
                envelope(r, 503, "OVERLOADED")
                files = [("file", ("c.csv", b"id\n3\n", "text/csv"))]
                envelope(c.post("/v1/knowledge.upload", files=files), 503, "OVERLOADED")
            finally:
                holder.execute("ROLLBACK")
                holder.close()
            assert rowless(srv.home) == []
            assert len(list((srv.home / "uploads").iterdir())) == 1
        # What an earlier version (or a process killed at the wrong moment) left: swept at start.
        (srv.home / "uploads" / "u_0123456789abcdef0123456789abcdef").write_bytes(b"id\n9\n")
        srv.stop()
        srv = Server(srv.home).start()
        assert rowless(srv.home) == []
        assert len(list((srv.home / "uploads").iterdir())) == 1
    finally:
        srv.stop()


def test_a_multipart_upload_with_two_file_parts_is_refused(two_orgs):
    with two_orgs.client(TOKENS["acme-writer"][0]) as c:
        before = set((two_orgs.home / "uploads").iterdir())
        files = [("file", ("a.csv", b"id\n1\n", "text/csv")), ("file", ("b.csv", b"id\n2\n", "text/csv"))]
        detail = envelope(c.post("/v1/knowledge.upload", files=files), 422, "VALIDATION_FAILED")
        assert [e["path"] for e in detail["errors"]] == ["file"], detail
        assert "one" in detail["errors"][0]["expected"]
        assert set((two_orgs.home / "uploads").iterdir()) == before
        # one file part is still served
        r = c.post("/v1/knowledge.upload", files=files[:1])
        assert r.status_code == 200 and r.json()["filename"] == "a.csv", r.text
