"""tabular/ops/synthesize.py: knowledge.synthesize, a task in words answered by one plan run over
every row and cited, or an abstention that says why (the built-in proposer: no model needed)."""

import pytest
from pydantic import ValidationError

import tabular
from tabular.errors import ValidationFailed
from tabular.ops.synthesize import CALCULATION, SynthesizeIn, synthesize

NS = {"org": "acme", "namespace": "finance"}
SALES = "region,amount,sold_on\nNorth,10.50,2024-01-03\nSouth,4.25,2024-02-01\nNorth,2.00,2024-02-11\nEast,7.00,2024-03-01\n"


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    """One home for the module: the tests only ask."""
    folder = tmp_path_factory.mktemp("synthesize")
    with tabular.connect(str(folder / "home")) as engine:
        ns = engine.namespace(NS["org"], NS["namespace"])
        for name, text in (("sales.csv", SALES), ("scores.csv", "team,points\nred,5\nblue,3\ngreen,3\nred,1\n")):
            (folder / name).write_text(text)
            assert ns.ingest_file(folder / name, source_uri=name).state == "ready"
        yield engine.context


def ask(ctx, task, datasets=("sales.csv",), **fields):
    return synthesize(ctx, SynthesizeIn(**NS, task=task, datasets=list(datasets), **fields))


def test_a_bare_string_names_a_source():
    body = SynthesizeIn(task="Total amount", datasets=["sales.csv", {"source_uri": "b.csv", "dataset_id": "b"}])
    assert [(d.source_uri, d.dataset_id) for d in body.datasets] == [("sales.csv", ""), ("b.csv", "b")]


def test_a_task_reads_one_to_four_datasets():
    with pytest.raises(ValidationError):
        SynthesizeIn(task="Total amount", datasets=[])
    with pytest.raises(ValidationError):
        SynthesizeIn(task="Total amount", datasets=[f"s{k}.csv" for k in range(5)])


def test_a_total_is_answered_and_cited(ctx):
    out = ask(ctx, "Total amount")
    assert not out.abstain and out.model == "builtin"
    assert out.citations == [CALCULATION] and f"[{CALCULATION}]" in out.answer
    [calc] = out.calculations
    assert calc.rows == [["23.75"]] and calc.answer_columns == ["sum_amount"]  # 10.50 + 4.25 + 2.00 + 7.00
    assert calc.complete and calc.receipt.rows_returned == 1


def test_a_total_by_group_has_a_row_per_group(ctx):
    [calc] = ask(ctx, "Total amount by region").calculations
    assert calc.rows == [["East", "7.00"], ["North", "12.50"], ["South", "4.25"]]
    assert calc.plan["group_by"] == [{"column": "region"}]


def test_a_ranking_cut_between_ties_abstains(ctx):
    out = ask(ctx, "Top 2 teams by points", ["scores.csv"])
    assert out.abstain and out.abstain_reason == "ambiguous" and "tie" in out.clarification
    assert out.answer == "" and out.calculations == []
    [calc] = ask(ctx, "Top 1 team by points", ["scores.csv"]).calculations
    assert calc.rows == [["red", 6]]


def test_a_task_the_datasets_cannot_place_abstains_naming_the_word(ctx):
    out = ask(ctx, "What is the colour of the sky?")
    assert out.abstain_reason == "invalid_plan" and "'colour'" in out.clarification


def test_an_unknown_source_is_refused_with_the_closest(ctx):
    with pytest.raises(ValidationFailed) as err:
        ask(ctx, "Total amount", ["sale.csv"])
    [item] = err.value.errors
    assert (item.path, item.did_you_mean) == ("datasets[0].source_uri", ["sales.csv"])


def test_every_answer_says_its_reading_and_how_sure_it_is(ctx):
    [calc] = ask(ctx, "Total amount by region").calculations
    assert calc.reading == "the total of amount in sales.csv, by region, at most 1000 rows"
    sure = calc.confidence
    assert 0 <= sure.score <= 1 and 0 <= sure.wrong_bound <= 1 and sure.calibrated_on
    said = calc.model_dump(mode="json")
    assert said["reading"] == calc.reading and set(said["confidence"]) == {"score", "wrong_bound", "calibrated_on"}
    assert "features" not in said  # kept for training (bench/wtq.py), never sent
