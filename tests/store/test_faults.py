"""tabular/store/faults.py: a write the disk refuses, at each write of an ingest, an approval and
an export, is a coded error (never INTERNAL), with nothing half-published: the previous revision
live and served, no part, partial, sealed or orphan snapshot file left.

Each write is refused by a seam patched for one case: the upload's kernel copy, the extraction's
Parquet writer, DuckDB's statements that write a snapshot, its statistics and its seal (DETACH,
fsync, rename), SQLite's COMMIT of the publish and of the approval, the file an export writes.
A full disk (ENOSPC) keeps its codes (an ingest `too_large`, an op 503 OVERLOADED, an upload 413);
a home that cannot be written (EROFS, EACCES) is `storage_unwritable` / STORAGE_UNWRITABLE."""

from __future__ import annotations

import errno
import os
import sqlite3
import time
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

import tabular
from tabular import cli
from tabular.errors import TabularError
from tabular.store import catalog as store_catalog
from tabular.store import export as store_export
from tabular.store import faults, snapshot_files
from tabular.store import rows as store_rows

FIRST = "a,b\n1,x\n2,y\n3,z\n"
# A row with a cell too many: the careful reader takes it (an extraction file, then a snapshot).
SECOND = "a,b\n10,p\n20,q,extra\n30,r\n40,s\n"
PLAN = {"datasets": [{"source_uri": "t.csv", "alias": "t"}]}

KINDS = {errno.ENOSPC: "full", errno.EROFS: "unwritable", errno.EACCES: "unwritable"}


def oserror(number: int, what: str = "a file of the home") -> OSError:
    return OSError(number, os.strerror(number), what)


def duckdb_error(number: int) -> duckdb.IOException:
    """What DuckDB says when the OS refuses its write."""
    return duckdb.IOException(f'IO Error: Could not write file "snapshots/x.duckdb": {os.strerror(number)}')


def sqlite_error(number: int) -> sqlite3.OperationalError:
    """What SQLite says: SQLITE_FULL on a full disk, SQLITE_READONLY on a read-only one,
    SQLITE_CANTOPEN where its journal may not be made."""
    said, code = {
        errno.ENOSPC: ("database or disk is full", 13),
        errno.EROFS: ("attempt to write a readonly database", 8),
        errno.EACCES: ("unable to open database file", 14),
    }[number]
    err = sqlite3.OperationalError(said)
    err.sqlite_errorcode = code
    return err


class Cursors:
    """The home's DuckDB with a cursor that refuses the statements `matches` picks (the one seam
    every snapshot write, statistic and seal of this process goes through)."""

    def __init__(self, db, matches, number: int):
        self.db, self.matches, self.number = db, matches, number

    def cursor(self):
        return _Cursor(self.db.cursor(), self.matches, self.number)

    def __getattr__(self, name):
        return getattr(self.db, name)


class _Cursor:
    def __init__(self, cur, matches, number):
        self.cur, self.matches, self.number = cur, matches, number

    def execute(self, sql, *args, **kwargs):
        if self.matches(sql):
            raise duckdb_error(self.number)
        return self.cur.execute(sql, *args, **kwargs)

    def sql(self, sql, *args, **kwargs):
        if self.matches(sql):
            raise duckdb_error(self.number)
        return self.cur.sql(sql, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.cur, name)


def refuse_statements(monkeypatch, engine, matches, number):
    monkeypatch.setattr(engine.catalog.connections, "db", Cursors(engine.catalog.connections.db, matches, number))


def refuse_commit(monkeypatch, table: str, number: int):
    """SQLite refuses the COMMIT of the transaction that wrote catalog.<table>."""
    real = store_rows._Connection.execute
    wrote = {"table": False}

    def execute(con, sql, *args):
        if sql == "COMMIT" and wrote["table"]:
            wrote["table"] = False
            raise sqlite_error(number)
        if sql.startswith(f'INSERT INTO catalog."{table}"'):
            wrote["table"] = True
        return real(con, sql, *args)

    monkeypatch.setattr(store_rows._Connection, "execute", execute)


class RefusingWriter(pq.ParquetWriter):
    """A Parquet writer whose first batch the disk refuses (its file made, as a real one is)."""

    number = errno.ENOSPC

    def write_table(self, *args, **kwargs):
        raise oserror(self.number)

    def write_batch(self, *args, **kwargs):
        raise oserror(self.number)


def refuse_parquet(monkeypatch, number):
    monkeypatch.setattr(RefusingWriter, "number", number)
    monkeypatch.setattr(pq, "ParquetWriter", RefusingWriter)


