"""Ingest one generated CSV of a couple of gigabytes with tabular, DuckDB as the anchor; check that
tabular's peak memory stays under 2 GiB whatever the file's size.

    python bench/ingest_big.py [--gigabytes 2] [--data-dir bench/data] [--keep]

Each contender runs in a fresh subprocess (`--contender NAME`) that prints one JSON line:
seconds, peak RSS (ru_maxrss of that process), rows, and for tabular the column types it chose.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from common import ROOT, duckdb_ctas, print_result, tabular_ingest
from common import run_contender as common_run_contender

CONTENDERS = ("duckdb", "tabular")
RSS_TARGET = 2 * 1024**3  # tabular's peak RSS must stay under 2 GiB
TIME_TARGET = 2.0  # tabular seconds <= 2 x DuckDB's (issue 58)
DUCKDB_MEMORY = "1GB"  # tabular's duckdb_memory setting for this run
TIMEOUT = 3600  # seconds one contender may take
BLOCK_ROWS = 1_500_000  # about 64 MB of CSV per block
MiB = 1024 * 1024
GB = 1024**3

WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike oscar papa romeo".split()


# --- the file -----------------------------------------------------------------------------------


def block(rng, first_key: int, rows: int):
    """One block of lineitem-like rows; l_orderkey runs on from the block before, so it stays unique."""
    import numpy as np
    import polars as pl

    words = pl.Series(WORDS)

    def pick():
        return words.gather(rng.integers(0, len(WORDS), rows))

    return pl.DataFrame(
        {
            "l_orderkey": np.arange(first_key, first_key + rows),
            "l_partkey": rng.integers(1, 200_000, rows),
            "l_extendedprice": rng.integers(90_000, 10_500_000, rows) / 100,  # whole cents, written with 2 places
            "l_shipdate": np.datetime64("1992-01-02") + rng.integers(0, 2500, rows).astype("timedelta64[D]"),
            "l_comment": pick() + " " + pick(),
        }
    )


def write_csv(path: Path, gigabytes: float) -> None:
    """Blocks are generated and appended one after another, so memory stays at one block
    whatever the size."""
    import numpy as np

    start = time.perf_counter()
    rng = np.random.default_rng(7)
    target, written, rows = int(gigabytes * GB), 0, 0
    partial = path.with_suffix(".partial")  # write aside, so an interrupted run leaves no half file behind
    with partial.open("wb") as out:
        while written < target:
            text = block(rng, rows + 1, BLOCK_ROWS).write_csv(include_header=rows == 0, float_precision=2).encode()
            if written + len(text) > target:
                # The last block: keep whole lines only, as many as fit the target size.
                text = text[: text.rfind(b"\n", 0, target - written) + 1]
            if not text:
                break
            out.write(text)
            written += len(text)
            rows += text.count(b"\n") - (1 if rows == 0 else 0)
    partial.replace(path)
    print(f"  {rows:,} rows, {written / MiB:,.0f} MiB in {time.perf_counter() - start:.1f} s", flush=True)


def ensure_csv(folder: Path, gigabytes: float) -> tuple[Path, bool]:
    """The CSV for this size, and whether this run generated it."""
    path = folder / f"lineitem_{gigabytes:g}g.csv"
    if path.exists():
        return path, False
    folder.mkdir(parents=True, exist_ok=True)
    print(f"generating about {gigabytes:g} GiB of CSV into {path} ...", flush=True)
    # In a child process: Linux carries a process's peak RSS across fork and exec into its
    # children, so a driver swollen by generating would inflate every contender's peak.
    subprocess.run([sys.executable, __file__, "--write", str(path), "--gigabytes", f"{gigabytes!r}"], check=True)
    return path, True


# --- contenders: each runs alone in its own process --------------------------------------------


def run_duckdb(csv: Path, work: Path) -> dict:
    return duckdb_ctas(csv, work)


def run_tabular(csv: Path, work: Path) -> dict:
    # DuckDB's memory is bounded as a deployment that must hold a file larger than its memory
    # would bound it: past the limit DuckDB spills to disk (the default, 60% of this machine,
    # is 14 GiB).
    return tabular_ingest(csv, work, duckdb_memory=DUCKDB_MEMORY)


def contender_main(name: str, csv: Path, work: Path) -> None:
    # CPU seconds of every thread as well as the wall clock's (see ingest_csv.py).
    start = time.process_time()
    result = globals()[f"run_{name}"](csv, work)
    print_result({**result, "cpu": time.process_time() - start})


# --- the driver ---------------------------------------------------------------------------------


def run_contender(name: str, csv: Path, data_dir: Path) -> dict:
    return common_run_contender(__file__, name, csv, data_dir, TIMEOUT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gigabytes", type=float, default=2.0, help="the CSV's size in GiB; fractions like 0.05 work")
    parser.add_argument("--data-dir", type=Path, default=ROOT / "bench" / "data")
    parser.add_argument(
        "--keep", action="store_true", help="keep a CSV this run generated (one already there is always kept)"
    )
    parser.add_argument("--contender", choices=CONTENDERS, help=argparse.SUPPRESS)
    parser.add_argument("--csv", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--write", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.contender:
        return contender_main(args.contender, args.csv, args.work)
    if args.write:
        return write_csv(args.write, args.gigabytes)

    print(f"machine: {os.cpu_count()} CPUs, {platform.platform()}, Python {platform.python_version()}\n")
    data_dir = args.data_dir.resolve()
    csv, generated = ensure_csv(data_dir / "big", args.gigabytes)
    size = csv.stat().st_size
    try:
        results = {}
        for name in CONTENDERS:
            print(f"running {name} ...", flush=True)
            results[name] = run_contender(name, csv, data_dir)
    finally:
        if generated and not args.keep:
            csv.unlink()

    duck, tab = results["duckdb"], results["tabular"]
    print(f"\n{csv}: {size / MiB:,.0f} MiB\n")
    print(
        f"{'contender':<10} {'seconds':>8} {'peak MiB':>9} {'time/duckdb':>12} {'rows':>12} {'cpu s':>7} {'cpu/duckdb':>11}"
    )
    for name, r in results.items():
        if "error" in r:
            print(f"{name:<10} FAILED: {r['error']}")
            continue
        ratio = f"{r['seconds'] / duck['seconds']:>11.2f}x" if "error" not in duck else f"{'-':>12}"
        cpu = f"{r['cpu']:>7.2f} {r['cpu'] / duck['cpu']:>10.2f}x" if "cpu" in r and "cpu" in duck else ""
        print(f"{name:<10} {r['seconds']:>8.2f} {r['peak_rss'] / MiB:>9,.0f} {ratio} {r['rows']:>12,} {cpu}")
    if "error" in tab:
        return

    print(f"\ntabular chose ({tab['rows']:,} rows, {tab['rows_rejected']:,} rejected):")
    for name, kind, physical in tab["columns"]:
        print(f"  {name:<16} {kind:<8} {physical}")
    print("\ntargets:")
    checks = [(f"peak RSS < {RSS_TARGET // GB} GiB", tab["peak_rss"] < RSS_TARGET, f"{tab['peak_rss'] / MiB:,.0f} MiB")]
    if "error" not in duck:
        ratio = tab["seconds"] / duck["seconds"]
        checks.append((f"time <= {TIME_TARGET:g}x DuckDB", ratio <= TIME_TARGET, f"{ratio:.2f}x"))
        checks.append(("rows equal DuckDB's", tab["rows"] == duck["rows"], f"{tab['rows']:,} vs {duck['rows']:,}"))
    for label, ok, detail in checks:
        print(f"  {label:<24} {'PASS' if ok else 'MISS'}  ({detail})")


if __name__ == "__main__":
    main()
