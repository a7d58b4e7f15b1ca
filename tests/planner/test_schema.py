"""planner/schema.py: the schemas the planner is handed, plain frozen values."""

import dataclasses

import pytest

from planner.schema import ColumnInfo, DatasetInfo

COLUMNS = (ColumnInfo("id", "number", "BIGINT", unique=True), ColumnInfo("Name", "string", "VARCHAR"))
PEOPLE = DatasetInfo("people.csv", "people", "s1", 1, ("snapshots", "s1"), 2, 0, False, COLUMNS)


def test_a_column_is_found_by_its_exact_name():
    assert PEOPLE.column("Name") is COLUMNS[1]
    assert PEOPLE.column("id").unique


def test_a_name_of_another_case_or_none_at_all_is_no_column():
    assert PEOPLE.column("name") is None
    assert PEOPLE.column("missing") is None


def test_a_column_says_nothing_it_was_not_told():
    c = ColumnInfo("x", "number", "DOUBLE")
    assert (c.unique, c.open_questions, c.digits, c.shape) == (False, (), None, None)
    assert DatasetInfo("a.csv", "a", "s", 1, ("s",), 0, 0, False).columns == ()


def test_schemas_cannot_be_changed_once_made():
    with pytest.raises(dataclasses.FrozenInstanceError):
        PEOPLE.rows = 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        COLUMNS[0].type = "string"


def test_equal_schemas_are_equal_values():
    again = DatasetInfo("people.csv", "people", "s1", 1, ("snapshots", "s1"), 2, 0, False, COLUMNS)
    assert again == PEOPLE and hash(again) == hash(PEOPLE)
    assert dataclasses.replace(PEOPLE, revision=2) != PEOPLE
