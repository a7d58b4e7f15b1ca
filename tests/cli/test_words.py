"""The command line's words (issue 56): it names its own commands, never an op's name, and says
each thing once. Through the CLI's process, as a person meets them."""

import json

import pytest
from conftest import CSV
from test_cli import cli_namespace, ingest_here, run

from tabular.cli.show import cli_words, command_of

BY_MONTH = {
    "datasets": [{"source_uri": "d.csv"}],
    "group_by": [{"column": "when", "bucket": "month"}],
    "aggregates": [{"fn": "sum", "column": "qty"}],
}


@pytest.fixture(scope="module")
def asked(tmp_path_factory):
    """A home whose d.csv asks date_order on `when`, beside sales.csv (made in this process: the
    commands the tests are about run as processes)."""
    tmp = tmp_path_factory.mktemp("words")
    ingest_here(tmp / "home", CSV / "dates_ambiguous.csv", "d.csv")
    ingest_here(tmp / "home", CSV / "sales.csv")
    return tmp


def test_an_incomplete_answer_names_the_approve_command_of_its_dataset(asked):
    done = run(asked, "query", json.dumps(BY_MONTH))
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stdout.splitlines() if x.startswith("incomplete"))
    assert "when (date_order)" in line and "`tabular approve d.csv dates_ambiguous" in line, line
    assert "tabular datasets d.csv" in line and "knowledge." not in done.stdout


def test_a_question_ask_cannot_answer_names_the_approve_command(asked):
    done = run(asked, "ask", "total qty by month of when", "d.csv")
    assert done.returncode == 1 and "open question" in done.stdout, done.stdout + done.stderr
    assert "`tabular approve`" in done.stdout and "knowledge.dataset_approve" not in done.stdout


def test_an_error_says_its_text_once_with_the_close_name(asked):
    plan = {**BY_MONTH, "where": [{"column": "qtty", "op": "gt", "value": 1}]}
    done = run(asked, "query", json.dumps(plan))
    assert done.returncode == 2 and "VALIDATION_FAILED" in done.stderr
    assert done.stderr.count("no column 'qtty'") == 1 and "where[0].column" in done.stderr, done.stderr
    assert "did you mean qty?" in done.stderr
    two = {**BY_MONTH, "where": [{"column": "qtty", "op": "gt", "value": 1}, {"column": "wehn", "op": "is_null"}]}
    done = run(asked, "query", json.dumps(two))
    assert done.stderr.count("no column 'qtty'") == 1 and done.stderr.count("no column 'wehn'") == 1, done.stderr
    bad = run(asked, "query", json.dumps({**BY_MONTH, "limit": "x"}))
    assert bad.returncode == 2 and bad.stderr.count("'x' is not an integer") == 1, bad.stderr


def test_ops_are_named_as_the_commands_that_run_them():
    assert command_of("knowledge.dataset_approve") == "approve"
    assert command_of("knowledge.ingest_status") == "ingest-status"
    said = cli_words("answer them with knowledge.dataset_approve; knowledge.get shows it.")
    assert said == "answer them with `tabular approve`; `tabular get` shows it."
    # A citation and a path keep the op's name: they are not words to type.
    kept = "count is 8 [knowledge.query#1]; POST /v1/knowledge.query_export"
    assert cli_words(kept) == kept


def test_ask_says_how_it_read_the_task_beside_its_answer(asked):
    """The reading (the plan said back in words) and its confidence, between the answer and its
    table: what a person checks before trusting the number (issue 55). The op's own answer says
    what they are (`ask --json` prints it whole: tests/synthesize/test_synthesize_op.py)."""
    done = run(asked, "ask", "total amount by region", "sales.csv")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    engine, ns = cli_namespace(asked / "home")
    with engine:
        calc = ns.call("knowledge.synthesize", {"task": "total amount by region", "datasets": ["sales.csv"]})
    calc = calc["calculations"][0]
    read = next(k for k, x in enumerate(lines) if x.startswith("read as: "))
    assert lines[read] == f"read as: {calc['reading']}" and "amount" in calc["reading"] and "region" in calc["reading"]
    assert lines[read + 1].startswith(f"confidence {calc['confidence']['score']:.2f}")
    assert read < next(k for k, x in enumerate(lines) if x.startswith("proposed by"))
