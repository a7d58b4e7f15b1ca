"""planner/rules.py: the typing rules of the operator table: exact numbers to the digit, refused
past 38, values standing for each other at one type, a cast's type word."""

from decimal import Decimal

import pytest
from schemas import column_node

from planner.rules import (
    Refused,
    cast_target,
    common,
    decimal_median,
    decimal_shape,
    exact_physical,
    literal_shape,
    shape_of,
)


def number(physical: str):
    return column_node("number", physical)


STRING = column_node("string", "VARCHAR")


def test_exact_types_have_shapes_and_shapes_have_types():
    assert shape_of("BIGINT") == (19, 0) and shape_of("DECIMAL(8, 2)") == (8, 2)
    assert shape_of("DOUBLE") is None and shape_of("VARCHAR") is None
    assert exact_physical((18, 0)) == "BIGINT" and exact_physical((19, 0)) == "HUGEINT"
    assert exact_physical((9, 2)) == "DECIMAL(9, 2)"


def test_a_literal_is_as_wide_as_it_is_written():
    assert literal_shape(0) == (1, 0) and literal_shape(-120) == (3, 0)
    assert literal_shape(Decimal("0.05")) == (3, 2)
    assert literal_shape(Decimal("12.50")) == (4, 2)  # its trailing zero counts: it was written
    assert literal_shape(Decimal("1E+3")) == (4, 0)


def test_values_standing_for_each_other_widen_to_one_exact_type():
    assert common([number("BIGINT"), number("DECIMAL(5, 3)")], "coalesce") == ("number", "DECIMAL(22, 3)", (22, 3))
    with pytest.raises(Refused, match="number, string"):
        common([number("BIGINT"), STRING], "coalesce")


def test_a_cast_names_its_type_by_word():
    assert cast_target("integer") == ("number", "BIGINT", (19, 0))
    assert cast_target(" Decimal(10, 2) ") == ("number", "DECIMAL(10, 2)", (10, 2))
    assert cast_target("decimal(39,2)") is None and cast_target("decimal(2,3)") is None
    assert cast_target(5) is None


def test_a_decimals_median_is_one_place_wider_where_that_stays_exact():
    assert decimal_shape("DECIMAL(8, 2)") == (8, 2)
    assert decimal_median("DECIMAL(8, 2)") == "DECIMAL(9, 3)"
    assert decimal_median("DECIMAL(36, 2)") == "DECIMAL(37, 3)"
    assert decimal_median("DECIMAL(37, 2)") is None  # two values added would pass 38 digits
    assert decimal_median("BIGINT") is None
