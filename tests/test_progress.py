"""Following an ingest (tabular/progress.py): a bar with the job's phase and counts where someone
watches (a terminal, a notebook), nothing printed otherwise or with progress=False, the same
waiting for the embedded engine and the HTTP client."""

import io
import sys
import types

import pytest
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


def test_a_partial_job_ends_saying_the_rows_that_failed():
    # The bar's last words left the failed rows out where ingest-status and the notebook say them.
    ended = IngestStatusOut(
        ingestion_id="i_1", state="partial", revision=2, coverage={"total": 100, "extracted": 97, "failed": 3}
    )
    assert progress.counts(ended) == "partial, revision 2, 97 of 100 rows read, 3 failed"


def test_progress_false_prints_nothing_even_at_a_terminal(capsys):
    console = terminal()
    status = progress.follow(statuses(*JOB), lambda seconds: True, progress=False, label="big.csv", console=console)
    assert status.state == "ready" and console.file.getvalue() == ""
    assert capsys.readouterr() == ("", "")


def test_nothing_is_shown_by_default_when_no_one_watches(ns, capsys):
    assert progress.where() is None  # a test run: stderr is no terminal, no kernel
    assert ns.ingest_file(CSV / "currency.csv", source_uri="money").state == "ready"
    assert ns.ingest_file(CSV / "floats.csv", source_uri="money", progress=False).revision == 2
    assert capsys.readouterr() == ("", "")


def test_asked_for_it_shows_the_end_of_the_job_on_stderr(ns, capsys):
    status = ns.ingest_file(CSV / "currency.csv", source_uri="money", progress=True)
    out, err = capsys.readouterr()
    assert status.state == "ready" and out == "" and "currency.csv" in err and "ready, revision 1" in err
    assert ns.dataset_get("money").datasets[0].rows == 6


class Clock:
    """A steady clock that moves only when the follower pauses: the waits asked for, without a real clock."""

    def __init__(self):
        self.now, self.pauses = 100.0, []

    def __call__(self):
        return self.now

    def pause(self, seconds):
        self.pauses.append(seconds)
        self.now += seconds
        return True


def test_wait_bounds_the_following_and_a_job_with_nothing_to_wait_on_answers_at_once():
    # A job that never ends, followed with wait=5: it answers the job as it is after 5 s of pauses, the
    # pauses growing from a short first look and the last one cut to what is left of the wait.
    running, clock = statuses(("processing", "type", "rows", 10, 1)), Clock()
    got = progress.follow(running, clock.pause, wait=5, progress=False, clock=clock)
    assert got.state == "processing" and sum(clock.pauses) == pytest.approx(5)
    assert clock.pauses[0] < clock.pauses[1] and clock.pauses[-1] <= clock.pauses[-2]
    assert len(running.calls) == len(clock.pauses) + 1  # a look before the first pause and after each
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


# --- rate and time left (issue 36, item 9) ------------------------------------------------------------


def status_at(phase, unit, total, done, state="processing"):
    return IngestStatusOut(
        ingestion_id="i_1", state=state, progress={"phase": phase, "unit": unit, "total": total, "done": done}
    )


def test_the_rate_is_said_once_the_looks_span_a_second_and_follows_the_latest_seconds():
    rate = progress.Rate()
    said = [
        rate.look(at, status_at("type", "rows", 100_000, done))
        for at, done in ((0.0, 0), (0.5, 5_000), (1.0, 10_000), (2.0, 20_000))
    ]
    # nothing from one look, nor from looks half a second apart; then 10,000 rows a second
    assert said == ["", "", "10,000 rows/s, 9 s left", "10,000 rows/s, 8 s left"]
    # it speeds up: past the 5 s window the start no longer counts, the rate is the last seconds'
    for at, done in ((3.0, 30_000), (4.0, 40_000), (5.0, 50_000), (6.0, 60_000), (7.0, 90_000), (8.0, 120_000)):
        last = rate.look(at, status_at("type", "rows", 200_000, done))
    assert rate.looks[0][0] == 3.0 and rate.per_second() == (120_000 - 30_000) / 5
    assert last == "18,000 rows/s, 5 s left"  # 80,000 left at 18,000 a second: 4.4 s, said rounded up


def test_a_new_phase_starts_afresh_and_bytes_are_said_per_second_in_mb():
    rate = progress.Rate()
    rate.look(0.0, status_at("read", "bytes", 40_000_000, 0))
    assert rate.look(2.0, status_at("read", "bytes", 40_000_000, 8_000_000)) == "4.0 MB/s, 8 s left"
    assert rate.look(3.0, status_at("type", "rows", 0, 0)) == ""  # another phase: no rate yet
    assert rate.look(4.5, status_at("type", "rows", 0, 3_000)) == "2,000 rows/s"  # no total: no time left
    assert rate.look(6.0, status_at("type", "rows", 0, 3_000)) == "1,000 rows/s"  # stalled since: the window says so
    assert rate.look(7.0, status_at("type", "rows", 0, 3_000)) == "750 rows/s"
    for at in (8.0, 9.0, 10.0, 11.0, 12.0):
        stalled = rate.look(at, status_at("type", "rows", 0, 3_000))
    assert stalled == ""  # nothing moved in the window: no rate is guessed
    assert rate.look(13.0, status_at("write", "rows", 100, 100, state="ready")) == ""


def test_long_times_left_are_said_in_minutes_and_hours():
    assert [progress.duration(s) for s in (0.2, 59.0, 59.5, 125, 3_600, 3_725)] == [
        "1 s",
        "59 s",
        "1 min 00 s",
        "2 min 05 s",
        "1 h 00 min",
        "1 h 02 min",
    ]


def test_the_terminal_and_the_notebook_bars_say_the_rate_and_time_left():
    steps = [
        ("processing", "type", "rows", 50_000, 0),
        ("processing", "type", "rows", 50_000, 5_000),
        ("processing", "type", "rows", 50_000, 15_000),
        ("ready", "write", "rows", 50_000, 50_000),
    ]
    now = [0.0]

    def pause(seconds):  # a second passes between two looks, on a clock of the test's own
        now[0] += 1.0
        return True

    console = terminal()
    progress.follow(
        statuses(*steps), pause, wait=60, progress=True, label="big.csv", console=console, clock=lambda: now[0]
    )
    out = console.file.getvalue()
    assert "type: 15,000 of 50,000 rows · 7,500 rows/s, 5 s left" in out  # 35,000 left at 7,500 a second
    assert "ready" in out and now[0] == 3.0
    html = progress.bar_html("<big>.csv", statuses(*steps[2:])(), "7,500 rows/s, 5 s left")
    assert "type: 15,000 of 50,000 rows · 7,500 rows/s, 5 s left" in html and "&lt;big&gt;" in html
