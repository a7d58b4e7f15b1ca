"""Following an ingest (tabular/progress.py): a bar with the job's phase and counts where someone
watches (a terminal, a notebook), nothing printed otherwise or with progress=False, the same
waiting for the embedded engine and the HTTP client."""

import io
import sys
import time
import types

from conftest import CSV
from rich.console import Console

from tabular import progress
from tabular.models import IngestStatusOut


def statuses(*steps):
    """A poll answering one status per call, then the last one forever."""
    made = [
        IngestStatusOut(
            ingestion_id="i_1",
            state=state,
            progress={"phase": phase, "unit": unit, "total": total, "done": done},
            revision=1 if state == "ready" else None,
            coverage={"total": 100, "extracted": 100} if state == "ready" else {},
        )
        for state, phase, unit, total, done in steps
    ]
    calls = []

    def poll():
        calls.append(1)
        return made[min(len(calls), len(made)) - 1]

    poll.calls = calls
    return poll


JOB = [
    ("pending", "", "", 0, 0),
    ("processing", "read", "bytes", 4_000_000, 1_200_000),
    ("processing", "type", "rows", 50_000, 12_000),
    ("processing", "write", "rows", 50_000, 50_000),
    ("ready", "write", "rows", 50_000, 50_000),
]


def terminal():
    return Console(file=io.StringIO(), force_terminal=True, width=120, color_system=None)


def test_a_terminal_shows_the_phase_and_counts_until_the_job_ends():
    console = terminal()
    seen = []
    poll = statuses(*JOB)
    status = progress.follow(
        lambda: seen.append(progress.counts(s := poll())) or s,
        lambda seconds: True,
        progress=True,
        label="big.csv",
        console=console,
    )
    assert status.state == "ready" and len(poll.calls) == len(JOB)
    assert seen[1:4] == ["read: 1.2 MB of 4.0 MB", "type: 12,000 of 50,000 rows", "write: 50,000 of 50,000 rows"]
    out = console.file.getvalue()
    assert "big.csv" in out and "ready, revision 1, 100 of 100 rows read" in out


def test_progress_false_prints_nothing_even_at_a_terminal(capsys):
    console = terminal()
    status = progress.follow(statuses(*JOB), lambda seconds: True, progress=False, label="big.csv", console=console)
    assert status.state == "ready" and console.file.getvalue() == ""
    assert capsys.readouterr() == ("", "")


def test_nothing_is_shown_by_default_when_no_one_watches(ns, capsys):
    assert progress.where() is None  # a test run: stderr is no terminal, no kernel
    assert ns.ingest_file(CSV / "currency.csv", source_uri="money").state == "ready"
    assert ns.ingest_file(CSV / "currency.csv", source_uri="money", progress=False).revision == 2
    assert capsys.readouterr() == ("", "")


def test_asked_for_it_shows_the_end_of_the_job_on_stderr(ns, capsys):
    status = ns.ingest_file(CSV / "currency.csv", source_uri="money", progress=True)
    out, err = capsys.readouterr()
    assert status.state == "ready" and out == "" and "currency.csv" in err and "ready, revision 1" in err
    assert ns.dataset_get("money").datasets[0].rows == 6


def test_wait_bounds_the_following_and_a_job_with_nothing_to_wait_on_answers_at_once():
    running = statuses(("processing", "type", "rows", 10, 1))
    started = time.monotonic()
    assert (
        progress.follow(running, lambda seconds: time.sleep(seconds) or True, wait=0.2, progress=False).state
        == "processing"
    )
    assert 0.2 <= time.monotonic() - started < 2
    elsewhere = statuses(("processing", "type", "rows", 10, 1))
    assert (
        progress.follow(elsewhere, lambda seconds: False, progress=False).state == "processing"
        and len(elsewhere.calls) == 2
    )
    missing = lambda: IngestStatusOut(found=False, ingestion_id="i_x")
    assert not progress.follow(missing, lambda seconds: True, progress=False).found


def test_a_notebook_gets_an_html_bar_updated_in_place(monkeypatch):
    shown, updates = [], []

    class Handle:
        def update(self, what):
            updates.append(what.data)

    def display(what, display_id=False):
        shown.append(what.data)
        return Handle()

    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: types.SimpleNamespace(kernel=object())
    ipython_display = types.ModuleType("IPython.display")
    ipython_display.display = display
    ipython_display.HTML = lambda data: types.SimpleNamespace(data=data)
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "IPython.display", ipython_display)
    assert progress.where() == "notebook"
    progress.follow(statuses(*JOB), lambda seconds: True, label="<big>.csv")
    assert len(shown) == 1 and "starting" in shown[0]
    assert any('<progress value="12000" max="50000">' in u and "type: 12,000 of 50,000 rows" in u for u in updates)
    assert "&lt;big&gt;.csv" in updates[-1] and "ready" in updates[-1]


def test_the_client_follows_with_the_same_bar(tmp_path, monkeypatch, capsys):
    from tabular.client import RemoteNamespace

    followed = {}

    def follow(poll, pause, wait=None, show=None, label=""):
        followed.update(wait=wait, show=show, label=label, paused=pause(0.001))
        return "answer"

    import tabular.namespace

    monkeypatch.setattr(tabular.namespace, "follow", follow)  # the namespaces' one, imported at its top
    remote = RemoteNamespace.__new__(RemoteNamespace)
    remote.org, remote.name = "a", "b"
    remote.upload_file = lambda path: {"upload_id": "u_1"}
    remote.client = types.SimpleNamespace(run=lambda op, body: types.SimpleNamespace(ingestion_id="i_1"))
    assert remote.ingest_file(tmp_path / "x.csv", wait=5, progress=False) == "answer"
    assert followed == {"wait": 5, "show": False, "label": "x.csv", "paused": True}
