"""Stream every row of TPC-H lineitem out of tabular (ns.export to CSV and Parquet, and
ns.query(plan).to_polars(whole=True)); DuckDB's own COPY and .pl() on the same snapshot file
as the anchor; check that memory stays flat from one scale factor to the next.

    python bench/export.py [--scale-factors 0.1,1] [--data-dir bench/data] [--repeat 3] [--keep]

For each scale factor the lineitem CSV (DIR/sf<SF>/lineitem.csv, generated with tpchgen-cli
when missing, and kept) is ingested once into a fresh tabular home (not timed). Then, each in a
fresh subprocess (`--child NAME`) that prints one JSON line with its seconds and peak RSS
(ru_maxrss of that process), `--repeat` times, interleaved:

- tabular   `ns.export({"datasets": [{"source_uri": "lineitem"}]}, file)` to .csv and .parquet
- DuckDB    `COPY (SELECT <columns> FROM s.data) TO file` on the snapshot file ATTACHed
            READ_ONLY (`__row_id` left out; Parquet with zstd, as tabular writes it), and the
            same ORDER BY __row_id (the order tabular streams its rows in)
- tabular   `ns.query(plan).to_polars(whole=True)`
- DuckDB    `duckdb.sql("SELECT <columns> FROM s.data ORDER BY __row_id").pl()`

Seconds are the median of the runs, peak RSS the highest. Targets (issue 17): the peak of an
export at the largest scale factor within 200 MB of the one at the smallest (memory flat in the
result's size), and to_polars(whole=True) <= 1.5x DuckDB's .pl() at the largest scale factor.
The exit status is 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, lineitem_csv, print_result, run_json, use_working_tree

PLAN = {"datasets": [{"source_uri": "lineitem"}]}
SOURCE_URI = "lineitem"
ROW_ID = "__row_id"
FORMATS = ("csv", "parquet")
FLAT_TARGET = 200 * 1000 * 1000  # an export's peak RSS at SF1 within 200 MB of SF0.1's
POLARS_TARGET = 1.5  # to_polars(whole=True) <= 1.5 x DuckDB's .pl()
TIMEOUT = 3600  # seconds one child may take
MiB = 1024 * 1024
MB = 1000 * 1000

EXPORTERS = {  # contender -> label in the table
    "tabular-export": "tabular ns.export",
    "duckdb-copy": "DuckDB COPY",
    "duckdb-copy-ordered": "DuckDB COPY ORDER BY __row_id",
}


# --- children: each runs alone in its own process ----------------------------------------------


def snapshot_columns(con) -> list[str]:
    """The snapshot's columns without tabular's row id, quoted, in the table's order."""
    names = con.execute(
        "SELECT column_name FROM duckdb_columns() WHERE database_name = 's' AND schema_name = 'main' AND table_name = 'data' ORDER BY column_index"
    ).fetchall()
    return ['"' + n.replace('"', '""') + '"' for (n,) in names if n != ROW_ID]


def attach(snapshot: Path):
    import duckdb

    con = duckdb.connect()
    con.execute(f"ATTACH '{snapshot}' AS s (READ_ONLY)")
    return con


def frame_facts(frame) -> dict:
    """Rows, schema and an order-sensitive fingerprint of a Polars frame (not timed), so two
    processes' frames can be compared without moving them."""
    import numpy as np

    hashes = frame.hash_rows(seed=0).to_numpy()  # the same in every process for the same seed
    with np.errstate(over="ignore"):  # uint64 wraps around, as a checksum may
        fingerprint = int((hashes * np.arange(1, len(hashes) + 1, dtype=np.uint64)).sum(dtype=np.uint64))
    return {"rows": frame.height, "schema": [f"{n}: {t}" for n, t in frame.schema.items()], "fingerprint": fingerprint}


def child_prepare(args) -> dict:
    """Ingest the CSV into a fresh home; its rows, snapshot id and columns."""
    use_working_tree()
    import tabular

    csv = args.csv
    engine = tabular.connect(str(args.home), max_upload_bytes=max(csv.stat().st_size + 1, 256 * MiB))
    ns = engine.namespace("bench", "export")
    start = time.perf_counter()
    status = ns.ingest_file(csv, source_uri=SOURCE_URI)
    seconds = time.perf_counter() - start
    assert status.state == "ready", (status.state, status.error_code, status.error_message)
    (dataset,) = ns.dataset_get(SOURCE_URI).datasets
    engine.close()
    return {
        "seconds": seconds,
        "rows": dataset.rows,
        "rows_rejected": dataset.rows_rejected,
        "snapshot_id": dataset.snapshot_id,
        "columns": [(c.name, c.type, c.physical) for c in dataset.columns],
    }


