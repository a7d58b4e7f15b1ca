"""Ingest TPC-H lineitem as CSV with tabular, DuckDB and Polars; compare time and peak memory.

    python bench/ingest_csv.py --scale-factor 1 [--data-dir bench/data] [--keep]

Each contender runs in a fresh subprocess (`--contender NAME`) that prints one JSON line:
seconds, peak RSS (ru_maxrss of that process), rows, and for tabular the column types it chose.
See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, duckdb_ctas, lineitem_csv, print_result, tabular_ingest

CONTENDERS = ("duckdb", "polars", "tabular")
TIME_TARGET = 1.5  # tabular seconds <= 1.5 x DuckDB's
MEMORY_TARGET = 300 * 1024 * 1024  # tabular peak RSS <= the CSV's size + 300 MiB
MiB = 1024 * 1024


# --- contenders: each runs alone in its own process --------------------------------------------


def run_duckdb(csv: Path, work: Path) -> dict:
    return duckdb_ctas(csv, work)


def run_polars(csv: Path, work: Path) -> dict:
    import polars

    start = time.perf_counter()
    frame = polars.read_csv(csv)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "rows": frame.height}


def run_tabular(csv: Path, work: Path) -> dict:
    return tabular_ingest(csv, work)


def contender_main(name: str, csv: Path, work: Path) -> None:
    print_result(globals()[f"run_{name}"](csv, work))


# --- the driver ---------------------------------------------------------------------------------


def run_contender(name: str, csv: Path, data_dir: Path) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"{name}-", dir=data_dir) as work:
        cmd = [sys.executable, __file__, "--contender", name, "--csv", str(csv), "--work", work]
        out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale-factor", type=float, default=1.0, help="TPC-H scale factor; fractions like 0.1 work")
    parser.add_argument("--data-dir", type=Path, default=ROOT / "bench" / "data")
    parser.add_argument(
        "--keep", action="store_true", help="keep a CSV this run generated (one already there is always kept)"
    )
    parser.add_argument("--contender", choices=CONTENDERS, help=argparse.SUPPRESS)
    parser.add_argument("--csv", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.contender:
        return contender_main(args.contender, args.csv, args.work)

    csv, generated = lineitem_csv(args.data_dir.resolve(), args.scale_factor)
    size = csv.stat().st_size
    try:
        results = {}
        for name in CONTENDERS:
            print(f"running {name} ...", flush=True)
            results[name] = run_contender(name, csv, args.data_dir.resolve())
    finally:
        if generated and not args.keep:
            shutil.rmtree(csv.parent)

    base = results["duckdb"]
    print(f"\nTPC-H lineitem, scale factor {args.scale_factor:g}: {csv}")
    print(f"file size {size / MiB:,.1f} MiB, {base['rows']:,} rows\n")
    print(f"{'contender':<10} {'seconds':>8} {'peak MiB':>9} {'time/duckdb':>12} {'peak/file':>10}")
    for name, r in results.items():
        print(
            f"{name:<10} {r['seconds']:>8.2f} {r['peak_rss'] / MiB:>9,.0f} {r['seconds'] / base['seconds']:>11.2f}x {r['peak_rss'] / size:>9.2f}x"
        )

    tab = results["tabular"]
    print(f"\ntabular chose ({tab['rows']:,} rows, {tab['rows_rejected']:,} rejected):")
    for name, kind, physical in tab["columns"]:
        print(f"  {name:<16} {kind:<8} {physical}")

    time_ratio, memory_ratio = tab["seconds"] / base["seconds"], tab["peak_rss"] / size
    over = tab["peak_rss"] - size
    print("\ntargets:")
    for label, ok, detail in [
        ("rows equal DuckDB's", tab["rows"] == base["rows"], f"{tab['rows']:,} vs {base['rows']:,}"),
        (f"time <= {TIME_TARGET}x DuckDB", time_ratio <= TIME_TARGET, f"{time_ratio:.2f}x"),
        (
            "peak memory <= file + 300 MiB",
            over <= MEMORY_TARGET,
            f"{memory_ratio:.2f}x the file, {over / MiB:+,.0f} MiB",
        ),
    ]:
        print(f"  {label:<32} {'PASS' if ok else 'MISS'}  ({detail})")


if __name__ == "__main__":
    main()
