"""A process that ends with work inside it leaves a home the next process serves: an engine left
open mid job or inside a long DuckDB statement exits without a word and a worker finishes its job;
a second process reads and writes beside the first; a closed engine leaves no thread running; a
job an earlier version admitted still runs. (Processes killed mid ingest or approval:
tests/test_crash.py.)"""

import json
import os
import subprocess
import sys
import time

import duckdb
from conftest import CSV, ingest
from test_crash import worker_finishes

import tabular


def run(home, code: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code, str(home), *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


LEAVE_MID_JOB = """
import sys, tabular
engine = tabular.connect(sys.argv[1])
ns = engine.namespace("acme", "finance")
upload = ns.upload_file(sys.argv[2])
started = ns.call("knowledge.ingest", {"upload_id": upload["upload_id"], "source_uri": "books"})
print(started["ingestion_id"], flush=True)
# No close: the interpreter exits while the job is paused inside it.
"""


def test_an_engine_left_open_mid_job_exits_cleanly_and_the_job_finishes_later(tmp_path):
    home = tmp_path / "home"
    left = run(
        home, LEAVE_MID_JOB, str(CSV / "dates_mdy.csv"), TABULAR_PAUSE_AT="ingest.extracted", TABULAR_PAUSE_SECONDS="3"
    )
    assert left.returncode == 0, left.stderr
    assert "Traceback" not in left.stderr and "terminate" not in left.stderr
    ingestion_id = left.stdout.strip()
    # A short-lived process answers from the home and leaves the job alone.
    peek = run(
        home,
        "import sys, tabular\nwith tabular.connect(sys.argv[1]) as e:\n    print(e.namespace('acme', 'finance').call('knowledge.ingest_status', {'ingestion_id': sys.argv[2]})['state'])",
        ingestion_id,
    )
    assert (peek.returncode, peek.stdout.strip(), peek.stderr) == (0, "pending", "")
    # A worker finishes it.
    status = worker_finishes(home, ingestion_id)
    assert (status["state"], status["revision"]) == ("ready", 1)


LEAVE_INSIDE_DUCKDB = """
import sys, time, tabular
engine = tabular.connect(sys.argv[1])
ns = engine.namespace("acme", "finance")
upload = ns.upload_file(sys.argv[2])
started = ns.call("knowledge.ingest", {"upload_id": upload["upload_id"], "source_uri": "big"})
# Until the one pass has read some of the file: one DuckDB statement is running now.
while not (ns.call("knowledge.ingest_status", {"ingestion_id": started["ingestion_id"]}).get("progress") or {}).get("done"):
    time.sleep(0.01)
print(started["ingestion_id"], flush=True)
# No close: the interpreter exits with DuckDB inside the job's statement.
"""


def test_an_engine_left_open_inside_a_long_statement_exits_silently_and_a_worker_finishes_the_job(tmp_path):
    home, big = tmp_path / "home", tmp_path / "big.csv"
    rows = 1_500_000
    # Written by DuckDB on both cores (a Python line per row took a second and a half of one).
    duckdb.sql(
        "COPY (SELECT k AS id, printf('%d.%02d', k % 997, k % 100) AS amount,"
        " printf('2024-%02d-%02d', k % 12 + 1, k % 28 + 1) AS \"when\", 'item ' || (k % 313) AS label"
        " FROM range(?) t(k) ORDER BY k) TO ? (HEADER, DELIMITER ',')",
        params=[rows, str(big)],
    )
    left = run(home, LEAVE_INSIDE_DUCKDB, str(big))
    assert (left.returncode, left.stderr) == (0, "")
    ingestion_id = left.stdout.strip()
    status = worker_finishes(home, ingestion_id, timeout=300)
    assert (status["state"], status["revision"], status["attempts"]) == ("ready", 1, 2)
    with tabular.connect(str(home)) as engine:
        assert engine.namespace("acme", "finance").dataset_get("big").datasets[0].rows == rows


ANOTHER_PROCESS = """
import sys, tabular
with tabular.connect(sys.argv[1]) as engine:
    ns = engine.namespace("acme", "finance")
    print(ns.query({"datasets": [{"source_uri": "books"}], "aggregates": [{"fn": "count"}]}).rows[0][0])
    print(ns.ingest_file(sys.argv[2], source_uri="more").state)
"""


def test_a_second_process_reads_and_writes_while_the_first_holds_the_home(tmp_path):
    home = tmp_path / "home"
    with tabular.connect(str(home)) as engine:
        ns = engine.namespace("acme", "finance")
        _, books = ingest(ns, CSV / "dates_dmy.csv", source_uri="books")
        other = run(home, ANOTHER_PROCESS, str(CSV / "crlf.csv"))
        assert (other.returncode, other.stderr) == (0, "")
        assert other.stdout.split() == [str(books.rows), "ready"]
        # What the other process published is live here at once.
        assert ns.dataset_get("more").found and ns.query(
            {"datasets": [{"source_uri": "more"}], "aggregates": [{"fn": "count"}]}
        ).rows == [[4]]


CLOSE_AND_LOOK = """
import sys, threading, tabular
def alive():
    return sorted(t.name for t in threading.enumerate() if t.is_alive() and t is not threading.main_thread())
engine = tabular.connect(sys.argv[1])  # an engine that only answers a call
engine.namespace("acme", "finance").call("knowledge.list", {})
engine.close()
print(alive(), flush=True)
engine = tabular.connect(sys.argv[1])  # one that ran an ingest (the job pool, the warm-up) and a query (its deadline watch)
ns = engine.namespace("acme", "finance")
ns.ingest_file(sys.argv[2], source_uri="books")
ns.query({"datasets": [{"source_uri": "books"}], "aggregates": [{"fn": "count"}]})
ns.call("knowledge.list", {})
engine.close()
print(alive())
"""


def test_a_closed_engine_leaves_no_thread_running_for_the_interpreter_to_cut_short(tmp_path):
    # A thread still inside pyarrow's or DuckDB's C++ when Python finalises aborts the process
    # (SIGABRT, "terminate called ..."): a command that ends at once, as on a closed pipe, did.
    # One process looks after each engine's close (none may leave a thread) and exits cleanly.
    closed = run(tmp_path / "home", CLOSE_AND_LOOK, str(CSV / "dates_dmy.csv"))
    assert (closed.returncode, closed.stderr, closed.stdout.splitlines()) == (0, "", ["[]", "[]"])


def test_a_job_an_earlier_version_admitted_runs_though_todays_checks_are_stricter(tmp_path):
    # A pending job left by an earlier version whose request today's checks refuse (a title past
    # today's limit, an option since gone) runs as it was admitted, not failed as INTERNAL.
    import sqlite3

    home = tmp_path / "home"
    with tabular.connect(str(home)) as engine:
        first = engine.namespace("acme", "finance").ingest_file(CSV / "dates_dmy.csv", source_uri="d")
    catalog = sqlite3.connect(home / "catalog.sqlite")
    (stored,) = catalog.execute("SELECT request FROM jobs WHERE ingestion_id = ?", [first.ingestion_id]).fetchone()
    request = json.loads(stored)
    request["title"], request["options"]["skip_rows"] = "t" * 1001, 2
    catalog.execute(
        "UPDATE jobs SET state = 'pending', attempts = 0, revision = NULL, request = ? WHERE ingestion_id = ?",
        [json.dumps(request), first.ingestion_id],
    )
    catalog.commit()
    catalog.close()
    with tabular.connect(str(home), take_up_jobs=True) as engine:
        ns = engine.namespace("acme", "finance")
        for _ in range(300):
            status = ns.call("knowledge.ingest_status", {"ingestion_id": first.ingestion_id})
            if status["state"] not in ("pending", "processing"):
                break
            time.sleep(0.1)
        assert (status["state"], status["error_code"]) == ("ready", None), status
        assert ns.call("knowledge.get", {"source_uri": "d"})["title"] == "t" * 1001
