"""Ingest a generated XLSX with tabular against fastexcel's typed read, in rounds; time and peak memory.

    python bench/ingest_xlsx.py [--rows 200000] [--cols 12] [--rounds 3] [--openpyxl] [--data-dir bench/data] [--keep]

Each contender runs in a fresh subprocess (`--contender NAME`) that prints one JSON line:
seconds, CPU seconds, peak RSS (ru_maxrss of that process), rows, and for tabular the column
types it chose. The anchor (fastexcel) and tabular run one after the other in every round, so
each round's ratio compares two runs a few seconds apart, on whatever the machine's load is
then; the target holds only if it holds in every round (issue 58). See bench/README.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

from common import ROOT, peak_rss_bytes, use_working_tree

CONTENDERS = ("fastexcel", "openpyxl", "tabular")
TIME_TARGET = 2.5  # tabular seconds <= 2.5 x fastexcel's typed read, in every round (issue 58)
TIMEOUT = 600  # seconds one contender may take
MiB = 1024 * 1024

KINDS = (
    "id",
    "text",
    "date",
    "money",
    "percent",
    "small_int",
    "flag",
    "measure",
    "category",
    "stamp",
    "code",
    "amount",
)
FORMATS = {
    "date": "yyyy-mm-dd",
    "money": '"$"#,##0.00',
    "percent": "0.0%",
    "stamp": "yyyy-mm-dd hh:mm",
    "amount": "0.00",
}
WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa".split()
CATEGORIES = ("north", "south", "east", "west", "central", "online", "retail", "wholesale")


# --- the workbook -------------------------------------------------------------------------------


def cell_value(kind: str, row: int, rng: random.Random):
    if kind == "id":
        return row
    if kind == "text":
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 5)))
    if kind == "date":
        return dt.date(2020, 1, 1) + dt.timedelta(days=rng.randrange(2000))
    if kind == "money":
        return round(rng.uniform(0, 10_000), 2)
    if kind == "percent":
        return rng.randrange(1000) / 1000  # 0.125 and the like
    if kind == "small_int":
        return rng.randint(0, 100)
    if kind == "flag":
        return rng.random() < 0.5
    if kind == "measure":
        return round(rng.uniform(-1000, 1000), 3)
    if kind == "category":
        return rng.choice(CATEGORIES)
    if kind == "stamp":
        return dt.datetime(2020, 1, 1) + dt.timedelta(minutes=rng.randrange(3_000_000))
    if kind == "code":
        return f"{rng.randrange(10_000):05d}"  # a text cell, always with leading zeros: "00123"
    return Decimal(rng.randrange(-500_000, 500_000)) / 100  # amount: a decimal with 2 places


def ensure_xlsx(data_dir: Path, rows: int, cols: int) -> tuple[Path, bool]:
    """The workbook for this size, and whether this run generated it."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell

    path = data_dir / "xlsx" / f"{rows}x{cols}.xlsx"
    if path.exists():
        return path, False
    path.parent.mkdir(parents=True, exist_ok=True)
    print(f"generating {rows:,} rows x {cols} columns into {path} ...", flush=True)
    rng = random.Random(7)
    kinds = [KINDS[i % len(KINDS)] for i in range(cols)]
    wb = Workbook(write_only=True)
    ws = wb.create_sheet("data")
    ws.append([k if i < len(KINDS) else f"{k}_{i // len(KINDS) + 1}" for i, k in enumerate(kinds)])
    for row in range(1, rows + 1):
        out = []
        for kind in kinds:
            cell = WriteOnlyCell(ws, value=cell_value(kind, row, rng))
            if kind in FORMATS:
                cell.number_format = FORMATS[kind]
            out.append(cell)
        ws.append(out)
    partial = path.with_suffix(".partial")  # write aside, so an interrupted run leaves no half file behind
    wb.save(partial)
    partial.replace(path)
    return path, True


# --- contenders: each runs alone in its own process --------------------------------------------


def cpu_seconds() -> float:
    """CPU time this process has used so far, every thread's (user and system)."""
    t = os.times()
    return t.user + t.system


def run_fastexcel(path: Path, work: Path) -> dict:
    import fastexcel

    start, cpu = time.perf_counter(), cpu_seconds()
    table = fastexcel.read_excel(path).load_sheet(0).to_arrow()
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "cpu": cpu_seconds() - cpu, "rows": table.num_rows}


def run_openpyxl(path: Path, work: Path) -> dict:
    from openpyxl import load_workbook

    start, cpu = time.perf_counter(), cpu_seconds()
    wb = load_workbook(path, read_only=True, data_only=True)
    count = sum(1 for _ in wb.worksheets[0].iter_rows(values_only=True))
    seconds = time.perf_counter() - start
    wb.close()
    return {"seconds": seconds, "cpu": cpu_seconds() - cpu, "rows": count - 1}  # less the header row


def run_tabular(path: Path, work: Path) -> dict:
    use_working_tree()
    import tabular

    e = tabular.connect(str(work / "home"))
    ns = e.namespace("bench", "xlsx")
    start, cpu = time.perf_counter(), cpu_seconds()
    st = ns.ingest_file(path, source_uri="big.xlsx")
    seconds = time.perf_counter() - start
    cpu = cpu_seconds() - cpu
    assert st.state == "ready", (st.state, st.error_code, st.error_message)
    datasets = ns.dataset_get("big.xlsx").datasets
    e.close()
    return {
        "seconds": seconds,
        "cpu": cpu,
        "rows": sum(d.rows for d in datasets),
        "rows_rejected": sum(d.rows_rejected for d in datasets),
        "datasets": len(datasets),
        "columns": [(c.name, c.type, c.physical, c.format) for d in datasets for c in d.columns],
    }


