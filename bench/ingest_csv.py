"""Ingest TPC-H lineitem as CSV with tabular, DuckDB and Polars; compare time and peak memory.

    python bench/ingest_csv.py --scale-factor 1 [--data-dir bench/data] [--keep] [--repeat 3]
    python bench/ingest_csv.py --guards [--scale-factor 0.1]

Each contender runs in a fresh subprocess (`--contender NAME`) that prints one JSON line:
seconds, peak RSS (ru_maxrss of that process), rows, and for tabular the column types it chose.
`--guards` prints instead what the one pass's guard of each lineitem column costs per cell over
the plain cast of its text (DuckDB's TRY_CAST, or the text as it is), CPU time on one thread,
the median of five runs: where the time of the guarded statement goes (issue 58).
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

from common import ROOT, duckdb_ctas, lineitem_csv, print_result, tabular_ingest, use_working_tree

CONTENDERS = ("duckdb", "polars", "tabular")
TIME_TARGETS = {1.0: 1.6, 0.1: 2.0}  # tabular seconds <= this x DuckDB's, by scale factor (issue 58)
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
    # CPU seconds of every thread of the process as well as the wall clock's: on a machine
    # others load, the ratio of CPU times moves far less than the ratio of seconds.
    start = time.process_time()
    result = globals()[f"run_{name}"](csv, work)
    print_result({**result, "cpu": time.process_time() - start})


# --- what each guard costs ---------------------------------------------------------------------


def guard_costs(csv: Path, runs: int = 5) -> None:
    """Each column's guard (as the one pass builds it from the file's own sample) beside the
    plain cast of the same text, over every row held in memory as text."""
    import statistics

    use_working_tree()
    import duckdb
    from sqlglot import exp

    from planner.dialect import DIALECT
    from tabular.ingest import onepass
    from tabular.settings import Settings

    con = duckdb.connect()
    con.execute("SET threads = 1")  # CPU time of one thread: the other helpers' load matters less
    read = exp.select("*").from_(
        exp.func(
            "read_csv", exp.Literal.string(str(csv)), exp.EQ(this=exp.column("all_varchar"), expression=exp.true())
        )
    )
    con.execute(exp.Create(this=exp.to_table("raw"), kind="TABLE", expression=read).sql(dialect=DIALECT))
    names = [row[0] for row in con.execute("DESCRIBE raw").fetchall()]
    cells = [f"c{i + 1}" for i in range(len(names))]
    cols = [exp.alias_(exp.column(n, quoted=True), c, quoted=True) for n, c in zip(names, cells)]
    number = exp.alias_(exp.Window(this=exp.func("row_number")), "__row_id")
    con.execute(
        exp.Create(this=exp.to_table("text"), kind="TABLE", expression=exp.select(number, *cols).from_("raw")).sql(
            dialect=DIALECT
        )
    )
    rows = con.execute("SELECT count(*) FROM text").fetchone()[0]
    settings, options = Settings(), {}
    sample = (
        exp.select("*").from_("text").where(exp.LTE(this=exp.column("__row_id"), expression=exp.Literal.number(20_000)))
    )
    typings, tallies = onepass.sample_typings(con, sample.subquery().sql(dialect=DIALECT), cells, settings, options)
    guarded = onepass.guards(con, typings, tallies, settings, options)

    def cost(value: exp.Expression) -> float:
        """Median CPU seconds of writing `value` for every row to a temporary table."""
        statement = exp.Create(
            this=exp.to_table("out"),
            kind="TABLE",
            replace=True,
            properties=exp.Properties(expressions=[exp.TemporaryProperty()]),
            expression=exp.select(exp.alias_(value, "v")).from_("text"),
        ).sql(dialect=DIALECT)
        times = []
        for _ in range(runs):
            start = time.process_time()
            con.execute(statement)
            times.append(time.process_time() - start)
        return statistics.median(times)

    print(f"{csv}: {rows:,} rows; ns per cell, CPU of one thread, median of {runs}\n")
    print(f"{'column':<16} {'typed as':<14} {'plain':>7} {'guarded':>8} {'guard':>7}")
    total = 0.0
    for cell, name in zip(cells, names):
        typing = typings[cell]
        raw = exp.column(cell, quoted=True)
        plain = (
            raw
            if typing.reading.type == "string"
            else exp.TryCast(this=raw, to=exp.DataType.build(typing.physical, dialect=DIALECT))
        )
        base, full = cost(plain), cost(guarded.values[cell])
        total += full - base
        print(
            f"{name:<16} {typing.physical:<14} {base / rows * 1e9:>7.1f} {full / rows * 1e9:>8.1f} {(full - base) / rows * 1e9:>+7.1f}"
        )
    print(
        f"\nall guards: {total / rows * 1e9:+.0f} ns per row over the plain casts ({total:.2f} s of CPU for the file)"
    )


# --- the driver ---------------------------------------------------------------------------------


def median_run(runs: list[dict]) -> dict:
    """Of one contender's runs, the one of median CPU time (the lower middle of an even count)."""
    return sorted(runs, key=lambda r: r.get("cpu", 0.0))[(len(runs) - 1) // 2]


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
    parser.add_argument("--guards", action="store_true", help="print each column's guard cost per cell instead")
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs of each contender, interleaved; the run of median CPU is shown"
    )
    parser.add_argument("--contender", choices=CONTENDERS, help=argparse.SUPPRESS)
    parser.add_argument("--csv", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.contender:
        return contender_main(args.contender, args.csv, args.work)

    csv, generated = lineitem_csv(args.data_dir.resolve(), args.scale_factor)
    if args.guards:
        return guard_costs(csv)
    size = csv.stat().st_size
    try:
        runs: dict[str, list[dict]] = {name: [] for name in CONTENDERS}
        for k in range(args.repeat):  # interleaved, so the load others put on the machine falls on each alike
            for name in CONTENDERS:
                print(f"running {name} ({k + 1} of {args.repeat}) ...", flush=True)
                runs[name].append(run_contender(name, csv, args.data_dir.resolve()))
        results = {name: median_run(r) for name, r in runs.items()}
    finally:
        if generated and not args.keep:
            shutil.rmtree(csv.parent)

    base = results["duckdb"]
    print(f"\nTPC-H lineitem, scale factor {args.scale_factor:g}: {csv}")
    if args.repeat > 1:
        for name, r in runs.items():
            seconds = ", ".join(f"{x['cpu']:.2f}" for x in r)
            print(f"  {name} CPU seconds of {args.repeat} runs: {seconds}")
    print(f"file size {size / MiB:,.1f} MiB, {base['rows']:,} rows\n")
    print(
        f"{'contender':<10} {'seconds':>8} {'peak MiB':>9} {'time/duckdb':>12} {'peak/file':>10} {'cpu s':>7} {'cpu/duckdb':>11}"
    )
    for name, r in results.items():
        cpu = f"{r['cpu']:>7.2f} {r['cpu'] / base['cpu']:>10.2f}x" if "cpu" in r and "cpu" in base else ""
        print(
            f"{name:<10} {r['seconds']:>8.2f} {r['peak_rss'] / MiB:>9,.0f} {r['seconds'] / base['seconds']:>11.2f}x {r['peak_rss'] / size:>9.2f}x {cpu}"
        )

    tab = results["tabular"]
    print(f"\ntabular chose ({tab['rows']:,} rows, {tab['rows_rejected']:,} rejected):")
    for name, kind, physical in tab["columns"]:
        print(f"  {name:<16} {kind:<8} {physical}")

    time_ratio, memory_ratio = tab["seconds"] / base["seconds"], tab["peak_rss"] / size
    over = tab["peak_rss"] - size
    target = TIME_TARGETS.get(args.scale_factor, min(TIME_TARGETS.values()))
    print("\ntargets:")
    for label, ok, detail in [
        ("rows equal DuckDB's", tab["rows"] == base["rows"], f"{tab['rows']:,} vs {base['rows']:,}"),
        (f"time <= {target}x DuckDB", time_ratio <= target, f"{time_ratio:.2f}x"),
        (
            "peak memory <= file + 300 MiB",
            over <= MEMORY_TARGET,
            f"{memory_ratio:.2f}x the file, {over / MiB:+,.0f} MiB",
        ),
    ]:
        print(f"  {label:<32} {'PASS' if ok else 'MISS'}  ({detail})")


if __name__ == "__main__":
    main()
