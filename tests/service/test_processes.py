"""Many processes on one home at once (issue 15): `tabular serve`, a Python engine and CLI
commands read and write the same home, and each sees what the others acknowledged."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import tabular

from .support import CSV, ROOT, Server, ingest

ORDERS = ROOT / "fixtures" / "query" / "orders.csv"
COUNT = {"datasets": [{"source_uri": "orders"}], "aggregates": [{"fn": "count"}]}
ROUNDS = 2  # each writer's ingest-and-approve rounds while the readers read; ROUNDS_LONG under `-m slow`
ROUNDS_LONG = 8

# A second writer: its own engine, ingesting and approving sources of its own, printing each
# acknowledged write as a JSON line.
ENGINE_WRITER = """
import json, sys, tabular
home, csv, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
with tabular.connect(home) as engine:
    ns = engine.namespace("default", "default")
    for k in range(rounds):
        status = ns.ingest_file(csv, source_uri=f"py{k}")
        assert status.state == "ready", status
        got = ns.dataset_get(f"py{k}").datasets[0]
        approved = ns.call("knowledge.dataset_approve", {"source_uri": f"py{k}", "snapshot_id": got.snapshot_id, "formats": {"when": "MDY"}})
        print(json.dumps({"source_uri": f"py{k}", "snapshot_id": approved["dataset"]["snapshot_id"]}), flush=True)
"""


def cli(home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tabular.cli", "--home", str(home), *args], capture_output=True, text=True, timeout=120
    )


def test_serve_an_engine_and_the_cli_read_and_write_one_home_at_once(tmp_path):
    at_once(tmp_path, ROUNDS, by_cli=1)


@pytest.mark.slow
def test_serve_an_engine_and_the_cli_read_and_write_one_home_at_once_long(tmp_path):
    at_once(tmp_path, ROUNDS_LONG, by_cli=2)


def at_once(tmp_path: Path, rounds: int, by_cli: int) -> None:
    """Each writer writes `rounds` times while the readers read; then the CLI shows the first
    `by_cli` and the last `by_cli` acknowledged writes (a process each), and a new engine every write."""
    home = tmp_path / "home"
    with tabular.connect(str(home)) as engine:
        assert engine.namespace("default", "default").ingest_file(ORDERS, source_uri="orders").state == "ready"
        (expected,) = engine.namespace("default", "default").query(COUNT).rows
    srv = Server(home).start()
    errors: list[str] = []
    acknowledged: list[dict] = []
    writing = threading.Event()

    def http_writer() -> None:  # writer 1: ingests and approvals through the server
        with srv.client() as c:
            for k in range(rounds):
                got = ingest(c, CSV / "dates_ambiguous.csv", f"http{k}")
                if got["state"] != "ready":
                    errors.append(f"http ingest: {got}")
                    continue
                snapshot = c.post("/v1/knowledge.dataset_get", json={"source_uri": f"http{k}"}).json()["datasets"][0][
                    "snapshot_id"
                ]
                r = c.post(
                    "/v1/knowledge.dataset_approve",
                    json={"source_uri": f"http{k}", "snapshot_id": snapshot, "formats": {"when": "DMY"}},
                )
                if r.status_code != 200:
                    errors.append(f"http approve: {r.status_code} {r.text}")
                    continue
                acknowledged.append({"source_uri": f"http{k}", "snapshot_id": r.json()["dataset"]["snapshot_id"]})

    def http_reader() -> None:  # reader 1: queries through the server while the writers write
        with srv.client() as c:
            while writing.is_set():
                r = c.post("/v1/knowledge.query", json=COUNT)
                if r.status_code != 200 or r.json()["rows"] != [expected]:
                    errors.append(f"http query: {r.status_code} {r.text[:300]}")

    def cli_reader() -> None:  # reader 2: one-off CLI processes
        while writing.is_set():
            done = cli(home, "call", "knowledge.query", json.dumps(COUNT))
            if done.returncode != 0 or done.stderr or json.loads(done.stdout)["rows"] != [expected]:
                errors.append(f"cli query: {done.returncode} {done.stderr[-500:]} {done.stdout[:300]}")

    try:
        writing.set()
        threads = [threading.Thread(target=f) for f in (http_writer, http_reader, cli_reader)]
        for t in threads:
            t.start()
        # Writer 2: a Python engine in its own process.
        writer = subprocess.run(
            [sys.executable, "-c", ENGINE_WRITER, str(home), str(CSV / "dates_ambiguous.csv"), str(rounds)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        threads[0].join(300)
        writing.clear()
        for t in threads[1:]:
            t.join(300)
        assert (writer.returncode, writer.stderr) == (0, ""), writer.stderr[-3000:]
        acknowledged += [json.loads(line) for line in writer.stdout.splitlines()]
        assert errors == []
        assert len(acknowledged) == 2 * rounds
        # Every acknowledged write is what every process now reads: the server, the CLI, a new engine.
        with srv.client() as c:
            for write in acknowledged:
                got = c.post("/v1/knowledge.dataset_get", json={"source_uri": write["source_uri"]}).json()
                assert got["datasets"][0]["snapshot_id"] == write["snapshot_id"], write
            listed = c.post("/v1/knowledge.list", json={}).json()["rows"]
            assert {r["source_uri"] for r in listed} == {"orders"} | {w["source_uri"] for w in acknowledged}
    finally:
        srv.stop()
    for write in acknowledged[:by_cli] + acknowledged[-by_cli:]:  # the HTTP writer's first, the engine's last
        shown = cli(home, "call", "knowledge.dataset_get", json.dumps({"source_uri": write["source_uri"]}))
        assert shown.returncode == 0 and json.loads(shown.stdout)["datasets"][0]["snapshot_id"] == write["snapshot_id"]
    with tabular.connect(str(home)) as engine:
        ns = engine.namespace("default", "default")
        for write in acknowledged:
            assert ns.dataset_get(write["source_uri"]).datasets[0].snapshot_id == write["snapshot_id"]
            assert [
                h["new_snapshot_id"] for h in ns.call("knowledge.get", {"source_uri": write["source_uri"]})["history"]
            ] == [write["snapshot_id"]]
