"""What the benchmarks share: the import path, peak memory of a contender's process, and the
TPC-H generator."""

from __future__ import annotations

import resource
import shutil
import sys
from pathlib import Path


BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent


def use_working_tree() -> None:
    """Import this working tree's tabular, whatever the current directory, and take bench/ off
    the import path: bench/http.py would otherwise shadow the standard library's `http` (which
    httpx and uvicorn import). Call it first, before importing anything else."""
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH]
    sys.path.insert(0, str(ROOT))


def peak_rss_bytes() -> int:
    """The most memory this process (or any child it waited for) held at once."""
    unit = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    return unit * max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))


def tpchgen() -> str:
    beside = Path(sys.executable).parent / "tpchgen-cli"
    found = str(beside) if beside.exists() else shutil.which("tpchgen-cli")
    if not found:
        sys.exit("tpchgen-cli not found next to this Python or on PATH (pip install tpchgen-cli)")
    return found
