"""The layout's promises, checked on the source (issue 21): no module of `tabular/` or `planner/`
takes another module's underscore names, no two modules import each other (directly or round a
longer circle), and `planner/` holds no file or storage code."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from conftest import ROOT

PACKAGES = ("tabular", "planner")


def modules() -> dict[str, Path]:
    """Every module of the two packages by dotted name (a package by its __init__)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


@functools.cache
def parsed(path: Path) -> ast.Module:
    """A module's syntax tree, parsed once for all the checks of this file (none changes it)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def imports(name: str, path: Path, known: dict[str, Path]) -> list[tuple[str, list[str], int, bool]]:
    """(module imported, names taken from it, line, at module level) for each import of ours."""
    tree = parsed(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    top_level = {id(n) for n in tree.body} | {
        id(n) for node in tree.body if isinstance(node, ast.If) for n in node.body
    }
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names = [a.name for a in node.names]
            if target in known:
                # `from . import ops` names a module: the import is of that module
                for n in names:
                    if f"{target}.{n}" in known:
                        out.append((f"{target}.{n}", [], node.lineno, id(node) in top_level))
                taken = [n for n in names if f"{target}.{n}" not in known]
                if taken or not names:
                    out.append((target, taken, node.lineno, id(node) in top_level))
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name in known:
                    out.append((a.name, [], node.lineno, id(node) in top_level))
    return out


def test_no_module_takes_another_modules_private_names():
    known = modules()
    taken = [
        f"{name}:{line} takes {', '.join(n for n in names if n.startswith('_') and not n.startswith('__'))} from {target}"
        for name, path in known.items()
        for target, names, line, _ in imports(name, path, known)
        if target != name and any(n.startswith("_") and not n.startswith("__") for n in names)
    ]
    assert not taken, "\n".join(taken)


def lazy(path: Path, line: int) -> bool:
    """An import inside a function that says why it waits: what it loads is heavy or optional."""
    text = path.read_text(encoding="utf-8").splitlines()[line - 1]
    return "#" in text and any(word in text.split("#", 1)[1] for word in ("heavy", "optional"))


def test_an_import_inside_a_function_says_why():
    """Our own modules are imported at the top, unless what they load is heavy or optional and
    the line says so: an import moved into a function to dodge a circle hides the circle."""
    known = modules()
    hidden = [
        f"{name}:{line} imports {target} inside a function without saying why (# heavy: … / # optional: …)"
        for name, path in known.items()
        for target, _, line, top in imports(name, path, known)
        if not top and target != name and not lazy(path, line)
    ]
    assert not hidden, "\n".join(hidden)


def test_no_import_cycles():
    """Every import counts, inside functions too, but those marked heavy or optional (they load
    something only some callers need, and must not be how a circle is dodged either)."""
    known = modules()
    graph = {
        name: {t for t, _, line, top in imports(name, path, known) if t != name and (top or not lazy(path, line))}
        for name, path in known.items()
    }
    cycles = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join(stack[stack.index(nxt) :] + [nxt]))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert not cycles, "\n".join(cycles)


# tabular/ by the data's path (docs/architecture.md, "How it is built"): a module imports only modules of its
# own layer or of the layers before it, and planner/. A package's layer is its name; the base
# is the modules every package may use.
LAYERS = (
    (
        "base",
        (
            "errors",
            "validation",
            "settings",
            "jsonval",
            "models",
            "display",
            "readings",
            "number_forms",
            "lazy_names",
            "deadline",
            "pause",
            "progress",
            "results",
            "charts",
        ),
    ),
    ("read", ("read",)),
    ("infer", ("infer",)),
    ("store", ("store",)),
    ("ingest", ("ingest",)),
    ("backends", ("backends",)),
    ("synthesize", ("synthesize",)),
    ("ops", ("ops",)),
    ("namespace", ("namespace",)),
    ("engine", ("engine",)),
    ("service", ("service",)),
    ("client", ("client",)),
    ("surface", ("", "cli")),  # tabular/__init__.py and the CLI
)


def layer_of(name: str) -> int:
    """The position in LAYERS of a module of tabular/ by its dotted name."""
    first = name.split(".")[1] if "." in name else ""
    for k, (_, members) in enumerate(LAYERS):
        if first in members:
            return k
    raise AssertionError(f"{name} is in no layer of LAYERS: place it (and docs/architecture.md's map)")


def test_each_package_imports_only_those_before_it():
    """Following an op means walking down: read → infer → store → ingest → … → the surface.
    Lazy imports count too (one that is heavy or optional still points somewhere)."""
    known = modules()
    upward = [
        f"{name}:{line} ({LAYERS[layer_of(name)][0]}) imports {target} ({LAYERS[layer_of(target)][0]}), a later layer"
        for name, path in known.items()
        if name.startswith("tabular")
        for target, _, line, _ in imports(name, path, known)
        if target.startswith("tabular") and layer_of(target) > layer_of(name)
    ]
    assert not upward, "\n".join(upward)


def test_the_planner_has_no_file_or_storage_code():
    known = modules()
    for name, path in known.items():
        if not name.startswith("planner"):
            continue
        for target, _, line, _ in imports(name, path, known):
            assert not target.startswith("tabular"), f"{name}:{line} imports {target}"
        tree = parsed(path)
        used = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        used |= {
            (n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and not n.level
        }
        assert not used & {"duckdb", "sqlite3", "shutil", "os"}, (
            f"{name} imports {used & {'duckdb', 'sqlite3', 'shutil', 'os'}}"
        )


def test_the_readmes_map_names_every_module():
    """docs/architecture.md's map of `tabular/` and its paragraph on `planner/` name every module there is,
    and no module that is gone."""
    import re

    readme = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = readme.split("# How it is built", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`([a-z_]+(?:\.py|/))`", section))
    for package in PACKAGES:
        there = {p.name for p in (ROOT / package).glob("*.py") if p.name != "__init__.py"}
        there |= {f"{p.name}/" for p in (ROOT / package).iterdir() if p.is_dir() and (p / "__init__.py").exists()}
        missing = there - named
        assert not missing, f"{package}/: docs/architecture.md does not name {sorted(missing)}"
    gone = {n for n in named if n.endswith(".py") and not any(any((ROOT / pkg).rglob(n)) for pkg in PACKAGES)}
    gone -= {"test_layout.py"}
    assert not gone, f"docs/architecture.md names modules that are gone: {sorted(gone)}"


MODULE_LINES, FUNCTION_LINES = 600, 120


def sizes() -> tuple[dict[str, int], dict[str, int]]:
    """Lines per module and per function (by `path:name`) of tabular/ and planner/."""
    modules, functions = {}, {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            rel = path.relative_to(ROOT).as_posix()
            modules[rel] = len(text.splitlines())
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    functions[f"{rel}:{node.name}"] = max(
                        functions.get(f"{rel}:{node.name}", 0), node.end_lineno - node.lineno + 1
                    )
    return modules, functions


def test_modules_and_functions_stay_short():
    """No module over 600 lines and no function over 120 in tabular/ or planner/."""
    modules, functions = sizes()
    problems = [f"module {name}: {n} lines, over {MODULE_LINES}" for name, n in modules.items() if n > MODULE_LINES]
    problems += [
        f"function {name}: {n} lines, over {FUNCTION_LINES}" for name, n in functions.items() if n > FUNCTION_LINES
    ]
    assert not problems, "\n".join(problems)


def mirror(path: Path) -> Path:
    """A module's test file: tests/read/test_sniff.py for tabular/read/sniff.py, tests/planner/… for planner/."""
    rel = path.relative_to(ROOT)
    inside = rel.relative_to("tabular") if rel.parts[0] == "tabular" else rel
    return ROOT / "tests" / inside.parent / f"test_{path.stem}.py"


