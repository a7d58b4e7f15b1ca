"""What a column is to a task's words (synthesize/columns.py), from its name, type and values."""

from __future__ import annotations

from synth_schemas import MEDALS, SALES, col, table

from tabular.synthesize.columns import (
    date_columns,
    is_id,
    is_venue,
    label_column,
    measurable,
    ordinal,
    place_columns,
    time_columns,
    timelike,
    yearlike,
)


def test_a_year_column_by_its_name_or_a_moment_whose_values_are_years():
    assert yearlike(col("Year", "number", lo=1990, hi=2010))
    assert not yearlike(col("Years in NBA", "number", lo=1, hi=18))  # counts years
    assert yearlike(col("Founded", "number", lo=1850, hi=1999))
    assert not yearlike(col("Founded", "number", lo=1, hi=40))
    assert not yearlike(col("Points", "number", lo=1990, hi=2010))


def test_a_column_that_numbers_the_rows():
    assert ordinal(col("Round", "number"))
    assert ordinal(col("#", "number"))
    assert ordinal(col("column_0", "number", unique=True))
    assert not ordinal(col("Gold", "number"))


def test_place_and_venue_and_time_columns():
    assert [c.name for c in place_columns(MEDALS)] == ["Rank"]
    assert is_venue(col("Venue")) and not is_venue(col("Nation"))
    assert timelike(col("Time")) and timelike(col("Lap", "duration")) and not timelike(col("Gold", "number"))


def test_dates_else_years_say_when_a_row_happened():
    assert [c.name for c in date_columns(SALES)] == ["order_date"]
    seasons = table(col("Year", "number", lo=1990, hi=2010), col("Club"))
    assert [c.name for c in time_columns(seasons)] == ["Year"]
    assert time_columns(MEDALS) == []


def test_ids_are_not_measured():
    assert is_id(col("customer_id", "number")) and not is_id(col("amount", "number"))
    cols = [col("customer_id", "number"), col("amount", "number"), col("region")]
    assert [c.name for c in measurable(cols)] == ["amount"]


def test_the_label_column_is_the_first_unique_text_of_names():
    assert label_column(MEDALS).name == "Nation"
    numbers_as_text = table(col("Phone", unique=True, values=("79 037 121", "79 037 122")), col("Who", unique=True))
    assert label_column(numbers_as_text).name == "Who"
    assert label_column(SALES) is None
