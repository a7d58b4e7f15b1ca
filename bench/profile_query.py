"""Where a knowledge.query call's time goes, on the TPC-H plans (bench/tpch/qNN.json): per query
the call end to end beside its SQL alone (the anchor, in the same run) and the fixed cost
between them; the stages of the call, timed around the functions that make them; and, from
cProfile, the functions that take the most of their own time.

    python bench/profile_query.py [--scale-factor 0.1] [--calls 20] [--queries q02,q16] [--home DIR]

`--home DIR` keeps the ingested home there, so a second run goes straight to the measuring.
`--cpu` times the stages by this thread's CPU time, and the call beside its SQL by this process's
(DuckDB's threads included), instead of the wall clock: on a loaded machine the wall clock counts
the time other processes hold the cores. See bench/README.md.
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import importlib
import importlib.util
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.append(str(HERE))
from common import use_working_tree  # noqa: E402

# A stage: (label, module, function, class or None). Each is timed around that function; a
# stage inside another (the receipt inside the answer) is also counted in the one around it.
STAGES = [
    ("input model (engine._input)", "tabular.engine", "_input", "Engine"),
    ("  of which the input check", "tabular.engine", "unusable", None),
    ("plan text (cache keys)", "tabular.ops.query", "plan_text", None),
    ("resolve + compile, or cache", "tabular.ops.query", "prepared", None),
    ("place snapshots", "tabular.backends.duckdb", "place", "DuckDBBackend"),
    ("run: DuckDB + rows to JSON", "tabular.backends.duckdb", "run", "DuckDBBackend"),
    ("  of which rows from Arrow", "tabular.backends.duckdb", "arrow_json", None),
    ("  of which rows as values", "tabular.backends.duckdb", "json_rows", None),
    ("shared part (built once a plan)", "tabular.ops.query", "shared_parts", None),
    ("answer (receipt, QueryOut)", "tabular.ops.query", "_answer", None),
    ("  of which the receipt", "tabular.ops.query", "fresh_receipt", None),
    ("answer dump (model_dump)", "tabular.ops.query", "model_dump", "QueryOut"),
]


def _timed(clock, spent: dict) -> None:
    """Each stage's function wrapped so that its time adds to spent[label]."""
    for label, module, name, owner in STAGES:
        target = importlib.import_module(module)
        if owner:
            target = getattr(target, owner)
        fn = getattr(target, name, None)
        if fn is None:
            print(f"(no {module}.{name}: the stage {label!r} is not timed)")
            continue

        def wrapped(*args, _fn=fn, _label=label, **kwargs):
            start = clock()
            try:
                return _fn(*args, **kwargs)
            finally:
                spent[_label] += clock() - start

        setattr(target, name, wrapped)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale-factor", type=float, default=0.1)
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument("--home", type=Path, default=None, help="keep the ingested home here (reused when present)")
    parser.add_argument("--calls", type=int, default=20, help="calls per query, for each measure")
    parser.add_argument("--queries", default="", help="comma-separated names (q02,q16); default: every one")
    parser.add_argument("--top", type=int, default=25, help="functions listed by their own time")
    parser.add_argument("--cpu", action="store_true", help="time the stages by this thread's CPU time")
    args = parser.parse_args()
    use_working_tree()
    spec = importlib.util.spec_from_file_location("tpch", HERE / "tpch.py")  # bench/ is off the path now
    tpch = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tpch)
    import tabular

    csvs = tpch.generate(args.scale_factor, args.data_dir.resolve() / f"tpch-sf{args.scale_factor:g}")
    biggest = max(p.stat().st_size for p in csvs.values())
    with tempfile.TemporaryDirectory(prefix="profile-", dir=args.data_dir) as work:
        home = args.home or Path(work) / "home"
        fresh = not (home / "catalog.sqlite").exists()
        engine = tabular.connect(str(home), max_upload_bytes=biggest + 1)
        if fresh:
            start = time.perf_counter()
            tpch.ingest(engine.namespace("bench", "tpch"), csvs)
            print(f"ingested SF{args.scale_factor:g} in {time.perf_counter() - start:.1f} s (not measured)")
        names = [q for q in tpch.queries() if not args.queries or q in args.queries.split(",")]
        bodies = {q: {"org": "bench", "namespace": "tpch", "limit": tpch.ANSWER_ROWS, **tpch.plan(q)} for q in names}
        fixed = _fixed_costs(engine, tpch, bodies, args.calls, time.process_time if args.cpu else time.perf_counter)
        stages = _stages(engine, bodies, args.calls, time.thread_time if args.cpu else time.perf_counter)
        profiler = cProfile.Profile()
        profiler.enable()
        for body in bodies.values():
            for _ in range(args.calls):
                engine.call("knowledge.query", body)
        profiler.disable()
        engine.close()
    print(
        f"\nfixed cost (the call - its SQL alone, its rows read the cheaper way): median over queries {statistics.median(fixed):.2f} ms"
    )
    clock = "CPU" if args.cpu else "wall"
    print(f"\nstages, {clock} ms per call: the median over queries of each query's median ({args.calls} calls)")
    for label, *_ in STAGES + [("call (engine.call, end to end)",)]:
        print(f"  {label:34} {statistics.median(stages[label]):8.3f}")
    print(f"\nthe {args.top} functions with the most own time under cProfile (DuckDB's calls included, for scale):")
    pstats.Stats(profiler).sort_stats("tottime").print_stats(args.top)


