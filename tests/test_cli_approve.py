"""`tabular approve` and `tabular history`: the CLI over knowledge.dataset_approve and knowledge.get.
The commands run in this process, as a piped shell runs them (no terminal, no COLUMNS, the home from
TABULAR_HOME): a subprocess per command made this file the suite's slowest; tests/test_cli.py runs
the `tabular` process itself."""

import contextlib
import io
import json
import os
import sys
from types import SimpleNamespace
from unittest import mock

from conftest import CSV

from tabular import cli


def run(tmp_path, *args):
    """`tabular *args` on the home tmp_path/home: its exit status and what it printed."""
    out, err = io.StringIO(), io.StringIO()
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "TABULAR_DEBUG")}
    env["TABULAR_HOME"] = str(tmp_path / "home")
    with (
        mock.patch.dict(os.environ, env, clear=True),
        mock.patch.object(sys, "stdin", io.StringIO("")),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        try:
            code = cli.main(list(args))
        except SystemExit as exit_:  # argparse refuses a wrong option this way
            code = exit_.code
    return SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


def test_approve_then_history(tmp_path):
    assert run(tmp_path, "ingest", str(CSV / "dates_ambiguous.csv"), "--source-uri", "d").returncode == 0
    done = run(tmp_path, "approve", "d", "dates_ambiguous", "--format", "when=%m/%d/%Y", "--set", "qty=string")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "approved" in done.stdout and "%d/%m/%Y → date %m/%d/%Y" in done.stdout
    shown = json.loads(run(tmp_path, "history", "d", "--json").stdout)
    assert [c["column"] for c in shown[0]["changes"]] == ["when", "qty"]
    readable = run(tmp_path, "history", "d")
    assert "approved dates_ambiguous (revision 1)" in readable.stdout


def test_approve_errors_are_shown_with_their_paths(tmp_path):
    run(tmp_path, "ingest", str(CSV / "dates_ambiguous.csv"), "--source-uri", "d")
    bad = run(tmp_path, "approve", "d", "dates_ambiguous", "--set", "wehn=date")
    assert (
        bad.returncode == 2
        and "VALIDATION_FAILED" in bad.stderr
        and "columns.wehn" in bad.stderr
        and "when" in bad.stderr
    )
    stale = run(tmp_path, "approve", "d", "dates_ambiguous", "--snapshot-id", "s_old")
    assert stale.returncode == 2 and "PRECONDITION_FAILED" in stale.stderr
    assert run(tmp_path, "history", "nothing").returncode == 2
    assert run(tmp_path, "approve", "d", "dates_ambiguous", "--set", "when").returncode != 0


def dashed(tmp_path, rows=30):
    lines = ["Date;Amount"] + [f"{1 + i % 28:02d}-{1 + i % 12:02d}-13;{i},5" for i in range(rows)]
    (tmp_path / "dashed.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert run(tmp_path, "ingest", str(tmp_path / "dashed.csv"), "--source-uri", "t").returncode == 0


def test_an_approval_that_would_wipe_a_column_is_refused_with_its_count(tmp_path):
    dashed(tmp_path)
    wiped = run(tmp_path, "approve", "t", "--set", "Date=date", "--format", "Date=%d/%m/%Y", "--yes")
    assert wiped.returncode != 0 and "formats.Date" in wiped.stderr and "30 of the column's 30" in wiped.stderr
    shown = json.loads(run(tmp_path, "datasets", "t", "--json").stdout)["datasets"][0]
    assert not shown["approved"] and shown["rows"] == 30


def test_an_approval_that_rejects_rows_asks_first_and_applies_with_yes(tmp_path):
    dashed(tmp_path)
    # Read as day/month (31-12-13), with a date_order question; 'YMD' reads every value too:
    # nothing rejected, nothing to ask.
    done = run(tmp_path, "approve", "t", "--set", "Date=date", "--format", "Date=YMD")
    assert done.returncode == 0, done.stderr
    assert "date %d-%m-%y → date %y-%m-%d (rejects 0 rows)" in done.stdout
    # Most rejected, allowed: asked first; with no terminal to answer, nothing changes.
    asked = run(tmp_path, "approve", "t", "--set", "Amount=bool", "--allow-rejects")
    assert (
        asked.returncode == 1 and "would reject 30 of 30 values" in asked.stdout and "nothing changed" in asked.stdout
    )
    assert json.loads(run(tmp_path, "datasets", "t", "--json").stdout)["datasets"][0]["rows"] == 30
    applied = run(tmp_path, "approve", "t", "--set", "Amount=bool", "--allow-rejects", "--yes")
    assert applied.returncode == 0, applied.stderr
    assert json.loads(run(tmp_path, "datasets", "t", "--json").stdout)["datasets"][0]["rows"] == 0


def two_questions(tmp_path):
    """when asks date_order, flag asks bool_or_number, qty asks nothing."""
    lines = ["when,flag,qty", "03/04/2024,0,5", "01/02/2024,1,6", "12/11/2023,1,7", "05/06/2024,0,8"]
    (tmp_path / "two.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = run(tmp_path, "ingest", str(tmp_path / "two.csv"))
    assert done.returncode == 0 and "2 open questions" in done.stdout, done.stdout


def open_kinds(tmp_path) -> list[str]:
    shown = json.loads(run(tmp_path, "datasets", "two.csv", "--json").stdout)["datasets"][0]
    return sorted(q["kind"] for q in shown["questions"])


def test_an_approval_settles_what_it_answers_and_says_what_stays_open(tmp_path):
    two_questions(tmp_path)
    done = run(tmp_path, "approve", "two.csv", "--format", "when=%m/%d/%Y")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "answers: when date %m/%d/%Y" in done.stdout and "not approved while 1 question is open" in done.stdout
    assert "still open: flag [bool_or_number]" in done.stdout and "--settle-rest" in done.stdout
    assert "approved two" not in done.stdout
    assert open_kinds(tmp_path) == ["bool_or_number"]
    # Accepting the rest as shown settles flag as it is held, and says so.
    rest = run(tmp_path, "approve", "two.csv", "--settle-rest")
    assert rest.returncode == 0, rest.stdout + rest.stderr
    assert "approved two" in rest.stdout and "settles as shown: flag number" in rest.stdout
    assert open_kinds(tmp_path) == []


def test_settle_rest_with_an_answer_says_both(tmp_path):
    two_questions(tmp_path)
    done = run(tmp_path, "approve", "two.csv", "--answer", "bool_or_number=bool", "--settle-rest", "--json")
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert [(s["column"], s["type"]) for s in said["answered"]] == [("flag", "bool")]
    assert [(s["column"], s["format"]) for s in said["settled"]] == [("when", "%d/%m/%Y")]
    assert said["left_open"] == [] and said["dataset"]["approved_by"]


def test_the_cli_counts_questions_per_column_as_the_page_does(tmp_path):
    # Three 0/1 columns ask alike: one entry, three questions (the page's count).
    (tmp_path / "flags.csv").write_text("a,b,c\n0,1,1\n1,0,1\n1,1,0\n0,0,1\n", encoding="utf-8")
    done = run(tmp_path, "ingest", str(tmp_path / "flags.csv"))
    assert done.returncode == 0, done.stderr
    assert "3 open questions, shown as 1 (columns that ask alike are one entry)" in done.stdout
    shown = run(tmp_path, "datasets", "flags.csv")
    assert "3 open questions" in shown.stdout and shown.stdout.count("question 3 columns") == 1
