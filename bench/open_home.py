"""Opening a home with many snapshots: `tabular.connect(home)` and its first query, timed in a
fresh process, beside the floor of what any design pays (a fresh Python process that opens the
SQLite catalog and DuckDB in memory and reads the snapshot list).

    python bench/open_home.py [--snapshots 1000] [--repeat 5]

The home is made once (not timed): `--snapshots` sources of a small CSV, one snapshot each.
Target (issue 15): opening takes < 0.5 s.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, use_working_tree

TARGET_S = 0.5

OPEN = """
import sys, time
t0 = time.perf_counter()
import tabular
t1 = time.perf_counter()
engine = tabular.connect(sys.argv[1])
t2 = time.perf_counter()
rows = engine.namespace("bench", "open").query({"datasets": [{"source_uri": "s0"}], "aggregates": [{"fn": "count"}]}).rows
t3 = time.perf_counter()
engine.close()
print(t1 - t0, t2 - t1, t3 - t2)
"""

FLOOR = """
import sys, time
t0 = time.perf_counter()
import sqlite3, duckdb
t1 = time.perf_counter()
con = sqlite3.connect(sys.argv[1] + "/catalog.sqlite")
ids = con.execute("SELECT snapshot_id FROM snapshots").fetchall()
db = duckdb.connect(":memory:")
db.execute(f"ATTACH '{sys.argv[1]}/snapshots/{ids[0][0]}.duckdb' AS s (READ_ONLY)")
t2 = time.perf_counter()
db.execute("SELECT count(*) FROM s.data").fetchall()
t3 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2)
"""


def make_home(home: Path, count: int) -> None:
    import tabular

    csv = home.parent / "small.csv"
    csv.write_text("id,amount,when\n1,2.50,2024-01-02\n2,3.75,2024-02-03\n")
    with tabular.connect(str(home), ingest_workers=2, job_queue=count, job_queue_per_org=count) as engine:
        ns = engine.namespace("bench", "open")
        started = [
            ns.call("knowledge.ingest", {"upload_id": ns.upload_file(csv)["upload_id"], "source_uri": f"s{k}"})[
                "ingestion_id"
            ]
            for k in range(count)
        ]
        for ingestion_id in started:
            engine.jobs.wait(ingestion_id)
        states = {ns.call("knowledge.ingest_status", {"ingestion_id": i})["state"] for i in started}
        assert states == {"ready"}, states


def timed(script: str, home: Path, repeat: int) -> list[float]:
    """Median (import, open, first query) seconds over `repeat` fresh processes."""
    runs = []
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-c", script, str(home)], capture_output=True, text=True, check=True, cwd=ROOT
        ).stdout
        runs.append([float(x) for x in out.split()])
    return [statistics.median(r[k] for r in runs) for k in range(3)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshots", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    use_working_tree()
    with tempfile.TemporaryDirectory(prefix="tabular-open-") as tmp:
        home = Path(tmp) / "home"
        start = time.perf_counter()
        make_home(home, args.snapshots)
        print(f"made a home of {args.snapshots} snapshots in {time.perf_counter() - start:.1f} s")
        ours = timed(OPEN, home, args.repeat)
        floor = timed(FLOOR, home, args.repeat)
    print(f"\nmedian of {args.repeat} fresh processes, seconds")
    print(f"{'':24} {'import':>8} {'open':>8} {'1st query':>10}")
    print(f"{'tabular.connect':24} {ours[0]:8.3f} {ours[1]:8.3f} {ours[2]:10.3f}")
    print(f"{'floor (sqlite3 + duckdb)':24} {floor[0]:8.3f} {floor[1]:8.3f} {floor[2]:10.3f}")
    ok = ours[1] < TARGET_S
    print(
        f"\ntarget: opening a home of {args.snapshots} snapshots < {TARGET_S} s   {'PASS' if ok else 'FAIL'}  ({ours[1]:.3f} s, {ours[1] / max(floor[1], 1e-9):.0f}x the floor's open)"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
