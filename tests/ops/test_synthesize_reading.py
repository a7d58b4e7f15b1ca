"""tabular/ops/synthesize_reading.py: a synthesize answer's reading in words and its confidence, the
question that asks to confirm a reading scored under the threshold, and what came near (the
receipt's warnings by kind). The confidence model is the shipped one unless a test injects a
judge of its own (monkeypatch: a score chosen by the test, never a stub in the package)."""

from __future__ import annotations

from dataclasses import replace

import pytest

import tabular
from tabular.ops import synthesize as synthesize_ops
from tabular.ops import synthesize_reading
from tabular.ops.query import QueryIn, query
from tabular.ops.synthesize import SynthesizeIn, synthesize
from tabular.ops.synthesize_reading import confirm, near
from tabular.synthesize.confidence import Confidence
from tabular.synthesize.proposal import Candidate, Proposal

NS = {"org": "acme", "namespace": "finance"}
RACES = "Rider,Team,Winner,Laps\nC. Lorenzo,Yamaha,C. Lorenzo,23\nV. Rossi,Yamaha,V. Rossi,23\nD. Pedrosa,Honda,C. Lorenzo,22\n"


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    """One home for the module: the tests only ask (a setting changed is a context of their own)."""
    folder = tmp_path_factory.mktemp("reading")
    with tabular.connect(str(folder / "home")) as engine:
        (folder / "races.csv").write_text(RACES)
        ns = engine.namespace(NS["org"], NS["namespace"])
        assert ns.ingest_file(folder / "races.csv", source_uri="races.csv").state == "ready"
        yield engine.context


def scored(score: float, threshold: float, wrong_bound: float = 0.02):
    """A judge that gives every reading `score` against `threshold`, recording the features it saw."""
    seen = []

    def judge(features, max_wrong):
        seen.append((features, max_wrong))
        return Confidence(
            score=score, wrong_bound=wrong_bound, calibrated_on="calibrate (900 questions)", threshold=threshold
        )

    judge.seen = seen
    return judge


def ask(ctx, task):
    return synthesize(ctx, SynthesizeIn(**NS, task=task, datasets=["races.csv"]))


def test_a_reading_scored_under_the_threshold_asks_to_confirm_it():
    sure = Confidence(score=0.6234, wrong_bound=0.02, calibrated_on="calibrate", threshold=0.8)
    said = confirm("count the rows of races.csv", sure, 0.02)
    assert (
        said
        == "I read this as: count the rows of races.csv (confidence 0.62, below the 0.80 this answer needs): is that what you mean?"
    )


def test_a_score_is_never_said_as_high_as_its_threshold():
    close = Confidence(score=0.7996, wrong_bound=0.02, calibrated_on="calibrate", threshold=0.8)
    assert "(confidence 0.79, below the 0.80 this answer needs)" in confirm("r", close, 0.02)
    assert "(confidence 0.80, below the 0.81 " in confirm("r", Confidence(0.8001, 0.02, "c", 0.8004), 0.02)
    assert "(confidence 0.29, below the 0.30 " in confirm(
        "r", Confidence(0.29, 0.02, "c", 0.3), 0.02
    )  # 0.29 is 0.28999… as a float


def test_a_setting_no_threshold_can_keep_says_so():
    never = Confidence(score=0.97, wrong_bound=0.0, calibrated_on="calibrate", threshold=1.5)
    said = confirm("r", never, 0.001)
    assert said.startswith("I read this as: r (confidence 0.97, and no score is enough") and "0.001" in said


def test_an_answer_carries_its_reading_its_confidence_and_the_features_it_was_scored_on(ctx, monkeypatch):
    judge = scored(0.93, 0.8)
    monkeypatch.setattr(synthesize_reading, "judge", judge)
    out = ask(ctx, "How many races did C. Lorenzo win?")
    assert not out.abstain, out.clarification
    [calc] = out.calculations
    assert calc.rows == [[2]]
    assert calc.reading == "count the rows of races.csv where Winner is C. Lorenzo, any case"
    assert (calc.confidence.score, calc.confidence.wrong_bound, calc.confidence.calibrated_on) == (
        0.93,
        0.02,
        "calibrate (900 questions)",
    )
    [(features, max_wrong)] = judge.seen
    assert calc.features == features and features and max_wrong == 0.02  # the setting's default
    assert "features" not in calc.model_dump(mode="json") and "features" not in repr(calc)


