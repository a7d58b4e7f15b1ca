"""Values as SPEC §3 puts them in JSON: exact decimals and big integers as text, ISO times."""

from __future__ import annotations

import datetime as dt
import math
import re
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from sqlglot import exp

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


# The same text from a count of microseconds `u`, in DuckDB's SQL, for a column at a time.
_ISO_DURATION_SQL = """CASE WHEN u IS NULL THEN NULL WHEN u = 0 THEN 'PT0S' ELSE
  (CASE WHEN u < 0 THEN '-' ELSE '' END) || 'P'
  || (CASE WHEN abs(u) >= 86400000000 THEN (abs(u) // 86400000000)::VARCHAR || 'D' ELSE '' END)
  || (CASE WHEN abs(u) % 86400000000 > 0 THEN 'T' ELSE '' END)
  || (CASE WHEN abs(u) // 3600000000 % 24 > 0 THEN (abs(u) // 3600000000 % 24)::VARCHAR || 'H' ELSE '' END)
  || (CASE WHEN abs(u) // 60000000 % 60 > 0 THEN (abs(u) // 60000000 % 60)::VARCHAR || 'M' ELSE '' END)
  || (CASE WHEN abs(u) % 60000000 > 0 THEN rtrim(rtrim(printf('%d.%06d', abs(u) // 1000000 % 60, abs(u) % 1000000), '0'), '.') || 'S' ELSE '' END)
END"""


def iso_duration_sql(micros: exp.Expression) -> exp.Expression:
    """SQL writing `micros` (a count of microseconds) as iso_duration writes it; NULL as NULL."""
    template = exp.maybe_parse(_ISO_DURATION_SQL, dialect="duckdb")
    return template.transform(lambda n: micros.copy() if isinstance(n, exp.Column) and n.name == "u" else n)