def refuse_rename(monkeypatch, number, suffix=".duckdb"):
    real = os.replace

    def replace(src, dst, *args, **kwargs):
        if str(dst).endswith(suffix):
            raise oserror(number, str(dst))
        return real(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)


def refuse_fsync(monkeypatch, number):
    def fsync(path):
        if str(path).endswith(".part"):
            raise oserror(number, str(path))

    monkeypatch.setattr(snapshot_files, "_fsync", fsync)


def refuse_copy(monkeypatch, number):
    def copy_file_range(*args, **kwargs):
        raise oserror(number)

    monkeypatch.setattr(os, "copy_file_range", copy_file_range)


def snapshot_creates(sql: str) -> bool:
    return sql.startswith("CREATE TABLE") and '"main"."data"' in sql


def statistics(sql: str) -> bool:
    return "COUNT(DISTINCT" in sql.upper() or "APPROX_COUNT_DISTINCT" in sql.upper()


def detach(sql: str) -> bool:
    return sql.startswith("DETACH ") and "IF EXISTS" not in sql


# Each write of an ingest, and how the disk is made to refuse it.
INGEST_WRITES = {
    "extraction store": lambda mp, engine, n: refuse_parquet(mp, n),
    "snapshot write": lambda mp, engine, n: refuse_statements(mp, engine, snapshot_creates, n),
    "statistics": lambda mp, engine, n: refuse_statements(mp, engine, statistics, n),
    "snapshot seal (checkpoint)": lambda mp, engine, n: refuse_statements(mp, engine, detach, n),
    "snapshot seal (fsync)": lambda mp, engine, n: refuse_fsync(mp, n),
    "snapshot seal (rename)": lambda mp, engine, n: refuse_rename(mp, n),
    "catalog commit": lambda mp, engine, n: refuse_commit(mp, "revisions", n),
}


@pytest.fixture
def first(tmp_path):
    """An engine whose source t.csv has its first revision live, and the second file to ingest."""
    (tmp_path / "t.csv").write_text(FIRST)
    with tabular.connect(str(tmp_path / "home")) as engine:
        ns = engine.namespace("acme", "fin")
        assert ns.ingest_file(tmp_path / "t.csv", source_uri="t.csv").state == "ready"
        (tmp_path / "t.csv").write_text(SECOND)
        yield engine, ns, tmp_path / "t.csv"


def left_behind(engine) -> list[str]:
    """Files no commit named: part, partial and sealed files, snapshot files the catalog does
    not know, extraction folders no revision names."""
    catalog = engine.catalog
    live, _, _, named = store_catalog.named_files(catalog.conn())
    out = [
        p.name
        for p in catalog.snapshots_dir.iterdir()
        if not p.name.endswith(".duckdb") or p.name.split(".")[0] not in live
    ]
    out += [p.name for p in catalog.uploads_dir.iterdir() if p.name.endswith((".part", ".partial"))]
    out += [p.name for p in catalog.extractions_dir.iterdir() if p.name not in named]
    return out


def serves_the_first(ns) -> None:
    got = ns.dataset_get("t.csv")
    assert got.revision == 1
    assert ns.query({**PLAN, "aggregates": [{"fn": "count", "as": "n"}]}).rows == [[3]]


# EACCES is read as EROFS is, at each step (the cleanup after a refusal does not depend on
# why): by default it is refused once for each kind of error that carries it (an OSError,
# DuckDB's message, SQLite's code); at every other step under `-m slow`.
EACCES_BY_DEFAULT = {"extraction store", "snapshot write", "catalog commit"}
INGEST_CASES = [
    pytest.param(
        step,
        number,
        id=f"{step}-{errno.errorcode[number]}",
        marks=[pytest.mark.slow] if number == errno.EACCES and step not in EACCES_BY_DEFAULT else [],
    )
    for step in INGEST_WRITES
    for number in (errno.ENOSPC, errno.EROFS, errno.EACCES)
]


@pytest.mark.parametrize(("step", "number"), INGEST_CASES)
def test_an_ingest_whose_write_the_disk_refuses_fails_with_a_code_and_the_first_revision_serves(
    first, monkeypatch, step, number
):
    engine, ns, path = first
    with monkeypatch.context() as mp:
        INGEST_WRITES[step](mp, engine, number)
        status = ns.ingest_file(path, source_uri="t.csv")
    assert status.state == "failed", status
    code = {"full": "too_large", "unwritable": "storage_unwritable"}[KINDS[number]]
    assert (status.error_code, "internal" not in status.error_message) == (code, True), status.error_message
    assert os.strerror(number) in status.error_message
    assert "previous revision still serves" in status.error_message
    serves_the_first(ns)
    assert left_behind(engine) == []
    # The same file goes in once the disk takes writes again.
    assert ns.ingest_file(path, source_uri="t.csv").state == "ready"
    assert ns.dataset_get("t.csv").revision == 2


