"""Run three TPC-H-shaped plans through knowledge.query and as hand-written DuckDB SQL; compare.

    python bench/query.py --scale-factor 1 [--data-dir bench/data] [--repeat 5] [--engine clickhouse]

The CSVs of lineitem, orders and customer are ingested once into a fresh tabular home (not
timed). Each plan then runs end to end through `engine.call("knowledge.query", plan)`, and its
SQL equivalent runs on the same DuckDB connection over the same snapshot tables. With `--engine
clickhouse` the same plans also run through knowledge.query on ClickHouse (chdb, in process, over
the snapshots exported as Parquet), beside DuckDB, and both are printed. See bench/README.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import statistics
import tempfile
import time
from decimal import Decimal
from pathlib import Path

from common import ROOT, tpch_csvs, use_working_tree

TABLES = ("lineitem", "orders", "customer")
RATIO_TARGET = 1.2  # tabular end to end <= 1.2 x the hand-written SQL
OVERHEAD_TARGET_MS = 5.0  # tabular's own time (receipt total - execute) < 5 ms
MiB = 1024 * 1024

Q1 = {
    "datasets": [{"source_uri": "lineitem.csv"}],
    "where": [{"column": "l_shipdate", "op": "le", "value": "1998-09-02"}],
    "group_by": [{"column": "l_returnflag"}, {"column": "l_linestatus"}],
    "aggregates": [
        {"fn": "sum", "column": "l_quantity", "as": "sum_qty"},
        {"fn": "sum", "column": "l_extendedprice", "as": "sum_base_price"},
        {"fn": "sum", "column": "l_tax", "as": "sum_tax"},
        {"fn": "avg", "column": "l_quantity", "as": "avg_qty"},
        {"fn": "avg", "column": "l_extendedprice", "as": "avg_price"},
        {"fn": "avg", "column": "l_discount", "as": "avg_disc"},
        {"fn": "count", "as": "count_order"},
    ],
    "order_by": [{"column": "l_returnflag"}, {"column": "l_linestatus"}],
}
Q1_SQL = """SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price,
  sum(l_tax) AS sum_tax, avg(l_quantity) AS avg_qty, avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc,
  count(*) AS count_order