def child_tabular_export(args) -> dict:
    use_working_tree()
    import tabular

    engine = tabular.connect(str(args.home))
    ns = engine.namespace("bench", "export")
    start = time.perf_counter()
    rows = ns.export(PLAN, str(args.out))
    seconds = time.perf_counter() - start
    engine.close()
    return {"seconds": seconds, "rows": rows, "bytes": args.out.stat().st_size}


def child_duckdb_copy(args, ordered: bool = False) -> dict:
    con = attach(args.snapshot)
    columns = ", ".join(snapshot_columns(con))
    order = f' ORDER BY "{ROW_ID}"' if ordered else ""
    options = "FORMAT csv, HEADER true" if args.out.suffix == ".csv" else "FORMAT parquet, COMPRESSION zstd"
    start = time.perf_counter()
    (rows,) = con.execute(f"COPY (SELECT {columns} FROM s.data{order}) TO '{args.out}' ({options})").fetchone()
    seconds = time.perf_counter() - start
    con.close()
    return {"seconds": seconds, "rows": rows, "bytes": args.out.stat().st_size}


def child_duckdb_copy_ordered(args) -> dict:
    return child_duckdb_copy(args, ordered=True)


def child_tabular_polars(args) -> dict:
    use_working_tree()
    import tabular

    engine = tabular.connect(str(args.home))
    ns = engine.namespace("bench", "export")
    start = time.perf_counter()
    answer = ns.query(PLAN)  # the answer's first page (knowledge.query), then every row streamed
    paged = time.perf_counter()
    frame = answer.to_polars(whole=True)
    seconds = time.perf_counter() - start
    facts = frame_facts(frame)
    engine.close()
    return {"seconds": seconds, "first_page": paged - start, **facts}


def child_duckdb_polars(args) -> dict:
    import duckdb

    duckdb.sql(f"ATTACH '{args.snapshot}' AS s (READ_ONLY)")
    columns = ", ".join(snapshot_columns(duckdb.default_connection()))
    start = time.perf_counter()
    frame = duckdb.sql(f'SELECT {columns} FROM s.data ORDER BY "{ROW_ID}"').pl()
    seconds = time.perf_counter() - start
    return {"seconds": seconds, **frame_facts(frame)}


CHILDREN = {
    "prepare": child_prepare,
    "tabular-export": child_tabular_export,
    "duckdb-copy": child_duckdb_copy,
    "duckdb-copy-ordered": child_duckdb_copy_ordered,
    "tabular-polars": child_tabular_polars,
    "duckdb-polars": child_duckdb_polars,
}


# --- the driver ---------------------------------------------------------------------------------


def child(name: str, **paths: Path) -> dict:
    """Run `export.py --child NAME` in a fresh process and answer its JSON line, or {"error":
    why} when it failed: a broken tabular must not hide the anchor's numbers."""
    cmd = [sys.executable, __file__, "--child", name]
    for key, value in paths.items():
        cmd += [f"--{key}", str(value)]
    return run_json(cmd, TIMEOUT)


def summary(runs: list[dict]) -> dict:
    """Median seconds and highest peak of the runs (the first error, if one failed)."""
    failed = [r for r in runs if "error" in r]
    if failed:
        return failed[0]
    return {
        **runs[-1],
        "seconds": statistics.median(r["seconds"] for r in runs),
        "peak_rss": max(r["peak_rss"] for r in runs),
        "runs": [round(r["seconds"], 3) for r in runs],
        "first_pages": [r.get("first_page", 0.0) for r in runs],
    }


def measure_sf(csv: Path, home: Path, work: Path, repeat: int) -> dict:
    print(f"ingesting {csv} (not measured) ...", flush=True)
    prepared = child("prepare", csv=csv, home=home)
    if "error" in prepared:
        sys.exit(f"ingest failed: {prepared['error']}")
    snapshot = home / "snapshots" / f"{prepared['snapshot_id']}.duckdb"
    if not snapshot.exists():
        sys.exit(f"no snapshot file at {snapshot}")
    print(
        f"  {prepared['rows']:,} rows, {prepared['rows_rejected']:,} rejected, {prepared['seconds']:.1f} s; snapshot {snapshot.stat().st_size / MiB:,.0f} MiB",
        flush=True,
    )
    exports: dict[tuple[str, str], list[dict]] = {(c, f): [] for c in EXPORTERS for f in FORMATS}
    polars: dict[str, list[dict]] = {"tabular-polars": [], "duckdb-polars": []}
    for k in range(repeat):  # interleaved, so drift in the machine touches every contender alike
        print(f"  run {k + 1} of {repeat}: exports ...", flush=True)
        for fmt in FORMATS:
            for name in EXPORTERS:
                out = work / f"out.{fmt}"
                args = {"home": home} if name.startswith("tabular") else {"snapshot": snapshot}
                exports[name, fmt].append(child(name, out=out, **args))
                out.unlink(missing_ok=True)
        print(f"  run {k + 1} of {repeat}: to_polars(whole=True) and .pl() ...", flush=True)
        polars["tabular-polars"].append(child("tabular-polars", home=home))
        polars["duckdb-polars"].append(child("duckdb-polars", snapshot=snapshot))
    return {
        "prepared": prepared,
        "snapshot_bytes": snapshot.stat().st_size,
        "exports": {key: summary(runs) for key, runs in exports.items()},
        "polars": {key: summary(runs) for key, runs in polars.items()},
    }


