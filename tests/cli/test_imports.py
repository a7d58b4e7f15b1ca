"""A command imports what it runs (issue 56): `tabular list` waited a second for the web service,
the charts and the HTTP client it never used. Each command runs in its own process, as a person
runs it, and says which packages it held when it ended; no timing (bench/cli_start.py measures).
Each command's process runs once for the module: every check on it reads what that one run held."""

import json
import os
import subprocess
import sys
from dataclasses import dataclass

import pytest
from conftest import CSV
from test_cli import ingest_here

# Run the CLI as `tabular` does, then name every module the process imported.
RUNNER = """
import sys
from tabular.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as stop:
    code = stop.code
print("\\n" + " ".join(sorted(sys.modules)), file=sys.stderr)
sys.exit(code)
"""

PLAN = {"datasets": [{"source_uri": "s"}], "aggregates": [{"fn": "count"}]}
COMMANDS = [["list"], ["get", "s"], ["query", json.dumps(PLAN)], ["datasets", "s"], ["history", "s"]]


@dataclass(frozen=True)
class Ran:
    """One command's process: its exit code, every module it held, and what it said."""

    code: int
    modules: frozenset[str]
    said: str

    @property
    def packages(self) -> set[str]:
        """The top-level packages it held."""
        return {m.split(".")[0] for m in self.modules}


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """A home holding sales.csv as `s` (made in this process: the commands are what is looked at)."""
    home = tmp_path_factory.mktemp("imports") / "home"
    ingest_here(home, CSV / "sales.csv", "s")
    return home


@pytest.fixture(scope="module")
def ran(home):
    """The command's process, run the first time a test asks for it and read by every later one."""
    seen: dict[tuple[str, ...], Ran] = {}

    def get(*argv: str) -> Ran:
        if argv not in seen:
            seen[argv] = run(home, *argv)
        return seen[argv]

    return get


def run(home, *args) -> Ran:
    env = {**os.environ, "TABULAR_HOME": str(home)}
    done = subprocess.run([sys.executable, "-c", RUNNER, *args], capture_output=True, text=True, env=env, timeout=120)
    held = done.stderr.strip().splitlines()[-1].split()
    return Ran(done.returncode, frozenset(held), done.stdout + done.stderr)


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda argv: argv[0])
def test_a_command_over_data_loads_no_web_service_chart_or_http_client(ran, argv):
    done = ran(*argv)
    assert done.code == 0, done.said
    assert not done.packages & {"matplotlib", "fastapi", "starlette", "uvicorn", "httpx", "mcp"}, sorted(done.packages)


def test_a_chart_is_drawn_by_the_command_that_asks_for_it(home, tmp_path):
    by_region = {**PLAN, "group_by": [{"column": "region"}]}
    done = run(home, "query", json.dumps(by_region), "--chart", str(tmp_path / "n.png"))
    assert done.code == 0 and "matplotlib" in done.packages, done.said  # the runner sees what the other test does not


@pytest.mark.parametrize("argv", COMMANDS[:3], ids=lambda argv: argv[0])
def test_list_get_and_query_load_no_spreadsheet_reader(ran, argv):
    done = ran(*argv)
    assert done.code == 0, done.said
    assert not done.packages & {"polars", "openpyxl", "PIL", "python_calamine", "xlrd"}, sorted(done.packages)


# What reads a question in words (the vocabulary, the readings, the proposers) and what reads a
# file: none of it is the work of a command over stored data. (The words an answer says its
# conditions in, synthesize/answer.py, are a query's own.)
NOT_FOR_STORED_DATA = (
    "tabular.ops.synthesize",
    "tabular.synthesize.vocabulary",
    "tabular.synthesize.words",
    "tabular.synthesize.reading",
    "tabular.synthesize.proposers",
    "tabular.ingest.pipeline",
    "tabular.read.extraction",
)


@pytest.mark.parametrize("argv", COMMANDS[:3], ids=lambda argv: argv[0])
def test_list_get_and_query_load_no_question_vocabulary_nor_file_reader(ran, argv):
    done = ran(*argv)
    assert done.code == 0, done.said
    assert not done.modules & set(NOT_FOR_STORED_DATA), sorted(done.modules & set(NOT_FOR_STORED_DATA))


