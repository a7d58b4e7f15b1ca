"""One definition per expression operator (SPEC §4 `expr`): how many arguments it takes, the type
of its result from its arguments' (exact numbers to the digit), and the SQL it builds. The
resolver types expressions with this table and the compiler builds from it.

Exact numbers carry a shape, (precision, scale), the most digits a value can have: a DECIMAL
column's own, 19 for a BIGINT, a bound from the rows read for a sum. Arithmetic on shapes is the
exact result's (`add`: the wider integer part plus the wider scale plus a carry; `mul`: digits
and scales add up) and past 38 digits it is refused before anything runs, never run in DOUBLE.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from .values import MAX_DIGITS

Shape = tuple[int, int]  # (precision, scale) of an exact number

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


class Refused(ValueError):
    """An expression that cannot be typed: the message says why; `arg` which argument (or None)."""

    def __init__(self, message: str, expected: str | None = None, arg: int | None = None):
        super().__init__(message)
        self.expected, self.arg = expected, arg


@dataclass
class RExpr:
    """A typed expression node. `op`: an operator of OPERATORS, or "column" (ref), "output" (a
    result column, by name: measures), "literal" (value, bound as a parameter), "null"."""

    op: str
    type: str
    physical: str
    args: list[RExpr] = field(default_factory=list)
    ref: Any = None  # resolve.Ref of a dataset column
    name: str = ""  # output: the result column's name
    value: Any = None
    shape: Shape | None = None
    word: str = ""  # date_diff's unit, cast's type
    whens: list = field(default_factory=list)  # case: [(resolve.RFilter, RExpr)]
    path: str = ""

    def walk(self):
        yield self
        for a in self.args:
            yield from a.walk()
        for _, then in self.whens:
            yield from then.walk()


def shape_of(physical: str) -> Shape | None:
    """The shape of an exact number type, None for DOUBLE and the other types."""
    if physical in ("BIGINT", "INT64"):
        return (19, 0)
    if physical in ("INTEGER", "INT32"):
        return (10, 0)
    if physical == "HUGEINT":
        return (39, 0)  # wider than any exact result may be: arithmetic on it is refused
    if physical.startswith("DECIMAL("):
        p, s = physical[len("DECIMAL(") : -1].split(",")
        return int(p), int(s)
    return None


def exact_physical(shape: Shape) -> str:
    p, s = shape
    if s == 0:
        return "BIGINT" if p <= 18 else "HUGEINT"
    return f"DECIMAL({p}, {s})"


def literal_shape(value: Any) -> Shape:
    """The shape of a number literal (int or Decimal) as written: 0.05 is (3, 2), 120 is (3, 0)."""
    if isinstance(value, int):
        return (max(len(str(abs(value))), 1), 0)
    sign, digits, exponent = value.as_tuple()
    scale = max(-exponent, 0)
    whole = max(len(digits) + exponent, 0)
    return (max(whole, 1) + scale, scale)


def _numbers(args: list[RExpr], op: str) -> None:
    for k, a in enumerate(args):
        if a.type != "number":
            raise Refused(f"{op} reads numbers; argument {k + 1} is {a.type}", "a number", k)


def _fits(shape: Shape, op: str) -> Shape:
    if shape[0] > MAX_DIGITS:
        raise Refused(
            f"the exact result of {op} can have {shape[0]} digits, more than the 38 an exact number holds; round its arguments first "
            "(round) or divide (div, a DOUBLE)",
            "an exact result of at most 38 digits",
        )
    return shape


def _arith(op: str, combine: Callable[[Shape, Shape], Shape]) -> Callable[[list[RExpr]], tuple]:
    def typed(args: list[RExpr]) -> tuple:
        _numbers(args, op)
        if any(a.shape is None for a in args):
            return "number", "DOUBLE", None
        shape = args[0].shape
        for a in args[1:]:
            shape = _fits(combine(shape, a.shape), op)
        return "number", exact_physical(shape), shape

    return typed


def _add(a: Shape, b: Shape) -> Shape:
    s = max(a[1], b[1])
    return max(a[0] - a[1], b[0] - b[1]) + s + 1, s


def _mul(a: Shape, b: Shape) -> Shape:
    return a[0] + b[0], a[1] + b[1]


def _one_number(op: str, rule: Callable[[Shape], Shape]) -> Callable[[list[RExpr]], tuple]:
    """An operator on one number: DOUBLE stays DOUBLE; an exact number's result has the shape
    `rule` makes of its argument's, and that shape's type, not the column's (-(-2^63) does not
    fit a BIGINT)."""

    def typed(args: list[RExpr]) -> tuple:
        _numbers(args, op)
        a = args[0]
        if a.shape is None:
            return "number", "DOUBLE", None
        shape = rule(a.shape)
        return "number", exact_physical(shape), shape

    return typed


def _same(shape: Shape) -> Shape:
    return shape


def _whole(shape: Shape) -> Shape:
    p, s = shape
    return (p - s + 1, 0) if s else shape  # floor(-9.5) is -10: one more digit


def _div(args: list[RExpr]) -> tuple:
    _numbers(args, "div")
    return "number", "DOUBLE", None


def _round(args: list[RExpr]) -> tuple:
    _numbers(args[:1], "round")
    digits = _digits(args)
    a = args[0]
    if a.shape is None:
        return "number", "DOUBLE", None
    p, s = a.shape
    if digits >= s:
        return "number", exact_physical(a.shape), a.shape
    shape = (p - s + digits + 1, digits)  # 9.99 to one place is 10.0: one more integer digit
    return "number", exact_physical(shape), shape


def _digits(args: list[RExpr]) -> int:
    if len(args) < 2:
        return 0
    d = args[1]
    if d.op != "literal" or not isinstance(d.value, int) or not 0 <= d.value <= MAX_DIGITS:
        raise Refused("round's digits are a whole number from 0 to 38, written as a number", "0 … 38", 1)
    return d.value


def common(args: list[RExpr], op: str) -> tuple:
    """One type for values that stand for each other (coalesce, case): numbers widen to hold
    each exactly (any DOUBLE makes it DOUBLE); other types must agree."""
    known = [a for a in args if a.op != "null" or a.type]
    types = {a.type for a in known}
    if len(types) > 1:
        raise Refused(f"{op} needs values of one type; these are {', '.join(sorted(types))}", "values of one type")
    type_ = types.pop()
    if type_ == "number":
        if any(a.shape is None for a in known):
            return "number", "DOUBLE", None
        whole = max(a.shape[0] - a.shape[1] for a in known)
        scale = max(a.shape[1] for a in known)
        shape = _fits((whole + scale, scale), op)
        return "number", exact_physical(shape), shape
    physicals = {a.physical for a in known}
    if len(physicals) > 1:
        raise Refused(f"{op} needs values of one type; these are {', '.join(sorted(physicals))}", "values of one type")
    return type_, physicals.pop(), None


def _coalesce(args: list[RExpr]) -> tuple:
    return common(args, "coalesce")


def _nullif(args: list[RExpr]) -> tuple:
    common(args, "nullif")
    a = args[0]
    return a.type, a.physical, a.shape


def _part(op: str, types: frozenset[str], digits: int) -> Callable[[list[RExpr]], tuple]:
    def typed(args: list[RExpr]) -> tuple:
        a = args[0]
        if a.type not in types:
            raise Refused(f"{op} reads a {' or '.join(sorted(types))}; this is {a.type}", " or ".join(sorted(types)), 0)
        return "number", "BIGINT", (digits, 0)

    return typed


DATES = frozenset({"date", "datetime"})


def _date_diff(args: list[RExpr]) -> tuple:
    unit = args[0]
    if unit.op != "literal" or unit.value not in DATE_UNITS:
        raise Refused(
            'date_diff\'s first argument is its unit, written as a value: {"value": "day"}', " | ".join(DATE_UNITS), 0
        )
    for k, a in enumerate(args[1:], 1):
        if a.type not in DATES:
            raise Refused(f"date_diff reads dates or datetimes; argument {k + 1} is {a.type}", "a date or datetime", k)
    return "number", "BIGINT", (19, 0)


def _date_add(args: list[RExpr]) -> tuple:
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
        by.op == "literal" and isinstance(by.value, dt.timedelta) and by.value % dt.timedelta(days=1) == dt.timedelta(0)
    )


def _strings(op: str, result: tuple) -> Callable[[list[RExpr]], tuple]:
    def typed(args: list[RExpr]) -> tuple:
        if args[0].type != "string":
            raise Refused(f"{op} reads a string; this is {args[0].type}", "a string", 0)
        return result

    return typed


def _concat(args: list[RExpr]) -> tuple:
    return "string", "VARCHAR", None


SUBSTRING_DIGITS = 9  # 999,999,999: under DuckDB's 4,294,967,295


def _substring(args: list[RExpr]) -> tuple:
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


def cast_target(word: Any) -> tuple[str, str, Shape | None] | None:
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


def _cast(args: list[RExpr]) -> tuple:
    word = args[1]
    target = cast_target(word.value) if word.op == "literal" else None
    if target is None:
        raise Refused(
            'cast\'s second argument is a type, written as a value: {"value": "date"}',
            " | ".join(CAST_TYPES) + " | decimal(p,s)",
            1,
        )
    return target


@dataclass(frozen=True)
class OperatorDef:
    name: str
    least: int
    most: int | None  # None: any number
    typed: Callable[[list[RExpr]], tuple]  # (logical type, DuckDB type, shape) or Refused
    words: str  # in a receipt and an error: what it does
    literal_args: tuple[int, ...] = ()  # arguments that are words, not columns (date_diff's unit, cast's type)


OPERATORS: dict[str, OperatorDef] = {
    o.name: o
    for o in (
        OperatorDef("add", 2, None, _arith("add", _add), "the sum"),
        OperatorDef("sub", 2, 2, _arith("sub", _add), "the difference"),
        OperatorDef("mul", 2, None, _arith("mul", _mul), "the product"),
        OperatorDef("div", 2, 2, _div, "the quotient (DOUBLE; null where the divisor is 0)"),
        OperatorDef("neg", 1, 1, _one_number("neg", _same), "the negation"),
        OperatorDef("abs", 1, 1, _one_number("abs", _same), "the absolute value"),
        OperatorDef("round", 1, 2, _round, "rounded half away from zero", literal_args=(1,)),
        OperatorDef("floor", 1, 1, _one_number("floor", _whole), "rounded down"),
        OperatorDef("ceil", 1, 1, _one_number("ceil", _whole), "rounded up"),
        OperatorDef("coalesce", 1, None, _coalesce, "the first value that is not null"),
        OperatorDef("nullif", 2, 2, _nullif, "null where the two are equal"),
        OperatorDef("case", 0, 0, lambda args: ("", "", None), "the first `then` whose `when` holds"),
        OperatorDef("year", 1, 1, _part("year", DATES, 6), "the year"),
        OperatorDef("quarter", 1, 1, _part("quarter", DATES, 1), "the quarter"),
        OperatorDef("month", 1, 1, _part("month", DATES, 2), "the month"),
        OperatorDef("day", 1, 1, _part("day", DATES, 2), "the day of the month"),
        OperatorDef("weekday", 1, 1, _part("weekday", DATES, 1), "the ISO weekday"),
        OperatorDef("hour", 1, 1, _part("hour", frozenset({"datetime", "time"}), 2), "the hour"),
        OperatorDef("date_diff", 3, 3, _date_diff, "the unit boundaries between", literal_args=(0,)),
        OperatorDef("date_add", 2, 2, _date_add, "moved on by"),
        OperatorDef("concat", 1, None, _concat, "joined"),
        OperatorDef("lower", 1, 1, _strings("lower", ("string", "VARCHAR", None)), "in lower case"),
        OperatorDef("upper", 1, 1, _strings("upper", ("string", "VARCHAR", None)), "in upper case"),
        OperatorDef("length", 1, 1, _strings("length", ("number", "BIGINT", (10, 0))), "the length"),
        OperatorDef("substring", 2, 3, _substring, "part of"),
        OperatorDef("cast", 2, 2, _cast, "read as", literal_args=(1,)),
    )
}


# SQL ---------------------------------------------------------------------------------------------


def _fn(name: str, *args: exp.Expression) -> exp.Expression:
    return exp.Anonymous(this=name, expressions=list(args))


@functools.lru_cache(maxsize=512)
def _data_type(physical: str, dialect: str) -> exp.DataType:
    return exp.DataType.build(physical, dialect=dialect)


def data_type(physical: str, dialect: str = "duckdb") -> exp.DataType:
    """A type node, parsed once per type (sqlglot parses the text each time otherwise)."""
    return _data_type(physical, dialect).copy()


def as_type(e: exp.Expression, physical: str) -> exp.Expression:
    return exp.Cast(this=e, to=data_type(physical))


def operand(node: RExpr, sql: exp.Expression, shape: Shape | None, wide: bool = False) -> exp.Expression:
    """An argument of exact arithmetic at its shape's DECIMAL type, or DOUBLE where the result
    (`shape`) is DOUBLE. Where the result is wider than 18 digits every argument is too: DuckDB
    multiplies two narrow decimals in 64 bits and fails, though the exact product fits."""
    if shape is None:
        return sql if node.physical == "DOUBLE" else as_type(sql, "DOUBLE")
    p, s = node.shape
    if wide:
        p = max(p, shape[0])  # `wide`: at the result's precision (ClickHouse keeps the operands' width)
    elif shape[0] > 18:
        p = max(p, 19)
    wanted = f"DECIMAL({p}, {s})"
    return sql if node.physical.replace(" ", "") == wanted.replace(" ", "") else as_type(sql, wanted)


def build(node: RExpr, args: list[exp.Expression], wide: bool = False) -> exp.Expression:
    """The DuckDB SQL of an operator node over its compiled arguments; `wide`: exact arithmetic
    with every operand at the result's precision (an engine whose result type is its operands')."""
    op = node.op
    if op in ("add", "sub", "mul"):
        cls = {"add": exp.Add, "sub": exp.Sub, "mul": exp.Mul}[op]
        parts = [operand(a, sql, node.shape, wide) for a, sql in zip(node.args, args)]
        out = parts[0]
        for part in parts[1:]:
            out = cls(this=out, expression=part)
        return as_type(out, node.physical)
    if op == "div":
        a, b = (operand(n, sql, None) for n, sql in zip(node.args, args))
        return exp.Div(this=a, expression=exp.Nullif(this=b, expression=exp.Literal.number(0)), typed=False, safe=False)
    if op in ("neg", "abs", "floor", "ceil", "round"):
        arg = operand(node.args[0], args[0], node.args[0].shape)
        if op == "neg":
            out = exp.Neg(this=as_type(arg, node.physical) if node.shape else arg)
        elif op == "abs":
            out = exp.Abs(this=as_type(arg, node.physical) if node.shape else arg)
        elif op == "round":
            out = exp.Round(this=arg, decimals=exp.Literal.number(node.args[1].value if len(node.args) > 1 else 0))
        else:
            out = (exp.Floor if op == "floor" else exp.Ceil)(this=arg)
        return as_type(out, node.physical)
    if op == "coalesce":
        return exp.Coalesce(
            this=at_common(node, args[0], node.args[0]),
            expressions=[at_common(node, a, n) for a, n in zip(args[1:], node.args[1:])],
        )
    if op == "nullif":
        # Compared at a type that holds both exactly (ClickHouse would bring the second to the
        # first's type and fail where it does not fit), then given the first's type back.
        # The value given back is the first one itself, never the compared copy (a DOUBLE there
        # would round it).
        if node.type != "number":
            return exp.Nullif(this=args[0], expression=args[1])
        _, both, _ = common(node.args, "nullif")
        a, b = (sql.copy() if n.physical == both else as_type(sql.copy(), both) for n, sql in zip(node.args, args))
        return exp.Case(
            ifs=[exp.If(this=exp.EQ(this=a, expression=b), true=as_type(exp.null(), node.physical))], default=args[0]
        )
    if op in ("year", "quarter", "month", "day", "hour"):
        return _fn(op, args[0])
    if op == "weekday":
        return _fn("isodow", args[0])
    if op == "date_diff":
        return _fn(
            "date_diff",
            exp.Literal.string(node.args[0].value),
            _ts(node.args[1], args[1], node.args[2]),
            _ts(node.args[2], args[2], node.args[1]),
        )
    if op == "date_add":
        moved = exp.Add(this=args[0], expression=args[1])
        return as_type(moved, node.physical)
    if op == "concat":
        parts = [a if n.type == "string" else as_type(a, "VARCHAR") for a, n in zip(args, node.args)]
        out = parts[0]
        for part in parts[1:]:
            out = exp.DPipe(this=out, expression=part, safe=True)
        return out
    if op in ("lower", "upper"):
        return (exp.Lower if op == "lower" else exp.Upper)(this=args[0])
    if op == "length":
        return _fn("length", args[0])
    if op == "substring":
        return _fn("substring", *args)
    if op == "cast":
        return exp.TryCast(this=args[0], to=data_type(node.physical))
    raise ValueError(f"no SQL for operator {op}")


def at_common(node: RExpr, sql: exp.Expression, arg: RExpr) -> exp.Expression:
    """A value that stands for others (coalesce, case) at their common type."""
    if node.type == "number" and arg.physical != node.physical:
        return as_type(sql, node.physical)
    return sql


def _ts(node: RExpr, sql: exp.Expression, other: RExpr) -> exp.Expression:
    """date_diff between a date and a datetime: the date as a timestamp at midnight."""
    return as_type(sql, "TIMESTAMP") if node.type == "date" and other.type == "datetime" else sql
