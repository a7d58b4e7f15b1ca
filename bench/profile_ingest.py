"""Where an ingest's time goes: one file through `ingest_file` on a fresh home, each stage timed
around the pipeline's own functions (wall seconds, CPU seconds of the whole process, share of
the ingest's wall time), and DuckDB's CTAS of the same file in the same run as the anchor.

    python bench/profile_ingest.py PATH                      # any file
    python bench/profile_ingest.py --lineitem 0.1            # TPC-H lineitem at SF 0.1 (bench/common.py)
    python bench/profile_ingest.py --wide 2000x500           # a wide file as bench/ingest_wide.py makes it
    python bench/profile_ingest.py --lineitem 0.1 --cprofile 25   # and cProfile of the job's thread

A stage is a function of tabular wrapped with a timer from here (nothing in tabular/ is changed):
each module that holds the function under its name gets the wrapped one. Stages nest as the
calls do, thread by thread: a stage's `self` is its time outside the stages inside it. CPU is
time.process_time(): every thread of the process, DuckDB's workers included, so a stage that
runs beside another (the upload's hash beside its copy) is counted in both. `--cprofile N`
profiles the ingest job's thread with cProfile and lists the N functions and modules with the
most time of their own (cProfile slows Python code: read its shares, not its seconds).
See bench/README.md.
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import importlib
import pstats
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.append(str(HERE))
from common import ROOT, duckdb_ctas, lineitem_csv, use_working_tree  # noqa: E402

# A stage: (label, module, function, class or None), in the order an ingest meets them.
STAGES = [
    ("ingest_file", "tabular.namespace", "ingest_file", "NamespaceOps"),
    ("upload: copy (and hash beside it)", "tabular.ingest.uploads", "store_file", None),
    ("upload hash (sha256, its own thread)", "tabular.ingest.uploads", "_sha256_of", None),
    ("ingest job (pipeline.run)", "tabular.ingest.pipeline", "run", None),
    ("file format", "tabular.ingest.pipeline", "file_format", None),
    ("same bytes live? (again.holding_revision)", "tabular.ingest.again", "holding_revision", None),
    ("open: detect encoding, sniff (open_fast)", "tabular.read.extraction", "open_fast", None),
    ("sniff the head (sniff.sniff)", "tabular.read.sniff", "sniff", None),
    ("read the head (Arrow)", "tabular.ingest.onepass", "read_head", None),
    ("sample typing (onepass.sample_typings)", "tabular.ingest.onepass", "sample_typings", None),
    ("guards (onepass.guards)", "tabular.ingest.onepass", "guards", None),
    ("new snapshot file (SnapshotFiles.new)", "tabular.store.snapshot_files", "new", "SnapshotFiles"),
    ("one pass, DuckDB's reader (write_parallel)", "tabular.ingest.onepass", "write_parallel", None),
    ("one pass, Arrow's stream (onepass.write)", "tabular.ingest.onepass", "write", None),
    ("guarded CREATE TABLE", "tabular.ingest.onepass", "_create", None),
    ("text columns on the careful sample", "tabular.ingest.onepass", "careful_sample_reads", None),
    ("byte scan waited for (FastRead.regular)", "tabular.read.extraction", "regular", "FastRead"),
    ("line count waited for (FastRead.lines)", "tabular.read.extraction", "lines", "FastRead"),
    ("column statistics (column_stats)", "tabular.store.snapshot", "column_stats", None),
    ("careful way: read (formats.read)", "tabular.read.formats", "read", None),
    ("careful way: typing (pipeline._type)", "tabular.ingest.pipeline", "_type", None),
    ("careful way: build (build_snapshot)", "tabular.store.snapshot", "build_snapshot", None),
    ("publish (pipeline._publish)", "tabular.ingest.pipeline", "_publish", None),
    ("rejected-rows table (write_rejected)", "tabular.store.snapshot", "write_rejected", None),
    ("seal the snapshot file (SnapshotFiles.seal)", "tabular.store.snapshot_files", "seal", "SnapshotFiles"),
    ("catalog rows (insert_snapshot)", "tabular.store.catalog", "insert_snapshot", None),
    ("retention (retention.prune)", "tabular.store.retention", "prune", None),
    ("settle the files (SnapshotFiles.settled)", "tabular.store.snapshot_files", "settled", "SnapshotFiles"),
    ("job status row (JobPool.update)", "tabular.ingest.jobs", "update", "JobPool"),
    ("upkeep (Sweeper.collect)", "tabular.store.sweep", "collect", "Sweeper"),
]


class Clock:
    """Per stage path (the labels from the thread's outermost stage in): calls, wall, CPU."""

    def __init__(self) -> None:
        self.spent: dict[tuple[str, ...], list[float]] = {}
        self.order: list[tuple[str, ...]] = []
        self.local = threading.local()
        self.lock = threading.Lock()

    def wrap(self, label: str, fn):
        clock = self

        def timed(*args, **kwargs):
            stack = clock.local.__dict__.setdefault("stack", [])
            path = (*stack[-1:][0], label) if stack else (f"[{threading.current_thread().name}]", label)
            stack.append(path)
            with clock.lock:
                if path not in clock.spent:
                    clock.spent[path] = [0, 0.0, 0.0]
                    clock.order.append(path)
            wall, cpu = time.perf_counter(), time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                stack.pop()
                with clock.lock:
                    row = clock.spent[path]
                    row[0] += 1
                    row[1] += wall
                    row[2] += cpu

        timed.__wrapped__ = fn  # type: ignore[attr-defined]
        return timed


def install(clock: Clock) -> list[str]:
    """Wrap every stage's function wherever tabular's modules hold it; answers the stages not found."""
    missing = []
    for label, module, name, owner in STAGES:
        try:
            target = importlib.import_module(module)
        except ImportError:
            missing.append(label)
            continue
        if owner:
            cls = getattr(target, owner, None)
            attr = cls.__dict__.get(name) if cls is not None else None
            if attr is None:
                missing.append(label)
                continue
            if isinstance(attr, property):
                setattr(cls, name, property(clock.wrap(label, attr.fget)))
            else:
                setattr(cls, name, clock.wrap(label, attr))
            continue
        fn = getattr(target, name, None)
        if fn is None:
            missing.append(label)
            continue
        timed = clock.wrap(label, fn)
        for mod in list(sys.modules.values()):  # `from x import f` binds f in the importer too
            if getattr(mod, "__name__", "").startswith("tabular") and getattr(mod, name, None) is fn:
                setattr(mod, name, timed)
    return missing


def report(clock: Clock, total_wall: float, total_cpu: float, anchor: dict | None) -> None:
    print(f"\n{'stage':<58} {'calls':>5} {'wall s':>8} {'self':>8} {'cpu s':>8} {'self':>8} {'share':>6}")
    for path in clock.order_tree():
        calls, wall, cpu = clock.spent[path]
        inner = [p for p in clock.spent if len(p) == len(path) + 1 and p[: len(path)] == path]
        self_wall = wall - sum(clock.spent[p][1] for p in inner)
        self_cpu = cpu - sum(clock.spent[p][2] for p in inner)
        label = "  " * (len(path) - 2) + path[-1] + ("" if len(path) > 2 else f" {path[0]}")
        print(
            f"{label[:58]:<58} {calls:>5} {wall:>8.3f} {self_wall:>8.3f} {cpu:>8.3f} {self_cpu:>8.3f} {wall / total_wall:>6.1%}"
        )
    print(f"\ningest_file: {total_wall:.3f} s wall, {total_cpu:.3f} s CPU (process, all threads)")
    if anchor:
        print(
            f"DuckDB CTAS of the same file (anchor, this run): {anchor['seconds']:.3f} s wall, {anchor['cpu']:.3f} s CPU; "
            f"ratio {total_wall / anchor['seconds']:.2f}x wall, {total_cpu / anchor['cpu']:.2f}x CPU"
        )


def _order_tree(self: Clock) -> list[tuple[str, ...]]:
    """Paths depth first, children in the order first seen; each thread's tree after the last."""
    children: dict[tuple[str, ...], list] = collections.defaultdict(list)
    roots = []
    for path in self.order:
        (children[path[:-1]] if len(path) > 2 else roots).append(path)
    out: list[tuple[str, ...]] = []

    def walk(p):
        out.append(p)
        for c in children.get(p, []):
            walk(c)

    for r in roots:
        walk(r)
    return out


Clock.order_tree = _order_tree  # type: ignore[attr-defined]


def by_module(profile: cProfile.Profile, top: int) -> None:
    stats = pstats.Stats(profile)
    modules: dict[str, float] = collections.Counter()
    for (filename, _line, _fn), (_cc, _nc, tottime, _ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        modules[_module_of(filename)] += tottime
    whole = sum(modules.values()) or 1.0
    print(f"\ncProfile of the job's thread: own time by module (top {top})")
    for name, seconds in sorted(modules.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {name:<60} {seconds:>8.3f} s {seconds / whole:>6.1%}")
    print(f"\ncProfile: functions by own time (top {top})")
    stats.sort_stats("tottime").print_stats(top)


def _module_of(filename: str) -> str:
    """tabular/ingest/onepass.py, duckdb, sqlglot/…: a file named by its package where it has one."""
    if filename.startswith("<") or filename == "~":
        return filename or "<built-in>"
    path = Path(filename)
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        pass
    parts = path.parts
    if "site-packages" in parts:
        i = parts.index("site-packages")
        return "/".join(parts[i + 1 : i + 3])
    return path.name


def profiled(top: int):
    """A wrapper of pipeline.run that profiles the thread it runs on (the ingest job's)."""
    profile = cProfile.Profile()
    pipeline = importlib.import_module("tabular.ingest.pipeline")
    run = pipeline.run

    def wrapped(*args, **kwargs):
        profile.enable()
        try:
            return run(*args, **kwargs)
        finally:
            profile.disable()

    pipeline.run = wrapped
    return lambda: by_module(profile, top)


def the_file(args, data_dir: Path) -> Path:
    if args.path:
        return args.path.resolve()
    if args.lineitem:
        return lineitem_csv(data_dir, args.lineitem)[0]  # kept: a later run reuses it
    rows, cols = (int(x) for x in args.wide.lower().split("x"))
    import ingest_wide

    return ingest_wide.ensure_csv(data_dir / "wide", rows, cols)[0]


def anchor_of(csv: Path, work: Path) -> dict:
    cpu = time.process_time()
    result = duckdb_ctas(csv, work)
    return {**result, "cpu": time.process_time() - cpu}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, nargs="?", help="the file to ingest")
    parser.add_argument("--lineitem", type=float, metavar="SF", help="TPC-H lineitem CSV at this scale factor")
    parser.add_argument("--wide", metavar="ROWSxCOLS", help="a wide CSV as bench/ingest_wide.py makes it (2000x500)")
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument("--no-anchor", action="store_true", help="skip DuckDB's CTAS of the file")
    parser.add_argument("--cprofile", type=int, default=0, metavar="N", help="also cProfile the job's thread: top N")
    args = parser.parse_args()
    if sum(x is not None for x in (args.path, args.lineitem, args.wide)) != 1:
        parser.error("give one of PATH, --lineitem SF, --wide ROWSxCOLS")
    csv = the_file(args, args.data_dir.resolve())
    print(f"{csv} ({csv.stat().st_size / 2**20:,.1f} MiB)")

    # What the ingest benches count as tabular's CPU (their contender's process_time) also holds
    # the imports the first ingest makes and the connect: timed here, beside the stages.
    whole = time.perf_counter(), time.process_time()
    use_working_tree()
    import tabular

    clock = Clock()
    with tempfile.TemporaryDirectory(prefix="profile-", dir=args.data_dir) as work:
        # The job's modules wrapped before the engine binds their methods (Catalog's parts).
        importlib.import_module("tabular.ingest.pipeline")
        missing = install(clock)
        if missing:
            print("not timed (not found): " + "; ".join(missing))
        show_profile = profiled(args.cprofile) if args.cprofile else None
        before = time.perf_counter(), time.process_time()
        engine = tabular.connect(str(Path(work) / "home"), max_upload_bytes=max(csv.stat().st_size + 1, 256 << 20))
        ns = engine.namespace("bench", "profile")
        connect = time.perf_counter() - before[0], time.process_time() - before[1]
        start = time.perf_counter(), time.process_time()
        status = ns.ingest_file(csv, source_uri=csv.name)
        wall, cpu = time.perf_counter() - start[0], time.process_time() - start[1]
        (dataset,) = ns.dataset_get(csv.name).datasets
        engine.close()
        bench = time.perf_counter() - whole[0], time.process_time() - whole[1]
        print(
            f"state {status.state}; {dataset.rows:,} rows, {dataset.rows_rejected:,} rejected, {len(dataset.columns)} columns"
        )
        print(
            f"imports (tabular, the pipeline's modules) before the ingest: {start[0] - whole[0] - connect[0]:.3f} s wall, {start[1] - whole[1] - connect[1]:.3f} s CPU"
        )
        print(f"connect: {connect[0]:.3f} s wall, {connect[1]:.3f} s CPU")
        anchor = None if args.no_anchor else anchor_of(csv, Path(work))
    report(clock, wall, cpu, anchor)
    print(
        f"as the ingest benches count it (imports, connect, ingest, dataset_get, close): {bench[0]:.3f} s wall, {bench[1]:.3f} s CPU"
        + (f"; {bench[1] / anchor['cpu']:.2f}x the anchor's CPU" if anchor else "")
    )
    if show_profile:
        show_profile()


if __name__ == "__main__":
    main()
