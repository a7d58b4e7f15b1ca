"""Values as SPEC §3 puts them in JSON: exact decimals and big integers as text, ISO times."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal
from typing import Any

MAX_SAFE_INT = 2**53 - 1


def iso_duration(delta: dt.timedelta) -> str:
    """ISO 8601 for a duration: PT1H30M, P1DT2H, -PT5S."""
    total_us = delta.days * 86_400_000_000 + delta.seconds * 1_000_000 + delta.microseconds
    sign = "-" if total_us < 0 else ""
    total_us = abs(total_us)
    days, rest = divmod(total_us, 86_400_000_000)
    hours, rest = divmod(rest, 3_600_000_000)
    minutes, rest = divmod(rest, 60_000_000)
    seconds, micros = divmod(rest, 1_000_000)
    out = sign + "P" + (f"{days}D" if days else "")
    clock = (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "")
    if seconds or micros:
        clock += f"{seconds}.{micros:06d}".rstrip("0").rstrip(".") + "S"
    if clock:
        out += "T" + clock
    return out if out not in ("P", "-P") else "PT0S"


def to_json(value: Any) -> Any:
    """One value in its SPEC §3 JSON form."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value if abs(value) <= MAX_SAFE_INT else str(value)
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return iso_duration(value)
    if isinstance(value, bytes):
        return value.hex()
    return str(value)
