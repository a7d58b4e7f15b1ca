"""A command imports what it runs (issue 56): `tabular list` waited a second for the web service,
the charts and the HTTP client it never used. Each command runs in its own process, as a person
runs it, and says which packages it held when it ended; no timing (bench/cli_start.py measures)."""

import json
import os
import subprocess
import sys

import pytest
from conftest import CSV

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


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("imports") / "home"
    assert run(home, "ingest", str(CSV / "sales.csv"), "--source-uri", "s")[0] == 0
    return home


def run(home, *args, modules: bool = False) -> tuple[int, set[str], str]:
    """The command's exit code, the top-level packages its process held (every module with
    `modules`), and what it said."""
    env = {**os.environ, "TABULAR_HOME": str(home)}
    done = subprocess.run([sys.executable, "-c", RUNNER, *args], capture_output=True, text=True, env=env, timeout=120)
    held = set(done.stderr.strip().splitlines()[-1].split())
    return done.returncode, held if modules else {m.split(".")[0] for m in held}, done.stdout + done.stderr


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda argv: argv[0])
def test_a_command_over_data_loads_no_web_service_chart_or_http_client(home, argv):
    code, held, said = run(home, *argv)
    assert code == 0, said
    assert not held & {"matplotlib", "fastapi", "starlette", "uvicorn", "httpx", "mcp"}, sorted(held)


def test_a_chart_is_drawn_by_the_command_that_asks_for_it(home, tmp_path):
    by_region = {**PLAN, "group_by": [{"column": "region"}]}
    code, held, said = run(home, "query", json.dumps(by_region), "--chart", str(tmp_path / "n.png"))
    assert code == 0 and "matplotlib" in held, said  # the runner sees what the other test does not


@pytest.mark.parametrize("argv", COMMANDS[:3], ids=lambda argv: argv[0])
def test_list_get_and_query_load_no_spreadsheet_reader(home, argv):
    code, held, said = run(home, *argv)
    assert code == 0, said
    assert not held & {"polars", "openpyxl", "PIL", "python_calamine", "xlrd"}, sorted(held)


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
def test_list_get_and_query_load_no_question_vocabulary_nor_file_reader(home, argv):
    code, held, said = run(home, *argv, modules=True)
    assert code == 0, said
    assert not held & set(NOT_FOR_STORED_DATA), sorted(held & set(NOT_FOR_STORED_DATA))


@pytest.mark.parametrize("argv", COMMANDS[:2], ids=lambda argv: argv[0])
def test_list_and_get_load_neither_the_query_nor_the_approval(home, argv):
    """A command runs one op: the other ops' modules (the planner's query, the approval's
    re-typing) are not loaded for it."""
    code, held, said = run(home, *argv, modules=True)
    assert code == 0, said
    assert not held & {"tabular.ops.query", "tabular.ops.approve", "planner.compile"}, sorted(held)


@pytest.mark.parametrize("argv", COMMANDS[:2], ids=lambda argv: argv[0])
def test_list_and_get_load_no_sql_builder(home, argv):
    """A command that runs no plan writes no SQL of its own: the catalog's statements are built
    when first run, so sqlglot (a tenth of a second) loads only for a command that needs it."""
    code, held, said = run(home, *argv)
    assert code == 0, said
    assert "sqlglot" not in held, said


def test_the_modules_list_and_get_run_load_no_sql_builder_when_imported():
    """The catalog's, the links' and the old home's statements wait for their first run: importing
    the engine and the CLI (every module `list` and `get` use) loads no sqlglot."""
    modules = "tabular.cli, tabular.cli.commands, tabular.engine, tabular.store.migrate, tabular.store.links, tabular.ops.links"
    check = f"import sys, {modules}; print('sqlglot' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "False", done.stdout + done.stderr


def test_a_query_still_loads_the_sql_builder(home):
    code, held, said = run(home, *COMMANDS[2])
    assert code == 0 and "sqlglot" in held, said  # the runner sees what the test above does not


def test_a_command_made_from_an_op_still_refuses_an_unknown_command_naming_every_one(home):
    code, _, said = run(home, "gett", "s")
    assert code != 0 and "'get'" in said and "receipt" in said, said  # quoted: 'gett' holds get


@pytest.mark.parametrize(
    ("argv", "unused"),
    [
        pytest.param(COMMANDS[2], {"pyarrow.csv", "pyarrow.parquet"}),
        pytest.param(COMMANDS[0], {"charset_normalizer"}),
    ],
    ids=["query-writers", "list-charset"],
)
def test_a_command_loads_no_writer_nor_reader_of_files_it_does_not_touch(home, argv, unused):
    """A query that prints its answer writes no CSV or Parquet file; a list decodes no file's text."""
    code, held, said = run(home, *argv, modules=True)
    assert code == 0, said
    assert not held & unused, sorted(held & unused)
