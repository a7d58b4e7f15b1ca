"""A plan's values read as a column's type (planner/values.py): here, ISO 8601 durations, the one
reader both a filter's value and an answer's duration column go through."""

import datetime as dt

import pytest

from planner.values import Unreadable, read_duration, read_value


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("PT1H30M", dt.timedelta(hours=1, minutes=30)),
        ("P2D", dt.timedelta(days=2)),
        ("-P1DT2H30M4.5S", -dt.timedelta(days=1, hours=2, minutes=30, seconds=4.5)),
        ("PT0.1S", dt.timedelta(microseconds=100_000)),  # exactly, not 0.1 through a float
        ("PT0.0000015S", dt.timedelta(microseconds=2)),  # half to even
        ("PT0.0000025S", dt.timedelta(microseconds=2)),
        ("PT59.999999S", dt.timedelta(seconds=59, microseconds=999_999)),
    ],
)
def test_a_duration_is_read_exactly_to_the_microsecond(text, expected):
    assert read_duration(text) == expected


@pytest.mark.parametrize("text", ["P", "-P", "PT", "P1DT", "1H", "PT1.S", "P1Y", ""])
def test_what_is_no_duration_is_refused(text):
    with pytest.raises(ValueError):
        read_duration(text)


@pytest.mark.parametrize("text", ["P9999999999D", "PT99999999999999999999S", "-P1000000000D"])
def test_a_duration_longer_than_python_holds_is_refused_not_a_crash(text):
    with pytest.raises(ValueError):
        read_duration(text)
    with pytest.raises(Unreadable):  # a filter's value: 422 with what is expected, never INTERNAL
        read_value(text, "duration")


def test_a_filter_value_may_have_spaces_around():
    assert read_value("  PT5M ", "duration") == dt.timedelta(minutes=5)
