"""Asynchronous ingest on a real server: a bounded queue (503 with Retry-After), cancelled jobs,
and a server killed mid-job that restarts and retries the job or fails it cleanly."""

from __future__ import annotations

from .support import CSV, Server, envelope, ingest, start_ingest, status, upload, wait_for


def cancel(c, ingestion_id: str) -> dict:
    r = c.post("/v1/knowledge.ingest_cancel", json={"ingestion_id": ingestion_id})
    assert r.status_code == 200, r.text
    return r.json()


def test_a_full_queue_answers_503_and_jobs_are_cancelled(tmp_path, big_csv):
    srv = Server(tmp_path / "home", ingest_workers=1, job_queue=1).start()
    try:
        with srv.client() as c:
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
    finally:
        srv.stop()


def _kill_mid_job(home, big_csv, **settings) -> str:
    srv = Server(home, ingest_workers=1, **settings).start()
    with srv.client() as c:
        if settings.get("job_attempts") == 1:
            # A live revision 1 that the crashed ingest must leave as it was.
            assert ingest(c, CSV / "currency.csv", "big.csv")["state"] == "ready"
        ingestion_id = start_ingest(c, big_csv, "big.csv")
        assert wait_for(c, ingestion_id, states=("processing",))["state"] == "processing"
    srv.kill()
    return ingestion_id


def test_a_server_killed_mid_job_retries_it_after_a_restart(tmp_path, big_csv):
    ingestion_id = _kill_mid_job(tmp_path / "home", big_csv)
    srv = Server(tmp_path / "home").start()
    try:
        with srv.client() as c:
            got = wait_for(c, ingestion_id)
            assert got["state"] == "ready" and got["attempts"] == 2 and got["revision"] == 1
            dataset = c.post("/v1/knowledge.dataset_get", json={"source_uri": "big.csv"}).json()["datasets"][0]
            assert dataset["rows"] == 500_000 and dataset["complete"] is True
    finally:
        srv.stop()


def test_a_job_killed_past_its_attempts_fails_and_publishes_nothing(tmp_path, big_csv):
    ingestion_id = _kill_mid_job(tmp_path / "home", big_csv, job_attempts=1)
    srv = Server(tmp_path / "home", job_attempts=1).start()
    try:
        with srv.client() as c:
            got = status(c, ingestion_id)
            assert got["state"] == "failed" and got["error_code"] == "retries_exhausted" and got["attempts"] == 1
            assert "interrupted" in got["error_message"]
            live = c.post("/v1/knowledge.dataset_get", json={"source_uri": "big.csv"}).json()
            assert live["revision"] == 1 and live["datasets"][0]["rows"] == 6  # the previous revision, whole
        extractions = list((tmp_path / "home" / "extractions").iterdir())
        assert len(extractions) == 1  # the crashed job's folder was swept
    finally:
        srv.stop()
