"""knowledge.synthesize as an op: its answer's shape and limits, abstentions, errors a caller can
act on (never INTERNAL), the CLI's `tabular ask`."""

import json
import os
import subprocess
import sys

import pytest
from synth_engine import synth  # noqa: F401 - the fixture
from synth_oracle import SALES, SYNTH, by, month, total
from test_cli import ingest_here

import tabular
from tabular.synthesize.answer import clip, note, scrub


def test_the_answer_cites_the_calculation_that_ran(synth):
    out = synth.synthesize("Total amount by region", ["sales.csv"], source_uris=["kb://x"])
    (calc,) = out.calculations
    assert calc.id == "knowledge.query#1" and calc.task == "Total amount by region" and calc.complete
    assert calc.plan["group_by"] == [{"column": "region"}] and calc.receipt.rows_returned == 4
    assert out.ignored_args == ["source_uris"] and out.unsupported_citations == [] and not out.truncated
    for region, amount in by(SALES, "region", lambda g: total(g, "amount")):
        assert f"region {region}; sum_amount {amount}" in out.answer and f"{region} | {amount}" in calc.note


def test_the_note_keeps_to_half_the_window_and_says_so(synth):
    out = synth.synthesize("Total amount by month", ["sales.csv"], window_chars=400)
    (calc,) = out.calculations
    assert len(calc.note) <= 200 and "more rows not shown" in calc.note and out.truncated
    assert len(calc.rows) == len(by(SALES, month("sold_on"), len))  # every row is still in the calculation
    short = synth.synthesize("Total amount by month", ["sales.csv"], max_answer_chars=120)
    assert len(short.answer) <= 120 and short.answer.endswith("(answer cut at max_answer_chars)") and short.truncated


def test_an_incomplete_dataset_is_said_in_the_answer(synth, tmp_path):
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("item,qty\na,1\nb,2,9,9\nc,3\n")
    synth.ingest_file(ragged, source_uri="ragged.csv")
    out = synth.synthesize("Total qty", ["ragged.csv"])
    (calc,) = out.calculations
    assert calc.rows == [["4"]] or calc.rows == [[4]]
    assert not calc.complete and "Not complete: " in out.answer and "1 row was rejected" in out.answer


def test_a_ranking_cut_between_ties_abstains(synth, tmp_path):
    ties = tmp_path / "ties.csv"
    ties.write_text("team,points\nred,5\nblue,3\ngreen,3\nred,1\n")
    synth.ingest_file(ties, source_uri="ties.csv")
    out = synth.synthesize("Top 2 teams by points", ["ties.csv"])
    assert out.abstain_reason == "ambiguous" and "tie on sum_points" in out.clarification
    assert synth.synthesize("Top 1 team by points", ["ties.csv"]).calculations[0].rows == [["red", 6]]


def test_clarifications_name_what_to_approve_or_choose(synth):
    asked = synth.synthesize("How many shipments in March 2024?", ["shipments.csv"])
    assert asked.abstain_reason == "needs_clarification"
    assert (
        "'shipments'" in asked.clarification
        and "'shipped'" in asked.clarification
        and "date_order" in asked.clarification
    )
    assert "knowledge.dataset_approve" in asked.clarification
    chosen = synth.synthesize("What is the total revenue?", ["invoices.csv"])
    assert chosen.clarification == "revenue: the column net or gross?"


def test_unsupported_citations_are_removed_and_listed():
    text, removed = scrub("It is 4 [knowledge.query#1], or 5 [knowledge.query#2] [web#3].", {"knowledge.query#1"})
    assert text == "It is 4 [knowledge.query#1], or 5." and removed == ["knowledge.query#2", "web#3"]
    shown, cut = note(["a", "b"], [[k, "x" * 20] for k in range(100)], False, 300)
    assert len(shown) <= 300 and cut and "more rows not shown" in shown
    assert clip("short", 10) == ("short", False) and len(clip("x" * 50, 40)[0]) == 40


@pytest.mark.parametrize(
    "body, path",
    [
        ({"task": "Total amount", "datasets": ["nothing.csv"]}, "datasets[0].source_uri"),
        ({"task": "Total amount", "datasets": ["sales.csv"] * 5}, "datasets"),
        ({"task": "", "datasets": ["sales.csv"]}, "task"),
        ({"task": "Total amount", "datasets": []}, "datasets"),
        (
            {"task": "Total amount", "datasets": [{"source_uri": "sales.csv", "dataset_id": "nope"}]},
            "datasets[0].dataset_id",
        ),
    ],
)
def test_bad_input_is_a_422_with_its_path(synth, body, path):
    with pytest.raises(tabular.TabularError) as err:
        synth.call("knowledge.synthesize", body)
    assert err.value.code == "VALIDATION_FAILED" and err.value.errors[0].path == path


