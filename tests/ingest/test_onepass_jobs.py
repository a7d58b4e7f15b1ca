"""The one pass as a job: ingest_status counts the bytes read as it runs, and a cancel stops it
with the previous revision still serving and no file left behind."""

from __future__ import annotations

import time

from conftest import snapshot_files
from onepass_cases import big_csv, write_csv

import tabular


def test_ingest_status_reports_bytes_read_as_the_one_pass_runs(tmp_path):
    path = big_csv(tmp_path / "big.csv", 400_000)
    with tabular.connect(
        str(tmp_path / "home"), progress_seconds=0.01, typing_sample_cells=4000, csv_block_bytes=256 << 10
    ) as engine:
        ns = engine.namespace("acme", "one")
        seen = []
        started = ns.ingest_file(path, source_uri="big", wait=0)
        while True:
            status = ns.call("knowledge.ingest_status", {"ingestion_id": started.ingestion_id})
            progress = status.get("progress") or {}
            seen.append((progress.get("phase"), progress.get("unit"), progress.get("total"), progress.get("done")))
            if status["state"] not in ("pending", "processing"):
                break
            time.sleep(0.01)
    assert status["state"] == "ready"
    reads = [(total, done) for phase, unit, total, done in seen if phase == "read" and unit == "bytes"]
    size = path.stat().st_size
    assert reads and all(total == size and 0 <= done <= total for total, done in reads)
    dones = [done for _, done in reads]
    assert dones == sorted(dones)  # it never goes back
    assert any(0 < done < size for done in dones)  # it moved while the file was read


def test_a_cancel_stops_the_one_pass_and_the_previous_revision_serves(tmp_path):
    small = write_csv(tmp_path / "small.csv", ["id", "amount"], [["1", "2.5"]])
    path = big_csv(tmp_path / "big.csv", 300_000)
    with tabular.connect(
        str(tmp_path / "home"),
        progress_seconds=0.01,
        typing_sample_cells=4000,
        csv_block_bytes=64 << 10,
        fast_path_bytes=0,
    ) as engine:
        ns = engine.namespace("acme", "one")
        assert ns.ingest_file(small, source_uri="f").state == "ready"
        started = ns.ingest_file(path, source_uri="f", wait=0)
        while True:  # cancel once the one pass is writing
            status = ns.call("knowledge.ingest_status", {"ingestion_id": started.ingestion_id})
            if status["state"] != "pending" and (status.get("progress") or {}).get("done"):
                break
            assert status["state"] in ("pending", "processing"), status
            time.sleep(0.005)
        assert ns.call("knowledge.ingest_cancel", {"ingestion_id": started.ingestion_id})["cancelled"]
        engine.jobs.wait(started.ingestion_id, 60)
        status = ns.call("knowledge.ingest_status", {"ingestion_id": started.ingestion_id})
        assert status["state"] == "cancelled"
        (dataset,) = ns.dataset_get("f").datasets
        assert dataset.rows == 1 and dataset.revision == 1
        assert snapshot_files(engine) == {dataset.snapshot_id}  # the cancelled pass left no file behind