def iso_interval(months: int, days: int, nanoseconds: int) -> str:
    """ISO 8601 for DuckDB's INTERVAL by its parts: months stay months (P1M, P1Y2M3DT4H, never
    30 days each: a month has no fixed length); days and time are written as iso_duration writes
    a timedelta (PT26H15M as P1DT2H15M). Parts of one sign share it (-P1M2D); months of the
    other sign than the rest (an interval computed by subtraction) carry their own (P-1M5D)."""
    rest = iso_duration(dt.timedelta(days=days, microseconds=nanoseconds // 1000))
    if not months:
        return rest
    if months < 0 and (rest.startswith("-") or rest == "PT0S"):
        return "-" + iso_interval(-months, -days, -nanoseconds)
    years, left = divmod(abs(months), 12)
    sign = "-" if months < 0 else ""
    head = (f"{sign}{years}Y" if years else "") + (f"{sign}{left}M" if left else "")
    return "P" + head + ("" if rest == "PT0S" else rest.removeprefix("P"))


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
    if isinstance(value, pa.MonthDayNano):
        return iso_interval(value.months, value.days, value.nanoseconds)
    if isinstance(value, bytes):
        return value.hex()
    return str(value)


def _decimal(value: Decimal | None) -> str | None:
    return None if value is None else format(value, "f")


def _integer(value: int | None) -> int | str | None:
    return value if value is None or -MAX_SAFE_INT <= value <= MAX_SAFE_INT else str(value)


def _double(value: float | None) -> float | str | None:
    return value if value is None or math.isfinite(value) else str(value)


def _iso(value: Any) -> str | None:
    return None if value is None else value.isoformat()


# A column whose values are all of these types (or None) is encoded by one converter, not per value.
_COLUMN_CONVERTERS = {
    frozenset({str}): None,
    frozenset({bool}): None,
    frozenset({int}): _integer,
    frozenset({Decimal}): _decimal,
    frozenset({float}): _double,
    frozenset({dt.date}): _iso,
    frozenset({dt.datetime}): _iso,
}


def json_rows(rows: list[tuple], width: int) -> list[list]:
    """Result rows in their SPEC §3 JSON form (the first `width` values of each), a column at a
    time: one converter per column where its values are of one type, to_json per value else."""
    if not rows:
        return []
    columns = []
    for column in list(zip(*rows))[:width]:
        kinds = set(map(type, column))
        kinds.discard(type(None))
        key = frozenset(kinds)
        if not kinds or (key in _COLUMN_CONVERTERS and _COLUMN_CONVERTERS[key] is None):
            columns.append(column)
        elif key in _COLUMN_CONVERTERS:
            columns.append(list(map(_COLUMN_CONVERTERS[key], column)))
        else:
            columns.append(list(map(to_json, column)))
    return [list(row) for row in zip(*columns)]


_INTEGERS = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT")
# DuckDB result types read a column at a time from Arrow; a result with any other type is read
# as rows (json_rows): Arrow would give a duration as months, days and nanoseconds, a timestamp
# without Python's own ISO text.
ARROW_TYPES = (*_INTEGERS, "HUGEINT", "VARCHAR", "BOOLEAN", "DOUBLE", "FLOAT", "DATE")


# Arrow writes a decimal of more places in scientific notation where its exponent is below -6
# (0 at scale 8 is "0E-8"): those are written from Python's Decimal, every place kept.
ARROW_DECIMAL_SCALE = 6


def arrow_readable(types: list[str]) -> bool:
    """Whether a result of these DuckDB types is read as JSON from Arrow (json_columns)."""
    return all(t in ARROW_TYPES or t.startswith("DECIMAL(") for t in types)


def json_columns(table, types: list[str]) -> list[list]:
    """An Arrow result's columns in their SPEC §3 JSON form, each converted in Arrow where it can
    be: decimals as their text with every place of their scale, dates as ISO text, integers past
    2^53 as text; the same values json_rows gives for the same rows."""
    out = []
    for column, kind in zip(table.columns, types):
        if kind.startswith("DECIMAL(") and int(kind.rstrip(")").rsplit(",", 1)[1]) > ARROW_DECIMAL_SCALE:
            out.append(list(map(_decimal, column.to_pylist())))
        elif kind.startswith("DECIMAL(") or kind == "DATE":
            out.append(pc.cast(column, pa.string()).to_pylist())
        elif kind == "HUGEINT":  # Arrow carries it as decimal128(38, 0)
            out.append([None if v is None else _integer(int(v)) for v in column.to_pylist()])
        elif kind in _INTEGERS:
            values = column.to_pylist()
            ends = pc.min_max(column)
            low, high = ends["min"].as_py(), ends["max"].as_py()
            safe = low is None or (-MAX_SAFE_INT <= low and high <= MAX_SAFE_INT)
            out.append(values if safe else list(map(_integer, values)))
        elif kind in ("DOUBLE", "FLOAT"):
            values = column.to_pylist()
            finite = column.null_count == len(column) or pc.all(pc.is_finite(column)).as_py()
            out.append(values if finite else list(map(_double, values)))
        else:  # text and booleans as they are; any other type (an INTERVAL …) value by value
            values = column.to_pylist()
            out.append(values if kind in ("VARCHAR", "BOOLEAN") else list(map(to_json, values)))
    return out


# A lone UTF-16 surrogate: Python strings hold one (JSON's "\ud800"), UTF-8 cannot.
_SURROGATE = re.compile("[\ud800-\udfff]")


def depth_over(value: Any, limit: int) -> bool:
    """Whether lists and objects nest deeper than `limit` in `value` (walked without recursion)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth >= limit:
                return True
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return False


def unusable(value: Any, limit: int, most: int = 10) -> list[tuple[tuple, str, str]]:
    """What in a decoded JSON input no op can take, as (location, message, expected), at most
    `most`: nesting deeper than `limit`, a text with a lone surrogate (it has no UTF-8), a number
    that is not finite (1e999 decodes as infinity). Walked without recursion."""
    found: list[tuple[tuple, str, str]] = []
    stack: list[tuple[tuple, Any]] = [((), value)]
    while stack and len(found) < most:
        loc, item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                found.append((loc, "a lone surrogate (\\ud800-\\udfff) is not text", "text that is valid Unicode"))
        elif isinstance(item, float):
            if not math.isfinite(item):
                found.append((loc, "a number too large to hold, or not a number", "a finite number"))
        elif isinstance(item, (dict, list)):
            if len(loc) >= limit:
                found.append(
                    (loc, f"nested deeper than {limit} levels", f"at most {limit} levels of lists and objects")
                )
                continue
            for key, child in item.items() if isinstance(item, dict) else enumerate(item):
                if isinstance(key, str) and _SURROGATE.search(key):
                    found.append(
                        (loc, f"a key holds a lone surrogate: {printable(key)}", "keys that are valid Unicode")
                    )
                    continue
                stack.append(((*loc, key), child))
    return found


def printable(value: Any) -> Any:
    """`value` as JSON can always carry it: lone surrogates escaped, non-finite numbers as text."""
    if isinstance(value, str):
        return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, list):
        return [printable(v) for v in value]
    if isinstance(value, dict):
        return {printable(k): printable(v) for k, v in value.items()}
    return value