@pytest.mark.parametrize("number", [errno.ENOSPC, errno.EROFS], ids=errno.errorcode.get)
@pytest.mark.parametrize("step", ["snapshot write", "statistics", "snapshot seal (rename)", "catalog commit"])
def test_the_one_pass_whose_write_the_disk_refuses_fails_with_a_code_and_the_first_revision_serves(
    tmp_path, monkeypatch, step, number
):
    """A regular file past its typing sample (two rows here, any size taking the fast path) is typed and written in one pass
    (ingest/onepass.py), not through an extraction: its writes are refused the same way."""
    path = tmp_path / "t.csv"
    path.write_text(FIRST)
    with tabular.connect(str(tmp_path / "home"), typing_sample_cells=4, fast_path_bytes=1) as engine:
        ns = engine.namespace("acme", "fin")
        assert ns.ingest_file(path, source_uri="t.csv").state == "ready"
        path.write_text("a,b\n" + "".join(f"{k},v{k}\n" for k in range(40)))
        with monkeypatch.context() as mp:
            INGEST_WRITES[step](mp, engine, number)
            status = ns.ingest_file(path, source_uri="t.csv")
        assert (status.state, status.error_code) == (
            "failed",
            "too_large" if number == errno.ENOSPC else "storage_unwritable",
        ), status.error_message
        assert os.strerror(number) in status.error_message
        serves_the_first(ns)
        assert left_behind(engine) == []
        assert ns.ingest_file(path, source_uri="t.csv").state == "ready"
        assert ns.dataset_get("t.csv").datasets[0].origin.parser in ("arrow", "duckdb")  # the fast reader's


UPLOAD_WRITES = {
    "spool file": lambda mp, n: refuse_part_file(mp, n),
    "kernel copy": lambda mp, n: refuse_copy(mp, n),
}


def refuse_part_file(monkeypatch, number):
    """The upload's part file refused at its making (a read-only or full home refuses a new file)."""
    real = Path.open

    def open_(path, mode="r", *args, **kwargs):
        if str(path).endswith(".part") and "w" in mode:
            raise oserror(number, str(path))
        return real(path, mode, *args, **kwargs)

    monkeypatch.setattr(Path, "open", open_)


@pytest.mark.parametrize("number", [errno.ENOSPC, errno.EROFS], ids=errno.errorcode.get)
@pytest.mark.parametrize("step", list(UPLOAD_WRITES))
def test_an_upload_the_disk_refuses_is_a_coded_error_with_nothing_kept(first, monkeypatch, step, number):
    engine, ns, path = first
    kept = sorted(p.name for p in engine.catalog.uploads_dir.iterdir())
    with monkeypatch.context() as mp:
        UPLOAD_WRITES[step](mp, number)
        with pytest.raises(TabularError) as caught:
            ns.ingest_file(path, source_uri="t.csv")
    assert (caught.value.code, caught.value.status) == (
        ("TOO_LARGE", 413) if number == errno.ENOSPC else ("STORAGE_UNWRITABLE", 503)
    )
    serves_the_first(ns)
    assert left_behind(engine) == []
    assert sorted(p.name for p in engine.catalog.uploads_dir.iterdir()) == kept  # nothing stored


APPROVAL_WRITES = {
    "retype snapshot write": lambda mp, engine, n: refuse_statements(mp, engine, snapshot_creates, n),
    "retype seal (rename)": lambda mp, engine, n: refuse_rename(mp, n),
    "approval commit": lambda mp, engine, n: refuse_commit(mp, "approvals", n),
}


@pytest.mark.parametrize("number", [errno.ENOSPC, errno.EROFS], ids=errno.errorcode.get)
@pytest.mark.parametrize("step", list(APPROVAL_WRITES))
def test_an_approval_whose_write_the_disk_refuses_is_503_and_changes_nothing(first, monkeypatch, step, number):
    engine, ns, _ = first
    before = ns.dataset_get("t.csv").datasets[0].snapshot_id
    with monkeypatch.context() as mp:
        APPROVAL_WRITES[step](mp, engine, number)
        with pytest.raises(TabularError) as caught:
            ns.approve("t.csv", before, columns={"a": "string"})
    expected = ("OVERLOADED", 503) if number == errno.ENOSPC else ("STORAGE_UNWRITABLE", 503)
    assert (caught.value.code, caught.value.status) == expected, caught.value.message
    assert os.strerror(number) in caught.value.message
    assert ns.dataset_get("t.csv").datasets[0].snapshot_id == before
    assert ns.history("t.csv") == []
    serves_the_first(ns)
    assert left_behind(engine) == []
    assert ns.approve("t.csv", before, columns={"a": "string"}).retyped


