"""TPC-H as an outside oracle: every query the plan language can express, written as a plan
(bench/tpch/qNN.json), answered by tabular over data it typed itself, and checked against DuckDB
running the official SQL text of that query (bench/tpch/qNN.sql) on the same CSV files loaded
with the official schema (DECIMAL(15, 2) money).

    python bench/tpch.py --scale-factor 1 [--data-dir bench/data] [--repeat 3]

Prints, per query, whether the answers agree (decimals digit for digit, DOUBLEs within 1e-9),
tabular's end-to-end time ÷ DuckDB's time for the official SQL over the same snapshot tables, and
the floor (tabular's compiled SQL run alone by DuckDB, its rows read as Arrow or as Python values,
whichever costs less, ÷ the same) and tabular's overhead (the whole call − that SQL alone: checking,
compiling, the receipt and the JSON). `--cpu` times by this process's CPU time. tests/test_tpch.py
runs the same check at SF0.01.
Which queries cannot be written, and why: bench/tpch/README.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import statistics
import sys
import tempfile
import time
from decimal import Decimal
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # imported by the tests: last, so bench/http.py shadows nothing
    sys.path.append(str(HERE))
from common import tpch_csvs, use_working_tree  # noqa: E402

PLANS = HERE / "tpch"
TABLES = ("nation", "region", "part", "supplier", "partsupp", "customer", "orders", "lineitem")
RATIO_TARGET = 1.1  # issue 58: every query within 1.1x of DuckDB's official SQL, end to end
ANSWER_ROWS = 10_000  # the most rows an answer holds (SPEC §4)
OVERHEAD_TARGET_MS = 2.0  # issue 58: the call's fixed cost (the whole call - its SQL alone)

# The official schema (TPC-H 2.18, §1.4): identifiers as BIGINT, money as DECIMAL(15, 2), text as VARCHAR.
DDL = {
    "nation": "n_nationkey BIGINT, n_name VARCHAR, n_regionkey BIGINT, n_comment VARCHAR",
    "region": "r_regionkey BIGINT, r_name VARCHAR, r_comment VARCHAR",
    "part": "p_partkey BIGINT, p_name VARCHAR, p_mfgr VARCHAR, p_brand VARCHAR, p_type VARCHAR, p_size BIGINT, p_container VARCHAR, "
    "p_retailprice DECIMAL(15, 2), p_comment VARCHAR",
    "supplier": "s_suppkey BIGINT, s_name VARCHAR, s_address VARCHAR, s_nationkey BIGINT, s_phone VARCHAR, s_acctbal DECIMAL(15, 2), s_comment VARCHAR",
    "partsupp": "ps_partkey BIGINT, ps_suppkey BIGINT, ps_availqty BIGINT, ps_supplycost DECIMAL(15, 2), ps_comment VARCHAR",
    "customer": "c_custkey BIGINT, c_name VARCHAR, c_address VARCHAR, c_nationkey BIGINT, c_phone VARCHAR, c_acctbal DECIMAL(15, 2), "
    "c_mktsegment VARCHAR, c_comment VARCHAR",
    "orders": "o_orderkey BIGINT, o_custkey BIGINT, o_orderstatus VARCHAR, o_totalprice DECIMAL(15, 2), o_orderdate DATE, o_orderpriority VARCHAR, "
    "o_clerk VARCHAR, o_shippriority BIGINT, o_comment VARCHAR",
    "lineitem": "l_orderkey BIGINT, l_partkey BIGINT, l_suppkey BIGINT, l_linenumber BIGINT, l_quantity DECIMAL(15, 2), l_extendedprice DECIMAL(15, 2), "
    "l_discount DECIMAL(15, 2), l_tax DECIMAL(15, 2), l_returnflag VARCHAR, l_linestatus VARCHAR, l_shipdate DATE, l_commitdate DATE, "
    "l_receiptdate DATE, l_shipinstruct VARCHAR, l_shipmode VARCHAR, l_comment VARCHAR",
}
# Where a query's answer column is named otherwise by the plan (the official name is an expression).
NAMES = {"q18": {"sum(l_quantity)": "sum_quantity"}}


def queries() -> list[str]:
    return sorted(p.stem for p in PLANS.glob("q*.json") if (PLANS / f"{p.stem}.sql").exists())


def plan(name: str) -> dict:
    return json.loads((PLANS / f"{name}.json").read_text())


def generate(sf: float, folder: Path) -> dict[str, Path]:
    """The CSVs of every table at scale factor `sf` (tpchgen-cli), made once per folder."""
    return tpch_csvs(folder, sf, TABLES)


def reference_tables(con, csvs: dict[str, Path]) -> None:
    """The CSVs loaded into DuckDB under the official schema."""
    for table, path in csvs.items():
        con.execute(f"CREATE OR REPLACE TABLE {table} ({DDL[table]})")
        con.execute(f"COPY {table} FROM '{path}' (HEADER, DELIMITER ',', QUOTE '\"')")


def official(con, name: str) -> tuple[list[str], list[tuple]]:
    """The official SQL's answer: (column names, rows). Q15's view is made and dropped around it."""
    result = ([], [])
    for statement in (PLANS / f"{name}.sql").read_text().split(";"):
        if not statement.strip():
            continue
        cur = con.execute(statement)
        if statement.strip().lower().startswith("select"):
            result = ([d[0] for d in cur.description], cur.fetchall())
    return result


def fetch(cur, sql: str, params: dict):
    """A statement's rows as Arrow: DuckDB's own time, no Python value made per cell."""
    return cur.execute(sql, params).to_arrow_table()


def fetch_rows(cur, sql: str, params: dict):
    """A statement's rows as Python values (DB-API): for a few rows less than Arrow costs."""
    return cur.execute(sql, params).fetchall()


