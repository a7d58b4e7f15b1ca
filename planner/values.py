"""Plan values read as a column's type, or a reason they cannot be."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal, InvalidOperation
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
    except (ValueError, TypeError, InvalidOperation, ArithmeticError):
        raise Unreadable(_EXPECTED[type_]) from None


def _number(v: Any) -> int | Decimal:
    if isinstance(v, bool):
        raise ValueError
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise ValueError
        return Decimal(repr(v))
    if isinstance(v, str) and _NUMBER.fullmatch(v.strip()):
        text = v.strip()
        return int(text) if re.fullmatch(r"[+-]?\d+", text) else Decimal(text)
    raise ValueError


def _string(v: Any) -> str:
    if not isinstance(v, str):
        raise ValueError
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
    "number": "a number (12.5 or '12.50')",
    "string": "a string",
    "bool": "true or false",
    "date": "a date 'YYYY-MM-DD'",
    "datetime": "a datetime 'YYYY-MM-DDTHH:MM:SS' (an offset is allowed)",
    "time": "a time 'HH:MM[:SS]'",
    "duration": "an ISO 8601 duration like 'PT1H30M' or 'P2D'",
}
