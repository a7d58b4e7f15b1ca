"""The layout's promises, checked on the source (issue 21): no module of `tabular/` or `planner/`
takes another module's underscore names, no two modules import each other (directly or round a
longer circle), and `planner/` holds no file or storage code."""

from __future__ import annotations

import ast
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


def imports(name: str, path: Path, known: dict[str, Path]) -> list[tuple[str, list[str], int, bool]]:
    """(module imported, names taken from it, line, at module level) for each import of ours."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
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


# tabular/ by the data's path (README, "How it is built"): a module imports only modules of its
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
            "deadline",
            "pause",
            "progress",
            "results",
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
    raise AssertionError(f"{name} is in no layer of LAYERS: place it (and the README's map)")


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
        tree = ast.parse(path.read_text(encoding="utf-8"))
        used = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        used |= {
            (n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and not n.level
        }
        assert not used & {"duckdb", "sqlite3", "shutil", "os"}, (
            f"{name} imports {used & {'duckdb', 'sqlite3', 'shutil', 'os'}}"
        )


def test_the_readmes_map_names_every_module():
    """The README's map of `tabular/` and its paragraph on `planner/` name every module there is,
    and no module that is gone."""
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## How it is built", 1)[1].split("\n### ", 1)[0]
    named = set(re.findall(r"`([a-z_]+(?:\.py|/))`", section))
    for package in PACKAGES:
        there = {p.name for p in (ROOT / package).glob("*.py") if p.name != "__init__.py"}
        there |= {f"{p.name}/" for p in (ROOT / package).iterdir() if p.is_dir() and (p / "__init__.py").exists()}
        missing = there - named
        assert not missing, f"{package}/: the README's map does not name {sorted(missing)}"
    gone = {n for n in named if n.endswith(".py") and not any(any((ROOT / pkg).rglob(n)) for pkg in PACKAGES)}
    gone -= {"test_layout.py"}
    assert not gone, f"the README's map names modules that are gone: {sorted(gone)}"


MODULE_LINES, FUNCTION_LINES = 600, 120
# Still to split (issue 33), each at the size it had when this check was written: one may shrink
# (and leaves this table once under the limit), never grow; a module not here may not pass it.
LONG_MODULES = {
    "tabular/synthesize/builtin.py": 1035,
    "tabular/synthesize/reading.py": 1404,
}
LONG_FUNCTIONS = {
    "tabular/synthesize/reading.py:read": 542,
}


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
    """No module over 600 lines and no function over 120, but those still to split, which only shrink."""
    modules, functions = sizes()
    problems = []
    for found, limit, known, what in (
        (modules, MODULE_LINES, LONG_MODULES, "module"),
        (functions, FUNCTION_LINES, LONG_FUNCTIONS, "function"),
    ):
        for name, lines in found.items():
            allowed = known.get(name, limit)
            if lines > allowed:
                problems.append(f"{what} {name}: {lines} lines, over {allowed}")
        for name in known:
            if found.get(name, 0) <= limit:
                problems.append(f"{what} {name} is within {limit} lines now: take it out of the list")
    assert not problems, "\n".join(problems)


# Modules without their mirror test file yet (issue 33): their tests live under other names.
UNMIRRORED = {
    "tabular/backends/duckdb.py", "tabular/cli/admin.py", "tabular/cli/commands.py", "tabular/cli/show.py",
    "tabular/cli/usage.py", "tabular/client.py", "tabular/deadline.py", "tabular/engine.py",
    "tabular/errors.py", "tabular/infer/questions.py", "tabular/infer/retype.py", "tabular/infer/tally.py", "tabular/ingest/fair.py", "tabular/ingest/folders.py", "tabular/ingest/jobs.py",
    "tabular/ingest/uploads.py", "tabular/models.py", "tabular/namespace.py", "tabular/ops/context.py",
    "tabular/ops/datasets.py", "tabular/ops/ingest.py", "tabular/ops/links.py", "tabular/ops/synthesize.py",
    "tabular/pause.py", "tabular/read/decode.py", "tabular/read/sheets/columnar.py", "tabular/read/sheets/containers.py",
    "tabular/read/sheets/markup.py", "tabular/read/sheets/rules.py", "tabular/read/sniff.py",
    "tabular/readings.py", "tabular/results.py", "tabular/service/calls.py", "tabular/service/protocol.py",
    "tabular/service/upload.py", "tabular/settings.py", "tabular/store/catalog.py", "tabular/store/home.py", "tabular/store/migrate.py",
    "tabular/store/retention.py", "tabular/store/schemas.py", "tabular/store/snapshot.py",
    "tabular/store/stored.py", "tabular/synthesize/builtin.py", "tabular/synthesize/chat.py",
    "tabular/synthesize/columns.py", "tabular/synthesize/filters.py", "tabular/synthesize/proposal.py",
    "tabular/synthesize/proposers.py", "tabular/synthesize/reading.py", "tabular/synthesize/row_order.py",
    "tabular/synthesize/same_as.py", "tabular/synthesize/schemas.py", "tabular/synthesize/share.py",
    "tabular/synthesize/text_match.py", "tabular/synthesize/verify.py", "tabular/synthesize/yes_no.py",
    "tabular/validation.py", "planner/computed.py", "planner/functions.py", "planner/joins.py", "planner/models.py", "planner/operators.py", "planner/outputs.py",
    "planner/receipt.py", "planner/resolved.py", "planner/resolver.py", "planner/schema.py", "planner/targets.py",
}  # fmt: skip


def mirror(path: Path) -> Path:
    """A module's test file: tests/read/test_sniff.py for tabular/read/sniff.py, tests/planner/… for planner/."""
    rel = path.relative_to(ROOT)
    inside = rel.relative_to("tabular") if rel.parts[0] == "tabular" else rel
    return ROOT / "tests" / inside.parent / f"test_{path.stem}.py"


def test_each_module_has_its_mirror_test_file():
    """Tests mirror the modules; those listed as not yet mirrored only leave the list."""
    problems = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.name in ("__init__.py", "__main__.py"):
                continue
            rel = path.relative_to(ROOT).as_posix()
            has = mirror(path).exists()
            if not has and rel not in UNMIRRORED:
                problems.append(f"{rel} has no {mirror(path).relative_to(ROOT)}")
            if has and rel in UNMIRRORED:
                problems.append(f"{rel} has its mirror now: take it out of UNMIRRORED")
    gone = [rel for rel in UNMIRRORED if not (ROOT / rel).exists()]
    assert not problems and not gone, "\n".join(
        problems + [f"{rel} is gone: take it out of UNMIRRORED" for rel in gone]
    )
