"""Following an ingest job to its end, with a progress bar while it runs: the job's phase (read,
type, write), its counts from ingest_status, and the rate and time left once the looks can tell.
The embedded engine and the HTTP client both wait here, each with its own way to ask the status
and to pause.

The bar is on by default when someone is watching (a terminal on stderr, or a Jupyter kernel),
off with `progress=False`; a script whose output goes to a file or a pipe prints nothing."""

from __future__ import annotations

import math
import sys
import time
from collections import deque
from collections.abc import Callable
from html import escape
from typing import Any

from .display import ENDED, phase_words, size
from .display.jobs import read_words

# The first pause between two looks at the status, the factor it grows by, and the longest one
# (shorter while a bar is shown, so that it moves).
FIRST_PAUSE, GROWTH, LONGEST_PAUSE, LONGEST_PAUSE_SHOWN = 0.02, 1.5, 1.0, 0.25
# The rate is measured over the looks of the last RATE_SECONDS (a moving rate: a phase that speeds
# up or slows down is said as it goes now, not as it went since its start), and said only once the
# looks of a phase span RATE_FIRST seconds: before that one burst would say a rate it never keeps.
RATE_SECONDS, RATE_FIRST = 5.0, 1.0


def follow(
    poll: Callable[[], Any],
    pause: Callable[[float], bool],
    wait: float | None = None,
    progress: bool | None = None,
    label: str = "",
    console: Any = None,
    clock: Callable[[], float] = time.monotonic,
) -> Any:
    """Ask `poll()` for the job's ingest_status until the job is over or `wait` seconds have
    passed, and answer the last status. Between two looks, `pause(seconds)` waits (it may return
    early when the job ends); it answers False when there is nothing left to wait for (the job
    runs nowhere this process can see), and the status is answered as it is then.

    `progress`: True shows a bar, False never does, None (the default) shows one when interactive
    (`where()`); `console` (a rich Console) is where a terminal bar goes, stderr by default. The
    bar says the rate and the time left as measured on `clock` (seconds) at each look."""
    deadline = None if wait is None else clock() + wait
    status = poll()
    rate = Rate()
    bar = _bar(progress, label, console)
    step = FIRST_PAUSE
    try:
        bar.show(status, rate.look(clock(), status))
        while not over(status):
            left = None if deadline is None else deadline - clock()
            if left is not None and left <= 0:
                break
            going = pause(step if left is None else min(step, left))
            status = poll()
            bar.show(status, rate.look(clock(), status))
            if not going:
                break
            step = min(step * GROWTH, LONGEST_PAUSE_SHOWN if bar.visible else LONGEST_PAUSE)
    finally:
        bar.close(status)
    return status


class Rate:
    """How fast the job's current phase goes, from successive looks at its status: done per
    second over the looks of the last `window` seconds, and the time left at that rate where the
    phase's total is known. A new phase (or a count that went back) starts afresh."""

    def __init__(self, window: float = RATE_SECONDS, first: float = RATE_FIRST):
        self.window, self.first = window, first
        self.looks: deque[tuple[float, int]] = deque()
        self.phase: tuple[str, str] | None = None

    def look(self, at: float, status: Any) -> str:
        """Take one look (`at` seconds on a steady clock) and answer the rate and time left in
        words ('4,000 rows/s, 7 s left'), or '' while they cannot be told."""
        p = status.progress
        if over(status) or not p.phase:
            self.looks.clear()
            return ""
        if (p.phase, p.unit) != self.phase or (self.looks and p.done < self.looks[-1][1]):
            self.phase = (p.phase, p.unit)
            self.looks.clear()
        self.looks.append((at, p.done))
        # Keep the latest look at least `window` old, so the window is always spanned.
        while len(self.looks) > 2 and at - self.looks[1][0] >= self.window:
            self.looks.popleft()
        return self.words(p)

    def per_second(self) -> float | None:
        """Done per second over the window; None until the looks span `first` seconds, or while
        nothing moved."""
        if len(self.looks) < 2:
            return None
        (start, was), (now, done) = self.looks[0], self.looks[-1]
        if now - start < self.first or done <= was:
            return None
        return (done - was) / (now - start)

    def seconds_left(self, p: Any) -> float | None:
        rate = self.per_second()
        if rate is None or not p.total or p.done > p.total:
            return None
        return (p.total - p.done) / rate

    def words(self, p: Any) -> str:
        rate = self.per_second()
        if rate is None:
            return ""
        said = f"{size(round(rate))}/s" if p.unit == "bytes" else f"{rate:,.0f} {p.unit or 'rows'}/s"
        left = self.seconds_left(p)
        return said if left is None else f"{said}, {duration(left)} left"


