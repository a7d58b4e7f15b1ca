"""One watchdog thread that interrupts DuckDB statements past their deadline (not a thread per
query), and, when DuckDB's memory passes a budget, the statement that has run longest."""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable
from typing import Protocol

# How often memory is looked at while statements run.
MEMORY_LOOK_SECONDS = 0.1


class Interruptible(Protocol):
    """A statement's cursor (a DuckDB connection), stopped from another thread."""

    def interrupt(self) -> None: ...


class Watchdog:
    def __init__(self, memory_used: Callable[[], int] | None = None, memory_budget: int = 0) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int]] = []
        self._live: dict[int, Interruptible] = {}
        self._started: dict[int, float] = {}
        self._why: dict[int, str] = {}  # tokens stopped: "deadline" or "memory"
        self._ids = itertools.count()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._memory_used, self._memory_budget = memory_used, memory_budget

    def watch(self, cursor: Interruptible, seconds: float) -> int:
        """Interrupt `cursor` after `seconds` unless released first; answers a token for release()."""
        token = next(self._ids)
        with self._cond:
            self._live[token] = cursor
            self._started[token] = time.monotonic()
            due = time.monotonic() + seconds
            earliest = self._heap[0][0] if self._heap else None
            heapq.heappush(self._heap, (due, token))
            if self._thread is None and not self._closed:
                self._thread = threading.Thread(target=self._loop, name="query-deadlines", daemon=True)
                self._thread.start()
            # The thread sleeps until the earliest deadline: it is woken only when this one comes
            # sooner (a wake on every query asked DuckDB for its memory, under this lock, each time).
            if earliest is None or due < earliest:
                self._cond.notify()
        return token

    def release(self, token: int) -> str | None:
        """Stop watching; answers why the statement was interrupted ("deadline", "memory"), or None."""
        with self._cond:
            self._live.pop(token, None)
            self._started.pop(token, None)
            return self._why.pop(token, None)

    def close(self) -> None:
        """End the thread before the database closes: it would otherwise ask DuckDB for its
        memory, inside C++, while the interpreter finalises (which aborts the process)."""
        with self._cond:
            self._closed = True
            self._cond.notify()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _stop(self, token: int, why: str) -> None:
        cursor = self._live.pop(token, None)
        self._started.pop(token, None)
        if cursor is not None:
            self._why[token] = why
            cursor.interrupt()

    def _loop(self) -> None:
        with self._cond:
            while not self._closed:
                while self._heap and self._heap[0][1] not in self._live:
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._cond.wait()
                    continue
                deadline, token = self._heap[0]
                wait = deadline - time.monotonic()
                if wait > 0:
                    self._cond.wait(min(wait, MEMORY_LOOK_SECONDS) if self._memory_used else wait)
                    if not self._closed:
                        self._check_memory()
                    continue
                heapq.heappop(self._heap)
                self._stop(token, "deadline")

    def _check_memory(self) -> None:
        """Past the budget, the statement that has run longest is the one holding most, as a rule:
        it is stopped (and answers 413), so the others go on."""
        if not self._memory_used or not self._started:
            return
        try:
            used = self._memory_used()
        except Exception:  # a closing database: nothing to guard
            return
        if used > self._memory_budget:
            self._stop(min(self._started, key=self._started.__getitem__), "memory")
