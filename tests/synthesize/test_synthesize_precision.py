"""Precision first on other people's tables (issue 18): the wrong answers seen on real questions,
each now answered right or abstained on. The tables are written here (shaped like the Wikipedia
tables that showed the fault) and the answers computed by hand from them."""

from __future__ import annotations

import pytest

import tabular
from conftest import ROOT

MEDALS = """Rank,Nation,Gold,Silver,Bronze,Total
1,Norway,5,3,2,10
2,Germany,4,4,1,9
3,Canada,2,1,4,7
4,Italy,1,2,0,3
Total,Total,12,10,7,29
"""
INTERVALS = """Interval,Semitones,Quality
minor third,3,minor
major third,4,major
minor third,3,minor
perfect fifth,7,perfect
"""
BOOKS = """Year,Title,Publisher
1990,Night Falls,Walker
1991,Night Falls,Walker
1992,The Long Road,Penguin
1993,Blue Water,Walker
"""


@pytest.fixture(scope="module")
def ns(tmp_path_factory):
    folder = tmp_path_factory.mktemp("precision")
    with tabular.connect(str(folder / "home")) as engine:
        ns = engine.namespace("acme", "precision")
        for name, text in (("medals.csv", MEDALS), ("intervals.csv", INTERVALS), ("books.csv", BOOKS)):
            (folder / name).write_text(text, encoding="utf-8")
            assert ns.ingest_file(folder / name, source_uri=name).state == "ready"
        yield ns


def rows(ns, task: str, source: str):
    out = ns.synthesize(task, [source])
    assert not out.abstain, (task, out.abstain_reason, out.clarification)
    return out.calculations[0].rows


def test_a_symbol_is_a_word_to_place_never_dropped(ns):
    out = ns.synthesize("how many minor thirds have #?", ["intervals.csv"])
    assert out.abstain and out.abstain_reason == "invalid_plan" and "'#'" in out.clarification


def test_a_total_row_is_left_out_of_totals_and_rankings(ns):
    assert rows(ns, "what is the total gold?", "medals.csv") == [[12]]
    assert rows(ns, "which nation has the most gold?", "medals.csv")[0][0] == "Norway"
    assert rows(ns, "how many nations are there?", "medals.csv") == [[4]]


def test_how_many_counts_the_rows_and_different_counts_the_distinct_ones(ns):
    assert rows(ns, "how many titles are there for walker?", "books.csv") == [[3]]
    assert rows(ns, "how many different titles are there for walker?", "books.csv") == [[2]]


CORPUS = ROOT.parent / "shared" / "corpus" / "polars" / "docs" / "assets" / "data" / "pokemon.csv"


@pytest.mark.skipif(not CORPUS.exists(), reason="the shared corpus is not here")
def test_a_bool_column_counts_the_rows_where_it_is_true(ns):
    assert ns.ingest_file(CORPUS, source_uri="pokemon.csv").state == "ready"
    legendary = sum(1 for line in CORPUS.read_text(encoding="utf-8").splitlines()[1:] if line.rstrip().endswith(",True"))
    assert rows(ns, "How many legendary pokemon are there?", "pokemon.csv") == [[legendary]]
    out = ns.synthesize("What is the average Attack of Fire type pokemon?", ["pokemon.csv"])
    assert "88.64 " in out.answer and out.calculations[0].rows[0][0] == pytest.approx(88.64285714285714)  # words rounded, rows exact
