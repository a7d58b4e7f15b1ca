"""What the benchmarks share: the import path, peak memory of a contender's process, and the
TPC-H generator."""

from __future__ import annotations

import resource
import shutil
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent


def use_working_tree() -> None:
    """Import this working tree's tabular, whatever the current directory, and take bench/ off
    the import path: bench/http.py would otherwise shadow the standard library's `http` (which
    httpx and uvicorn import). Call it first, before importing anything else."""
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH]
    sys.path.insert(0, str(ROOT))


def peak_rss_bytes() -> int:
    """The most memory this process (or any child it waited for) held at once."""
    unit = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    return unit * max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))


def tpchgen() -> str:
    beside = Path(sys.executable).parent / "tpchgen-cli"
    found = str(beside) if beside.exists() else shutil.which("tpchgen-cli")
    if not found:
        sys.exit("tpchgen-cli not found next to this Python or on PATH (pip install tpchgen-cli)")
    return found


def tpch_csvs(folder: Path, sf: float, tables: list[str]) -> dict[str, Path]:
    """The CSVs of `tables` at scale factor `sf` in `folder`; only the missing ones are generated
    (aside, so an interrupted run leaves no half file behind) and they are kept."""
    import subprocess
    import tempfile

    folder.mkdir(parents=True, exist_ok=True)
    missing = [t for t in tables if not (folder / f"{t}.csv").exists()]
    if missing:
        print(f"generating TPC-H {', '.join(missing)} at scale factor {sf:g} into {folder} ...", flush=True)
        partial = Path(tempfile.mkdtemp(prefix="partial-", dir=folder))
        cmd = [
            tpchgen(),
            "--format",
            "csv",
            "-s",
            f"{sf:g}",
            "--tables",
            ",".join(missing),
            "--output-dir",
            str(partial),
        ]
        subprocess.run(cmd, check=True, capture_output=True)
        for t in missing:
            (partial / f"{t}.csv").replace(folder / f"{t}.csv")
        partial.rmdir()
    return {t: folder / f"{t}.csv" for t in tables}


def duckdb_ctas(csv: Path, work: Path) -> dict:
    """The anchor: DuckDB's own `CREATE TABLE AS SELECT * FROM read_csv` into a file database."""
    import time

    import duckdb

    con = duckdb.connect(str(work / "bench.duckdb"))
    start = time.perf_counter()
    con.execute(f"CREATE TABLE t AS SELECT * FROM read_csv('{csv}')")
    seconds = time.perf_counter() - start
    rows = con.execute("SELECT count(*) FROM t").fetchone()[0]
    con.close()
    return {"seconds": seconds, "rows": rows}


def print_result(result: dict) -> None:
    """A contender's last line: its result and its peak memory, as JSON."""
    import json

    print(json.dumps({**result, "peak_rss": peak_rss_bytes()}, default=str))


def run_contender(script: str, name: str, csv: Path, data_dir: Path, timeout: float) -> dict:
    """Run `script --contender NAME` in a fresh process and answer its JSON line, or
    {"error": why} when it failed or ran past `timeout`: a broken tabular must not hide the
    anchor's numbers."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix=f"{name}-", dir=data_dir) as work:
        return run_json([sys.executable, script, "--contender", name, "--csv", str(csv), "--work", work], timeout)


def run_json(cmd: list[str], timeout: float) -> dict:
    """Run `cmd` and answer the JSON object on the last line it printed, or {"error": why}
    when it failed or ran past `timeout` (its stderr is passed on)."""
    import json
    import subprocess

    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"stopped after {timeout} s"}
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return {"error": last}
    return json.loads(done.stdout.strip().splitlines()[-1])


def lineitem_csv(data_dir: Path, sf: float) -> tuple[Path, bool]:
    """TPC-H lineitem as CSV at scale factor `sf` under data_dir/sf<sf>, and whether this call
    generated it (generated aside, so an interrupted run leaves no half file behind)."""
    import subprocess

    folder = data_dir / f"sf{sf:g}"
    csv = folder / "lineitem.csv"
    if csv.exists():
        return csv, False
    partial = folder / "partial"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    print(f"generating TPC-H lineitem at scale factor {sf:g} into {folder} ...", flush=True)
    subprocess.run(
        [tpchgen(), "--format", "csv", "-s", f"{sf:g}", "--tables", "lineitem", "--output-dir", str(partial)],
        check=True,
    )
    (partial / "lineitem.csv").replace(csv)
    partial.rmdir()
    return csv, True


def tabular_ingest(csv: Path, work: Path, **settings) -> dict:
    """tabular's `ingest_file` of the CSV on a fresh home, timed to `ready`; the dataset's rows,
    rejected rows and (name, type, physical) columns. `max_upload_bytes` is raised to the file's
    size (the default, 256 MiB, refuses large ones)."""
    import time

    use_working_tree()
    import tabular

    engine = tabular.connect(str(work / "home"), max_upload_bytes=max(csv.stat().st_size + 1, 256 << 20), **settings)
    ns = engine.namespace("bench", "ingest")
    start = time.perf_counter()
    status = ns.ingest_file(csv, source_uri=csv.name)
    seconds = time.perf_counter() - start
    assert status.state == "ready", (status.state, status.error_code, status.error_message)
    (dataset,) = ns.dataset_get(csv.name).datasets
    engine.close()
    return {
        "seconds": seconds,
        "rows": dataset.rows,
        "rows_rejected": dataset.rows_rejected,
        "columns": [(c.name, c.type, c.physical) for c in dataset.columns],
    }