def same(got, want) -> bool:
    if got is None or want is None:
        return got is None and want is None
    if isinstance(want, float):
        return math.isclose(float(got), want, rel_tol=1e-9)
    if isinstance(want, (int, Decimal)) and not isinstance(want, bool):
        return Decimal(str(got)) == Decimal(want)  # digit for digit: 17 and 17.00 are one value
    if isinstance(want, dt.date):
        return got == want.isoformat()
    return got == want


def differences(name: str, answer: dict, names: list[str], rows: list[tuple]) -> list[str]:
    """What differs between tabular's answer (JSON) and the official one; [] when they agree."""
    ours = [c["name"] for c in answer["columns"]]
    lowered = {n.lower(): k for k, n in enumerate(ours)}
    rename = NAMES.get(name, {})
    where = []
    for n in names:
        k = lowered.get(rename.get(n, n).lower())
        if k is None:
            return [f"no answer column for {n!r} (tabular's: {ours})"]
        where.append(k)
    if len(answer["rows"]) < len(rows) and answer.get("truncated") and len(answer["rows"]) == ANSWER_ROWS:
        rows = rows[:ANSWER_ROWS]  # an answer holds 10,000 rows at most: those are the official first ones
    if len(answer["rows"]) != len(rows):
        return [f"{len(answer['rows'])} rows, the official SQL {len(rows)}"]
    out = []
    for i, (got, want) in enumerate(zip(answer["rows"], rows)):
        for n, k, w in zip(names, where, want):
            if not same(got[k], w):
                out.append(f"row {i} {n}: {got[k]!r} ≠ {w!r}")
    return out[:10]