def _fixed_costs(engine, tpch, bodies: dict, calls: int, clock) -> list[float]:
    """Per query, the call end to end beside its SQL alone, interleaved, by `clock` (with --cpu
    this process's CPU time, DuckDB's threads included); their medians printed."""
    what = "process CPU" if clock is time.process_time else "wall"
    print(f"{'query':6} {'call ms':>8} {'sql ms':>7} {'fixed ms':>9} {'rows':>6}  ({what}, median of {calls})")
    out = []
    for name, body in bodies.items():
        answer = engine.call("knowledge.query", body)
        sql, params = answer["receipt"]["sql"], answer["receipt"]["params"]
        cur = engine.catalog.cursor()
        tpch.fetch(cur, sql, params)
        took, alone = [], []
        for _ in range(calls):  # interleaved: the machine's drift touches both alike
            start = clock()
            engine.call("knowledge.query", body)
            took.append((clock() - start) * 1000)
            ways = []  # the SQL's rows read as Arrow and as Python values: the cheaper is the anchor
            for fetch in (tpch.fetch, tpch.fetch_rows):
                start = clock()
                fetch(cur, sql, params)
                ways.append((clock() - start) * 1000)
            alone.append(min(ways))
        cur.close()
        out.append(statistics.median(c - a for c, a in zip(took, alone)))
        print(
            f"{name:6} {statistics.median(took):8.2f} {statistics.median(alone):7.2f} {out[-1]:9.2f} {len(answer['rows']):6}",
            flush=True,
        )
    return out


def _stages(engine, bodies: dict, calls: int, clock) -> dict[str, list[float]]:
    """Per stage, each query's median milliseconds per call."""
    spent: dict[str, float] = collections.defaultdict(float)
    _timed(clock, spent)
    per: dict[str, list[float]] = collections.defaultdict(list)
    for body in bodies.values():
        runs: dict[str, list[float]] = collections.defaultdict(list)
        for _ in range(calls):
            spent.clear()
            start = clock()
            engine.call("knowledge.query", body)
            runs["call (engine.call, end to end)"].append((clock() - start) * 1000)
            for label, *_ in STAGES:
                runs[label].append(spent[label] * 1000)
        for label, values in runs.items():
            per[label].append(statistics.median(values))
    return per


if __name__ == "__main__":
    main()
