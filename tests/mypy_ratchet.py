"""mypy as a ratchet (make test, the pre-commit hook): mypy's errors per package over tabular/ and
planner/ (pyproject.toml's [tool.mypy]: strict for planner/ and tabular/store/, plain elsewhere),
compared with tests/mypy_baseline.json. A package with more errors than its baseline fails, with
mypy's lines for it; one with fewer says to lower its baseline (`--lower`), which never raises one.

    python tests/mypy_ratchet.py           # check
    python tests/mypy_ratchet.py --lower   # write the counts that fell into the baseline
    python tests/mypy_ratchet.py --reset   # write every count as it is (a new mypy version): say why in the commit
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "tests" / "mypy_baseline.json"
ERROR = re.compile(r"^(?P<path>[^:\s]+\.pyi?):\d+(?::\d+)?: error: ")


def package_of(path: str) -> str:
    """The package an error counts against: its folder under the root (tabular/ops/query.py is
    tabular/ops; tabular/engine.py is tabular; planner/compile.py is planner)."""
    parts = Path(path).as_posix().split("/")
    return "/".join(parts[:-1]) or parts[0]


def count(lines: list[str]) -> Counter[str]:
    """mypy's errors per package, from its output lines (notes and the summary are not errors)."""
    return Counter(package_of(m["path"]) for line in lines if (m := ERROR.match(line)))


def compare(counts: dict[str, int], baseline: dict[str, int]) -> tuple[dict, dict]:
    """(risen, fallen): each package whose count is above its baseline (a package the baseline
    does not name has a baseline of 0), and each below it, as {package: (count, baseline)}."""
    names = set(counts) | set(baseline)
    risen = {p: (counts.get(p, 0), baseline.get(p, 0)) for p in names if counts.get(p, 0) > baseline.get(p, 0)}
    fallen = {p: (counts.get(p, 0), baseline[p]) for p in names if p in baseline and counts.get(p, 0) < baseline[p]}
    return dict(sorted(risen.items())), dict(sorted(fallen.items()))


def lowered(counts: dict[str, int], baseline: dict[str, int]) -> dict[str, int]:
    """The baseline with each count that fell written in (a package at 0 is dropped); none raised."""
    out = {p: min(n, counts.get(p, 0)) for p, n in baseline.items()}
    return {p: n for p, n in sorted(out.items()) if n}


def run_mypy() -> tuple[int, str, list[str]]:
    """mypy over pyproject.toml's files, as (exit code, its version, its output lines)."""
    version = subprocess.run(
        [sys.executable, "-m", "mypy", "--version"], capture_output=True, text=True, cwd=ROOT
    ).stdout.split()
    done = subprocess.run([sys.executable, "-m", "mypy"], capture_output=True, text=True, cwd=ROOT)
    return done.returncode, version[1] if len(version) > 1 else "?", (done.stdout + done.stderr).splitlines()


def main(argv: list[str]) -> int:
    code, version, lines = run_mypy()
    if code not in (0, 1) or (code == 1 and not any(ERROR.match(line) for line in lines)):
        print("\n".join(lines[-40:]))
        print(f"mypy: could not check (exit {code}): see above")
        return 1
    saved = json.loads(BASELINE.read_text(encoding="utf-8"))
    baseline, counts = saved["errors"], count(lines)
    total = sum(counts.values())
    if "--lower" in argv or "--reset" in argv:
        saved["errors"] = lowered(counts, baseline) if "--lower" in argv else dict(sorted(counts.items()))
        saved["mypy"] = version if "--reset" in argv else saved.get("mypy")
        BASELINE.write_text(json.dumps(saved, indent=2) + "\n", encoding="utf-8")
        print(f"mypy: {total} errors; {BASELINE.relative_to(ROOT)} written")
        return 0
    risen, fallen = compare(counts, baseline)
    also = "" if version == saved.get("mypy") else f" (the baseline was counted by mypy {saved.get('mypy')})"
    for package in risen:
        print("\n".join(line for line in lines if (m := ERROR.match(line)) and package_of(m["path"]) == package))
    for package, (n, was) in risen.items():
        print(f"mypy: {package} has {n} errors, its baseline {was}: fix the new ones (above){also}")
    for package, (n, was) in fallen.items():
        print(
            f"mypy: {package} has {n} errors, down from {was}: lower the baseline (python tests/mypy_ratchet.py --lower)"
        )
    if not risen:
        print(
            f"mypy {version}: {total} errors over tabular/ and planner/, no package above {BASELINE.relative_to(ROOT)}"
        )
    return 1 if risen else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
