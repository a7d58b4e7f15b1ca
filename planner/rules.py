"""The typing rules the operator table (operators.py) is written with, as ibis's rules are: what
types an operator reads, and the type of its result from its arguments' (exact numbers to the
digit). An operator that types as another does names the same rule; only an operator that types
in a new way needs a new rule here.

Exact numbers carry a shape, (precision, scale), the most digits a value can have: a DECIMAL
column's own, 19 for a BIGINT, a bound from the rows read for a sum. Arithmetic on shapes is the
exact result's (`add`: the wider integer part plus the wider scale plus a carry; `mul`: digits
and scales add up) and past 38 digits it is refused before anything runs, never run in DOUBLE.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from .resolved import AggregateOutput, LiteralNode, NullNode, Output, RExpr, Shape
from .values import MAX_DIGITS

# The logical types (SPEC §3) an operator, filter or aggregate reads.
ANY = frozenset({"string", "number", "bool", "date", "datetime", "time", "duration"})
ORDERED = ANY - {"bool"}
STRING = frozenset({"string"})
NUMBER = frozenset({"number"})
DATES = frozenset({"date", "datetime"})

# The DuckDB type each logical type's values take when the plan makes them (literals, casts).
PHYSICAL = {
    "string": "VARCHAR",
    "bool": "BOOLEAN",
    "date": "DATE",
    "datetime": "TIMESTAMP",
    "time": "TIME",
    "duration": "INTERVAL",
    "number": "DOUBLE",
}
CAST_TYPES = {
    "string": ("string", "VARCHAR"),
    "number": ("number", "DOUBLE"),
    "integer": ("number", "BIGINT"),
    "bool": ("bool", "BOOLEAN"),
    "date": ("date", "DATE"),
    "datetime": ("datetime", "TIMESTAMP"),
    "time": ("time", "TIME"),
    "duration": ("duration", "INTERVAL"),
}
DATE_UNITS = ("year", "quarter", "month", "week", "day", "hour", "minute", "second")

Typed = tuple[str, str, Shape | None]  # (logical type, DuckDB type, shape)
Rule = Callable[[list[RExpr]], Typed]


class Refused(ValueError):
    """An expression that cannot be typed: the message says why; `arg` which argument (or None)."""

    def __init__(self, message: str, expected: str | None = None, arg: int | None = None):
        super().__init__(message)
        self.expected, self.arg = expected, arg


def shape_of(physical: str) -> Shape | None:
    """The shape of an exact number type, None for DOUBLE and the other types."""
    if physical in ("BIGINT", "INT64"):
        return (19, 0)
    if physical in ("INTEGER", "INT32"):
        return (10, 0)
    if physical == "HUGEINT":
        return (39, 0)  # wider than any exact result may be: arithmetic on it is refused
    if physical.startswith("DECIMAL("):
        return decimal_shape(physical)
    return None


def decimal_shape(physical: str) -> Shape:
    """(precision, scale) of 'DECIMAL(p, s)'."""
    p, s = physical[len("DECIMAL(") : -1].split(",")
    return int(p), int(s)


def exact_physical(shape: Shape) -> str:
    p, s = shape
    if s == 0:
        return "BIGINT" if p <= 18 else "HUGEINT"
    return f"DECIMAL({p}, {s})"


def literal_shape(value: int | Decimal) -> Shape:
    """The shape of a number literal (int or Decimal) as written: 0.05 is (3, 2), 120 is (3, 0)."""
    if isinstance(value, int):
        return (max(len(str(abs(value))), 1), 0)
    _, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)  # a finite number: read_value refuses NaN and infinities
    scale = max(-exponent, 0)
    whole = max(len(digits) + exponent, 0)
    return (max(whole, 1) + scale, scale)


def decimal_median(physical: str) -> str | None:
    """The exact type of a decimal column's median, one place wider (the middle of 1.01 and 1.02
    is 1.015); None where that cannot be exact: not a decimal, or too wide to add two values
    and halve them within DECIMAL(38)."""
    if not physical.startswith("DECIMAL"):
        return None
    p, s = decimal_shape(physical)
    return f"DECIMAL({p + 1}, {s + 1})" if p + 2 <= 38 else None


def _numbers(args: list[RExpr], op: str) -> None:
    for k, a in enumerate(args):
        if a.type != "number":
            raise Refused(f"{op} reads numbers; argument {k + 1} is {a.type}", "a number", k)


def fits(shape: Shape, op: str) -> Shape:
    if shape[0] > MAX_DIGITS:
        raise Refused(
            f"the exact result of {op} can have {shape[0]} digits, more than the 38 an exact number holds; round its arguments first "
            "(round) or divide (div, a DOUBLE)",
            "an exact result of at most 38 digits",
        )
    return shape


def arith(op: str, combine: Callable[[Shape, Shape], Shape]) -> Rule:
    """Numbers combined exactly: each pair's shapes by `combine`; any DOUBLE makes it DOUBLE."""

    def typed(args: list[RExpr]) -> Typed:
        _numbers(args, op)
        shapes = [a.shape for a in args]
        if any(s is None for s in shapes):
            return "number", "DOUBLE", None
        exact = [s for s in shapes if s is not None]
        shape = exact[0]
        for other in exact[1:]:
            shape = fits(combine(shape, other), op)
        return "number", exact_physical(shape), shape

    return typed


