"""The CLI is a thin layer over the API: ingest a file, read its datasets back as JSON."""

import json
import os
import subprocess
import sys

from conftest import CSV


def run(tmp_path, *args):
    env = {**os.environ, "TABULAR_HOME": str(tmp_path / "home")}
    return subprocess.run(
        [sys.executable, "-m", "tabular.cli", *args], capture_output=True, text=True, env=env, timeout=120
    )


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