@pytest.mark.parametrize("argv", COMMANDS[:2], ids=lambda argv: argv[0])
def test_list_and_get_load_neither_the_query_nor_the_approval(ran, argv):
    """A command runs one op: the other ops' modules (the planner's query, the approval's
    re-typing) are not loaded for it."""
    done = ran(*argv)
    assert done.code == 0, done.said
    unrelated = {"tabular.ops.query", "tabular.ops.approve", "planner.compile"}
    assert not done.modules & unrelated, sorted(done.modules)


@pytest.mark.parametrize("argv", COMMANDS[:2], ids=lambda argv: argv[0])
def test_list_and_get_load_no_sql_builder(ran, argv):
    """A command that runs no plan writes no SQL of its own: the catalog's statements are built
    when first run, so sqlglot (a tenth of a second) loads only for a command that needs it."""
    done = ran(*argv)
    assert done.code == 0, done.said
    assert "sqlglot" not in done.packages, done.said


def test_the_modules_list_and_get_run_load_no_sql_builder_when_imported():
    """The catalog's, the links' and the old home's statements wait for their first run: importing
    the engine and the CLI (every module `list` and `get` use) loads no sqlglot."""
    modules = "tabular.cli, tabular.cli.commands, tabular.engine, tabular.store.migrate, tabular.store.links, tabular.ops.links"
    check = f"import sys, {modules}; print('sqlglot' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "False", done.stdout + done.stderr


def test_a_query_still_loads_the_sql_builder(ran):
    done = ran(*COMMANDS[2])
    assert done.code == 0 and "sqlglot" in done.packages, done.said  # the runner sees what the test above does not


def test_a_command_made_from_an_op_still_refuses_an_unknown_command_naming_every_one(home):
    done = run(home, "gett", "s")
    assert done.code != 0 and "'get'" in done.said and "receipt" in done.said, done.said  # quoted: 'gett' holds get


@pytest.mark.parametrize(
    ("argv", "unused"),
    [
        pytest.param(COMMANDS[2], {"pyarrow.csv", "pyarrow.parquet"}),
        pytest.param(COMMANDS[0], {"charset_normalizer"}),
    ],
    ids=["query-writers", "list-charset"],
)
def test_a_command_loads_no_writer_nor_reader_of_files_it_does_not_touch(ran, argv, unused):
    """A query that prints its answer writes no CSV or Parquet file; a list decodes no file's text."""
    done = ran(*argv)
    assert done.code == 0, done.said
    assert not done.modules & unused, sorted(done.modules & unused)


# As the `tabular` script runs a command (main() with no argv), then whether Python's cyclic
# collector was still on when the command ended.
COLLECTOR = """
import gc, sys
from tabular.cli import main
sys.argv = ["tabular", *sys.argv[1:]]
try:
    code = main()
except SystemExit as stop:
    code = stop.code
print("collector", "on" if gc.isenabled() else "off", file=sys.stderr)
sys.exit(code)
"""


def collector_after(home, *args) -> str:
    env = dict(os.environ, TABULAR_HOME=str(home))
    done = subprocess.run(
        [sys.executable, "-c", COLLECTOR, *args], env=env, capture_output=True, text=True, timeout=120
    )
    return done.stderr.strip().splitlines()[-1]


def test_a_quick_command_runs_without_the_cyclic_collector_and_a_long_one_with_it(home):
    """`tabular list` is a process that reads and ends: the collector would only walk the objects
    its imports made (issue 56). `tabular ask` is no such command (it reads files and may re-type
    for as long as it takes): it collects as Python does, here too where it only refuses a source
    it does not know. Both as the console script calls main()."""
    assert collector_after(home, "list") == "collector off"
    assert collector_after(home, "ask", "how many rows", "no-such-source") == "collector on"


def test_main_called_with_arguments_leaves_the_callers_collector_alone(home, monkeypatch, capsys):
    import gc

    from tabular.cli import main

    monkeypatch.setenv("TABULAR_HOME", str(home))
    assert gc.isenabled()
    assert main(["list"]) == 0
    assert gc.isenabled()
    assert "s" in capsys.readouterr().out