def sum_shape(a: Shape, b: Shape) -> Shape:
    s = max(a[1], b[1])
    return max(a[0] - a[1], b[0] - b[1]) + s + 1, s


def product_shape(a: Shape, b: Shape) -> Shape:
    return a[0] + b[0], a[1] + b[1]


def one_number(op: str, rule: Callable[[Shape], Shape]) -> Rule:
    """An operator on one number: DOUBLE stays DOUBLE; an exact number's result has the shape
    `rule` makes of its argument's, and that shape's type, not the column's (-(-2^63) does not
    fit a BIGINT)."""

    def typed(args: list[RExpr]) -> Typed:
        _numbers(args, op)
        a = args[0]
        if a.shape is None:
            return "number", "DOUBLE", None
        shape = rule(a.shape)
        return "number", exact_physical(shape), shape

    return typed


def same(shape: Shape) -> Shape:
    return shape


def whole(shape: Shape) -> Shape:
    p, s = shape
    return (p - s + 1, 0) if s else shape  # floor(-9.5) is -10: one more digit


def double(op: str) -> Rule:
    """Numbers in, a DOUBLE out (div)."""

    def typed(args: list[RExpr]) -> Typed:
        _numbers(args, op)
        return "number", "DOUBLE", None

    return typed


def rounded(args: list[RExpr]) -> Typed:
    _numbers(args[:1], "round")
    digits = round_digits(args)
    a = args[0]
    if a.shape is None:
        return "number", "DOUBLE", None
    p, s = a.shape
    if digits >= s:
        return "number", exact_physical(a.shape), a.shape
    shape = (p - s + digits + 1, digits)  # 9.99 to one place is 10.0: one more integer digit
    return "number", exact_physical(shape), shape


def round_digits(args: list[RExpr]) -> int:
    """round's digits (0 without them): a whole number from 0 to 38, written as a value."""
    if len(args) < 2:
        return 0
    d = args[1]
    if not isinstance(d, LiteralNode) or not isinstance(d.value, int) or not 0 <= d.value <= MAX_DIGITS:
        raise Refused("round's digits are a whole number from 0 to 38, written as a number", "0 … 38", 1)
    return d.value


