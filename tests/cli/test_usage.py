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


def commands(top: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The commands a parser was built with, by name."""
    return next(a for a in top._actions if isinstance(a, argparse._SubParsersAction)).choices


def said(argv: list[str], top: argparse.ArgumentParser, capsys) -> tuple[object, str, str]:
    """What parsing the arguments with this parser prints, and its exit status (None: it parsed)."""
    try:
        top.parse_args(argv)
        code = None
    except SystemExit as stop:
        code = stop.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_command_is_parsed_by_a_parser_of_that_command_alone():
    # Building a command may import what it runs (a command made from an op reads its op's input
    # model): `tabular get` builds no other op's command, `tabular list` no op's at all.
    every = commands(parser())
    assert {"get", "formats", "call", "list", "query", "token"} <= set(every)
    for argv in (["list"], ["--home", "h", "query", "-"], ["--org=acme", "get", "x"], ["--ho", "list", "formats"]):
        word = argv[-1] if argv[-1] in every else argv[-2]
        assert set(commands(parser(argv))) == {word}, argv
        assert parser(argv).parse_args(argv) == parser().parse_args(argv), argv


def test_without_a_command_named_every_command_is_built():
    every = set(commands(parser()))
    for argv in ([], ["--help"], ["--home", "h"], ["--hel"], ["--version", "list"], ["frobnicate"], ["--org", "get"]):
        assert set(commands(parser(argv))) == every, argv


def test_a_command_says_the_same_help_and_errors_as_the_whole_parser(capsys):
    # What a person sees does not depend on which commands were built: each command's help, and
    # each wrong use (a missing argument, a bad choice, an unknown option or command).
    every = parser()
    for name, whole in commands(every).items():
        assert commands(parser([name]))[name].format_help() == whole.format_help(), name
    wrong = (
        ["get"],
        ["list", "--bogus"],
        ["query"],
        ["token"],
        ["call", "knowledge.nope"],
        ["dir-files", "l", "--state", "x"],
        ["ingest-status"],
        ["frobnicate"],
        ["list", "--help"],
        ["--version"],
    )
    for argv in wrong:
        alone = said(argv, parser(argv), capsys)
        assert alone == said(argv, parser(), capsys) and alone[0] is not None and alone[1] + alone[2], argv


def test_query_format_choices_are_the_result_writers_formats():
    from tabular.results import FORMATS

    assert sorted(RESULT_FORMATS) == sorted(FORMATS)
