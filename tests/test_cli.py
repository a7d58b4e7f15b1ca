"""The CLI is a thin layer over the API: ingest a file, read its datasets back as JSON."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CSV, held_job

import tabular


def run(tmp_path, *args):
    env = {**{k: v for k, v in os.environ.items() if k != "COLUMNS"}, "TABULAR_HOME": str(tmp_path / "home")}
    return subprocess.run(
        [sys.executable, "-m", "tabular.cli", *args], capture_output=True, text=True, env=env, timeout=120
    )


def cli_namespace(home: Path):
    """The engine over `home` and the namespace the CLI works in, in this process: for the sources
    a test's commands read and for what a test checks after its command, where one more `tabular`
    process would only pay its imports again (the commands a test is about run as processes)."""
    engine = tabular.connect(str(home))
    return engine, engine.namespace(engine.settings.default_org, engine.settings.default_namespace)


def ingest_here(home: Path, path: Path, source_uri: str | None = None) -> None:
    """`path` ingested into `home` as `tabular ingest` does (its file name the source unless
    `source_uri` says otherwise), in this process."""
    engine, ns = cli_namespace(home)
    with engine:
        status = ns.ingest_file(path, source_uri=source_uri or path.name, progress=False)
    assert status.state == "ready", status


def test_ingest_then_datasets(tmp_path):
    done = run(tmp_path, "ingest", str(CSV / "european_numbers.csv"), "--json")
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    assert status["state"] == "ready" and status["revision"] == 1
    shown = run(tmp_path, "datasets", "european_numbers.csv", "--json", "--sample-rows", "1")
    got = json.loads(shown.stdout)
    assert got["found"] and got["datasets"][0]["origin"]["delimiter"] == ";"
    assert got["datasets"][0]["sample"][0]["Preis"] == "189.90"  # "189,90" in the file


def test_readable_table_and_failures(tmp_path):
    done = run(tmp_path, "ingest", str(CSV / "dates_ambiguous.csv"), str(CSV / "empty.csv"))
    assert done.returncode == 1
    assert "date_order" in done.stdout and "no_text" in done.stdout
    missing = run(tmp_path, "datasets", "nothing.csv")
    assert missing.returncode == 2 and "no live source" in missing.stderr


def test_a_plan_or_body_that_is_not_a_json_object_is_refused_not_a_traceback(tmp_path):
    for args in (("query", "-"), ("call", "knowledge.formats", "[1]")):
        env = {**os.environ, "TABULAR_HOME": str(tmp_path / "home")}
        done = subprocess.run(
            [sys.executable, "-m", "tabular.cli", *args],
            input="[1]",
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert done.returncode == 2 and "VALIDATION_FAILED" in done.stderr and "must be a JSON object" in done.stderr, (
            done.stderr
        )
        assert "Traceback" not in done.stderr


def test_ctrl_c_during_an_ingest_cancels_its_job_and_removes_its_upload(tmp_path):
    # Ctrl-C once said the ingest "stays pending" for a later worker, with no id, and kept the
    # upload (a 732 MB copy) for seven days.
    import signal
    import time

    home = tmp_path / "home"
    env = {
        **os.environ,
        "TABULAR_HOME": str(home),
        "TABULAR_PAUSE_AT": "ingest.extracted",  # the job holds there a second, while Ctrl-C comes
        "TABULAR_PAUSE_SECONDS": "1",
        "TABULAR_CANCEL_WAIT_SECONDS": "10",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "tabular.cli", "ingest", str(CSV / "sales.csv")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + 60
    while proc.stderr.readline().strip() != "paused at ingest.extracted" and time.monotonic() < deadline:
        pass
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert "was cancelled; its upload was removed" in err and "i_" in err, err
    assert list((home / "uploads").iterdir()) == []
    # no job is left pending (read in this process: `tabular jobs --json` runs below) and no source
    engine, ns = cli_namespace(home)
    with engine:
        assert ns.jobs().jobs == []
    assert "no sources" in run(tmp_path, "list").stdout


def _jobs(tmp_path, *rows: tuple[str, str, str]) -> None:
    """Jobs as the catalog holds them, (ingestion_id, source_uri, state), in the default namespace:
    a worker never takes them (their owner is no process), so each stays in its state."""
    from tabular.store.home import Catalog

    catalog = Catalog(str(tmp_path / "home"))
    try:
        for ingestion_id, source_uri, state in rows:
            held_job(
                catalog,
                ingestion_id,
                org="default",
                namespace="default",
                source_uri=source_uri,
                state=state,
                stage="",
                filename=source_uri.rsplit("/", 1)[-1],
                warnings=[],
            )
    finally:
        catalog.close()


@pytest.fixture(scope="module")
def held(tmp_path_factory):
    """A home whose namespace holds a pending, a running, an ended and a long-named pending job,
    and what `tabular jobs` printed on it to a pipe."""
    tmp = tmp_path_factory.mktemp("jobs")
    _jobs(
        tmp,
        ("i_waiting", "files/sales.csv", "pending"),
        ("i_running", "files/other.csv", "processing"),
        ("i_done", "files/done.csv", "ready"),
        ("i_long", LONG_URI, "pending"),
    )
    listed = run(tmp, "jobs")  # stdout is a pipe here
    assert listed.returncode == 0, listed.stderr
    return tmp, listed.stdout


# Piped output was squeezed into 80 columns: long ids and names were cut or wrapped mid-word.
LONG_URI = "reports/" + "quarterly-sales-by-region-and-product-line-" * 2 + "final.csv"


def test_jobs_lists_the_pending_and_running_ingests(held):
    tmp, listed = held
    lines = {
        line.split()[1]: line for line in listed.splitlines() if line.split()[1:2] in (["i_waiting"], ["i_running"])
    }
    assert "files/sales.csv" in lines["i_waiting"] and "pending" in lines["i_waiting"]
    assert "files/other.csv" in lines["i_running"] and "processing" in lines["i_running"]
    assert "i_done" not in listed  # a job that has ended is not listed
    as_json = json.loads(run(tmp, "jobs", "--json").stdout)
    assert [(j["ingestion_id"], j["state"]) for j in as_json] == [
        ("i_waiting", "pending"),
        ("i_running", "processing"),
        ("i_long", "pending"),
    ]


def test_a_piped_table_is_as_wide_as_its_values(held):
    tmp, listed = held
    assert any(LONG_URI in line for line in listed.splitlines()), listed
    narrow = subprocess.run(
        [sys.executable, "-m", "tabular.cli", "jobs"],
        capture_output=True,
        text=True,
        env={**os.environ, "TABULAR_HOME": str(tmp / "home"), "COLUMNS": "80"},
    )
    assert all(len(line) <= 80 for line in narrow.stdout.splitlines())  # COLUMNS still decides