FROM {lineitem} WHERE l_shipdate <= DATE '1998-09-02'
GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus"""

Q3 = {
    "datasets": [{"source_uri": "customer.csv"}, {"source_uri": "orders.csv"}, {"source_uri": "lineitem.csv"}],
    "where": [
        {"column": "c_mktsegment", "op": "eq", "value": "BUILDING"},
        {"column": "o_orderdate", "op": "lt", "value": "1995-03-15"},
        {"column": "l_shipdate", "op": "gt", "value": "1995-03-15"},
    ],
    "joins": [
        {"alias": "orders", "on": [{"left": "c_custkey", "right": "o_custkey"}]},
        {"alias": "lineitem", "on": [{"left": "o_orderkey", "right": "l_orderkey"}]},
    ],
    "group_by": [{"column": c, "as": c} for c in ("l_orderkey", "o_orderdate", "o_shippriority")],
    "aggregates": [{"fn": "sum", "column": "l_extendedprice", "as": "revenue"}],
    "order_by": [{"column": "revenue", "desc": True}, {"column": "o_orderdate"}],
    "limit": 10,
}
Q3_SQL = """SELECT l_orderkey, o_orderdate, o_shippriority, sum(l_extendedprice) AS revenue
FROM {customer} JOIN {orders} ON c_custkey = o_custkey JOIN {lineitem} ON o_orderkey = l_orderkey
WHERE c_mktsegment = 'BUILDING' AND o_orderdate < DATE '1995-03-15' AND l_shipdate > DATE '1995-03-15'
GROUP BY l_orderkey, o_orderdate, o_shippriority ORDER BY revenue DESC, o_orderdate LIMIT 10"""

Q6 = {
    "datasets": [{"source_uri": "lineitem.csv"}],
    "where": [
        {"column": "l_shipdate", "op": "between", "values": ["1994-01-01", "1994-12-31"]},
        {"column": "l_discount", "op": "between", "values": [0.05, 0.07]},
        {"column": "l_quantity", "op": "lt", "value": 24},
    ],
    "aggregates": [{"fn": "sum", "column": "l_extendedprice", "as": "revenue"}],
}
Q6_SQL = """SELECT sum(l_extendedprice) AS revenue FROM {lineitem}
WHERE l_shipdate BETWEEN DATE '1994-01-01' AND DATE '1994-12-31' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"""

PLANS = {"Q1": (Q1, Q1_SQL), "Q3": (Q3, Q3_SQL), "Q6": (Q6, Q6_SQL)}


# --- data ---------------------------------------------------------------------------------------


def ensure_csvs(data_dir: Path, sf: float) -> dict[str, Path]:
    """The three CSVs for this scale factor; only the missing ones are generated (and kept)."""
    return tpch_csvs(data_dir / f"sf{sf:g}", sf, TABLES)


# --- measuring ----------------------------------------------------------------------------------


def same_value(got, want) -> bool:
    """tabular's JSON value against DuckDB's Python value (decimals and big integers come as text)."""
    if got is None or want is None:
        return got is None and want is None
    if isinstance(want, float):
        return math.isclose(float(got), want, rel_tol=1e-9)
    if isinstance(want, (int, Decimal)) and not isinstance(want, bool):
        return Decimal(str(got)) == Decimal(want)
    if isinstance(want, (dt.date, dt.time)):  # datetime is a date too
        return got == want.isoformat()
    return got == want


def same_rows(got: list[list], want: list[tuple]) -> bool:
    return len(got) == len(want) and all(
        len(g) == len(w) and all(same_value(a, b) for a, b in zip(g, w)) for g, w in zip(got, want)
    )


def measure(engine, plan: dict, sql_template: str, repeat: int) -> dict:
    body = {"org": "bench", "namespace": "tpch", **plan}
    answer = engine.call("knowledge.query", body)  # warm-up; its receipt names the snapshot tables
    tables = {d["dataset_id"]: f'"{d["snapshot_id"]}".main.data' for d in answer["receipt"]["datasets"]}
    sql = sql_template.format(**tables)
    cur = engine.catalog.cursor()
    want = cur.execute(sql).fetchall()  # warm-up
    runs, duck = [], []
    for _ in range(repeat):  # interleaved, so drift in the machine touches both alike
        start = time.perf_counter()
        answer = engine.call("knowledge.query", body)
        e2e = (time.perf_counter() - start) * 1000
        runs.append((e2e, answer["receipt"]["elapsed_ms"]))
        start = time.perf_counter()
        want = cur.execute(sql).fetchall()
        duck.append((time.perf_counter() - start) * 1000)
    cur.close()
    med = lambda f: statistics.median(f(e2e, ms) for e2e, ms in runs)
    return {  # encode (rows to JSON values, the receipt) = overhead - validate - compile
        "tabular": med(lambda e2e, ms: e2e),
        "duckdb": statistics.median(duck),
        "validate": med(lambda e2e, ms: ms["validate"]),
        "compile": med(lambda e2e, ms: ms["compile"]),
        "execute": med(lambda e2e, ms: ms["execute"]),
        "overhead": med(lambda e2e, ms: ms["total"] - ms["execute"]),
        "outside": med(lambda e2e, ms: e2e - ms["total"]),
        "rows": len(answer["rows"]),
        "same": same_rows(answer["rows"], want),
        "incomplete": answer["incomplete"],
    }


def measure_clickhouse(engine, plan: dict, repeat: int) -> dict:
    """The plan through knowledge.query on DuckDB and on ClickHouse, interleaved; the first
    ClickHouse run (export to Parquet and load, once per snapshot) is reported apart."""
    from dataclasses import replace

    from tabular.ops.query import QueryIn, query

    body = QueryIn.model_validate({"org": "bench", "namespace": "tpch", **plan})
    duck_ctx = engine.context
    ch_ctx = replace(duck_ctx, settings=replace(duck_ctx.settings, query_engine="clickhouse"))
    start = time.perf_counter()
    ch = query(ch_ctx, body).model_dump(mode="json")
    first = (time.perf_counter() - start) * 1000
    duck = query(duck_ctx, body).model_dump(mode="json")
    duck_ms, ch_ms = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        duck = query(duck_ctx, body).model_dump(mode="json")
        duck_ms.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        ch = query(ch_ctx, body).model_dump(mode="json")
        ch_ms.append((time.perf_counter() - start) * 1000)
    same = (
        duck["columns"] == ch["columns"]
        and len(duck["rows"]) == len(ch["rows"])
        and all(
            all(
                math.isclose(a, b, rel_tol=1e-9)
                if isinstance(a, float) and isinstance(b, float)
                else (a == b and type(a) is type(b))
                for a, b in zip(d, c)
            )
            for d, c in zip(duck["rows"], ch["rows"])
        )
    )
    return {
        "duckdb": statistics.median(duck_ms),
        "clickhouse": statistics.median(ch_ms),
        "first": first,
        "rows": len(ch["rows"]),
        "same": same,
        "engine": ch["receipt"]["engine"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale-factor", type=float, default=1.0, help="TPC-H scale factor; fractions like 0.1 work")
    parser.add_argument("--data-dir", type=Path, default=ROOT / "bench" / "data")
    parser.add_argument(
        "--repeat", type=int, default=5, help="timed runs per plan, after one warm-up (the median is reported)"
    )
    parser.add_argument(
        "--engine",
        choices=["duckdb", "clickhouse"],
        default="duckdb",
        help="clickhouse: also run the plans on ClickHouse (chdb) beside DuckDB and print both",
    )
    args = parser.parse_args()
    use_working_tree()
    import tabular

    data_dir = args.data_dir.resolve()
    csvs = ensure_csvs(data_dir, args.scale_factor)
    biggest = max(p.stat().st_size for p in csvs.values())
    with tempfile.TemporaryDirectory(prefix="query-", dir=data_dir) as work:
        # The default max_upload_bytes (256 MiB) refuses SF1's lineitem; raise it past the biggest file.
        engine = tabular.connect(str(Path(work) / "home"), max_upload_bytes=max(biggest + 1, 256 * MiB))
        ns = engine.namespace("bench", "tpch")
        for name, path in csvs.items():
            start = time.perf_counter()
            st = ns.ingest_file(path, source_uri=path.name)
            assert st.state == "ready", (name, st.state, st.error_code, st.error_message)
            (d,) = ns.dataset_get(path.name).datasets
            print(
                f"ingested {path.name}: {d.rows:,} rows, {d.rows_rejected:,} rejected, {time.perf_counter() - start:.1f} s (not measured)",
                flush=True,
            )
        results = {}
        for name, (plan, sql) in PLANS.items():
            print(f"running {name} ...", flush=True)
            results[name] = measure(engine, plan, sql, args.repeat)
        clickhouse = {}
        if args.engine == "clickhouse":
            for name, (plan, _) in PLANS.items():
                print(f"running {name} on ClickHouse ...", flush=True)
                clickhouse[name] = measure_clickhouse(engine, plan, args.repeat)
        engine.close()
    print(f"\nTPC-H scale factor {args.scale_factor:g}, median of {args.repeat} runs after one warm-up, ms\n")
    print(f"{'plan':<5} {'tabular ms':>11} {'DuckDB ms':>10} {'ratio':>7} {'overhead ms':>12} {'rows':>5}  same rows")
    for name, r in results.items():
        print(
            f"{name:<5} {r['tabular']:>11.2f} {r['duckdb']:>10.2f} {r['tabular'] / r['duckdb']:>6.2f}x "
            f"{r['overhead']:>12.2f} {r['rows']:>5}  {'yes' if r['same'] else 'NO'}"
        )
    print(
        "\noverhead = receipt elapsed_ms total - execute = validate + compile + encode (rows to JSON values, receipt);"
    )
    print("outside = end to end - receipt total (engine.call: input model, output model_dump)\n")
    print(f"{'plan':<5} {'validate':>9} {'compile':>8} {'encode':>7} {'outside':>8} {'execute':>8}")
    for name, r in results.items():
        encode = r["overhead"] - r["validate"] - r["compile"]
        print(
            f"{name:<5} {r['validate']:>9.2f} {r['compile']:>8.2f} {encode:>7.2f} {r['outside']:>8.2f} {r['execute']:>8.2f}"
        )

    note = "" if args.scale_factor == 1 else f" (stated for SF1; this is SF{args.scale_factor:g})"
    print(f"\ntargets{note}:")
    for name, r in results.items():
        ratio = r["tabular"] / r["duckdb"]
        for label, ok, detail in [
            (f"{name} same rows as the SQL", r["same"], f"{r['rows']} rows"),
            (f"{name} time <= {RATIO_TARGET}x DuckDB", ratio <= RATIO_TARGET, f"{ratio:.2f}x"),
            (
                f"{name} overhead < {OVERHEAD_TARGET_MS:g} ms",
                r["overhead"] < OVERHEAD_TARGET_MS,
                f"{r['overhead']:.2f} ms",
            ),
        ]:
            print(f"  {label:<30} {'PASS' if ok else 'MISS'}  ({detail})")
    for name, r in results.items():
        for reason in r["incomplete"]:
            print(f"{name} answered complete: false ({reason})")
    if clickhouse:
        engine_name = next(iter(clickhouse.values()))["engine"]
        print(f"\nknowledge.query on DuckDB and on {engine_name}, median of {args.repeat} runs, ms (first: the first")
        print("ClickHouse run, which exports the snapshots to Parquet and loads them, once)\n")
        print(
            f"{'plan':<5} {'DuckDB ms':>10} {'ClickHouse ms':>14} {'ratio':>7} {'first ms':>9} {'rows':>5}  same answer"
        )
        for name, r in clickhouse.items():
            print(
                f"{name:<5} {r['duckdb']:>10.2f} {r['clickhouse']:>14.2f} {r['clickhouse'] / r['duckdb']:>6.2f}x "
                f"{r['first']:>9.0f} {r['rows']:>5}  {'yes' if r['same'] else 'NO'}"
            )


if __name__ == "__main__":
    main()
