"""The reading's rules for dates and periods (synthesize/dates.py): each range from its first day
to its last, and the period grouped by."""

from __future__ import annotations

from synth_schemas import SALES, reading

from tabular.synthesize.dates import quarter


def ranges(task):
    r, left = reading(task, SALES)
    assert left == [], left
    return r.ranges


def test_a_quarter_runs_from_its_first_day_to_its_last():
    assert quarter(2023, 4) == ("between", ["2023-10-01", "2023-12-31"])
    assert quarter(2024, 1) == ("between", ["2024-01-01", "2024-03-31"])


def test_a_month_of_a_leap_year_ends_on_its_last_day():
    assert ranges("total amount in february 2024") == [("between", ["2024-02-01", "2024-02-29"])]
    assert ranges("total amount in february 2023") == [("between", ["2023-02-01", "2023-02-28"])]


def test_quarters_said_short_or_in_words():
    assert ranges("total amount in q2 2024") == [("between", ["2024-04-01", "2024-06-30"])]
    assert ranges("total amount in the second quarter of 2024") == [("between", ["2024-04-01", "2024-06-30"])]


def test_before_a_year_is_before_its_first_day_after_it_past_its_last():
    assert ranges("total amount before 2006") == [("lt", ["2006-01-01"])]
    assert ranges("total amount after 2006") == [("gt", ["2006-12-31"])]
    assert ranges("total amount since 2006") == [("ge", ["2006-01-01"])]


def test_between_dates_and_between_years():
    assert ranges("total amount between 2024-01-01 and 2024-02-15") == [("between", ["2024-01-01", "2024-02-15"])]
    assert ranges("total amount from 1990 to 1995") == [("between", ["1990-01-01", "1995-12-31"])]


def test_a_year_or_a_date_alone_and_after_a_date():
    assert ranges("total amount in 2008") == [("between", ["2008-01-01", "2008-12-31"])]
    assert ranges("total amount 2024-03-01") == [("eq", ["2024-03-01"])]
    assert ranges("total amount after 2024-03-01") == [("gt", ["2024-03-01"])]


def test_a_period_to_group_by():
    assert reading("monthly amount", SALES)[0].buckets == ["month"]
    assert reading("total amount per year", SALES)[0].buckets == ["year"]
    r, left = reading("total amount by quarter", SALES)
    assert r.buckets == ["quarter"] and left == []
