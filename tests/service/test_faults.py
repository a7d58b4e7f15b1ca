"""Faults: the server SIGKILLed at random moments of ingest, approval and query, round after
round, and a disk that fills up during an ingest.

After every kill the home is opened again (which takes up the interrupted jobs) and must be
consistent (tests/test_crash.py's `consistent`: no orphan snapshot table or extraction folder),
every job must end ready, or failed only `retries_exhausted`, the live revision must be one
published whole (its rows are all the rows of the file its job read), every query answered before
the kill must have counted a whole revision, and every approval acknowledged before the kill must
be in the history. tests/test_crash.py kills at named points; this kills wherever the clock says.

Rounds: FAULT_ROUNDS (1) in `make test`, FAULT_ROUNDS_LONG (25) under `-m slow` (each overridden
by its environment variable); the seed of each round is printed on failure.
"""

from __future__ import annotations

import os
import random
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from test_crash import consistent, later_process_exits_cleanly

import tabular

from .support import CSV, Server, envelope, start_ingest, wait_for

FAULT_ROUNDS = 1  # each round a fresh server killed at a random moment; 25 in the slow run
FAULT_ROUNDS_LONG = 25
FINISHED_CLEANLY = {("ready", None), ("failed", "retries_exhausted"), ("cancelled", None)}


def books(path: Path, rows: int, seed: int) -> Path:
    rng = random.Random(seed)
    with path.open("w") as f:
        f.write("id,when,amount,label\n")
        f.writelines(
            f"{i},2024-{i % 12 + 1:02d}-{i % 28 + 1:02d},{rng.randint(0, 99999)}.{i % 100:02d},label {rng.random():.12f}\n"
            for i in range(rows)
        )
    return path


class Load:
    """Approvals and queries sent until the server dies; what was acknowledged is kept."""

    def __init__(self, srv: Server, snapshot: str):
        self.srv, self.snapshot = srv, snapshot
        self.approved: list[str] = []
        self.counts: list[int] = []
        self.unexpected: list[str] = []
        self.threads = [
            threading.Thread(target=self._approve, daemon=True),
            threading.Thread(target=self._query, daemon=True),
        ]
        for t in self.threads:
            t.start()

    def _approve(self) -> None:
        with self.srv.client(timeout=30) as c:
            for k in range(10_000):
                try:
                    r = c.post(
                        "/v1/knowledge.dataset_approve",
                        json={
                            "source_uri": "d",
                            "snapshot_id": self.snapshot,
                            "formats": {"when": ("MDY", "DMY")[k % 2]},
                        },
                    )
                except httpx.HTTPError:
                    return
                if r.status_code != 200:
                    self.unexpected.append(r.text)
                    return
                self.snapshot = r.json()["dataset"]["snapshot_id"]
                self.approved.append(self.snapshot)

    def _query(self) -> None:
        with self.srv.client(timeout=30) as c:
            while True:
                try:
                    r = c.post(
                        "/v1/knowledge.query",
                        json={"datasets": [{"source_uri": "books"}], "aggregates": [{"fn": "count"}]},
                    )
                except httpx.HTTPError:
                    return
                if r.status_code != 200:
                    self.unexpected.append(r.text)
                    return
                self.counts.append(r.json()["rows"][0][0])

    def join(self) -> None:
        for t in self.threads:
            t.join(30)