def common(args: list[RExpr], op: str) -> Typed:
    """One type for values that stand for each other (coalesce, case): numbers widen to hold
    each exactly (any DOUBLE makes it DOUBLE); other types must agree."""
    known = [a for a in args if not isinstance(a, NullNode) or a.type]
    types = {a.type for a in known}
    if len(types) > 1:
        raise Refused(f"{op} needs values of one type; these are {', '.join(sorted(types))}", "values of one type")
    type_ = types.pop()
    if type_ == "number":
        shapes = [a.shape for a in known]
        exact = [s for s in shapes if s is not None]
        if len(exact) < len(shapes):
            return "number", "DOUBLE", None
        integer = max(p - s for p, s in exact)
        scale = max(s for _, s in exact)
        shape = fits((integer + scale, scale), op)
        return "number", exact_physical(shape), shape
    physicals = {a.physical for a in known}
    if len(physicals) > 1:
        raise Refused(f"{op} needs values of one type; these are {', '.join(sorted(physicals))}", "values of one type")
    return type_, physicals.pop(), None


def alike(op: str) -> Rule:
    """Values of one type (common), the result at their common type (coalesce)."""
    return lambda args: common(args, op)


def first_of_alike(op: str) -> Rule:
    """Values of one type, the result at the first one's type (nullif)."""

    def typed(args: list[RExpr]) -> Typed:
        common(args, op)
        a = args[0]
        return a.type, a.physical, a.shape

    return typed


def part(op: str, types: frozenset[str], digits: int) -> Rule:
    """A part of a date, datetime or time: an integer of at most `digits` digits."""

    def typed(args: list[RExpr]) -> Typed:
        a = args[0]
        if a.type not in types:
            raise Refused(f"{op} reads a {' or '.join(sorted(types))}; this is {a.type}", " or ".join(sorted(types)), 0)
        return "number", "BIGINT", (digits, 0)

    return typed


def date_diff(args: list[RExpr]) -> Typed:
    unit = args[0]
    if not isinstance(unit, LiteralNode) or unit.value not in DATE_UNITS:
        raise Refused(
            'date_diff\'s first argument is its unit, written as a value: {"value": "day"}', " | ".join(DATE_UNITS), 0
        )
    for k, a in enumerate(args[1:], 1):
        if a.type not in DATES:
            raise Refused(f"date_diff reads dates or datetimes; argument {k + 1} is {a.type}", "a date or datetime", k)
    return "number", "BIGINT", (19, 0)


def date_add(args: list[RExpr]) -> Typed:
    when, by = args
    if when.type not in DATES:
        raise Refused(f"date_add moves a date or datetime; this is {when.type}", "a date or datetime", 0)
    if by.type != "duration":
        raise Refused(
            f'date_add moves by a duration ({{"value": "P30D", "type": "duration"}}); this is {by.type}',
            "a duration",
            1,
        )
    if when.type == "date" and not _whole_days(by):
        return "datetime", "TIMESTAMP", None  # a date moved by hours is a datetime
    return when.type, when.physical, None


def _whole_days(by: RExpr) -> bool:
    return (
        isinstance(by, LiteralNode)
        and isinstance(by.value, dt.timedelta)
        and by.value % dt.timedelta(days=1) == dt.timedelta(0)
    )


def of_string(op: str, result: Typed) -> Rule:
    """A string in, `result` out (lower, upper, length)."""

    def typed(args: list[RExpr]) -> Typed:
        if args[0].type != "string":
            raise Refused(f"{op} reads a string; this is {args[0].type}", "a string", 0)
        return result

    return typed


def text(args: list[RExpr]) -> Typed:
    """Any values, a string out (concat: each as its text)."""
    return "string", "VARCHAR", None


SUBSTRING_DIGITS = 9  # 999,999,999: under DuckDB's 4,294,967,295


