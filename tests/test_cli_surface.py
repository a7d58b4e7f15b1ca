"""What a person meets first on the command line (issue 19): every command refuses a wrong file,
a wrong plan, a wrong option and a closed pipe with one line on stderr and exit status 2, never a
traceback; every command has help and an example, and docs/cli.md's CLI section is made from them."""

from __future__ import annotations

import io
import json
import os
import shlex
import subprocess
import sys

import pytest
from conftest import CSV, ROOT
from test_cli import ingest_here

from tabular import cli
from tabular.cli import usage as cli_parser


def run(home, *args, stdin: str | None = None, columns: int = 100):
    env = {**os.environ, "TABULAR_HOME": str(home), "COLUMNS": str(columns)}
    env.pop("TABULAR_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "tabular.cli", *args], input=stdin, capture_output=True, text=True, env=env, timeout=120
    )


class Done:
    """What a command run in this process printed, and its exit status."""

    def __init__(self, returncode: int, stdout: str, stderr: str):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def call(capsys, monkeypatch, home, *args, stdin: str = "") -> Done:
    """The command run in this process (a subprocess per case would double the suite's time)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.delenv("TABULAR_DEBUG", raising=False)
    capsys.readouterr()
    try:
        code = cli.main(["--home", str(home), *args])
    except SystemExit as exit_:  # argparse refuses a wrong option this way
        code = exit_.code
    out = capsys.readouterr()
    return Done(code, out.out, out.err)


def refused(done, *words: str) -> str:
    """The refusal: exit 2, no traceback, its last line on stderr saying what was wrong."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    for word in words:
        assert word.lower() in last.lower(), (word, last)
    return last


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """A home holding currency.csv as `money` (`ingest --source-uri` run as a person runs it) and
    dates_ambiguous.csv (ingested in this process: `tabular ingest` of a file under its own name
    runs in tests/test_cli.py)."""
    home = tmp_path_factory.mktemp("cli") / "home"
    assert run(home, "ingest", str(CSV / "currency.csv"), "--source-uri", "money").returncode == 0
    ingest_here(home, CSV / "dates_ambiguous.csv")
    return home


# One wrong thing per command: a file or source that is not there, a plan or body that is wrong.
WRONG_THING = [
    (("ingest", "/nonexistent/x.csv"), "no such file"),
    (("ingest", str(CSV)), "is a directory"),
    (("ingest", str(CSV / "currency.csv"), "--options", '{"delimeter": ";"}'), "options.delimeter"),
    (("ingest", str(CSV / "currency.csv"), "--options", "semicolon"), "not JSON"),
    (("ingest", str(CSV / "currency.csv"), str(CSV / "empty.csv"), "--source-uri", "one"), "one source"),
    (("datasets", "nothing.csv"), "no live source"),
    (("list", "--limit", "0"), "limit"),
    (("delete", "nothing.csv"), "no live source"),
    (("restore", "nothing.csv"), "no deleted source"),
    (("approve", "nothing.csv"), "no live"),
    (("approve", "money", "--set", "price_usd"), "COLUMN=VALUE"),
    (("history", "nothing.csv"), "no source"),
    # A misspelled source, by every command that names one: the close name, as the query op says it.
    (("datasets", "mony"), "did you mean 'money'?"),
    (("delete", "Money"), "did you mean 'money'?"),
    (("history", "monye"), "did you mean 'money'?"),
    (("approve", "money2"), "did you mean 'money'?"),
    (("query", "/nonexistent/plan.json"), "no such plan file"),
    (("query", "-"), "not JSON"),
    (("ask", "total price", "nothing.csv"), "nothing.csv"),
    (("call", "knowledge.get", "/nonexistent/body.json"), "no such body file"),
    (("call", "knowledge.get", '{"source_uri": ""}'), "source_uri"),
    (("export", "/proc/nowhere/at/all"), "/proc/nowhere"),
    (
        ("link", "/nonexistent/folder"),
        "PATH_NOT_ALLOWED",
    ),  # outside the working directory: whether it exists is not said
    (("link", "no-such-folder-here"), "PATH_NOT_FOUND"),
    (("link", "/"), "DISK_ROOT"),
    (("links", "--json", "extra"), "unrecognized"),
    (("dir-files", "l_nope"), "no linked folder"),
    (("dir-files", "l_nope", "--state", "lerned"), "invalid choice"),
    (("retry-dir", "l_nope"), "no linked folder"),
    (("unlink", "l_nope"), "no linked folder"),
    (("ingest-status",), "INGESTION_ID"),
    (("get", "money", "--limit", "3"), "unrecognized"),
]