def test_each_module_has_its_mirror_test_file():
    """Tests mirror the modules: tabular/read/sniff.py has tests/read/test_sniff.py."""
    missing = [
        f"{path.relative_to(ROOT)} has no {mirror(path).relative_to(ROOT)}"
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if path.name not in ("__init__.py", "__main__.py") and not mirror(path).exists()
    ]
    assert not missing, "\n".join(missing)


def test_the_planners_tests_need_no_engine():
    """tests/planner/ checks planner/ alone, as a library (plans, schemas handed in as values, SQL
    text); a plan run through the engine is tests/plans/'s."""
    leaning = []
    for path in sorted((ROOT / "tests" / "planner").glob("*.py")):
        tree = parsed(path)
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(n == "tabular" or n.startswith("tabular.") for n in names):
                leaning.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not leaning, "\n".join(leaning)


def test_sql_negation_is_built_so_it_keeps_its_parentheses():
    # sqlglot writes exp.Not(this=a AND b) as `NOT a AND b`, which negates `a` alone: a round-trip
    # guard built so let values a DOUBLE would round through. exp.not_ parenthesises.
    for name, path in modules().items():
        tree = parsed(path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "Not":
                assert not node.keywords, f"{name}:{node.lineno} builds exp.Not(this=…); use exp.not_(…)"


def test_the_mypy_ratchet_fails_a_rise_and_asks_to_lower_a_fall():
    """make test's mypy check (tests/mypy_ratchet.py): errors counted per package folder; a count
    above its baseline fails (a package the baseline does not name has 0), one below it asks for
    the baseline to be lowered, and lowering never raises a count."""
    from mypy_ratchet import compare, count, lowered

    lines = [
        "planner/compile.py:12: error: Function is missing a type annotation  [no-untyped-def]",
        "planner/compile.py:14:5: error: Returning Any  [no-any-return]",
        "planner/compile.py:14: note: see https://mypy.rtfd.io",
        "tabular/engine.py:3: error: Name 'x' is not defined  [name-defined]",
        "tabular/read/sheets/xls.py:9: error: Incompatible types  [assignment]",
        "Found 4 errors in 3 files (checked 180 source files)",
    ]
    counts = count(lines)
    assert counts == {"planner": 2, "tabular": 1, "tabular/read/sheets": 1}
    risen, fallen = compare(counts, {"planner": 3, "tabular": 1, "tabular/ops": 2})
    assert risen == {"tabular/read/sheets": (1, 0)}
    assert fallen == {"planner": (2, 3), "tabular/ops": (0, 2)}
    assert compare(counts, dict(counts)) == ({}, {})
    assert lowered(counts, {"planner": 3, "tabular": 0, "tabular/ops": 2, "tabular/cli": 1}) == {"planner": 2}
    assert lowered({"planner": 9}, {"planner": 3}) == {"planner": 3}


def test_the_mypy_baseline_names_only_packages_that_exist():
    import json

    baseline = json.loads((ROOT / "tests" / "mypy_baseline.json").read_text(encoding="utf-8"))
    # Empty once every package is clean: then any mypy error fails make test.
    assert all(n > 0 for n in baseline["errors"].values())
    assert [p for p in baseline["errors"] if not (ROOT / p).is_dir()] == []
