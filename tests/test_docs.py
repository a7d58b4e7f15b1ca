"""Every code block of README.md and docs/*.md runs (issue 36): each page's blocks in order, in a
temporary folder holding a copy of fixtures/ (so `fixtures/csv/sales.csv` resolves) whose
`.tabular` is the home, with the venv's `tabular` first on the PATH; `curl` against a `tabular
serve` started on a free port when a block names 127.0.0.1:8765 (the port is put in)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from docblocks import PAGES, ROOT, Session, blocks, cli_examples, parse_example, problems, reader_env


def test_every_page_is_linked_from_the_readme_and_every_block_is_tagged():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    unlinked = [p.name for p in PAGES[1:] if f"](docs/{p.name})" not in readme]
    assert not unlinked, f"the README's map does not link {unlinked}"
    wrong = [problem for page in PAGES for problem in problems(blocks(page))]
    assert not wrong, "\n".join(wrong)


def test_the_checks_see_a_wrong_block(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "```\nno tag\n```\n\n```shell\nls\n```\n\n<!-- not run: -->\n```sh\ntabular serve\n```\n\n"
        '```json\n{"a": 1,}\n```\n',
        encoding="utf-8",
    )
    said = problems(blocks(page))
    assert len(said) == 4, said
    assert "no tag" in said[0] and "unknown tag 'shell'" in said[1] and "needs a reason" in said[2]
    assert "does not parse" in said[3]


def test_the_generated_cli_examples_parse():
    page = ROOT / "docs" / "cli.md"
    examples = cli_examples(blocks(page))
    assert len(examples) > 20, "the CLI section between the marks is missing from docs/cli.md"
    wrong = [f"{b.where}: tabular {' '.join(argv)}: {said}" for b, argv in examples if (said := parse_example(argv))]
    assert not wrong, "\n".join(wrong)
    assert parse_example(["ingest", "--no-such-option", "a.csv"]), "the parser took a wrong option"


# The blocks that cannot run by their nature, each with why and what runs it instead: a new one
# must be added here on purpose.
NOT_RUN = 5


def test_the_blocks_not_run_are_few_and_say_why():
    marked = [b for page in PAGES for b in blocks(page) if b.not_run is not None]
    assert all(b.not_run for b in marked), [b.where for b in marked if not b.not_run]
    assert len(marked) == NOT_RUN, "\n".join(f"{b.where}: {b.not_run}" for b in marked)


def test_every_plan_shown_in_the_docs_is_answered(tmp_path):
    """The JSON blocks that are plans (a `datasets` key), over fixtures/query's orders, customers
    and items ingested under the names the plans use: each is answered, none refused."""
    import json

    import tabular

    plans = [(b, json.loads(b.body)) for page in PAGES for b in blocks(page) if b.tag == "json"]
    plans = [(b, plan) for b, plan in plans if isinstance(plan, dict) and "datasets" in plan]
    assert len(plans) >= 4, [b.where for b, _ in plans]
    with tabular.connect(str(tmp_path / "home")) as engine:
        ns = engine.namespace("default", "default")
        for name in ("orders", "customers", "items"):
            ns.ingest_file(ROOT / "fixtures" / "query" / f"{name}.csv", source_uri=f"{name}.csv", progress=False)
        for block, plan in plans:
            try:
                answer = engine.call("knowledge.query", plan)
            except tabular.TabularError as e:
                raise AssertionError(f"{block.where}: the plan is refused: {e}") from None
            assert answer["columns"], block.where


# README.md's blocks run in tests/test_newcomer.py, in a fresh clone, as a newcomer types them.
# docs/clickhouse.md's load chdb, in-process ClickHouse (8 s and more before its first answer):
# make test-long runs them; the parity tests run chdb in make test.
HEAVY = {"clickhouse.md"}
RUN = [pytest.param(p, marks=pytest.mark.slow) if p.name in HEAVY else p for p in PAGES[1:]]


@pytest.mark.parametrize("page", RUN, ids=[p.name for p in PAGES[1:]])
def test_every_block_of_the_page_runs(page, tmp_path):
    found = blocks(page)
    run = [b for b in found if b.tag in ("python", "sh", "bash", "console") and not b.generated]
    if not run:
        pytest.skip(f"{page.name} has no block to run")
    shutil.copytree(ROOT / "fixtures", tmp_path / "fixtures")
    session = Session(tmp_path, reader_env(Path(sys.executable).parent))
    skipped = []
    try:
        for block in run:
            if block.not_run:
                skipped.append(block)
                continue
            session.run(block)
    finally:
        session.close()
    for block in skipped:
        assert block.not_run.strip(), f"{block.where}: a block not run needs a reason"