def contender_main(name: str, path: Path, work: Path) -> None:
    result = globals()[f"run_{name}"](path, work)
    result["peak_rss"] = peak_rss_bytes()
    print(json.dumps(result))


# --- the driver ---------------------------------------------------------------------------------


def run_contender(name: str, path: Path, data_dir: Path) -> dict | None:
    """The contender's JSON line, or None when it ran past TIMEOUT."""
    with tempfile.TemporaryDirectory(prefix=f"{name}-", dir=data_dir) as work:
        cmd = [sys.executable, __file__, "--contender", name, "--xlsx", str(path), "--work", work]
        try:
            out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True, timeout=TIMEOUT).stdout
        except subprocess.TimeoutExpired:
            return None
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000, help="data rows below the header")
    parser.add_argument("--cols", type=int, default=12, help="columns, cycling over the 12 kinds")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of fastexcel then tabular (default 3)")
    parser.add_argument("--openpyxl", action="store_true", help="run openpyxl too, once (about 25x fastexcel)")
    parser.add_argument("--data-dir", type=Path, default=ROOT / "bench" / "data")
    parser.add_argument(
        "--keep", action="store_true", help="keep a workbook this run generated (one already there is always kept)"
    )
    parser.add_argument("--contender", choices=CONTENDERS, help=argparse.SUPPRESS)
    parser.add_argument("--xlsx", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.contender:
        return contender_main(args.contender, args.xlsx, args.work)

    data_dir = args.data_dir.resolve()
    path, generated = ensure_xlsx(data_dir, args.rows, args.cols)
    size = path.stat().st_size
    rounds: list[dict] = []
    load_before = os.getloadavg()[0]
    try:
        for k in range(1, max(args.rounds, 1) + 1):
            found = {}
            for name in ("fastexcel", "tabular"):
                print(f"round {k}: running {name} ...", flush=True)
                found[name] = run_contender(name, path, data_dir)
            rounds.append(found)
        extra = None
        if args.openpyxl:
            print("running openpyxl ...", flush=True)
            extra = run_contender("openpyxl", path, data_dir)
    finally:
        if generated and not args.keep:
            path.unlink()
    report(path, args, size, rounds, extra, load_before)


def report(path: Path, args, size: int, rounds: list[dict], extra: dict | None, load_before: float) -> None:
    print(f"\nXLSX {path}")
    print(f"{args.rows:,} rows, {args.rows * args.cols:,} cells, file size {size / MiB:,.1f} MiB")
    print(
        f"{len(rounds)} round(s); load average (1 min) {load_before:.1f} at the start, "
        f"{os.getloadavg()[0]:.1f} at the end, on {os.cpu_count()} CPUs\n"
    )
    print(
        f"{'round':<6} {'contender':<10} {'seconds':>8} {'cpu s':>7} {'peak MiB':>9} {'time/fastexcel':>15}"
        f" {'cpu/fastexcel':>14} {'rows':>10}"
    )
    ratios, cpu_ratios = [], []
    for k, found in enumerate(rounds, 1):
        base = found["fastexcel"]
        for name, r in found.items():
            if r is None:
                print(f"{k:<6} {name:<10} {'> ' + str(TIMEOUT):>8}  (stopped after {TIMEOUT // 60} minutes)")
                continue
            ratio = r["seconds"] / base["seconds"] if base else None
            cpu_ratio = r["cpu"] / base["cpu"] if base and base["cpu"] else None
            shown = f"{ratio:>14.2f}x" if ratio is not None else f"{'-':>15}"
            cpu_shown = f"{cpu_ratio:>13.2f}x" if cpu_ratio is not None else f"{'-':>14}"
            print(
                f"{k:<6} {name:<10} {r['seconds']:>8.2f} {r['cpu']:>7.2f} {r['peak_rss'] / MiB:>9,.0f} {shown}"
                f" {cpu_shown} {r['rows']:>10,}"
            )
            if name == "tabular":
                ratios.append(ratio)
                cpu_ratios.append(cpu_ratio)
    if extra:
        base = rounds[-1]["fastexcel"]
        ratio = f"{extra['seconds'] / base['seconds']:>14.2f}x" if base else f"{'-':>15}"
        print(
            f"{'':<6} {'openpyxl':<10} {extra['seconds']:>8.2f} {extra['cpu']:>7.2f} {extra['peak_rss'] / MiB:>9,.0f} {ratio} {extra['rows']:>10,}"
        )

    tab = next((f["tabular"] for f in reversed(rounds) if f["tabular"]), None)
    if tab:
        print(
            f"\ntabular chose ({tab['datasets']} dataset(s), {tab['rows']:,} rows, {tab['rows_rejected']:,} rejected):"
        )
        for name, kind, physical, fmt in tab["columns"]:
            print(f"  {name:<12} {kind:<9} {physical:<16} {fmt}")

    print("\ntarget:")
    label = f"time <= {TIME_TARGET}x fastexcel"
    if ratios and all(r is not None for r in ratios):
        held = sum(1 for r in ratios if r <= TIME_TARGET)
        spread = ", ".join(f"{r:.2f}x" for r in ratios)
        verdict = "PASS" if held == len(ratios) else "MISS"
        print(f"  {label:<26} {verdict}  ({held} of {len(ratios)} rounds: {spread})")
        if all(r is not None for r in cpu_ratios):
            # CPU seconds, every thread's: less moved by the machine's load than wall time.
            print(
                f"  {'cpu <= ' + str(TIME_TARGET) + 'x fastexcel':<26} ({', '.join(f'{r:.2f}x' for r in cpu_ratios)})"
            )
    else:
        print(f"  {label:<26} MISS  (a contender timed out)")


if __name__ == "__main__":
    main()