@pytest.mark.parametrize("args,said", WRONG_THING, ids=[" ".join(a[:2]) for a, _ in WRONG_THING])
def test_a_wrong_file_source_or_plan_is_one_line_and_status_2(capsys, monkeypatch, home, args, said):
    refused(call(capsys, monkeypatch, home, *args, stdin="{not json"), said)


def test_a_misspelled_plan_key_is_refused_with_the_close_name(capsys, monkeypatch, home):
    plan = json.dumps({"datasets": [{"source_uri": "money"}], "aggregate": [{"fn": "count"}]})
    last = refused(call(capsys, monkeypatch, home, "query", "-", stdin=plan), "aggregate")
    assert "aggregates" in last


def test_an_unknown_key_in_a_plan_is_refused_and_a_transport_field_is_a_warning(capsys, monkeypatch, home):
    def query(**extra):
        plan = {"datasets": [{"source_uri": "money"}], "limit": 1, **extra}
        return call(capsys, monkeypatch, home, "query", "-", stdin=json.dumps(plan))

    # a plan is closed (SPEC §2): `comment` is no clause, so nothing runs and the exit says so
    done = query(comment="mine")
    assert done.returncode != 0 and "comment" in done.stderr and "VALIDATION_FAILED" in done.stderr + done.stdout
    done = query(agent="a1")
    assert done.returncode == 0 and "agent" in done.stderr and "ignored" in done.stderr


@pytest.mark.parametrize("command", sorted(set(cli_parser.examples()) - {"serve", "mcp", "demo", "worker", "token"}))
def test_a_wrong_option_is_one_line_and_status_2(capsys, monkeypatch, home, command):
    example = shlex.split(cli_parser.examples()[command][0].split("|")[-1])[
        1:
    ]  # the command with its arguments, as its help shows it
    refused(call(capsys, monkeypatch, home, *example, "--no-such-option"), "error:", "--no-such-option")


# Every command that prints a table or JSON, a closed pipe each: the default run closes it on one
# of each way of printing (JSON with print, a dataset's tables, an answer, an answer in words),
# make test-long on the other tables too (list, history, links).
PLAN_MONEY = json.dumps({"datasets": [{"source_uri": "money"}]})
PIPED_DEFAULT = [
    ("call", "knowledge.list"),
    ("datasets", "money", "--sample-rows", "50"),
    ("query", PLAN_MONEY),
    ("ask", "how many rows are there?", "money"),
]
PIPED_LONG = [("list",), ("history", "money"), ("links",)]


def closed_pipe(home, commands) -> None:
    # every command at once: each is a process of its own whose reader went away, as `| head` does
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tabular.cli", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "TABULAR_HOME": str(home)},
        )
        for args in commands
    ]
    for proc in procs:
        proc.stdout.close()
    for args, proc in zip(commands, procs):
        err = proc.stderr.read()
        assert proc.wait(timeout=120) == 2 and "Traceback" not in err and "closed" in err.strip().splitlines()[-1], (
            args,
            err,
        )


def test_a_closed_pipe_is_one_line_and_status_2(home):
    closed_pipe(home, PIPED_DEFAULT)


@pytest.mark.slow
def test_a_closed_pipe_is_one_line_and_status_2_on_every_table(home):
    closed_pipe(home, PIPED_LONG)