def substring(args: list[RExpr]) -> Typed:
    if args[0].type != "string":
        raise Refused(f"substring reads a string; this is {args[0].type}", "a string", 0)
    for k, a in enumerate(args[1:], 1):
        if a.type != "number" or a.shape is None or a.shape[1] != 0:
            raise Refused("substring's start and length are integers", "an integer", k)
        # DuckDB takes them as BIGINT and refuses offsets past 2^32 - 1 when it runs: an integer
        # that may be wider is refused here, by its digits, not by the engine at run time.
        if a.shape[0] > SUBSTRING_DIGITS:
            raise Refused(
                f"substring's start and length are integers of at most {SUBSTRING_DIGITS} digits; this one may have {a.shape[0]}",
                f"an integer of at most {SUBSTRING_DIGITS} digits",
                k,
            )
    return "string", "VARCHAR", None


def cast_target(word: Any) -> Typed | None:
    """(logical type, DuckDB type, shape) of a cast's type word: one of CAST_TYPES or decimal(p,s)."""
    if not isinstance(word, str):
        return None
    text = word.strip().lower().replace(" ", "")
    if text in CAST_TYPES:
        type_, physical = CAST_TYPES[text]
        return type_, physical, shape_of(physical)
    if text.startswith("decimal(") and text.endswith(")"):
        parts = text[len("decimal(") : -1].split(",")
        if len(parts) == 2 and all(p.isdigit() for p in parts):
            p, s = int(parts[0]), int(parts[1])
            if 1 <= p <= MAX_DIGITS and s <= p:
                return "number", f"DECIMAL({p}, {s})", (p, s)
    return None


def cast(args: list[RExpr]) -> Typed:
    word = args[1]
    target = cast_target(word.value) if isinstance(word, LiteralNode) else None
    if target is None:
        raise Refused(
            'cast\'s second argument is a type, written as a value: {"value": "date"}',
            " | ".join(CAST_TYPES) + " | decimal(p,s)",
            1,
        )
    return target


def literal(node: RExpr) -> Any:
    """A literal's value (None for any other node): round's digits, date_diff's unit."""
    return node.value if isinstance(node, LiteralNode) else None


def untyped(args: list[RExpr]) -> Typed:
    """case: typed by the resolver from its `then`s (common), not from arguments."""
    return "", "", None


def same_type(t: str) -> str:
    """An aggregate whose result is of its column's logical type (sum, min …)."""
    return t


def a_number(t: str) -> str:
    """An aggregate whose result is a number whatever it reads (count)."""
    return "number"


def digits_bound(rows: int, shape: Shape | None) -> Shape | None:
    """The shape of a sum over at most `rows` values of `shape` (None: not exact). The bound is
    what lets `sum(a) - sum(b)` be typed exactly; DuckDB's own sum type is DECIMAL(38, s)."""
    if shape is None:
        return None
    p, s = shape
    return (min(MAX_DIGITS, p + len(str(max(rows, 1)))), s)


# Windows: the result's type from the result column read (`of`; None for a ranking) and the most
# rows the plan can have.
WindowRule = Callable[[Output | None, int], Typed]


def a_count(of: Output | None, rows: int) -> Typed:
    """A rank, a row number or a count: an integer."""
    return "number", "BIGINT", (19, 0)


def window_total(of: Output | None, rows: int) -> Typed:
    """A sum over a partition: exact as DuckDB sums (HUGEINT, DECIMAL(38, s)), bounded by the rows
    summed; a total of a sum's groups is a sum over the same rows, so it keeps that sum's bound."""
    if of is None:
        return "number", "DOUBLE", None
    physical = (
        "HUGEINT" if of.physical in ("BIGINT", "HUGEINT") else f"DECIMAL(38, {of.shape[1]})" if of.shape else "DOUBLE"
    )
    shape = of.shape if isinstance(of, AggregateOutput) and of.fn == "sum" else digits_bound(rows, of.shape)
    return "number", physical, shape


def as_read(of: Output | None, rows: int) -> Typed:
    """The value read itself (min, max)."""
    return (of.type, of.physical, of.shape) if of is not None else ("number", "DOUBLE", None)


def a_double(of: Output | None, rows: int) -> Typed:
    """An average or a share: a DOUBLE."""
    return "number", "DOUBLE", None
