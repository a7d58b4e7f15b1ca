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