def cell(r: dict, width_s: int = 8, width_m: int = 9) -> str:
    if "error" in r:
        return f"{'FAILED':>{width_s}} {'':>{width_m}}"
    return f"{r['seconds']:>{width_s}.2f} {r['peak_rss'] / MiB:>{width_m},.0f}"


def ratio_cell(r: dict, base: dict, width_s: int = 8, width_m: int = 9) -> str:
    if "error" in r or "error" in base:
        return f"{'-':>{width_s}} {'-':>{width_m}}"
    time_ratio = f"{r['seconds'] / base['seconds']:.2f}x"
    return f"{time_ratio:>{width_s}} {(r['peak_rss'] - base['peak_rss']) / MiB:>+{width_m},.0f}"


def print_sf(sf: float, result: dict, repeat: int) -> None:
    p = result["prepared"]
    print(
        f"\nTPC-H lineitem, scale factor {sf:g}: {p['rows']:,} rows, snapshot {result['snapshot_bytes'] / MiB:,.0f} MiB "
        f"(ingested in {p['seconds']:.1f} s, not measured)"
    )
    print(f"export of every row: median seconds and highest peak RSS (MiB) of {repeat} runs, each in a fresh process\n")
    print(
        f"{'contender':<30} {'csv s':>8} {'csv MiB':>9} {'parquet s':>10} {'parquet MiB':>11}  rows, file MiB (csv / parquet)"
    )
    ex = result["exports"]
    for name, label in EXPORTERS.items():
        csv, pq = ex[name, "csv"], ex[name, "parquet"]
        files = " / ".join("-" if "error" in r else f"{r['rows']:,}, {r['bytes'] / MiB:,.0f}" for r in (csv, pq))
        print(f"{label:<30} {cell(csv)} {cell(pq, 10, 11)}  {files}")
    base = "duckdb-copy"
    print(
        f"{'tabular / DuckDB COPY':<30} {ratio_cell(ex['tabular-export', 'csv'], ex[base, 'csv'])} "
        f"{ratio_cell(ex['tabular-export', 'parquet'], ex[base, 'parquet'], 10, 11)}  (time ratio, peak MiB over)"
    )
    print(
        f"{'tabular / COPY ORDER BY':<30} {ratio_cell(ex['tabular-export', 'csv'], ex['duckdb-copy-ordered', 'csv'])} "
        f"{ratio_cell(ex['tabular-export', 'parquet'], ex['duckdb-copy-ordered', 'parquet'], 10, 11)}"
    )
    for (name, fmt), r in ex.items():
        if "error" in r:
            print(f"  {EXPORTERS[name]} to {fmt} FAILED: {r['error']}")


def print_polars(results: dict[float, dict], repeat: int) -> None:
    print(
        f"\nevery row as a Polars frame: median seconds of {repeat} interleaved runs, highest peak RSS, each in a fresh process"
    )
    print(
        'tabular: ns.query(plan).to_polars(whole=True); DuckDB: duckdb.sql("SELECT <columns> FROM s.data ORDER BY __row_id").pl()\n'
    )
    print(
        f"{'SF':<5} {'rows':>10} {'tabular s':>10} {'peak MiB':>9} {'DuckDB s':>9} {'peak MiB':>9} {'ratio':>7}  same frame  runs (tabular | DuckDB)"
    )
    for sf, result in results.items():
        tab, duck = result["polars"]["tabular-polars"], result["polars"]["duckdb-polars"]
        if "error" in tab or "error" in duck:
            print(
                f"{sf:<5g} {'':>10} {cell(tab, 10)} {cell(duck, 9)}  tabular: {tab.get('error', 'ok')}; DuckDB: {duck.get('error', 'ok')}"
            )
            continue
        ratio = f"{tab['seconds'] / duck['seconds']:.2f}x"
        print(
            f"{sf:<5g} {duck['rows']:>10,} {cell(tab, 10)} {cell(duck, 9)} {ratio:>7}  {'yes' if same_frame(tab, duck) else 'NO':<10}  "
            f"{', '.join(f'{s:.2f}' for s in tab['runs'])} | {', '.join(f'{s:.2f}' for s in duck['runs'])}"
        )
        print(
            f"      of which ns.query(plan) (knowledge.query's first page, before to_polars streams): {statistics.median(tab['first_pages']):.3f} s"
        )
        if tab["schema"] != duck["schema"]:
            print(f"      schemas differ: tabular {tab['schema']}\n                      DuckDB  {duck['schema']}")