def test_a_stale_snapshot_is_409(synth):
    with pytest.raises(tabular.TabularError) as err:
        synth.call(
            "knowledge.synthesize",
            {"task": "Total amount", "datasets": [{"source_uri": "sales.csv", "snapshot_id": "s_gone"}]},
        )
    assert err.value.code == "PRECONDITION_FAILED"


ODD_TASKS = [
    " ",
    "?",
    "🙂 total",
    "top 0 products by amount",
    "top 99999999 products by amount",
    "Total amount between 2024-13-45 and 2024-02-30",
    "total amount in may",
    "sum sum sum",
    "how many how many",
    "total amount by month by year by quarter",
    "between and",
    "Total amount over 1e400",
    "Total amount over 99999999999999999999999999999999999999999",
    "Top products by region by channel",
    "x" * 3000,
    "Total amount on 2024-02-30",
    "Which region?",
    "by by by",
    "Total Widget Widget Gadget",
    "not North",
    "Total amount for Q5 2024",
    "amount amount per amount",
]


@pytest.mark.parametrize("task", ODD_TASKS)
def test_odd_tasks_answer_or_abstain_never_internal(synth, task):
    try:
        out = synth.call("knowledge.synthesize", {"task": task, "datasets": ["sales.csv", "invoices.csv"]})
    except tabular.TabularError as err:
        # Only the task itself may be refused (blank, too long); any reading of it answers or abstains.
        assert err.code == "VALIDATION_FAILED" and all(e.path == "task" for e in err.errors), (err.code, err.message)
        return
    assert out["abstain"] or out["calculations"]


def test_cli_ask(tmp_path):
    env = {**os.environ, "TABULAR_HOME": str(tmp_path / "home")}
    run = lambda *a: subprocess.run(
        [sys.executable, "-m", "tabular.cli", *a], capture_output=True, text=True, env=env, timeout=120
    )
    ingest_here(tmp_path / "home", SYNTH / "sales.csv")  # in this process: `ask` is what is tested
    said = run("ask", "Total amount for Widget", "sales.csv")
    widget = total([r for r in SALES if r["product"] == "Widget"], "amount")
    assert said.returncode == 0 and str(widget) in said.stdout and "[knowledge.query#1]" in said.stdout
    whole = json.loads(run("ask", "What is the profit margin?", "sales.csv", "--json").stdout)
    assert whole["abstain_reason"] == "invalid_plan" and "profit" in whole["clarification"]


def test_days_on_a_datetime_column_are_whole_days(synth, tmp_path):
    events = tmp_path / "events.csv"
    events.write_text(
        "event,at,cost\na,2024-03-01T10:00:00,5\nb,2024-03-31T23:00:00,7\nc,2024-04-01T00:00:00,11\nd,2024-02-29T23:59:59,13\n"
    )
    synth.ingest_file(events, source_uri="events.csv")
    for task, want in [
        ("Total cost in March 2024", 5 + 7),
        ("Total cost on 2024-03-31", 7),
        ("Total cost after 2024-03-01", 7 + 11),
        ("Total cost before 2024-03-01", 13),
        ("Total cost until 2024-03-31", 13 + 5 + 7),
    ]:
        assert synth.synthesize(task, ["events.csv"]).calculations[0].rows == [[want]], task


def test_a_join_that_could_count_a_row_twice_is_not_proposed(synth):
    # Customers first, orders joined on a key that repeats in orders: each customer would count once per order.
    out = synth.synthesize("How many customers have pending orders?", ["orders.csv", "customers.csv"])
    assert out.abstain and out.abstain_reason == "invalid_plan" and "unique in orders" in out.clarification


VOCAB = (
    "total sum average median min max largest smallest earliest latest first last how many number of count distinct per by each for top "
    "bottom which what highest lowest most least in on after before between and from to not excluding monthly quarterly yearly month "
    "quarter year 2023 2024 2024-03-01 2024-06-30 march q2 3 10 over under more than at least amount units region product channel North "
    "Widget Online sales sale net gross tax customer status paid open invoices orders customers segment country Retail Germany shipped "
    "weight carrier DHL revenue when date the of a"
).split()


# Random tasks per run: `make test` takes the first of the ones `make test-long` takes (one seed).
SALAD_DEFAULT, SALAD_LONG = 60, 300


@pytest.mark.parametrize(
    "tasks", [pytest.param(SALAD_DEFAULT, id="default"), pytest.param(SALAD_LONG, id="long", marks=pytest.mark.slow)]
)
def test_word_salad_answers_or_abstains_never_internal(synth, tasks):
    import random

    rng = random.Random(1)
    sets = [
        ["sales.csv"],
        ["invoices.csv"],
        ["orders.csv", "customers.csv"],
        ["shipments.csv"],
        ["sales.csv", "invoices.csv"],
    ]
    for _ in range(tasks):
        task = " ".join(rng.choice(VOCAB) for _ in range(rng.randint(1, 9)))
        out = synth.call("knowledge.synthesize", {"task": task, "datasets": rng.choice(sets)})
        assert out["abstain"] or (out["calculations"] and "[knowledge.query#1]" in out["answer"]), task
