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

    python bench/export.py --join [--join-rows 4000000,36000000] [--repeat 1]

A join's whole export instead (issue 53): a table of n rows whose key takes 100 values
(`k = i % 100`, generated, ingested once, not timed) joined with itself on k, so the result has
n^2 / 100 rows: 4 M and 36 M rows from 20,000 and 60,000. Each in a fresh process: tabular's
`ns.export(plan, file)` in the engine's order (no order_by), the same with `whole_order:
"stable"` (the sorted order, its memory cost), and DuckDB's own `COPY (<the same join>) TO file`
on the snapshot file as the anchor, to Parquet. Memory is the growth of the process's peak RSS
over its RSS before the export (interpreter, imports and the open engine left out). Target: the
growth at the largest result within 150 MB of the one at the smallest (memory flat in the
result), for tabular's unordered export.
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

from common import ROOT, lineitem_csv, peak_rss_bytes, print_result, run_json, use_working_tree

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


# --- a join's whole export (issue 53) -----------------------------------------------------------

JOIN_KEYS = 100  # distinct keys: a self-join of n rows gives n^2 / JOIN_KEYS rows
JOIN_TARGET = 150 * MB  # the growth at the largest result within 150 MB of the smallest's
JOIN_URI = "pairs"
JOIN_EXPORTERS = {
    "tabular-join": "tabular ns.export (engine order)",
    "tabular-join-stable": 'tabular whole_order "stable"',
    "duckdb-join": "DuckDB COPY (anchor)",
}


def join_plan(stable: bool = False) -> dict:
    plan = {
        "datasets": [{"source_uri": JOIN_URI, "alias": "a"}, {"source_uri": JOIN_URI, "alias": "b"}],
        "joins": [{"alias": "b", "on": [{"left": "a.k", "right": "b.k"}]}],
    }
    return {**plan, "whole_order": "stable"} if stable else plan


def rss_now() -> int:
    """This process's resident memory now (bytes)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def child_join_prepare(args) -> dict:
    """A CSV of n rows (k = i % JOIN_KEYS, v = i) ingested into a fresh home."""
    use_working_tree()
    import duckdb

    import tabular

    csv = args.out
    duckdb.sql(f"COPY (SELECT i % {JOIN_KEYS} AS k, i AS v FROM range({args.rows}) t(i)) TO '{csv}' (HEADER)")
    engine = tabular.connect(str(args.home))
    ns = engine.namespace("bench", "export")
    status = ns.ingest_file(csv, source_uri=JOIN_URI)
    assert status.state == "ready", (status.state, status.error_code, status.error_message)
    (dataset,) = ns.dataset_get(JOIN_URI).datasets
    engine.close()
    return {"rows": dataset.rows, "snapshot_id": dataset.snapshot_id}


def child_tabular_join(args, stable: bool = False) -> dict:
    use_working_tree()
    import tabular

    engine = tabular.connect(str(args.home))
    ns = engine.namespace("bench", "export")
    ns.dataset_get(JOIN_URI)  # the catalog read once, before the baseline
    before = rss_now()
    start = time.perf_counter()
    rows = ns.export(join_plan(stable), str(args.out))
    seconds = time.perf_counter() - start
    grown = peak_rss_bytes() - before
    engine.close()
    return {"seconds": seconds, "rows": rows, "grown": grown}


def child_tabular_join_stable(args) -> dict:
    return child_tabular_join(args, stable=True)


def child_duckdb_join(args) -> dict:
    con = attach(args.snapshot)
    before = rss_now()
    start = time.perf_counter()
    (rows,) = con.execute(
        "COPY (SELECT a.k, a.v, b.k AS k_1, b.v AS v_1 FROM s.data a JOIN s.data b ON a.k = b.k) "
        f"TO '{args.out}' (FORMAT parquet, COMPRESSION zstd)"
    ).fetchone()
    seconds = time.perf_counter() - start
    grown = peak_rss_bytes() - before
    con.close()
    return {"seconds": seconds, "rows": rows, "grown": grown}


def measure_join(rows: int, work: Path, repeat: int) -> dict:
    """Each exporter's runs over a self-join of `rows` result rows."""
    home, source = work / f"join{rows}" / "home", int(round((rows * JOIN_KEYS) ** 0.5))
    print(f"generating and ingesting {source:,} rows for a join of {rows:,} (not measured) ...", flush=True)
    prepared = child("join-prepare", home=home, out=work / f"pairs{rows}.csv", rows=source)
    if "error" in prepared:
        sys.exit(f"ingest failed: {prepared['error']}")
    snapshot = home / "snapshots" / f"{prepared['snapshot_id']}.duckdb"
    runs: dict[str, list[dict]] = {name: [] for name in JOIN_EXPORTERS}
    for k in range(repeat):
        for name in JOIN_EXPORTERS:
            print(f"  run {k + 1} of {repeat}: {JOIN_EXPORTERS[name]} ...", flush=True)
            out = work / "join.parquet"
            args = {"home": home} if name.startswith("tabular") else {"snapshot": snapshot}
            runs[name].append(child(name, out=out, **args))
            out.unlink(missing_ok=True)
    return {name: summary(r) | {"grown": max(x.get("grown", 0) for x in r)} for name, r in runs.items()}


def print_join(results: dict[int, dict], repeat: int) -> list[tuple[str, bool | None, str]]:
    print(
        f"\na self-join's whole export to Parquet: median seconds, highest peak RSS growth (MiB) of {repeat} run(s)\n"
    )
    print(f"{'result rows':>12}  " + "  ".join(f"{label:>34}" for label in JOIN_EXPORTERS.values()))
    for rows, result in results.items():
        cells = []
        for name in JOIN_EXPORTERS:
            r = result[name]
            got = "FAILED" if "error" in r else f"{r['seconds']:.2f} s, +{r['grown'] / MiB:,.0f} MiB"
            cells.append(f"{got:>34}")
        print(f"{rows:>12,}  " + "  ".join(cells))
        for name in JOIN_EXPORTERS:
            if "error" in result[name]:
                print(f"  {JOIN_EXPORTERS[name]} FAILED: {result[name]['error']}")
    small, big = min(results), max(results)
    lo, hi = results[small]["tabular-join"], results[big]["tabular-join"]
    label = f"join export growth at {big / 1e6:g} M rows within 150 MB of {small / 1e6:g} M"
    if "error" in lo or "error" in hi:
        return [(label, False, f"failed: {hi.get('error') or lo.get('error')}")]
    checks = [(label, hi["grown"] - lo["grown"] <= JOIN_TARGET, f"{(hi['grown'] - lo['grown']) / MB:+,.0f} MB")]
    for rows, result in results.items():
        got = [result[name].get("rows") for name in JOIN_EXPORTERS]  # about `rows`: n^2 / 100 rounded
        label = f"every join export of ~{rows:,} wrote the anchor's rows"
        checks.append((label, None not in got and len(set(got)) == 1, ", ".join(f"{g:,}" for g in got if g)))
    return checks


CHILDREN = {
    "join-prepare": child_join_prepare,
    "tabular-join": child_tabular_join,
    "tabular-join-stable": child_tabular_join_stable,
    "duckdb-join": child_duckdb_join,
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
    parser.add_argument("--rows", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--join", action="store_true", help="a self-join's whole export instead (issue 53)")
    parser.add_argument("--join-rows", default="4000000,36000000", help="the joins' result rows, comma-separated")
    args = parser.parse_args()
    if args.child:
        return print_result(CHILDREN[args.child](args))
    if args.join:
        return main_join(args)

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


def main_join(args) -> None:
    data_dir = args.data_dir.resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="export-join-", dir=data_dir))
    try:
        sizes = sorted({int(n) for n in args.join_rows.split(",") if n.strip()})
        results = {rows: measure_join(rows, work, args.repeat) for rows in sizes}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    checks = print_join(results, args.repeat)
    print(f"\n{machine_line()}")
    print("growth: the child's peak RSS (ru_maxrss) less its RSS just before the export")
    print("\ntargets:")
    for label, ok, detail in checks:
        print(f"  {label:<52} {'PASS' if ok else 'MISS'}  ({detail})")
    if any(ok is False for _, ok, _ in checks):
        sys.exit(1)


if __name__ == "__main__":
    main()