def same_frame(tab: dict, duck: dict) -> bool:
    return tab["rows"] == duck["rows"] and tab["schema"] == duck["schema"] and tab["fingerprint"] == duck["fingerprint"]


def machine_line() -> str:
    import duckdb
    import polars
    import pyarrow

    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return (
        f"machine: {os.cpu_count()} cores, {ram / 1024**3:.1f} GiB RAM, {platform.platform()}, Python {platform.python_version()}, "
        f"DuckDB {duckdb.__version__}, Polars {polars.__version__}, PyArrow {pyarrow.__version__}"
    )


def targets(results: dict[float, dict]) -> list[tuple[str, bool | None, str]]:
    small, big = min(results), max(results)
    checks: list[tuple[str, bool | None, str]] = []
    for fmt, shown in (("csv", "CSV"), ("parquet", "Parquet")):
        label = f"{shown} export peak at SF{big:g} within 200 MB of SF{small:g}"
        lo, hi = results[small]["exports"]["tabular-export", fmt], results[big]["exports"]["tabular-export", fmt]
        if small == big:
            checks.append((label, None, "needs two scale factors"))
        elif "error" in lo or "error" in hi:
            checks.append((label, False, f"an export failed: {hi.get('error') or lo.get('error')}"))
        else:
            over = hi["peak_rss"] - lo["peak_rss"]
            checks.append(
                (
                    label,
                    over <= FLAT_TARGET,
                    f"{over / MB:+,.0f} MB: {lo['peak_rss'] / MiB:,.0f} -> {hi['peak_rss'] / MiB:,.0f} MiB",
                )
            )
    tab, duck = results[big]["polars"]["tabular-polars"], results[big]["polars"]["duckdb-polars"]
    label = f"to_polars(whole=True) <= {POLARS_TARGET:g}x DuckDB .pl() at SF{big:g}"
    if "error" in tab or "error" in duck:
        checks.append((label, False, f"failed: {tab.get('error') or duck.get('error')}"))
    else:
        ratio = tab["seconds"] / duck["seconds"]
        checks.append(
            (label, ratio <= POLARS_TARGET, f"{ratio:.2f}x: {tab['seconds']:.2f} s vs {duck['seconds']:.2f} s")
        )
    for sf, result in results.items():
        want = result["prepared"]["rows"]
        got = [r.get("rows") for r in result["exports"].values()]
        checks.append(
            (
                f"every export wrote all {want:,} rows at SF{sf:g}",
                all(g == want for g in got),
                ", ".join(f"{g:,}" if g is not None else "failed" for g in got),
            )
        )
        tab, duck = result["polars"]["tabular-polars"], result["polars"]["duckdb-polars"]
        ok = "error" not in tab and "error" not in duck and same_frame(tab, duck)
        checks.append(
            (f"to_polars(whole=True) is DuckDB's frame at SF{sf:g}", ok, "rows, schema and row-order fingerprint")
        )
    return checks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=ROOT / "bench" / "data")
    parser.add_argument(
        "--scale-factors",
        default="0.1,1",
        help="TPC-H scale factors, comma-separated (the target compares the largest with the smallest)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs of each contender, each in a fresh process (the median time is reported)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the tabular homes (their path is printed)")
    parser.add_argument("--child", choices=CHILDREN, help=argparse.SUPPRESS)
    parser.add_argument("--csv", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--home", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--snapshot", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return print_result(CHILDREN[args.child](args))

    scale_factors = sorted({float(s) for s in args.scale_factors.split(",") if s.strip()})
    data_dir = args.data_dir.resolve()
    csvs = {sf: lineitem_csv(data_dir, sf)[0] for sf in scale_factors}
    work = Path(tempfile.mkdtemp(prefix="export-", dir=data_dir))
    try:
        results = {sf: measure_sf(csv, work / f"sf{sf:g}" / "home", work, args.repeat) for sf, csv in csvs.items()}
    finally:
        if args.keep:
            print(f"\nhomes kept under {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    for sf, result in results.items():
        print_sf(sf, result, args.repeat)
    print_polars(results, args.repeat)
    print(f"\n{machine_line()}")
    print(
        "peak MiB: ru_maxrss of the child process, interpreter and imports included (about the same in every child of a kind)"
    )

    checks = targets(results)
    print("\ntargets:")
    for label, ok, detail in checks:
        verdict = "n/a " if ok is None else ("PASS" if ok else "MISS")
        print(f"  {label:<52} {verdict}  ({detail})")
    if any(ok is False for _, ok, _ in checks):
        sys.exit(1)


if __name__ == "__main__":
    main()
