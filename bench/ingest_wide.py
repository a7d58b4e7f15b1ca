"""Ingest generated wide CSVs (up to 1,000 columns) with tabular and DuckDB; see how time and
memory grow with the width.

    python bench/ingest_wide.py [--rows 2000,20000] [--columns 100,250,500,1000] [--data-dir bench/data] [--keep] [--repeat 3]

Each contender runs in a fresh subprocess (`--contender NAME`) that prints one JSON line:
seconds, peak RSS (ru_maxrss of that process), rows, and for tabular a count of the column
types it chose.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from common import ROOT, duckdb_ctas, print_result, tabular_ingest
from common import run_contender as common_run_contender

CONTENDERS = ("duckdb", "tabular")
TIME_TARGETS = {100: 3.5, 500: 2.0}  # tabular seconds <= this x DuckDB's, by width (issue 58); 3 at others
FLAT_TARGET = (
    0.30  # time per cell at most 30% over the 100-column file's, per row count (cost must not grow with width)
)
BASE_RSS = 300  # MiB: peak RSS <= 300 MiB + RSS_PER_FILE x the file's size
RSS_PER_FILE = 3
TIMEOUT = 600  # seconds one contender may take on one file
MiB = 1024 * 1024

KINDS = ("int", "money", "date", "word")
WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike oscar papa romeo".split()


# --- the files ----------------------------------------------------------------------------------


def write_csv(path: Path, rows: int, cols: int) -> None:
    import numpy as np
    import polars as pl

    rng = np.random.default_rng([rows, cols])  # seeded by the size: the same file every time
    words = pl.Series(WORDS)
    data = {}
    for i in range(cols):
        kind = KINDS[i % len(KINDS)]
        if kind == "int":
            data[f"c{i}_{kind}"] = rng.integers(-1_000_000, 1_000_000, rows)
        elif kind == "money":
            # Whole cents over 100, written with exactly 2 places (float_precision below): 1234.50
            data[f"c{i}_{kind}"] = rng.integers(0, 10_000_000, rows) / 100
        elif kind == "date":
            data[f"c{i}_{kind}"] = np.datetime64("2020-01-01") + rng.integers(0, 2000, rows).astype("timedelta64[D]")
        else:
            data[f"c{i}_{kind}"] = words.gather(rng.integers(0, len(WORDS), rows))
    partial = path.with_suffix(".partial")  # write aside, so an interrupted run leaves no half file behind
    pl.DataFrame(data).write_csv(partial, float_precision=2)
    partial.replace(path)


def ensure_csv(folder: Path, rows: int, cols: int) -> tuple[Path, bool]:
    """The CSV for this size, and whether this run generated it."""
    path = folder / f"{rows}x{cols}.csv"
    if path.exists():
        return path, False
    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    # In a child process: Linux carries a process's peak RSS across fork and exec into its
    # children, so a driver swollen by generating would inflate every contender's peak.
    subprocess.run(
        [sys.executable, __file__, "--write", str(path), "--rows", str(rows), "--columns", str(cols)], check=True
    )
    print(
        f"generated {path.name} ({path.stat().st_size / MiB:,.1f} MiB) in {time.perf_counter() - start:.1f} s",
        flush=True,
    )
    return path, True


# --- contenders: each runs alone in its own process --------------------------------------------


def run_duckdb(csv: Path, work: Path) -> dict:
    return duckdb_ctas(csv, work)


def run_tabular(csv: Path, work: Path) -> dict:
    result = tabular_ingest(csv, work)
    result["types"] = Counter(f"{kind} {physical}" for _, kind, physical in result.pop("columns"))
    return result


def contender_main(name: str, csv: Path, work: Path) -> None:
    # CPU seconds of every thread as well as the wall clock's (see ingest_csv.py).
    start = time.process_time()
    result = globals()[f"run_{name}"](csv, work)
    print_result({**result, "cpu": time.process_time() - start})


# --- the driver ---------------------------------------------------------------------------------


def run_contender(name: str, csv: Path, data_dir: Path) -> dict:
    return common_run_contender(__file__, name, csv, data_dir, TIMEOUT)


def median_run(runs: list[dict]) -> dict:
    """Of one contender's runs on a file, the one of median CPU time (a failed run, if any)."""
    failed = [r for r in runs if "error" in r]
    return failed[0] if failed else sorted(runs, key=lambda r: r.get("cpu", 0.0))[(len(runs) - 1) // 2]


def int_list(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int_list, default=[2000, 20000], help="comma-separated row counts")
    parser.add_argument("--columns", type=int_list, default=[100, 250, 500, 1000], help="comma-separated widths")
    parser.add_argument("--data-dir", type=Path, default=ROOT / "bench" / "data")
    parser.add_argument(
        "--keep", action="store_true", help="keep the CSVs this run generated (ones already there are always kept)"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="runs of each contender per file, interleaved; the median CPU run is shown",
    )
    parser.add_argument("--contender", choices=CONTENDERS, help=argparse.SUPPRESS)
    parser.add_argument("--csv", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--write", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.contender:
        return contender_main(args.contender, args.csv, args.work)
    if args.write:
        return write_csv(args.write, args.rows[0], args.columns[0])

    print(f"machine: {os.cpu_count()} CPUs, {platform.platform()}, Python {platform.python_version()}\n")
    data_dir = args.data_dir.resolve()
    runs = []  # (rows, cols, size, {contender: result})
    for rows in args.rows:
        for cols in sorted(args.columns):
            csv, generated = ensure_csv(data_dir / "wide", rows, cols)
            try:
                tries: dict[str, list[dict]] = {name: [] for name in CONTENDERS}
                for k in range(args.repeat):  # interleaved: the others' load falls on each alike
                    for name in CONTENDERS:
                        print(f"  {csv.name}: running {name} ({k + 1} of {args.repeat}) ...", flush=True)
                        tries[name].append(run_contender(name, csv, data_dir))
                results = {name: median_run(r) for name, r in tries.items()}
                runs.append((rows, cols, csv.stat().st_size, results))
            finally:
                # One file at a time, so 20,000 x 1,000 and its neighbours never sit on disk together.
                if generated and not args.keep:
                    csv.unlink()

    print(
        f"\n{'rows':>7} {'cols':>5} {'MiB':>7} {'duckdb s':>9} {'tabular s':>10} {'tab/duck':>9} {'us/cell':>8} {'tab peak MiB':>13} {'peak target':>12} {'cpu tab/duck':>13} {'cpu s duck, tab':>16}"
    )
    for rows, cols, size, r in runs:
        duck, tab = r["duckdb"], r["tabular"]
        duck_s = f"{duck['seconds']:>9.3f}" if "error" not in duck else f"{'failed':>9}"
        if "error" in tab:
            tab_cols = f"{'failed':>10} {'-':>9} {'-':>8} {'-':>13}"
        else:
            ratio = f"{tab['seconds'] / duck['seconds']:>8.2f}x" if "error" not in duck else f"{'-':>9}"
            tab_cols = f"{tab['seconds']:>10.3f} {ratio} {tab['seconds'] / (rows * cols) * 1e6:>8.2f} {tab['peak_rss'] / MiB:>13,.0f}"
        cpu = (
            f"{tab['cpu'] / duck['cpu']:>12.2f}x {duck['cpu']:>8.2f} {tab['cpu']:>7.2f}"
            if "cpu" in tab and "cpu" in duck
            else ""
        )
        print(
            f"{rows:>7,} {cols:>5} {size / MiB:>7.1f} {duck_s} {tab_cols} {BASE_RSS + RSS_PER_FILE * size / MiB:>12,.0f} {cpu}"
        )

    print("\nwhat tabular chose (count per type) and row counts:")
    for rows, cols, _size, r in runs:
        duck, tab = r["duckdb"], r["tabular"]
        for name, res in r.items():
            if "error" in res:
                print(f"  {rows:,} x {cols}: {name} FAILED: {res['error']}")
        if "error" not in tab:
            types = ", ".join(f"{kind}: {n}" for kind, n in sorted(tab["types"].items()))
            duck_rows = f"{duck['rows']:,}" if "error" not in duck else "-"
            print(
                f"  {rows:,} x {cols}: rows {tab['rows']:,} (DuckDB {duck_rows}), rejected {tab['rows_rejected']:,}; {types}"
            )

    print("\ntargets:")
    ok_runs = [(rows, cols, size, r) for rows, cols, size, r in runs if "error" not in r["tabular"]]
    for rows, cols, _size, r in ok_runs:
        tab, duck = r["tabular"], r["duckdb"]
        if "error" not in duck:
            ratio = tab["seconds"] / duck["seconds"]
            target = TIME_TARGETS.get(cols, 3.0)
            verdict(f"{rows:,} x {cols}: time <= {target:g}x DuckDB", ratio <= target, f"{ratio:.2f}x")
    per_cell = {(rows, cols): r["tabular"]["seconds"] / (rows * cols) for rows, cols, _, r in ok_runs}
    for rows in args.rows:
        widths = sorted(c for (r_, c) in per_cell if r_ == rows)
        if len(widths) < 2:
            print(f"  {rows:,} rows: time per cell flat across widths       n/a (needs two widths)")
            continue
        # The 100-column file is the reference; without it in this run, the narrowest one is.
        base = 100 if 100 in widths else widths[0]
        for cols in widths:
            if cols != base:
                change = per_cell[rows, cols] / per_cell[rows, base] - 1
                verdict(
                    f"{rows:,} x {cols}: time/cell at most {FLAT_TARGET:.0%} over {base} cols",
                    change <= FLAT_TARGET,
                    f"{change:+.0%}",
                )
    for rows, cols, size, r in ok_runs:
        limit = BASE_RSS * MiB + RSS_PER_FILE * size
        verdict(
            f"{rows:,} x {cols}: peak RSS <= {BASE_RSS} MiB + {RSS_PER_FILE}x file",
            r["tabular"]["peak_rss"] <= limit,
            f"{r['tabular']['peak_rss'] / MiB:,.0f} of {limit / MiB:,.0f} MiB",
        )


def verdict(label: str, ok: bool, detail: str) -> None:
    print(f"  {label:<48} {'PASS' if ok else 'MISS'}  ({detail})")


if __name__ == "__main__":
    main()
