"""Asynchronous ingest on a real server: a bounded queue (503 with Retry-After), cancelled jobs,
and a server killed mid-job whose job is retried at its restart, or failed cleanly past its attempts."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import tabular

from .support import CSV, Server, envelope, start_ingest, status, upload, wait_for

ROWS = 2_000  # the killed job's file: the pause holds the job mid-way, whatever its size


def cancel(c, ingestion_id: str) -> dict:
    r = c.post("/v1/knowledge.ingest_cancel", json={"ingestion_id": ingestion_id})
    assert r.status_code == 200, r.text
    return r.json()


@pytest.fixture(scope="module")
def rows_csv(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("jobs") / "rows.csv"
    path.write_text("id,amount\n" + "".join(f"{i},{i % 1000}.{i % 100:02d}\n" for i in range(ROWS)))
    return path


def _kill_mid_job(home: Path, path: Path, **settings) -> str:
    """A server SIGKILLed while its one job is held mid-way (TABULAR_PAUSE_AT: its extraction
    written, nothing published), so the kill lands inside the job however fast the machine."""
    srv = Server(home, ingest_workers=1, pause_at="ingest.extracted", **settings).start()
    try:
        with srv.client() as c:
            ingestion_id = start_ingest(c, path, "rows.csv")
            deadline = time.monotonic() + 300  # a hang guard, not a speed claim
            while "paused at ingest.extracted" not in srv.log.read_text():
                assert srv.proc.poll() is None and time.monotonic() < deadline, srv.log.read_text()[-2000:]
                time.sleep(0.02)
            assert status(c, ingestion_id)["state"] == "processing"
    finally:
        srv.kill()
    return ingestion_id


@pytest.fixture(scope="module")
def restarted(tmp_path_factory, rows_csv):
    """A server killed mid-job, then started again on its home with one worker and a queue of one:
    the server and the killed job's id (the queue test runs on the same server once the job ends)."""
    home = tmp_path_factory.mktemp("jobs-killed") / "home"
    ingestion_id = _kill_mid_job(home, rows_csv)
    srv = Server(home, ingest_workers=1, job_queue=1).start()
    yield srv, ingestion_id
    srv.stop()


def test_a_server_killed_mid_job_retries_it_after_a_restart(restarted):
    srv, ingestion_id = restarted
    with srv.client() as c:
        got = wait_for(c, ingestion_id)
        assert got["state"] == "ready" and got["attempts"] == 2 and got["revision"] == 1
        dataset = c.post("/v1/knowledge.dataset_get", json={"source_uri": "rows.csv"}).json()["datasets"][0]
        assert dataset["rows"] == ROWS and dataset["complete"] is True


def test_a_full_queue_answers_503_and_jobs_are_cancelled(restarted, big_csv):
    srv, retried = restarted
    with srv.client() as c:
        assert wait_for(c, retried)["state"] == "ready"  # the queue empty again
        running = start_ingest(c, big_csv, "big.csv")
        assert wait_for(c, running, states=("processing",))["state"] == "processing"
        waiting = start_ingest(c, CSV / "currency.csv", "currency.csv")
        assert status(c, waiting)["state"] == "pending"

        up = upload(c, CSV / "nulls.csv")
        r = c.post("/v1/knowledge.ingest", json={"upload_id": up["upload_id"], "source_uri": "nulls.csv"})
        envelope(r, 503, "OVERLOADED")
        assert int(r.headers["retry-after"]) >= 1

        # A pending job is cancelled at once, and its place in the queue is free again.
        assert cancel(c, waiting) == {"ignored_args": [], "found": True, "state": "cancelled", "cancelled": True}
        assert status(c, waiting)["state"] == "cancelled"
        third = c.post("/v1/knowledge.ingest", json={"upload_id": up["upload_id"], "source_uri": "nulls.csv"})
        assert third.status_code == 200, third.text

        # A running job is stopped (inside DuckDB too) before the answer says so, and before
        # it publishes: nothing of it is visible.
        answer = cancel(c, running)
        assert answer == {"ignored_args": [], "found": True, "state": "cancelled", "cancelled": True}
        ended = status(c, running)
        assert ended["state"] == "cancelled" and ended["cancel_requested"] is True
        assert c.post("/v1/knowledge.dataset_get", json={"source_uri": "big.csv"}).json()["found"] is False
        assert wait_for(c, third.json()["ingestion_id"])["state"] == "ready"
        assert c.post("/v1/knowledge.dataset_get", json={"source_uri": "currency.csv"}).json()["found"] is False


def test_a_job_killed_past_its_attempts_fails_and_publishes_nothing(tmp_path, rows_csv):
    home = tmp_path / "home"
    # A live revision 1 that the crashed ingest must leave as it was (made in this process: the
    # server that will be killed holds every ingest at its pause point).
    with tabular.connect(str(home)) as engine:
        assert engine.namespace("default", "default").ingest_file(CSV / "currency.csv", "rows.csv").state == "ready"
    ingestion_id = _kill_mid_job(home, rows_csv, job_attempts=1)
    assert len(list((home / "extractions").iterdir())) == 2  # the crashed job's folder, left by the kill
    # The next process on the home takes the job up as the next `tabular serve` does (a server
    # restarted: test_a_server_killed_mid_job_retries_it_after_a_restart), one start allowed.
    with tabular.connect(str(home), job_attempts=1, take_up_jobs=True) as engine:
        ns = engine.namespace("default", "default")
        got = ns.call("knowledge.ingest_status", {"ingestion_id": ingestion_id})
        assert got["state"] == "failed" and got["error_code"] == "retries_exhausted" and got["attempts"] == 1
        assert "interrupted" in got["error_message"]
        live = ns.call("knowledge.dataset_get", {"source_uri": "rows.csv"})
        assert live["revision"] == 1 and live["datasets"][0]["rows"] == 6  # the previous revision, whole
        extractions = list((home / "extractions").iterdir())
        assert len(extractions) == 1  # the crashed job's folder was swept
