"""tabular/cli/usage.py: the parser (its commands, each with its examples), the commands generated
from the ops no hand-written command serves, and the README's usage section."""

import argparse
import json

import pytest

from tabular.cli import main
from tabular.cli.usage import HAND_WRITTEN, RESULT_FORMATS, examples, generated, parser, usage_markdown
from tabular.ops import REGISTRY


def test_every_op_is_a_hand_written_or_a_generated_command():
    names = set(generated())
    assert "ingest-status" in names and "formats" in names
    for name, op in generated().items():
        assert op.name == "knowledge." + name.replace("-", "_") and op.name not in HAND_WRITTEN
    assert {op.name for op in generated().values()} | set(HAND_WRITTEN) >= set(REGISTRY) - {"knowledge.query_export"}


def test_options_are_taken_before_or_after_the_command():
    before = parser().parse_args(["--home", "h1", "--org", "acme", "list"])
    after = parser().parse_args(["list", "--home", "h2", "--namespace", "fin"])
    assert (before.home, before.org, before.namespace) == ("h1", "acme", "")
    assert (after.home, after.org, after.namespace) == ("h2", "", "fin")


def test_a_generated_example_names_the_required_fields():
    assert examples()["ingest-status"] == ["tabular ingest-status INGESTION_ID"]


def test_a_generated_command_runs_its_op_and_prints_json(tmp_path, capsys):
    assert main(["--home", str(tmp_path / "home"), "formats", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["default_format"] == "csv"


def test_a_generated_command_answering_not_found_exits_1(tmp_path, capsys):
    assert main(["--home", str(tmp_path / "home"), "ingest-status", "i_nope", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["found"] is False
    assert main(["--home", str(tmp_path / "home"), "ingest-status", "i_nope"]) == 1  # shown, the same status


def test_an_unknown_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as err:
        main(["frobnicate"])
    assert err.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_the_usage_section_names_every_command():
    text = usage_markdown()
    for name in ("ingest", "query", "formats", "link", "token"):
        assert f"tabular {name}" in text


def test_a_hand_written_command_is_parsed_without_the_commands_the_registry_makes():
    # `tabular list` builds no parser for the ops' own commands (their arguments are every op's
    # input model); a generated command, `call`, --help and no command at all build them all.
    def commands(argv):
        top = parser(argv)
        return set(next(a for a in top._actions if isinstance(a, argparse._SubParsersAction)).choices)

    every = commands(None)
    assert {"get", "formats", "call", "list"} <= every
    for argv in (["list"], ["--home", "h", "query", "-"], ["--org=acme", "datasets", "x"]):
        assert "list" in commands(argv) and not {"get", "formats", "call"} & commands(argv), argv
        assert parser(argv).parse_args(argv).run is parser().parse_args(argv).run
    for argv in (["get", "sales.csv"], ["call", "knowledge.list"], ["--help"], [], ["--home", "list", "formats"]):
        assert commands(argv) == every, argv


def test_query_format_choices_are_the_result_writers_formats():
    from tabular.results import FORMATS

    assert sorted(RESULT_FORMATS) == sorted(FORMATS)