def ingest(ns, csvs: dict[str, Path]) -> None:
    for table, path in csvs.items():
        status = ns.ingest_file(path, source_uri=f"{table}.csv")
        if status.state != "ready":
            raise SystemExit(f"{table}: {status.state} {status.error_code} {status.error_message}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale-factor", type=float, default=1.0)
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per query after a warm-up (median)")
    parser.add_argument("--queries", default="", help="comma-separated names (q02,q13); default: every one")
    parser.add_argument(
        "--home", type=Path, default=None, help="keep tabular's home here: ingested once, reused by later runs"
    )
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="time by this process's CPU time (DuckDB's threads included), not the wall clock: on a loaded machine "
        "the wall clock counts the time other processes hold the cores",
    )
    args = parser.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter
    use_working_tree()
    import duckdb

    import tabular

    csvs = generate(args.scale_factor, args.data_dir.resolve() / f"tpch-sf{args.scale_factor:g}")
    reference = duckdb.connect()
    reference_tables(reference, csvs)
    biggest = max(p.stat().st_size for p in csvs.values())
    with tempfile.TemporaryDirectory(prefix="tpch-", dir=args.data_dir) as work:
        home = args.home or Path(work) / "home"
        ingested = (home / "catalog.sqlite").exists()
        engine = tabular.connect(str(home), max_upload_bytes=biggest + 1)
        ns = engine.namespace("bench", "tpch")
        start = time.perf_counter()
        if ingested:
            print(f"the tables at SF{args.scale_factor:g} as ingested before in {home}", flush=True)
        else:
            ingest(ns, csvs)
            print(
                f"ingested {len(csvs)} tables at SF{args.scale_factor:g} in {time.perf_counter() - start:.1f} s (not measured)",
                flush=True,
            )
        print("timed by", "this process's CPU time (DuckDB's threads included)" if args.cpu else "the wall clock")
        print(
            f"{'query':6} {'agrees':7} {'tabular ms':>11} {'duckdb ms':>10} {'ratio':>6} {'sql ratio':>9} {'overhead ms':>12}"
            f" {'best ratio':>10} {'best ovh ms':>11}"
        )
        failed, summary = False, []
        for name in [q for q in queries() if not args.queries or q in args.queries.split(",")]:
            body = {"org": "bench", "namespace": "tpch", "limit": ANSWER_ROWS, **plan(name)}
            answer = engine.call("knowledge.query", body)
            names, rows = official(reference, name)
            diff = differences(name, answer, names, rows)
            # The anchor: the official SQL by DuckDB over the same snapshot tables tabular reads.
            cur = engine.catalog.cursor()
            for d in answer["receipt"]["datasets"]:
                table = d["source_uri"].removesuffix(".csv")
                cur.execute(f'CREATE OR REPLACE TEMP VIEW {table} AS SELECT * FROM "{d["snapshot_id"]}".main.data')
            official(cur, name)  # warm-up
            # The floor: the SQL tabular compiled for the plan, run alone by DuckDB over the same
            # tables, its rows read the cheaper way in each run, as Arrow or as Python values
            # (no checking, receipt or JSON). The overhead: the median of each run's whole call
            # minus its SQL alone, the answer's JSON rows included.
            sql, params = answer["receipt"]["sql"], answer["receipt"]["params"]
            fetch(cur, sql, params)
            ours, theirs, as_arrow, as_rows = [], [], [], []
            runs = (
                (ours, partial(engine.call, "knowledge.query", body)),
                (theirs, partial(official, cur, name)),
                (as_arrow, partial(fetch, cur, sql, params)),
                (as_rows, partial(fetch_rows, cur, sql, params)),
            )
            for _ in range(args.repeat):
                for times, run in runs:
                    start = clock()
                    run()
                    times.append((clock() - start) * 1000)
            cur.close()
            alone = [min(pair) for pair in zip(as_arrow, as_rows)]
            t, d, a = statistics.median(ours), statistics.median(theirs), statistics.median(alone)
            ratio, overhead = t / d, statistics.median(o - s for o, s in zip(ours, alone))
            # Best of the runs: on a loaded machine the fastest run of each is the one least
            # slowed by other processes (printed beside the medians, which the targets judge).
            best_ratio, best_overhead = min(ours) / min(theirs), min(ours) - min(alone)
            failed |= bool(diff) or ratio > RATIO_TARGET or overhead > OVERHEAD_TARGET_MS
            summary.append((not diff, ratio, overhead, best_ratio, best_overhead))
            print(
                f"{name:6} {'yes' if not diff else 'NO':7} {t:11.1f} {d:10.1f} {ratio:6.2f} {a / d:9.2f} {overhead:12.2f}"
                f" {best_ratio:10.2f} {best_overhead:11.2f}",
                flush=True,
            )
            for line in diff:
                print("   ", line)
        engine.close()
    n = len(summary)
    print(f"{sum(row[0] for row in summary)}/{n} agree")
    for label, r, o in (("median of the runs", 1, 2), ("best of the runs", 3, 4)):
        within = sum(row[r] <= RATIO_TARGET for row in summary)
        under = sum(row[o] <= OVERHEAD_TARGET_MS for row in summary)
        print(
            f"{label}: {within}/{n} within {RATIO_TARGET}x end to end (worst {max(row[r] for row in summary):.2f}x); "
            f"{under}/{n} with overhead <= {OVERHEAD_TARGET_MS:g} ms (median {statistics.median(row[o] for row in summary):.2f} ms)"
        )
    print(
        f"targets: agree on every query, ratio <= {RATIO_TARGET} end to end, overhead <= {OVERHEAD_TARGET_MS:g} ms: "
        f"{'FAIL' if failed else 'PASS'}"
    )


if __name__ == "__main__":
    main()