def test_options_go_before_or_after_the_command_and_the_version_is_shown(home):
    before = run(home.parent / "elsewhere", "--home", str(home), "list")
    after = run(home.parent / "elsewhere", "list", "--home", str(home))
    assert before.returncode == after.returncode == 0 and "money" in before.stdout and before.stdout == after.stdout
    version = run(home, "--version")
    import tabular

    assert (
        version.returncode == 0
        and version.stdout.strip() == f"tabular {tabular.__version__}"
        and tabular.__version__[0].isdigit()
    )


def test_list_delete_restore_and_an_approval_without_the_dataset_named(capsys, monkeypatch, tmp_path):
    home = tmp_path / "home"
    run_ = lambda *a: call(capsys, monkeypatch, home, *a)
    assert run_("ingest", str(CSV / "dates_ambiguous.csv")).returncode == 0
    listed = run_("list")
    assert "dates_ambiguous.csv" in listed.stdout and "None" not in listed.stdout
    assert run_("delete", "dates_ambiguous.csv").returncode == 0
    assert "deleted" in run_("list").stdout
    assert run_("restore", "dates_ambiguous.csv").returncode == 0
    approved = run_("approve", "dates_ambiguous.csv", "--format", "when=DMY")
    assert approved.returncode == 0 and "approved dates_ambiguous" in approved.stdout


def test_the_tables_say_what_they_hold(capsys, monkeypatch, home, tmp_path):
    # sample rows are shown, no None, a bool's min and max are blank, "1 row" not "1 rows"
    (tmp_path / "flags.csv").write_text("name,active\nann,true\n", encoding="utf-8")
    assert call(capsys, monkeypatch, home, "ingest", str(tmp_path / "flags.csv")).returncode == 0
    shown = call(capsys, monkeypatch, home, "datasets", "flags.csv", "--sample-rows", "5")
    assert (
        shown.returncode == 0
        and "None" not in shown.stdout
        and "1 row " in shown.stdout
        and "1 rows" not in shown.stdout
    )
    assert "first 1 row" in shown.stdout and "ann" in shown.stdout.split("first 1 row")[1]


def test_a_result_wider_than_the_terminal_is_shown_a_row_at_a_time(capsys, monkeypatch, home, tmp_path):
    names = [f"column_number_{k}" for k in range(44)]
    (tmp_path / "wide.csv").write_text(
        ",".join(names) + "\n" + ",".join(str(k) for k in range(44)) + "\n", encoding="utf-8"
    )
    assert call(capsys, monkeypatch, home, "ingest", str(tmp_path / "wide.csv")).returncode == 0
    # a terminal 100 columns wide (call sets COLUMNS=100)
    plan = json.dumps({"datasets": [{"source_uri": "wide.csv"}], "limit": 3})
    shown = call(capsys, monkeypatch, home, "query", "-", stdin=plan)
    lines = shown.stdout.splitlines()
    # every header and its value on one line, none squeezed out
    for k, name in enumerate(names):
        assert any(line.split()[:3] == [name, "number", str(k)] for line in lines if line.strip()), name
    assert "1 row" in shown.stdout


