"""How long a CLI command takes to start and answer on a small home, beside what importing
DuckDB and PyArrow alone takes in a fresh process (the anchor), measured in the same run.

    python bench/cli_start.py [--repeat 7]

Each command runs `--repeat` times in a fresh process (`python -m tabular.cli ...`, as the
`tabular` script does), the anchor's runs interleaved with them, so a machine that is busy
(others' work, a CPU that speeds up) weighs on both alike. The home (one small CSV) is made once
and not timed, and each command runs once untimed first, so Python's bytecode cache is written as a
person's second run finds it (PYTHONDONTWRITEBYTECODE is left out of the commands' environment).
Printed per command: the median wall time and CPU time (user and system), the anchor's, their
ratios, and the spread of the CPU ratio over the rounds (each round's command beside that round's
anchor). The verdict is on the CPU ratio: the CPU a process uses is what its imports and work
cost, where the wall time also counts waiting for a core on a machine others share.
Target (issue 56): `tabular list`, `get` and `query` within 2.5× the anchor; a person scripting
ten commands should not wait ten seconds.

`--imports` also names, per command, the heavy packages its process imported that its work does
not need (`python -X importtime` says what each cost).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT

TARGET = 2.5
ANCHOR = ["-c", "import duckdb, pyarrow"]
PLAN = {
    "datasets": [{"source_uri": "sales.csv"}],
    "group_by": [{"column": "region"}],
    "aggregates": [{"fn": "sum", "column": "amount", "as": "total"}],
}
COMMANDS = {
    "list": ["list"],
    "get": ["get", "sales.csv"],
    "query": ["query", json.dumps(PLAN)],
    "datasets": ["datasets", "sales.csv"],
}
# What a person notices as slowness when a command loads it without using it.
HEAVY = ("polars", "openpyxl", "matplotlib", "fastapi", "starlette", "uvicorn", "httpx", "mcp", "PIL")
SEEN = "import sys, runpy; sys.argv = ['tabular', *sys.argv[1:]]\ntry:\n    runpy.run_module('tabular.cli', run_name='__main__')\nexcept SystemExit:\n    pass\nprint('\\n' + ' '.join(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr)"


def timed(argv: list[str], env: dict) -> tuple[float, float]:
    """The wall time of a fresh process running `argv`, and the CPU time it used (user and
    system: less swayed than the wall time by other work on a busy machine)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, *argv], env=env, capture_output=True, text=True, cwd=ROOT)
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")
    return took, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def imported(args: list[str], env: dict) -> list[str]:
    """The heavy packages a command's process held when it ended."""
    done = subprocess.run([sys.executable, "-c", SEEN, *args], env=env, capture_output=True, text=True, cwd=ROOT)
    held = set(done.stderr.strip().splitlines()[-1].split()) if done.stderr.strip() else set()
    return [name for name in HEAVY if name in held]


def report(runs: dict[str, list[tuple[float, float]]], repeat: int) -> None:
    """Each command's median wall and CPU time beside the anchor's, and the spread of its CPU ratio
    over the rounds; the verdict is on the median CPU ratio."""
    wall, cpu = (statistics.median(r[k] for r in runs["anchor"]) for k in (0, 1))
    print(f"anchor `python -c 'import duckdb, pyarrow'`: {wall:.3f} s wall, {cpu:.3f} s CPU (median of {repeat})")
    print(
        f"{'command':16} {'wall s':>8} {'ratio':>7} {'CPU s':>8} {'ratio':>7} {'CPU ratio by round':>20}"
        f"  target ≤ {TARGET}× (CPU)"
    )
    for name in COMMANDS:
        took, used = (statistics.median(r[k] for r in runs[name]) for k in (0, 1))
        rounds = [mine[1] / anchor[1] for mine, anchor in zip(runs[name], runs["anchor"], strict=True)]
        spread = f"{min(rounds):.2f}–{max(rounds):.2f}×"
        print(
            f"{'tabular ' + name:16} {took:8.3f} {took / wall:6.2f}× {used:8.3f} {used / cpu:6.2f}× {spread:>20}  "
            f"{'ok' if used / cpu <= TARGET else 'over'}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=7, help="fresh processes per command (and per anchor round)")
    ap.add_argument("--imports", action="store_true", help="also name the heavy packages each command imported")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="cli-start-") as tmp:
        env = {**os.environ, "TABULAR_HOME": str(Path(tmp) / "home"), "PYTHONPATH": str(ROOT)}
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # a person's Python keeps its bytecode cache
        csv = Path(tmp) / "sales.csv"
        csv.write_text("region,amount\nnorth,120.50\nsouth,80.25\nnorth,10.00\n", encoding="utf-8")
        timed(["-m", "tabular.cli", "ingest", str(csv)], env)  # the small home; not timed
        for argv in [ANCHOR, *(["-m", "tabular.cli", *argv] for argv in COMMANDS.values())]:
            timed(argv, env)  # once untimed: the bytecode cache written, as a second run finds it
        runs: dict[str, list[tuple[float, float]]] = {"anchor": [], **{name: [] for name in COMMANDS}}
        for _ in range(args.repeat):  # interleaved: a busy moment weighs on every contender
            runs["anchor"].append(timed(ANCHOR, env))
            for name, argv in COMMANDS.items():
                runs[name].append(timed(["-m", "tabular.cli", *argv], env))
        report(runs, args.repeat)
        if args.imports:
            for name, argv in COMMANDS.items():
                heavy = imported(argv, env)
                print(f"tabular {name}: imports {', '.join(heavy) if heavy else 'none of ' + ', '.join(HEAVY)}")
        print(f"(load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs: a loaded machine slows both sides)")


if __name__ == "__main__":
    main()
