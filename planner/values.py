"""Plan values read as a column's type, or a reason they cannot be."""

from __future__ import annotations

import datetime as dt
import enum
import re
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, Decimal, InvalidOperation, localcontext
from typing import Any

_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_DURATION = re.compile(r"(-)?P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?")


class Unreadable(ValueError):
    """The value cannot be read as the column's type; the message says what was expected."""


def read_value(value: Any, type_: str) -> Any:
    """`value` as a Python value of the logical type `type_` (bound as a query parameter)."""
    if value is None:
        raise Unreadable("a value (use op is_null to find empty cells)")
    reader = _READERS[type_]
    try:
        return reader(value)
    except (ValueError, TypeError, InvalidOperation, ArithmeticError, UnicodeError):
        raise Unreadable(_EXPECTED[type_]) from None


MAX_DIGITS = 38  # DuckDB's widest exact number, DECIMAL(38, s)


def _number(v: Any) -> int | Decimal:
    if isinstance(v, bool):
        raise ValueError
    if isinstance(v, int):
        number: int | Decimal = v
    elif isinstance(v, Decimal):
        if not v.is_finite():
            raise ValueError
        number = v
    elif isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise ValueError
        number = Decimal(repr(v))
    elif isinstance(v, str) and _NUMBER.fullmatch(v.strip()):
        text = v.strip()
        number = int(text) if re.fullmatch(r"[+-]?\d+", text) else Decimal(text)
    else:
        raise ValueError
    _exact_enough(number)
    return number


def _exact_enough(number: int | Decimal) -> None:
    """A value is compared exactly, so it must fit DECIMAL(38, s): a wider one cannot be, and is
    refused rather than rounded."""
    if isinstance(number, int):
        if abs(number) >= 10**MAX_DIGITS:
            raise ValueError
        return
    sign, digits, exponent = number.as_tuple()  # not normalize(): it rounds to 28 digits
    if not isinstance(exponent, int):
        raise ValueError
    while len(digits) > 1 and digits[-1] == 0 and exponent < 0:
        digits, exponent = digits[:-1], exponent + 1
    whole = max(len(digits) + exponent, 0)
    scale = max(-exponent, 0)
    if whole + scale > MAX_DIGITS:
        raise ValueError


def _string(v: Any) -> str:
    if not isinstance(v, str):
        raise ValueError
    v.encode("utf-8")  # a lone surrogate ("\ud800", legal in JSON) is not text DuckDB can hold
    return v


def _bool(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.lower() in ("true", "false"):
        return v.lower() == "true"
    raise ValueError


def _date(v: Any) -> dt.date:
    if not isinstance(v, str):
        raise ValueError
    return dt.date.fromisoformat(v.strip())


def _datetime(v: Any) -> dt.datetime:
    if not isinstance(v, str):
        raise ValueError
    text = v.strip()
    if len(text) == 10:
        return dt.datetime.combine(dt.date.fromisoformat(text), dt.time())
    return dt.datetime.fromisoformat(text)


def _time(v: Any) -> dt.time:
    if not isinstance(v, str):
        raise ValueError
    return dt.time.fromisoformat(v.strip())


def _duration(v: Any) -> dt.timedelta:
    if not isinstance(v, str):
        raise ValueError
    return read_duration(v.strip())


def read_duration(text: str) -> dt.timedelta:
    """An ISO 8601 duration as SPEC §3 writes one (-P1DT2H30M4.5S) as a timedelta, its seconds
    read exactly (never through a float) to the microsecond, half to even; ValueError if not one,
    or if it is longer than a timedelta holds (999,999,999 days)."""
    match = _DURATION.fullmatch(text)
    if not match or text in ("P", "-P") or text.endswith("T"):
        raise ValueError(f"not a duration: {text!r}")
    sign, days, hours, minutes, seconds = match.groups()
    micro = (Decimal(seconds or 0) * 1_000_000).to_integral_value(ROUND_HALF_EVEN)
    try:
        delta = dt.timedelta(
            days=int(days or 0), hours=int(hours or 0), minutes=int(minutes or 0), microseconds=int(micro)
        )
    except OverflowError:
        raise ValueError(f"a duration longer than a timedelta holds: {text!r}") from None
    return -delta if sign else delta


_READERS = {
    "number": _number,
    "string": _string,
    "bool": _bool,
    "date": _date,
    "datetime": _datetime,
    "time": _time,
    "duration": _duration,
}
_EXPECTED = {
    "number": "a number (12.5 or '12.50') of at most 38 digits",
    "string": "a string (of valid Unicode)",
    "bool": "true or false",
    "date": "a date 'YYYY-MM-DD'",
    "datetime": "a datetime 'YYYY-MM-DDTHH:MM:SS' (an offset is allowed)",
    "time": "a time 'HH:MM[:SS]'",
    "duration": "an ISO 8601 duration like 'PT1H30M' or 'P2D'",
}


class Beyond(enum.Enum):
    """A number no value of the column can equal: the comparison is decided without reading it."""

    ABOVE = "above every value the column can hold"
    BELOW = "below every value the column can hold"
    BETWEEN = "between two neighbouring values the column can hold"


def _range(physical: str) -> tuple[int, int, int] | None:
    """(lowest, highest, scale) of an exact number type, in units of its last place; None for
    DOUBLE and the like."""
    if physical in ("BIGINT", "INT64"):
        return -(2**63), 2**63 - 1, 0
    if physical == "HUGEINT":
        return -(2**127), 2**127 - 1, 0
    match = re.fullmatch(r"DECIMAL\((\d+),\s*(\d+)\)", physical)
    if match:
        p, s = int(match.group(1)), int(match.group(2))
        return -(10**p) + 1, 10**p - 1, s
    return None


def fit(value: int | Decimal, physical: str, rounding: str) -> int | Decimal | Beyond:
    """The value a comparison with an exact column can use without changing its answer, or where
    no column value can equal it, which side of them all it lies on (`Beyond`): the compiler then
    decides the comparison itself, since DuckDB would fail on a literal its column type cannot
    hold, and a bound in DOUBLE would round onto real values.

    `rounding`: "up" for a lower bound (ge, lt …), "down" for an upper bound (le, gt …), "never"
    for equality. A value with more decimals than the column has is rounded toward the side that
    keeps the answer (col >= 2.005 on 2 decimals is col >= 2.01); for equality it is BETWEEN."""
    limits = _range(physical)
    if limits is None:
        return value
    lowest, highest, scale = limits
    with localcontext() as context:
        context.prec = 100  # the default 28 digits would round DECIMAL(38) values
        units = Decimal(value).scaleb(scale)  # the value in the column's last place
        whole = units.to_integral_value(rounding=ROUND_FLOOR)
        if units != whole:
            if rounding == "never":
                return _side(units, lowest, highest) or Beyond.BETWEEN
            whole = units.to_integral_value(rounding=ROUND_CEILING if rounding == "up" else ROUND_FLOOR)
        side = _side(whole, lowest, highest)
        if side:
            return side
        # Never wider than the column: DuckDB compares at the widest scale of both sides.
        return int(whole) if scale == 0 else Decimal(int(whole)).scaleb(-scale)


def _side(units: Decimal, lowest: int, highest: int) -> Beyond | None:
    if units > highest:
        return Beyond.ABOVE
    if units < lowest:
        return Beyond.BELOW
    return None
