"""A process killed (SIGKILL) in the middle of an ingest or an approval leaves a catalog a fresh
`tabular.connect` answers consistently from: the old snapshot serves, no table or folder is
left half-made, and the same work succeeds when run again. (A process that ends with work left
inside it, without a kill: tests/test_crash_exits.py.)"""

import json
import os
import subprocess
import sys
import threading
import time

import pytest
from conftest import CSV, ingest

import tabular

SCRIPT = """
import sys, tabular
home, action, uri, arg = sys.argv[1:5]
engine = tabular.connect(home)
ns = engine.namespace("acme", "finance")
if action == "ingest":
    upload = ns.upload_file(arg)
    started = ns.call("knowledge.ingest", {"upload_id": upload["upload_id"], "source_uri": uri})
    print(started["ingestion_id"], flush=True)
    engine.jobs.wait(started["ingestion_id"])
else:
    ns.approve(uri, ns.dataset_get(uri).datasets[0].snapshot_id, formats={"when": arg})
"""


def killed_at(point: str, home, *args) -> str:
    """Run SCRIPT until it pauses at `point`, SIGKILL it there, and answer what it printed."""
    env = {**os.environ, "TABULAR_PAUSE_AT": point}
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(home), *map(str, args)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    said: list[str] = []
    reader = threading.Thread(target=lambda: said.extend(iter(proc.stderr.readline, "")), daemon=True)
    reader.start()
    deadline = time.monotonic() + 300  # a hang guard, not a speed claim
    while not any(f"paused at {point}" in line for line in said):
        assert proc.poll() is None and time.monotonic() < deadline, "".join(said)
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    return proc.stdout.read().strip()


