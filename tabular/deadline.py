"""One watchdog thread that interrupts DuckDB statements past their deadline (not a thread per query)."""

from __future__ import annotations

import heapq
import itertools
import threading
import time


class Watchdog:
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int]] = []
        self._live: dict[int, object] = {}
        self._ids = itertools.count()
        self._thread: threading.Thread | None = None

    def watch(self, cursor, seconds: float) -> int:
        """Interrupt `cursor` after `seconds` unless released first; answers a token for release()."""
        token = next(self._ids)
        with self._cond:
            self._live[token] = cursor
            heapq.heappush(self._heap, (time.monotonic() + seconds, token))
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="query-deadlines", daemon=True)
                self._thread.start()
            self._cond.notify()
        return token

    def release(self, token: int) -> bool:
        """Stop watching; False when the deadline already fired (the statement was interrupted)."""
        with self._cond:
            return self._live.pop(token, None) is not None

    def _loop(self) -> None:
        with self._cond:
            while True:
                while self._heap and self._heap[0][1] not in self._live:
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._cond.wait()
                    continue
                deadline, token = self._heap[0]
                wait = deadline - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                heapq.heappop(self._heap)
                cursor = self._live.pop(token, None)
                if cursor is not None:
                    cursor.interrupt()