def check_after_kill(home: Path, jobs: dict[str, int], load: Load, sizes: set[int]) -> None:
    # This process takes up the killed server's jobs, as the next `tabular serve` would.
    with tabular.connect(str(home), take_up_jobs=True) as engine:
        ns = engine.namespace("default", "default")
        for ingestion_id in jobs:
            engine.jobs.wait(ingestion_id, 120)
        consistent(engine)
        ended = {}
        for ingestion_id in jobs:
            got = ns.call("knowledge.ingest_status", {"ingestion_id": ingestion_id})
            assert (got["state"], got["error_code"]) in FINISHED_CLEANLY, got
            ended[got["revision"]] = jobs[ingestion_id]
        live = ns.dataset_get("books")
        assert live.found
        # Published whole: the live revision holds every row of the file its job read.
        assert live.datasets[0].rows == ended.get(live.revision, live.datasets[0].rows)
        assert live.datasets[0].rows in sizes
        count = ns.query({"datasets": [{"source_uri": "books"}], "aggregates": [{"fn": "count"}]}).rows[0][0]
        assert count == live.datasets[0].rows
        history = {h.new_snapshot_id for h in ns.history("d")}
        assert set(load.approved) <= history, "an acknowledged approval was lost"
        if history:  # the newest approval serves
            assert ns.dataset_get("d").datasets[0].snapshot_id in history
    assert set(load.counts) <= sizes, f"a query counted rows of no published revision: {set(load.counts) - sizes}"
    assert not load.unexpected, load.unexpected


def kill_rounds(tmp_path: Path, rounds: int) -> None:
    home = tmp_path / "home"
    files = [books(tmp_path / "a.csv", 30_000, 1), books(tmp_path / "b.csv", 45_000, 2)]
    sizes = {30_000, 45_000}
    # The home the first server finds, made in this process (a server started only to fill it
    # would be one more start to pay for): books and d live in the single-user namespace.
    with tabular.connect(str(home)) as engine:
        ns = engine.namespace("default", "default")
        assert ns.ingest_file(files[0], source_uri="books").state == "ready"
        assert ns.ingest_file(CSV / "dates_ambiguous.csv", source_uri="d").state == "ready"
    jobs: dict[str, int] = {}
    for n in range(rounds):
        seed = random.randrange(1 << 30)
        rng = random.Random(seed)
        srv = Server(home).start()
        try:
            with srv.client() as c:
                snapshot = c.post("/v1/knowledge.dataset_get", json={"source_uri": "d"}).json()["datasets"][0][
                    "snapshot_id"
                ]
                pick = rng.randrange(2)
                jobs[start_ingest(c, files[pick], "books")] = (30_000, 45_000)[pick]
            load = Load(srv, snapshot)
            time.sleep(rng.uniform(0.0, 2.5))
        finally:
            srv.kill()
        load.join()
        try:
            later_process_exits_cleanly(home)
            check_after_kill(home, jobs, load, sizes)
        except AssertionError as err:
            raise AssertionError(f"round {n} (seed {seed}): {err}") from err


def test_the_server_killed_at_random_moments_keeps_a_consistent_home(tmp_path):
    kill_rounds(tmp_path, int(os.environ.get("FAULT_ROUNDS", FAULT_ROUNDS)))


@pytest.mark.slow
def test_the_server_killed_at_random_moments_keeps_a_consistent_home_long(tmp_path):
    kill_rounds(tmp_path, int(os.environ.get("FAULT_ROUNDS_LONG", FAULT_ROUNDS_LONG)))


def _file_size_limit(limit: int):
    def apply() -> None:
        # Ignored, SIGXFSZ makes a write past the limit fail with EFBIG instead of killing the process.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


