"""A test-only hook: with TABULAR_PAUSE_AT=<point> the process stops at that point of a write
and says so on stderr, so a test can SIGKILL it there, or (TABULAR_PAUSE_SECONDS) let it exit
meanwhile (tests/test_crash.py)."""

from __future__ import annotations

import os
import sys
import time


def at(point: str) -> None:
    if os.environ.get("TABULAR_PAUSE_AT") == point:
        print(f"paused at {point}", file=sys.stderr, flush=True)
        time.sleep(float(os.environ.get("TABULAR_PAUSE_SECONDS", "3600")))