def duration(seconds: float) -> str:
    """A time left, rounded up: '7 s', '2 min 05 s', '1 h 02 min'."""
    whole = math.ceil(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def over(status: Any) -> bool:
    """The job has ended (or there is none to follow): its status will not change."""
    return status.state in ENDED or not getattr(status, "found", True)


def where() -> str | None:
    """Where a bar can be seen: "notebook" in a Jupyter kernel, "terminal" when stderr is one,
    else None (output to a file or a pipe, a test run)."""
    shell = _ipython()
    if shell is not None and getattr(shell, "kernel", None) is not None:
        return "notebook"
    stream = sys.stderr
    try:
        return "terminal" if stream is not None and stream.isatty() else None
    except (AttributeError, ValueError):  # replaced by an object without isatty, or closed
        return None


def _ipython() -> Any:
    module = sys.modules.get("IPython")  # only a running IPython has imported it
    if module is None:
        return None
    try:
        return module.get_ipython()
    except Exception:
        return None


def _bar(progress: bool | None, label: str, console: Any) -> _Quiet:
    if progress is False:
        return _Quiet()
    if console is not None:
        return _TerminalBar(label, console) if progress or console.is_terminal or console.is_jupyter else _Quiet()
    place = where()
    if place == "notebook":
        return _NotebookBar(label)
    if place == "terminal" or progress:
        return _TerminalBar(label, None)
    return _Quiet()


def counts(status: Any) -> str:
    """The status in words: 'type: 12,000 of 50,000 rows', 'read: 1.2 MB of 4.0 MB'."""
    p = status.progress
    if status.state in ENDED:
        return _ended(status)
    if not p.phase:
        return status.state or "waiting"
    return phase_words(p)


def _ended(status: Any) -> str:
    said = status.state
    if status.revision is not None:
        said += f", revision {status.revision}"
    if status.coverage.total:
        said += f", {read_words(status.coverage)}"
    if status.error_code:
        said += f": {status.error_code}"
    return said


def _fraction(status: Any) -> tuple[float, float | None]:
    """(done, total) of the current phase; total None while not known."""
    if status.state in ENDED:
        return 1.0, 1.0
    p = status.progress
    return float(p.done), float(p.total) if p.total else None


def said(status: Any, rate: str = "") -> str:
    """What a bar says beside it: the counts, then the rate and time left when known."""
    return f"{counts(status)} · {rate}" if rate else counts(status)


class _Quiet:
    visible = False
    rate = ""  # the last rate said, kept for the bar's last look

    def show(self, status: Any, rate: str = "") -> None:
        pass

    def close(self, status: Any) -> None:
        pass


class _TerminalBar(_Quiet):
    """A rich progress bar (on stderr unless given a console): one line, the phase, the bar,
    the counts and the time spent; it stays on screen with the job's end."""

    visible = True

    def __init__(self, label: str, console: Any):
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.fields[counts]}"),
            TimeElapsedColumn(),
            console=console or Console(stderr=True),
            transient=False,
        )
        self.task = self.progress.add_task(label, total=None, counts="")
        self.progress.start()

    def show(self, status: Any, rate: str = "") -> None:
        self.rate = rate
        done, total = _fraction(status)
        self.progress.update(self.task, completed=done, total=total, counts=said(status, rate), refresh=True)

    def close(self, status: Any) -> None:
        self.show(status, self.rate)
        self.progress.stop()


class _NotebookBar(_Quiet):
    """An HTML bar in the notebook's output, updated in place through a display handle (works in
    every Jupyter front end, with no widget library)."""

    visible = True

    def __init__(self, label: str):
        from IPython.display import HTML, display

        self.html, self.label = HTML, label
        self.handle = display(HTML(bar_html(label, None)), display_id=True)

    def show(self, status: Any, rate: str = "") -> None:
        self.rate = rate
        if self.handle is not None:
            self.handle.update(self.html(bar_html(self.label, status, rate)))

    def close(self, status: Any) -> None:
        self.show(status, self.rate)


def bar_html(label: str, status: Any, rate: str = "") -> str:
    """The notebook's bar for a status (None: not asked yet), with the rate and time left."""
    if status is None:
        done, total, words = 0.0, None, "starting"
    else:
        (done, total), words = _fraction(status), said(status, rate)
    meter = f'<progress value="{done:g}" max="{total:g}"></progress>' if total else "<progress></progress>"
    return f'<div class="tabular-progress"><code>{escape(label)}</code> {meter} <small>{escape(words)}</small></div>'
