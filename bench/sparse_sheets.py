"""Sparse sheets (issue 53): a few values whose extent passes max_sheet_cells, ingested one per
fresh process; prints seconds, peak RSS and what the user gets (datasets and rows, or the code).

    python bench/sparse_sheets.py [--only ods:rows,xlsx:far] [--tree /tmp/old] [--fast]

The workbooks are tests/hostile_workbooks.py's sparse shapes (a table at the top, values far
from it; ODS with repeated empty rows and cells, XLSX with far rows and references, .xls with
cells moved to IV65536), written to a temporary folder. `--tree` imports another checkout's
tabular (an old commit, to compare); `--fast` sets sheet_fast_bytes=0 (the columnar reader).
Done when (issue 53): each is read under 1.5 GB or refused with a code, in seconds.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import BENCH, ROOT, peak_rss_bytes

CASES = (
    "ods:rows",
    "ods:columns",
    "ods:far",
    "ods:sheets",
    "ods:dense",
    "xlsx:rows",
    "xlsx:columns",
    "xlsx:far",
    "xlsx:sheets",
    "xlsx:dimension",
    "xls:far",
    "xls:sheets",
)
TIMEOUT = 300
GB = 1 << 30


def run_case(case: str, tree: Path, fast: bool) -> dict:
    """In this process: make the file, ingest it, answer what a user sees."""
    sys.path[:] = [str(tree), str(ROOT / "tests")] + [p for p in sys.path if Path(p or ".").resolve() != BENCH]
    import hostile_workbooks as hw

    import tabular

    fmt, shape = case.split(":")
    with tempfile.TemporaryDirectory() as tmp:
        make = {"ods": hw.sparse_ods, "xlsx": hw.sparse_xlsx, "xls": hw.sparse_xls}[fmt]
        path = make(Path(tmp) / f"{shape}.{fmt}", shape)
        size = path.stat().st_size
        settings = {"sheet_fast_bytes": 0} if fast else {}
        with tabular.connect(str(Path(tmp) / "home"), **settings) as engine:
            ns = engine.namespace("bench", "sparse")
            start = time.perf_counter()
            status = ns.ingest_file(path, source_uri=path.name)
            seconds = time.perf_counter() - start
            got = ns.dataset_get(path.name).datasets if status.state == "ready" else []
        return {
            "case": case,
            "bytes": size,
            "seconds": round(seconds, 2),
            "peak_gb": round(peak_rss_bytes() / GB, 2),
            "state": status.state,
            "code": status.error_code,
            "message": (status.error_message or "")[:160],
            "datasets": [(d.dataset_id, d.origin.range, d.rows) for d in got],
            "warnings": [w[:160] for d in got for w in d.warnings][:3],
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated cases, e.g. ods:rows,xls:far")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose tabular is measured")
    parser.add_argument("--fast", action="store_true", help="sheet_fast_bytes=0: the columnar reader")
    parser.add_argument("--case", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case, args.tree.resolve(), args.fast)))
        return
    cases = args.only.split(",") if args.only else CASES
    print(f"tree {args.tree}{' (sheet_fast_bytes=0)' if args.fast else ''}")
    for case in cases:
        cmd = [sys.executable, __file__, "--case", case, "--tree", str(args.tree)] + (["--fast"] if args.fast else [])
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            print(f"{case:15} over {TIMEOUT} s")
            continue
        if done.returncode:
            print(f"{case:15} exit {done.returncode}: {done.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.loads(done.stdout.strip().splitlines()[-1])
        said = r["datasets"] if r["state"] == "ready" else f"{r['code']}: {r['message']}"
        print(f"{case:15} {r['bytes']:>6} B {r['seconds']:>7.2f} s {r['peak_gb']:>5.2f} GB  {r['state']:6} {said}")
        for w in r["warnings"]:
            print(f"{'':17}warning: {w}")


if __name__ == "__main__":
    main()
