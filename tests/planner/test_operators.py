"""planner/operators.py: each expression operator typed from its arguments (exact numbers to the
digit, refused past 38), and the SQL it builds."""

from decimal import Decimal

import pytest
from sqlglot import exp

from planner.operators import (
    OPERATORS,
    Refused,
    RExpr,
    build,
    cast_target,
    common,
    exact_physical,
    literal_shape,
    shape_of,
)


def number(physical: str) -> RExpr:
    return RExpr("column", "number", physical, shape=shape_of(physical))


def literal(value) -> RExpr:
    return RExpr("literal", "number", "BIGINT", value=value, shape=literal_shape(value))


STRING = RExpr("column", "string", "VARCHAR")


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


def test_arithmetic_is_typed_to_the_exact_result():
    # 999999.99 + 19 digits of BIGINT: the wider integer part, the wider scale, and a carry
    assert OPERATORS["add"].typed([number("DECIMAL(8, 2)"), number("BIGINT")]) == ("number", "DECIMAL(22, 2)", (22, 2))
    assert OPERATORS["mul"].typed([number("DECIMAL(8, 2)"), number("BIGINT")]) == ("number", "DECIMAL(27, 2)", (27, 2))
    assert OPERATORS["floor"].typed([number("DECIMAL(3, 1)")]) == ("number", "BIGINT", (3, 0))
    assert OPERATORS["div"].typed([number("BIGINT"), number("BIGINT")]) == ("number", "DOUBLE", None)
    assert OPERATORS["add"].typed([number("DOUBLE"), number("BIGINT")]) == ("number", "DOUBLE", None)


def test_an_exact_result_past_38_digits_is_refused_not_run_in_double():
    with pytest.raises(Refused, match="39 digits"):
        OPERATORS["mul"].typed([number("DECIMAL(20, 2)"), number("BIGINT")])


def test_round_keeps_a_place_for_the_carry_and_takes_only_literal_digits():
    # 99.99 to one place is 100.0
    assert OPERATORS["round"].typed([number("DECIMAL(4, 2)"), literal(1)]) == ("number", "DECIMAL(4, 1)", (4, 1))
    with pytest.raises(Refused) as err:
        OPERATORS["round"].typed([number("DECIMAL(4, 2)"), literal(40)])
    assert err.value.arg == 1


def test_an_argument_of_the_wrong_type_is_named_by_its_position():
    with pytest.raises(Refused, match="argument 2 is string") as err:
        OPERATORS["add"].typed([number("BIGINT"), STRING])
    assert err.value.arg == 1
    with pytest.raises(Refused, match="year reads a date or datetime"):
        OPERATORS["year"].typed([STRING])


def test_values_standing_for_each_other_widen_to_one_exact_type():
    assert common([number("BIGINT"), number("DECIMAL(5, 3)")], "coalesce") == ("number", "DECIMAL(22, 3)", (22, 3))
    with pytest.raises(Refused, match="number, string"):
        common([number("BIGINT"), STRING], "coalesce")


def test_a_cast_names_its_type_by_word():
    assert cast_target("integer") == ("number", "BIGINT", (19, 0))
    assert cast_target(" Decimal(10, 2) ") == ("number", "DECIMAL(10, 2)", (10, 2))
    assert cast_target("decimal(39,2)") is None and cast_target("decimal(2,3)") is None
    assert cast_target(5) is None


def test_division_never_divides_by_zero_in_sql():
    node = RExpr("div", "number", "DOUBLE", args=[number("BIGINT"), number("BIGINT")])
    assert (
        build(node, [exp.column("a"), exp.column("b")]).sql("duckdb")
        == "CAST(a AS DOUBLE) / NULLIF(CAST(b AS DOUBLE), 0)"
    )
