"""planner/functions.py: the filters and aggregates by the names callers outside the planner
import them by, the very entries of the operator table."""

from planner import functions, operators


def test_the_names_are_the_tables_own_entries():
    assert functions.FILTERS is operators.FILTERS
    assert functions.AGGREGATES is operators.AGGREGATES
    assert functions.BUCKET_TYPES is operators.BUCKET_TYPES
