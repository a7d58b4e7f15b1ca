"""Text tests in a task (synthesize/text_match.py): the text matched, taken out of the words as one
token; the column it is on; the `like` filter; and the question when the cells leave it open."""

from __future__ import annotations

from synth_schemas import MEDALS, col

from tabular.synthesize.spans import Span, spans_of
from tabular.synthesize.text_match import QUOTE, Like, Quoted, column_of, like_filter, read_likes, tokens, unsure

NATION = MEDALS.columns[1]


def like(text, op="contains", how="quoted", negated=False, subject=None, named=None):
    return Like(op, Quoted(text, how), negated, subject, named)


def test_a_quoted_text_after_a_test_word_is_one_token():
    assert tokens("nations whose name contains 'land'") == (
        ["nations", "whose", "name", "contains", QUOTE],
        [Quoted("land", "quoted")],
    )


def test_a_quote_without_a_test_word_stays_words():
    words, texts = tokens("how many gold did 'Norway' win")
    assert QUOTE not in words and texts == []


def test_the_letter_is_quoted_as_written():
    assert tokens("nations starting with the letter c")[1] == [Quoted("c", "letter")]


def test_read_likes_takes_the_test_out_and_keeps_its_subject():
    words, texts = tokens("nations whose name contains 'land'")
    left, (found,) = read_likes(spans_of(words, [MEDALS]), texts)
    assert (found.op, found.quoted.text, found.negated) == ("contains", "land", False)
    assert column_of(found) is NATION
    assert [s.text for s in left] == ["nations"]


def test_like_filters_escape_the_patterns_own_marks():
    assert like_filter("Nation", like("50%", "starts")) == {
        "column": "Nation",
        "op": "like",
        "value": "50\\%%",
        "ignore_case": True,
    }
    assert like_filter("Nation", like("land", "ends"))["value"] == "%land"
    negated = like_filter("Nation", like("land", negated=True))
    assert negated["any"][0] == {"column": "Nation", "op": "is_null"} and negated["any"][1]["op"] == "not_like"


def test_column_of_needs_a_column_of_text():
    assert "does not say which column" in column_of(like("land"))
    gold = Span(0, 1, "column", [MEDALS.columns[2]], "gold")
    assert "no column of text" in column_of(like("land", subject=gold))
    nation = Span(0, 1, "column", [NATION], "nation")
    assert column_of(like("land", subject=nation)) is NATION
    assert "put it in quotes" in column_of(like("vowel", how="word", subject=nation))


def test_unsure_asks_when_a_cell_writes_the_text_another_way():
    films = col("Title", values=("Bull-Dog Drummond", "The Sea", "Theory"))
    assert "written another way" in unsure(like("bulldog drummond"), films)
    assert "the word, or the letters" in unsure(like("the"), films)
    assert unsure(like("drummond"), films) == ""
