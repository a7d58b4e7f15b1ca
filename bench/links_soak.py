"""Soak a linked folder (issue 20): a writer puts FILES files of 1–500 KB into a folder a watching
engine follows, over SECONDS seconds, and rewrites CHANGES of them once (with other rows) while
it goes on. At the end every file must be `learned` at its latest content, read once per content
(revision = 1 + its changes: none twice), and a query per file must count the rows it holds.

    .venv/bin/python bench/links_soak.py                      # 500 files, 100 changes, 60 s
    .venv/bin/python bench/links_soak.py --files 50 --changes 10 --seconds 10

Prints what it checked and how long learning took after the last write; exits 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

from common import use_working_tree

use_working_tree()

import tabular  # noqa: E402


def csv_text(rows: int, salt: int) -> str:
    return "id,amount,note\n" + "".join(f"{k},{k % 997}.{salt % 100:02d},row {k} of {rows}\n" for k in range(rows))


def rows_for(size: int) -> int:
    return max(1, size // 28)  # a row is about 28 bytes


def writer(folder: Path, files: int, changes: int, seconds: float, seed: int, expected: dict) -> None:
    """Files appear at an even pace; CHANGES of them are written again, each after it was first written."""
    rng = random.Random(seed)
    sizes = [rng.randint(1_000, 500_000) for _ in range(files)]
    changed = set(rng.sample(range(files), changes))
    events = [(seconds * k / files, "new", k) for k in range(files)]
    events += [(min(seconds, seconds * k / files + rng.uniform(1, seconds / 3)), "change", k) for k in changed]
    start = time.monotonic()
    for at, kind, k in sorted(events):
        time.sleep(max(0.0, start + at - time.monotonic()))
        rows = rows_for(sizes[k]) if kind == "new" else rows_for(rng.randint(1_000, 500_000))
        path = folder / f"part{k // 100}" / f"file{k:04d}.csv"
        path.parent.mkdir(exist_ok=True)
        path.write_text(
            csv_text(rows, k if kind == "new" else k + 1), encoding="utf-8"
        )  # written in place, not renamed in
        rel = path.relative_to(folder).as_posix()
        was = expected.get(rel, (0, 0))
        expected[rel] = (rows, was[1] + 1)


def _latest(ns, f: dict, expected: dict) -> bool:
    """The file's source answers its latest content's rows."""
    got = ns.query({"datasets": [{"source_uri": f["source_uri"]}], "aggregates": [{"fn": "count"}]}).rows[0][0]
    return got == expected[f["path"]][0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=500)
    parser.add_argument("--changes", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--wait", type=float, default=900.0, help="how long learning may take after the last write")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="tabular-soak-"))
    folder = base / "watched"
    folder.mkdir()
    expected: dict[str, tuple[int, int]] = {}  # path -> (rows of its latest content, contents written)
    with tabular.connect(
        str(base / "home"), link_roots=str(base), watch_links=True, link_settle_seconds=1.0, link_rescan_seconds=30
    ) as engine:
        ns = engine.namespace("soak", "files")
        link_id = ns.call("knowledge.link_dir", {"path": str(folder), "label": "soak"})["link_id"]
        began = time.monotonic()
        thread = threading.Thread(
            target=writer, args=(folder, args.files, args.changes, args.seconds, args.seed, expected)
        )
        thread.start()
        thread.join()
        wrote = time.monotonic()
        print(f"wrote {args.files} files and {args.changes} changes in {wrote - began:.0f} s", flush=True)
        while time.monotonic() - wrote < args.wait:
            files = ns.call("knowledge.dir_files", {"link_id": link_id})["files"]
            states = {}
            for f in files:
                states[f["state"]] = states.get(f["state"], 0) + 1
            if (
                len(files) == len(expected)
                and states.get("learned", 0) == len(expected)
                and all(_latest(ns, f, expected) for f in files)
            ):
                break
            time.sleep(2)
        learned_after = time.monotonic() - wrote
        print(f"states {states} {learned_after:.0f} s after the last write", flush=True)
        wrong = []
        for f in files:
            rows, contents = expected[f["path"]]
            # A file rewritten before its first content was read is read once, at its latest:
            # a revision per content read, never more (none twice).
            if f["state"] != "learned" or not 1 <= f["revision"] <= contents:
                wrong.append(
                    f"{f['path']}: {f['state']} revision {f['revision']}, {contents} contents written ({f['error_code']}: {f['error_message']})"
                )
                continue
            counted = ns.query({"datasets": [{"source_uri": f["source_uri"]}], "aggregates": [{"fn": "count"}]}).rows[
                0
            ][0]
            if counted != rows:
                wrong.append(f"{f['path']}: {counted} rows answered, {rows} in the file")
        missing = set(expected) - {f["path"] for f in files}
        wrong += [f"{p}: never seen" for p in sorted(missing)]
    revisions = sum(f["revision"] or 0 for f in files)
    print(f"{revisions} revisions published for {sum(c for _, c in expected.values())} contents written")
    print(
        f"{len(expected)} files, {sum(c for _, c in expected.values())} contents: "
        f"{len(expected) - len(wrong)} learned at their latest content and counted right, {len(wrong)} wrong"
    )
    for line in wrong[:20]:
        print("  WRONG", line)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