# What fills up first: the new snapshot's file, written while its table is made (rows past one
# of DuckDB's row groups, 122,880, go to the file at once), or (a smaller file, a tighter limit)
# its write-ahead log at the COMMIT: an IOException and a TransactionException, each read as a
# full disk. The sizes are the smallest that still fill each one first.
@pytest.mark.parametrize(
    ("rows", "room"), [(130_000, 1 << 20), (30_000, 100 << 10)], ids=["snapshot-file", "snapshot-log"]
)
def test_a_full_disk_fails_the_ingest_and_the_previous_revision_serves(tmp_path, rows, room):
    home = tmp_path / "home"
    big = books(tmp_path / "big.csv", rows, 3)
    with tabular.connect(str(home)) as engine:  # the home the limited server finds
        ns = engine.namespace("default", "default")
        assert ns.ingest_file(CSV / "dates_dmy.csv", source_uri="books").state == "ready"
        before = ns.call("knowledge.dataset_get", {"source_uri": "books"})
        pending = ns.upload_file(big)  # stored while there is room
    largest = max(p.stat().st_size for p in home.rglob("*") if p.is_file() and p.name != pending["upload_id"])
    srv = Server(home)
    # Room for the catalog to grow a little, not for the big file's snapshot.
    srv.preexec_fn = _file_size_limit(largest + room)
    srv.start()
    try:
        with srv.client() as c:
            r = c.post("/v1/knowledge.ingest", json={"upload_id": pending["upload_id"], "source_uri": "books"})
            got = wait_for(c, r.json()["ingestion_id"])
            assert (got["state"], got["error_code"]) == ("failed", "too_large"), got
            assert "no room" in got["error_message"]
            after = c.post("/v1/knowledge.dataset_get", json={"source_uri": "books"}).json()
            assert (after["revision"], after["datasets"][0]["snapshot_id"]) == (
                before["revision"],
                before["datasets"][0]["snapshot_id"],
            )
            answer = c.post(
                "/v1/knowledge.query", json={"datasets": [{"source_uri": "books"}], "aggregates": [{"fn": "count"}]}
            )
            assert answer.status_code == 200 and answer.json()["rows"] == [[before["datasets"][0]["rows"]]]
            # An upload that does not fit is refused the same way, and nothing of it is kept.
            with big.open("rb") as f:
                refused = c.post("/v1/knowledge.upload", params={"filename": "big.csv"}, content=f)
            envelope(refused, 413, "TOO_LARGE")
            assert "no room" in refused.json()["detail"]["message"]
    finally:
        srv.stop()
    assert not list((home / "uploads").glob("*.part"))
    with tabular.connect(str(home)) as engine:
        consistent(engine)
        # With room again, the same upload publishes the next revision.
        ns = engine.namespace("default", "default")
        again = ns.call("knowledge.ingest", {"upload_id": pending["upload_id"], "source_uri": "books"})
        engine.jobs.wait(again["ingestion_id"], 120)
        assert ns.call("knowledge.ingest_status", {"ingestion_id": again["ingestion_id"]})["state"] == "ready"
        assert (ns.dataset_get("books").revision, ns.dataset_get("books").datasets[0].rows) == (
            before["revision"] + 1,
            rows,
        )
        consistent(engine)


APPROVE_ON_A_FULL_DISK = """
import sys, tabular
home, snapshot = sys.argv[1:3]
with tabular.connect(home) as engine:
    ns = engine.namespace("default", "default")
    try:
        ns.call("knowledge.dataset_approve", {"source_uri": "d", "snapshot_id": snapshot, "formats": {"when": "MDY"}})
        print("approved")
    except tabular.TabularError as err:
        print(err.code, err.status, err.message)
    print(ns.dataset_get("d").datasets[0].snapshot_id)
"""


def test_an_approval_on_a_full_disk_is_503_and_changes_nothing(tmp_path):
    home = tmp_path / "home"
    # Dates whose day and month are both under 13 (ambiguous), enough of them that the snapshot
    # is written in full-size blocks.
    dates = tmp_path / "dates.csv"
    dates.write_text(
        "id,when,qty\n" + "".join(f"{k},{k % 12 + 1:02d}/{k % 11 + 1:02d}/2024,{k % 7}\n" for k in range(80_000))
    )
    with tabular.connect(str(home)) as engine:
        ns = engine.namespace("default", "default")
        assert ns.ingest_file(dates, source_uri="d").state == "ready"
        before = ns.dataset_get("d").datasets[0].snapshot_id
    # 200 KB a file: room to open the catalog, not to write the approval's new snapshot file.
    said = subprocess.run(
        [sys.executable, "-c", APPROVE_ON_A_FULL_DISK, str(home), before],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_file_size_limit(200 << 10),
    ).stdout.splitlines()
    assert said[0].startswith("OVERLOADED 503 no room left"), said
    assert said[1] == before
    with tabular.connect(str(home)) as engine:
        consistent(engine)
        ns = engine.namespace("default", "default")
        assert ns.history("d") == []
        assert ns.approve("d", before, formats={"when": "MDY"}).retyped  # room again: it goes through