def refuse_open(monkeypatch, number):
    """The file an export writes: its first write refused (the file made, as a real one is)."""
    import tabular.results as results

    class Refusing:
        def __init__(self, path, mode):
            self.file = open(path, mode)

        def write(self, data):
            raise oserror(number, self.file.name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.file.close()

    monkeypatch.setattr(results, "open", Refusing, raising=False)


@pytest.mark.parametrize("number", [errno.ENOSPC, errno.EROFS], ids=errno.errorcode.get)
def test_an_export_to_a_file_the_disk_refuses_raises_its_os_error_and_leaves_no_partial_file(
    first, monkeypatch, tmp_path, number
):
    """ns.export writes the caller's own file: the OSError names it and its errno, as Python's
    own writes do; nothing is left beside it."""
    engine, ns, _ = first
    out = tmp_path / "out" / "all.csv"
    out.parent.mkdir()
    with monkeypatch.context() as mp:
        refuse_open(mp, number)
        with pytest.raises(OSError) as caught:
            ns.export(PLAN, str(out))
    assert caught.value.errno == number
    assert list(out.parent.iterdir()) == []
    serves_the_first(ns)


@pytest.mark.parametrize("number", [errno.ENOSPC, errno.EROFS], ids=errno.errorcode.get)
def test_the_cli_output_the_disk_refuses_says_so_in_a_line_not_internal(first, monkeypatch, tmp_path, capsys, number):
    engine, ns, _ = first
    home = str(engine.catalog.home)
    plan = tmp_path / "plan.json"
    plan.write_text('{"datasets": [{"source_uri": "t.csv", "alias": "t"}]}')
    out = tmp_path / "out.ndjson"
    engine.close()
    with monkeypatch.context() as mp:
        refuse_open(mp, number)
        code = cli.main(
            ["--home", home, "--org", "acme", "--namespace", "fin", "query", str(plan), "--output", str(out)]
        )
    said = capsys.readouterr().err
    assert code == 2
    assert os.strerror(number) in said and "INTERNAL" not in said, said
    assert not out.exists() and not (tmp_path / "out.ndjson.partial").exists()


EXPORT_WRITES = {
    "parquet write": lambda mp, n: refuse_parquet(mp, n),
    "rename": lambda mp, n: refuse_rename(mp, n, suffix=".parquet"),
    "record commit": lambda mp, n: mp.setattr(
        store_export, "insert", lambda *a, **k: (_ for _ in ()).throw(faults.busy(sqlite_error(n)))
    ),
}


@pytest.mark.parametrize("number", [errno.ENOSPC, errno.EROFS], ids=errno.errorcode.get)
@pytest.mark.parametrize("step", list(EXPORT_WRITES))
def test_a_parquet_export_the_disk_refuses_raises_its_os_error_and_leaves_no_file(
    first, monkeypatch, tmp_path, step, number
):
    """store/export.py's files: refused, the error is an OSError with its errno (the CLI's
    `tabular export` says it in a line; an op reading through ClickHouse is 503), and no file,
    whole or partial, is left unrecorded."""
    engine, ns, _ = first
    snapshot_id = ns.dataset_get("t.csv").datasets[0].snapshot_id
    where = tmp_path / "exports"
    with monkeypatch.context() as mp:
        EXPORT_WRITES[step](mp, number)
        with pytest.raises(OSError) as caught:
            store_export.export_snapshot(engine.catalog, snapshot_id, str(where))
    assert faults.refused(caught.value) == (KINDS[number], os.strerror(number))
    assert [p for p in where.rglob("*") if p.is_file()] == []
    assert store_export.location_of(engine.catalog, snapshot_id) is None
    assert store_export.export_snapshot(engine.catalog, snapshot_id, str(where)).rows == 3


def test_sqlite_errors_read_as_the_errno_they_stand_for():
    assert faults.refused(faults.busy(sqlite_error(errno.ENOSPC))) == ("full", os.strerror(errno.ENOSPC))
    assert faults.refused(faults.busy(sqlite_error(errno.EROFS))) == ("unwritable", os.strerror(errno.EROFS))
    other = sqlite3.OperationalError("no such table: x")
    assert faults.busy(other) is other


def test_a_conversion_error_quoting_a_cell_is_not_read_as_a_full_disk():
    said = duckdb.ConversionException("Could not convert string 'No space left on device' to INT32")
    assert faults.refused(said) is None
    assert faults.refused(duckdb_error(errno.ENOSPC)) == ("full", os.strerror(errno.ENOSPC))


def test_a_manifest_the_disk_refuses_leaves_the_one_before_whole(first, monkeypatch, tmp_path):
    engine, ns, _ = first
    where = tmp_path / "exports"
    store_export.export_live(engine.catalog, str(where))
    before = (where / "manifest.json").read_text()
    with monkeypatch.context() as mp:
        refuse_rename(mp, errno.ENOSPC, suffix="manifest.json")
        with pytest.raises(OSError):
            store_export.export_live(engine.catalog, str(where))
    assert (where / "manifest.json").read_text() == before
    assert not (where / "manifest.json.partial").exists()


def test_over_http_the_refused_commit_is_a_failed_job_and_a_503_envelope(tmp_path, monkeypatch):
    """Through the transport the attack used: the publish's COMMIT on a full disk leaves the job
    failed too_large (ingest_status over HTTP) and the first revision serving; an approval whose
    COMMIT a read-only home refuses is 503 STORAGE_UNWRITABLE, with no Retry-After."""
    from fastapi.testclient import TestClient

    from tabular.service.http import create_app

    def ingested(c, text: str) -> dict:
        upload = c.post("/v1/knowledge.upload", params={"filename": "t.csv"}, content=text.encode())
        started = c.post("/v1/knowledge.ingest", json={"upload_id": upload.json()["upload_id"], "source_uri": "t.csv"})
        ingestion_id = started.json()["ingestion_id"]
        while (got := c.post("/v1/knowledge.ingest_status", json={"ingestion_id": ingestion_id}).json())["state"] in (
            "pending",
            "processing",
        ):
            time.sleep(0.01)
        return got

    with tabular.connect(str(tmp_path / "home")) as engine:
        c = TestClient(create_app(engine, mcp=False), base_url="http://127.0.0.1")
        assert ingested(c, FIRST)["state"] == "ready"
        live = c.post("/v1/knowledge.dataset_get", json={"source_uri": "t.csv"}).json()["datasets"][0]["snapshot_id"]
        with monkeypatch.context() as mp:
            refuse_commit(mp, "revisions", errno.ENOSPC)
            got = ingested(c, SECOND)
        assert (got["state"], got["error_code"]) == ("failed", "too_large"), got
        assert got["error_message"].startswith("no room left")
        with monkeypatch.context() as mp:
            refuse_commit(mp, "approvals", errno.EROFS)
            r = c.post(
                "/v1/knowledge.dataset_approve",
                json={"source_uri": "t.csv", "snapshot_id": live, "columns": {"a": "string"}},
            )
        assert (r.status_code, r.json()["detail"]["code"], "retry-after" in r.headers) == (
            503,
            "STORAGE_UNWRITABLE",
            False,
        )
        after = c.post("/v1/knowledge.dataset_get", json={"source_uri": "t.csv"}).json()
        assert (after["revision"], after["datasets"][0]["snapshot_id"]) == (1, live)
        assert left_behind(engine) == []


def test_a_failure_the_full_catalog_will_not_record_yet_is_recorded_once_it_can(first, monkeypatch):
    """The disk still full when the job records its failure: the worker is not lost and the job
    not left `processing`: the failure is written once the catalog takes writes again."""
    engine, ns, path = first
    real = store_rows._Connection.execute
    refusals = {"commit": 1, "job rows": 3}

    def execute(con, sql, *args):
        if sql == "COMMIT" and refusals["commit"] and wrote["revisions"]:
            refusals["commit"] -= 1
            raise sqlite_error(errno.ENOSPC)
        if sql.startswith('INSERT INTO catalog."revisions"'):
            wrote["revisions"] = True
        if sql.startswith('UPDATE catalog."jobs"') and not refusals["commit"] and refusals["job rows"]:
            refusals["job rows"] -= 1
            raise sqlite_error(errno.ENOSPC)
        return real(con, sql, *args)

    wrote = {"revisions": False}
    with monkeypatch.context() as mp:
        mp.setattr(store_rows._Connection, "execute", execute)
        status = ns.ingest_file(path, source_uri="t.csv")
    assert (status.state, status.error_code) == ("failed", "too_large"), status
    assert refusals == {"commit": 0, "job rows": 0}
    serves_the_first(ns)
    assert left_behind(engine) == []
    assert ns.ingest_file(path, source_uri="t.csv").state == "ready"  # the worker goes on
