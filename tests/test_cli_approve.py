"""`tabular approve` and `tabular history`: the CLI over knowledge.dataset_approve and knowledge.get."""

import json

from conftest import CSV
from test_cli import run


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
