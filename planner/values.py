"""Plan values read as a column's type, or a reason they cannot be."""

from __future__ import annotations

import datetime as dt
import re
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, InvalidOperation, localcontext
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
    match = _DURATION.fullmatch(v.strip())
    if not match or v.strip() in ("P", "-P", "PT"):
        raise ValueError
    sign, days, hours, minutes, seconds = match.groups()
    delta = dt.timedelta(days=int(days or 0), hours=int(hours or 0), minutes=int(minutes or 0), seconds=float(seconds or 0))
    return -delta if sign else delta


_READERS = {"number": _number, "string": _string, "bool": _bool, "date": _date, "datetime": _datetime, "time": _time, "duration": _duration}
_EXPECTED = {
    "number": "a number (12.5 or '12.50') of at most 38 digits",
    "string": "a string (of valid Unicode)",
    "bool": "true or false",
    "date": "a date 'YYYY-MM-DD'",
    "datetime": "a datetime 'YYYY-MM-DDTHH:MM:SS' (an offset is allowed)",
    "time": "a time 'HH:MM[:SS]'",
    "duration": "an ISO 8601 duration like 'PT1H30M' or 'P2D'",
}


def _shape(physical: str) -> tuple[int, int] | None:
    """(integer digits, scale) of an exact number type; None for DOUBLE and the like."""
    if physical in ("BIGINT", "INT64"):
        return 19, 0
    if physical == "HUGEINT":
        return 38, 0
    match = re.fullmatch(r"DECIMAL\((\d+),\s*(\d+)\)", physical)
    if match:
        p, s = int(match.group(1)), int(match.group(2))
        return p - s, s
    return None


def fit(value: int | Decimal, physical: str, rounding: str) -> int | Decimal:
    """The value a comparison with an exact column can use without changing its answer, and
    without a type DuckDB cannot hold (past DECIMAL(38) it fails rather than compares).

    `rounding`: "up" for a lower bound (ge, gt's complement …), "down" for an upper bound,
    "never" for equality. A value beyond every column value becomes the type's bound (no
    value reaches it); a value with more decimals than the column has is rounded toward the
    side that keeps the answer (col >= 2.005 on 2 decimals is col >= 2.01), or, for equality,
    becomes that bound (no column value can equal it)."""
    shape = _shape(physical)
    if shape is None:
        return value
    with localcontext() as context:
        context.prec = 100  # the default 28 digits would round DECIMAL(38) values
        return _fit(value, physical, rounding, *shape)


def _fit(value: int | Decimal, physical: str, rounding: str, digits: int, scale: int) -> int | Decimal | float:
    bound: int | float = 2**63 if physical in ("BIGINT", "INT64") else 10**digits
    if digits + scale >= 38 and physical not in ("BIGINT", "INT64"):
        # 10^digits does not fit DECIMAL(38, scale) beside the column: compare with a DOUBLE bound.
        bound = float(bound)
    if abs(value) >= bound:
        return bound if value > 0 else -bound
    number = Decimal(value)
    step = Decimal(1).scaleb(-scale)
    exact = number.quantize(step, rounding=ROUND_FLOOR)
    if number == exact:
        rounded = exact  # written with trailing zeros (40.000…0): the column's scale holds it
    elif rounding == "never":
        return bound
    else:
        rounded = number.quantize(step, rounding=ROUND_CEILING if rounding == "up" else ROUND_FLOOR)
    # Never wider than the column: DuckDB compares at the widest scale of both sides.
    return int(rounded) if scale == 0 else rounded
