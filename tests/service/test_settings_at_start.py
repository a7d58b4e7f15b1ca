"""A setting the engine cannot run with (`nan` seconds, the flag `ture`, a negative size, a zero
where more is needed) is refused at start on every surface: the Python engine, the CLI,
`tabular serve` and `tabular mcp`, each naming the setting, the value and what was expected
(VALIDATION_FAILED at `settings.<name>`), never a traceback or INTERNAL, and nothing left running."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import tabular
from tabular.errors import ValidationFailed

# (variable, value, words the refusal says: the setting, the value, what was expected)
BAD = [
    ("TABULAR_QUERY_SECONDS", "nan", ["query_seconds", "nan", "a finite number"]),
    ("TABULAR_PARALLEL_CSV", "ture", ["parallel_csv", "'ture'", "true, yes, on, 0, false"]),
    ("TABULAR_MAX_UPLOAD_BYTES", "-5", ["max_upload_bytes", "-5", "at least 1"]),
    ("TABULAR_JOB_WATCH_SECONDS", "0", ["job_watch_seconds", "0", "more than 0"]),
]


def run(tmp_path, variable: str, value: str, *command: str, stdin: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABULAR_")}
    env[variable] = value
    return subprocess.run(
        [sys.executable, "-m", "tabular.cli", "--home", str(tmp_path / "home"), *command],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def said_refused(done: subprocess.CompletedProcess, words: list[str]) -> None:
    """The process ended non-zero with the refusal in words on stderr, and printed nothing else."""
    assert done.returncode != 0
    assert "VALIDATION_FAILED" in done.stderr and "settings." + words[0] in done.stderr
    assert all(w in done.stderr for w in words), done.stderr
    assert "Traceback" not in done.stderr and "INTERNAL" not in done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize(("variable", "value", "words"), BAD, ids=[b[0] for b in BAD])
def test_the_python_engine_refuses_it_at_connect(tmp_path, monkeypatch, variable, value, words):
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValidationFailed) as refused:
        tabular.connect(str(tmp_path / "home"))
    (item,) = refused.value.to_detail()["errors"]
    assert item["path"] == f"settings.{words[0]}"
    assert all(w in item["message"] for w in words)
    assert not (tmp_path / "home").exists()  # refused before the home was made


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [("query_seconds", float("nan"), "a finite number"), ("parallel_csv", "ture", "true or false"),
     ("max_upload_bytes", -5, "at least 1"), ("ingest_workers", 0, "at least 1")],
)  # fmt: skip
def test_the_python_engine_refuses_it_as_an_argument(tmp_path, name, value, expected):
    with pytest.raises(ValidationFailed) as refused:
        tabular.connect(str(tmp_path / "home"), **{name: value})
    (item,) = refused.value.errors
    assert (item.path, item.expected) == (f"settings.{name}", expected)


# Each surface as a process of its own (a few seconds each): one setting of each kind per surface.
def test_a_cli_command_refuses_it_before_it_runs(tmp_path):
    said_refused(run(tmp_path, *BAD[2][:2], "list"), BAD[2][2])


def test_tabular_serve_exits_with_the_refusal_instead_of_listening(tmp_path):
    said_refused(run(tmp_path, *BAD[1][:2], "serve", "--port", "1"), BAD[1][2])


def test_tabular_serve_holds_its_port_argument_to_the_settings_rule(tmp_path):
    done = run(tmp_path, "TABULAR_PORT", "8765", "serve", "--port", "70000")
    assert done.returncode != 0
    assert "settings.port" in done.stderr and "70000" in done.stderr and "1 to 65535" in done.stderr
    assert "Traceback" not in done.stderr and "INTERNAL" not in done.stderr


def test_tabular_mcp_exits_with_the_refusal_on_stderr_and_writes_nothing_to_its_channel(tmp_path):
    said_refused(run(tmp_path, *BAD[0][:2], "mcp", stdin=""), BAD[0][2])
