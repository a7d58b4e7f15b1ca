"""tabular/synthesize/phrases.py: the parts of a plan in words (values, filters, expressions),
each said so a reader cannot take it for another: ranges, `in` lists, text tests, LIKE patterns,
columns compared with columns, empties, case ignored, and values quoted where they could be
misread."""

from __future__ import annotations

import pytest

from tabular.synthesize.phrases import Unsayable, condition, conditions, expression, value


@pytest.mark.parametrize(
    ("where", "said"),
    [
        ({"column": "Year", "op": "between", "values": [2003, 2012]}, "Year is from 2003 to 2012"),
        ({"column": "On", "op": "lt", "value": "2024-06-30"}, "On is before 2024-06-30"),
        ({"column": "On", "op": "ge", "value": "2024-06-30"}, "On is on or after 2024-06-30"),
        ({"column": "Laps", "op": "le", "value": 12}, "Laps is at most 12"),
        ({"column": "Team", "op": "in", "values": ["Reds", "Blues"]}, "Team is Reds or Blues"),
        ({"column": "Team", "op": "in", "values": ["A", "B", "C"]}, "Team is one of A, B or C"),
        ({"column": "Team", "op": "not_in", "values": ["A", "B"]}, "Team is neither A nor B"),
        ({"column": "Team", "op": "not_in", "values": ["A", "B", "C"]}, "Team is none of A, B and C"),
        ({"column": "Name", "op": "like", "value": "%son%"}, 'Name contains "son"'),
        ({"column": "Name", "op": "like", "value": "son%"}, 'Name starts with "son"'),
        ({"column": "Name", "op": "not_like", "value": "%burg"}, 'Name does not end with "burg"'),
        ({"column": "Name", "op": "like", "value": "100\\%%"}, 'Name starts with "100%"'),
        (
            {"column": "Name", "op": "like", "value": "b_b"},
            'Name matches the pattern "b_b" (% any text, _ one character)',
        ),
        ({"column": "Pts", "op": "gt", "other": "Against"}, "Pts is more than column Against"),
        ({"column": "Note", "op": "not_null"}, "Note is not empty"),
        ({"column": "Team", "op": "eq", "value": "Smith, Jones"}, 'Team is "Smith, Jones"'),
        ({"column": "Team", "op": "eq", "value": "Rock and Roll"}, 'Team is "Rock and Roll"'),
    ],
)
def test_each_condition_in_words(where, said):
    assert condition(where) == said


def test_conditions_with_commas_are_joined_so_they_read_apart():
    both = [
        {"column": "Status", "op": "eq", "value": "paid", "ignore_case": True},
        {"column": "Year", "op": "eq", "value": 2024},
    ]
    assert conditions(both) == "Status is paid, any case, and Year is 2024"
    assert conditions(both[1:] * 2) == "Year is 2024 and Year is 2024"
    group = {
        "any": [
            {"column": "Team", "op": "is_null"},
            {"column": "Team", "op": "ne", "value": "reds", "ignore_case": True},
        ]
    }
    assert condition(group) == "Team is empty or is not reds, any case"  # one column's alternatives, case said once
    assert conditions([group, both[1]]) == "(Team is empty or is not reds, any case), and Year is 2024"
    mixed = {
        "any": [
            {"column": "A", "op": "eq", "value": 1},
            {"all": [{"column": "B", "op": "gt", "value": 2}, {"column": "C", "op": "is_null"}]},
        ]
    }
    assert condition(mixed) == "A is 1 or (B is more than 2 and C is empty)"


@pytest.mark.parametrize(
    ("expr", "said"),
    [
        ({"mul": ["units", "amount"]}, "units × amount"),
        ({"div": [{"sub": ["a", "b"]}, "c"]}, "(a − b) ÷ c"),
        ({"abs": {"sub": ["first", "second"]}}, "the absolute value of (first − second)"),
        ({"round": ["x", 2]}, "x rounded to 2 decimals"),
        ({"year": "sold_on"}, "the year of sold_on"),
        ({"date_diff": ["day", "from", "to"]}, "the days from from to to"),
        ({"cast": ["code", "number"]}, "code read as number"),
        ({"coalesce": ["a", "b", 0]}, "the first filled of a, b and 0"),
        ({"nullif": ["Points", "anchor"]}, "Points, empty where it equals anchor"),
        ({"concat": ["a", {"value": "|"}, "b"]}, 'the text a followed by "|" followed by b'),
        (
            {
                "case": [{"when": {"column": "gap", "op": "gt", "value": 0}, "then": {"value": "more"}}],
                "else": {"value": "less"},
            },
            'if gap is more than 0 then "more"; else "less"',
        ),
        ({"date_add": ["d", {"value": "P30D", "type": "duration"}]}, "d moved on by the duration P30D"),
        ({"substring": ["code", 2, 3]}, "at most 3 characters of code from character 2"),
    ],
)
def test_each_expression_in_words(expr, said):
    assert expression(expr) == said


def test_values_are_quoted_only_where_they_could_be_misread():
    assert [value(v) for v in ("C. Lorenzo", "O'Brien", 12.5, True, None)] == [
        "C. Lorenzo",
        "O'Brien",
        "12.5",
        "true",
        "null",
    ]
    assert [value(v) for v in ("Smith, Jones", " padded", "", "Salt and Pepper")] == [
        '"Smith, Jones"',
        '" padded"',
        '""',
        '"Salt and Pepper"',
    ]


def test_an_operator_with_no_words_is_refused():
    with pytest.raises(Unsayable):
        condition({"column": "a", "op": "near", "value": 1})
    with pytest.raises(Unsayable):
        expression({"pow": ["a", 2]})
    with pytest.raises(Unsayable):
        condition({"column": "a", "op": "eq", "value": 1, "fuzzy": True})
