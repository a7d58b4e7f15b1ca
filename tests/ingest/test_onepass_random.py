"""The one pass publishes what the careful way publishes (tests/ingest/test_onepass.py) for random
columns of the cells a sample misses (hypothesis), with a sample of a few rows."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onepass_cases import write_csv

CELLS = st.sampled_from(
    [
        "1",
        "2",
        "10",
        "007",
        "0",
        "-3",
        "1.5",
        "1.25",
        "1.125",
        "1,234",
        "1.234,5",
        "12345678901234567890",
        "1e3",
        "2024-01-02",
        "02/01/2024",
        "13/01/2024",
        "2024-02-30",
        "10:30",
        "yes",
        "no",
        "true",
        "NA",
        "",
        " ",
        "-",
        "x",
        "5%",
        "$4.50",
        "€3,20",
        "P1D",
        "1:30:00",
        "2024-01-02T10:00:00",
        # One letter of a flag pair alone, or beside its other; codes with an exponent; two-digit
        # years of this century and one DuckDB reads past next year (century).
        "F",
        "T",
        "N",
        "12E3",
        "10E4",
        "01/02/21",
        "05/06/60",
    ]
)


COLUMNS = st.lists(st.lists(CELLS, min_size=1, max_size=40), min_size=1, max_size=4)


def any_columns_publish_the_same(tmp_path_factory, homes, columns, sample):
    tmp_path = tmp_path_factory.mktemp("any")
    height = max(len(c) for c in columns)
    rows = [[c[i % len(c)] for c in columns] for i in range(height)]
    path = write_csv(tmp_path / "any.csv", [f"k{j}" for j in range(len(columns))], rows)
    homes.same(path, sample * len(columns))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(columns=COLUMNS, sample=st.integers(1, 30))
def test_any_columns_publish_the_same_through_the_one_pass(tmp_path_factory, homes, columns, sample):
    any_columns_publish_the_same(tmp_path_factory, homes, columns, sample)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(columns=COLUMNS, sample=st.integers(1, 30))
def test_many_more_columns_publish_the_same_through_the_one_pass(tmp_path_factory, homes, columns, sample):
    any_columns_publish_the_same(tmp_path_factory, homes, columns, sample)