def test_two_files_with_one_name_keep_their_paths(tmp_path):
    for folder, rows in (("a", "1"), ("b", "2\n3")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "data.csv").write_text("x\n" + rows + "\n", encoding="utf-8")
    env = {**os.environ, "TABULAR_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-m", "tabular.cli", "ingest", "a/data.csv", "b/data.csv"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0 and "keep their paths" in done.stdout
    listed = run(tmp_path / "home", "list", "--json")
    assert sorted(r["source_uri"] for r in json.loads(listed.stdout)["rows"]) == ["a/data.csv", "b/data.csv"]


def test_every_command_has_help_and_an_example_and_the_readme_shows_them():
    top, shown = cli_parser.parser(), cli_parser.examples()
    commands = next(a for a in top._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, sub in commands.choices.items():
        assert sub.description, f"`tabular {name}` has no help"
        assert shown.get(name), f"`tabular {name}` has no example"
        assert all(e.startswith(f"tabular {name}") or f"| tabular {name}" in e for e in shown[name]), name
        for action in sub._actions:
            assert action.help, f"`tabular {name}` {action.dest} has no help"
    readme = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    start, end = cli_parser.README_MARKS
    assert readme.split(start)[1].split(end)[0] == cli_parser.usage_markdown(), (
        "docs/cli.md's CLI section is stale: run `make readme`"
    )


def test_link_a_folder_from_the_command_line(tmp_path):
    folder = tmp_path / "exports"
    folder.mkdir()
    (folder / "jan.csv").write_text("id,amount\n1,2.50\n", encoding="utf-8")
    (folder / "empty.csv").write_text("", encoding="utf-8")
    old = 1_000_000_000
    for f in folder.iterdir():
        os.utime(f, (old, old))
    env = {**os.environ, "TABULAR_HOME": str(tmp_path / "home"), "COLUMNS": "150"}
    env.pop("TABULAR_LINK_ROOTS", None)
    cli_ = lambda *a: subprocess.run(
        [sys.executable, "-m", "tabular.cli", *a], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120
    )
    done = cli_("link", "exports")
    assert done.returncode == 0, done.stderr
    assert (
        "2 files" in done.stdout
        and "learned" in done.stdout
        and "no_table" in done.stdout
        and "exports/jan.csv" in done.stdout
    )
    link_id = json.loads(cli_("links", "--json").stdout)["links"][0]["link_id"]
    assert (
        json.loads(cli_("dir-files", link_id, "--state", "no_table", "--json").stdout)["files"][0]["path"]
        == "empty.csv"
    )
    # outside the working directory (the default root) nothing is linked
    outside = cli_("link", str(tmp_path.parent))
    assert outside.returncode == 2 and "PATH_NOT_ALLOWED" in outside.stderr
    assert cli_("unlink", link_id).returncode == 0 and "no linked folders" in cli_("links").stdout


def test_ops_without_a_command_of_their_own_are_commands_made_from_the_registry(capsys, monkeypatch, home):
    from tabular.ops import REGISTRY

    made = cli_parser.generated()
    assert {op.name for op in made.values()} | set(cli_parser.HAND_WRITTEN) == set(REGISTRY)
    got = call(capsys, monkeypatch, home, "get", "money", "--json")
    assert got.returncode == 0 and json.loads(got.stdout)["source_uri"] == "money"
    assert call(capsys, monkeypatch, home, "get", "nothing.csv").returncode == 1  # it ran; the answer is no
    formats = json.loads(call(capsys, monkeypatch, home, "formats", "--json").stdout)
    assert "xls" in {f["name"] for f in formats["formats"]}


def test_the_demo_walks_through_its_manifest_and_a_wrong_manifest_is_one_line(capsys, monkeypatch, tmp_path):
    shown = call(capsys, monkeypatch, tmp_path / "home", "demo", str(ROOT / "fixtures" / "demo.json"))
    assert shown.returncode == 0, shown.stderr
    # Every file ingested, the open question made the plan incomplete, the approval completed it,
    # and the task in words was answered with a citation.
    assert shown.stdout.count(": ready") == 3 and "incomplete" in shown.stdout and "approved by" in shown.stdout
    assert "[knowledge.query#1]" in shown.stdout
    (tmp_path / "empty.json").write_text("{}")
    (tmp_path / "list.json").write_text("[]")
    for wrong, said in (("nothing.json", "No such file"), ("empty.json", "files"), ("list.json", "an object")):
        done = call(capsys, monkeypatch, tmp_path / "home", "demo", str(tmp_path / wrong))
        assert done.returncode == 2 and "not a demo manifest" in done.stderr and said in done.stderr, done.stderr
        assert "INTERNAL" not in done.stderr
