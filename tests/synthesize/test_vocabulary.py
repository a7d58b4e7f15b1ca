"""The words of a task (synthesize/vocabulary.py): how a task is cut into words, numbers and
symbols, a plural made singular, and which words the reading lets go."""

from __future__ import annotations

from synth_schemas import MEDALS, col, table

from tabular.synthesize.vocabulary import LIGHT_VERBS, OUTCOME_VERBS, grammar_words, light_verbs, singular, words


def test_words_are_lower_case_and_drop_punctuation_and_apostrophes():
    assert words("What's the Total_amount, on 2024-03-01?") == [
        "what",
        "s",
        "the",
        "total",
        "amount",
        "on",
        "2024-03-01",
    ]


def test_a_number_with_thousands_a_decimal_or_an_ordinal_is_one_word():
    assert words("10,000 and 3.5 and 10th") == ["10,000", "and", "3.5", "and", "10th"]


def test_a_symbol_is_a_word_to_place_and_a_quarter_is_one_word():
    assert words("# of wins in Q2") == ["#", "of", "wins", "in", "q2"]


def test_singular_drops_one_s_but_not_of_short_words_or_double_s():
    assert singular("games") == "game"
    assert singular("class") == "class"
    assert singular("bus") == "bus"
    assert singular("gold") == "gold"


def test_grammar_words_hold_the_readings_own_words_and_no_name():
    grammar = grammar_words()
    assert {"how", "most", "before", "per", "listed", "won"} <= grammar
    assert "norway" not in grammar


def test_a_win_is_a_light_verb_unless_the_rows_hold_outcomes():
    assert OUTCOME_VERBS & LIGHT_VERBS <= light_verbs([MEDALS])
    games = table(col("Opponent", values=("Ajax", "PSV")), col("Result", values=("W 2-0", "L 0-1")))
    assert "won" in light_verbs([MEDALS])
    assert "won" not in light_verbs([games])
    assert "scored" in light_verbs([games])