def test_under_the_threshold_the_calculation_is_returned_not_answered(ctx, monkeypatch):
    monkeypatch.setattr(synthesize_reading, "judge", scored(0.62, 0.8))
    out = ask(ctx, "How many races did C. Lorenzo win?")
    assert out.abstain and out.abstain_reason == "low_confidence"
    assert out.answer == "" and out.citations == []
    [calc] = out.calculations
    assert calc.rows == [[2]] and calc.confidence.score == 0.62
    assert out.clarification == (
        f"I read this as: {calc.reading} (confidence 0.62, below the 0.80 this answer needs): is that what you mean?"
    )


def test_the_setting_reaches_the_judge(ctx, monkeypatch):
    judge = scored(0.9, 0.5)
    monkeypatch.setattr(synthesize_reading, "judge", judge)
    ask(replace(ctx, settings=replace(ctx.settings, synthesize_max_wrong=0.05)), "How many races did C. Lorenzo win?")
    assert [w for _, w in judge.seen] == [0.05]


def test_other_abstentions_come_before_the_score(ctx, monkeypatch):
    judge = scored(0.01, 0.8)
    monkeypatch.setattr(synthesize_reading, "judge", judge)
    out = ask(ctx, "How many races did Narnia win?")
    assert out.abstain_reason == "invalid_plan" and "'narnia'" in out.clarification.lower()
    assert out.calculations == [] and judge.seen == []  # no plan held: nothing was scored


def test_what_came_near_names_each_warning_by_its_kind(ctx):
    plan = {"datasets": [{"source_uri": "races.csv"}], "select": [{"column": "Rider"}], "limit": 1}
    result = query(ctx, QueryIn(**NS, **plan))
    assert near(result) == ["truncated"]
    warned = result.model_copy(
        update={
            "truncated": False,
            "receipt": result.receipt.model_copy(
                update={
                    "warnings": [
                        "join a.k = b.k: the key is unique on neither side, so rows may count more than once",
                        "compute[0]: 3 value(s) could not be read by cast and are null",
                        "something new",
                    ]
                }
            ),
        }
    )
    assert near(warned) == ["join_key_not_unique", "cast_unread", "warning"]


class Written:
    """A proposer that proposes the one plan it was given, as a chat model would (no facts of its own)."""

    name = "written"
    model = "a-chat-model"

    def __init__(self, plan):
        self.plan = plan

    def propose(self, task, schemas):
        return Proposal((Candidate(self.plan),))

    def repair(self, task, schemas, failed, plan, errors):
        return Proposal(why="no second try")


def test_another_proposers_plan_is_read_and_scored_the_same_way(ctx, monkeypatch):
    judge = scored(0.55, 0.8)
    monkeypatch.setattr(synthesize_reading, "judge", judge)
    plan = {
        "datasets": [{"source_uri": "races.csv"}],
        "where": [{"column": "Team", "op": "in", "values": ["Yamaha", "Honda"]}],
        "group_by": [{"column": "Winner"}],
        "aggregates": [{"fn": "count", "as": "wins"}],
        "order_by": [{"column": "wins", "desc": True}, {"column": "Winner"}],
        "limit": 1,
    }
    monkeypatch.setattr(synthesize_ops, "choose", lambda settings: Written(plan))
    out = ask(ctx, "Who won the most races?")
    assert out.model == "a-chat-model" and out.abstain_reason == "low_confidence"
    [calc] = out.calculations
    assert calc.reading == (
        "the number of rows (as wins) in races.csv where Team is Yamaha or Honda, by Winner, "
        "ordered by wins, highest first, then by Winner, the first row only"
    )
    assert calc.rows == [["C. Lorenzo", 2]] and out.clarification.startswith(f"I read this as: {calc.reading} (")
    assert len(judge.seen) == 1