def later_process_exits_cleanly(home) -> None:
    """A short process on the home a kill left (a CLI call) answers and exits 0, without a word
    on stderr (no abort, no traceback), and leaves the interrupted job alone."""
    short = subprocess.run(
        [sys.executable, "-m", "tabular.cli", "--home", str(home), "call", "knowledge.list"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (short.returncode, short.stderr) == (0, "")
    assert "rows" in json.loads(short.stdout)


def consistent(engine) -> None:
    """Every snapshot file is named by the catalog (or dropped by retention, waiting out its
    grace) and every name has its file; every extraction folder belongs to a revision; every
    live dataset has its snapshot."""
    cur = engine.catalog.conn()
    files = {p.name for p in engine.catalog.snapshots_dir.iterdir()}
    named = {r[0] for r in cur.execute("SELECT snapshot_id FROM catalog.snapshots").fetchall()}
    dropped = {r[0] for r in cur.execute("SELECT snapshot_id FROM catalog.dropped").fetchall()}
    # Each snapshot is one sealed file (its rows and its rejected rows), nothing half-written.
    assert files - {n + ".duckdb" for n in dropped} == {n + ".duckdb" for n in named}
    # Only live revisions: retention (snapshots_kept) drops older revisions' snapshots by design.
    live = {
        r[0]
        for r in cur.execute(
            "SELECT d.live_snapshot FROM catalog.datasets d JOIN catalog.sources s"
            " ON d.org = s.org AND d.namespace = s.namespace AND d.source_uri = s.source_uri AND d.revision = s.live_revision"
        ).fetchall()
    }
    assert live <= named
    folders = {p.name for p in engine.catalog.extractions_dir.iterdir()}
    assert folders == {r[0] for r in cur.execute("SELECT extraction_dir FROM catalog.revisions").fetchall()}
    for table in ("typings",):
        assert (
            cur.execute(
                f"SELECT count(*) FROM catalog.{table} WHERE snapshot_id NOT IN (SELECT snapshot_id FROM catalog.snapshots)"
            ).fetchone()[0]
            == 0
        )


@pytest.mark.parametrize("point", ["ingest.extracted", "ingest.commit"])
def test_an_ingest_killed_midway_leaves_the_previous_revision_serving(tmp_path, point):
    home = tmp_path / "home"
    with tabular.connect(str(home)) as engine:
        _, first = ingest(engine.namespace("acme", "finance"), CSV / "dates_dmy.csv", source_uri="books")
    ingestion_id = killed_at(point, home, "ingest", "books", CSV / "dates_mdy.csv")
    later_process_exits_cleanly(home)
    # One start allowed: the interrupted job is not taken up again, so what serves can be read as the kill left it.
    with tabular.connect(str(home), job_attempts=1, take_up_jobs=True) as engine:
        ns = engine.namespace("acme", "finance")
        consistent(engine)
        got = ns.dataset_get("books")
        assert (got.revision, got.datasets[0].snapshot_id) == (1, first.snapshot_id)
        status = ns.call("knowledge.ingest_status", {"ingestion_id": ingestion_id})
        assert (status["state"], status["error_code"]) == ("failed", "retries_exhausted")
        again, dataset = ingest(ns, CSV / "dates_mdy.csv", source_uri="books")
        assert (again.state, again.revision, dataset.columns[1].format) == ("ready", 2, "%m/%d/%Y")
        consistent(engine)


@pytest.mark.slow
def test_an_interrupted_ingest_is_taken_up_again_at_the_next_start(tmp_path):
    # In the default run, test_after_a_kill_short_processes_exit_cleanly_and_a_worker_finishes_the_job
    # asserts all of this of the same kill: `tabular worker` is this connect(take_up_jobs=True),
    # and its short processes are this later one.
    home = tmp_path / "home"
    ingestion_id = killed_at("ingest.commit", home, "ingest", "books", CSV / "dates_mdy.csv")
    later_process_exits_cleanly(home)
    with tabular.connect(str(home), take_up_jobs=True) as engine:
        engine.jobs.wait(ingestion_id, 60)
        status = engine.namespace("acme", "finance").call("knowledge.ingest_status", {"ingestion_id": ingestion_id})
        assert (status["state"], status["revision"], status["attempts"]) == ("ready", 1, 2)
        consistent(engine)


def test_an_approval_killed_before_it_commits_changes_nothing(tmp_path):
    home = tmp_path / "home"
    with tabular.connect(str(home)) as engine:
        _, before = ingest(engine.namespace("acme", "finance"), CSV / "dates_ambiguous.csv", source_uri="d")
    killed_at("approve.commit", home, "approve", "d", "MDY")
    later_process_exits_cleanly(home)
    with tabular.connect(str(home)) as engine:
        ns = engine.namespace("acme", "finance")
        consistent(engine)
        got = ns.dataset_get("d").datasets[0]
        assert (got.snapshot_id, got.approved, got.columns[1].format) == (before.snapshot_id, False, "%d/%m/%Y")
        assert ns.history("d") == []
        after = ns.approve("d", before.snapshot_id, formats={"when": "MDY"})
        assert after.retyped and after.dataset.columns[1].format == "%m/%d/%Y"
        consistent(engine)


def test_after_a_kill_short_processes_exit_cleanly_and_a_worker_finishes_the_job(tmp_path):
    home = tmp_path / "home"
    ingestion_id = killed_at("ingest.commit", home, "ingest", "books", CSV / "dates_mdy.csv")
    for _ in range(3):  # each used to take the job up on a daemon thread, then abort at exit
        short = subprocess.run(
            [
                sys.executable,
                "-m",
                "tabular.cli",
                "--home",
                str(home),
                "--org",
                "acme",
                "--namespace",
                "finance",
                "call",
                "knowledge.ingest_status",
                json.dumps({"ingestion_id": ingestion_id}),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert (short.returncode, short.stderr) == (0, "")
        assert json.loads(short.stdout)["state"] == "processing"
    status = worker_finishes(home, ingestion_id)
    assert (status["state"], status["revision"], status["attempts"]) == ("ready", 1, 2)


def worker_finishes(home, ingestion_id: str, timeout: int = 120) -> dict:
    """`tabular worker` run on the home until its queue is empty, exiting silently: the job's
    status then, with the home checked consistent."""
    worker = subprocess.run(
        [sys.executable, "-m", "tabular.cli", "--home", str(home), "worker"],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert (worker.returncode, worker.stderr) == (0, "")
    with tabular.connect(str(home)) as engine:
        status = engine.namespace("acme", "finance").call("knowledge.ingest_status", {"ingestion_id": ingestion_id})
        consistent(engine)
    return status
