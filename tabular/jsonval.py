"""Values as SPEC §3 puts them in JSON: exact decimals and big integers as text, ISO times."""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from planner.dialect import DIALECT

if TYPE_CHECKING:  # loaded by the functions that compute or write SQL: printable() needs neither
    from sqlglot import exp

MAX_SAFE_INT = 2**53 - 1


def iso_duration(delta: dt.timedelta) -> str:
    """ISO 8601 for a duration: PT1H30M, P1DT2H, -PT5S."""
    return _iso_micros(delta.days * 86_400_000_000 + delta.seconds * 1_000_000 + delta.microseconds)


def _iso_micros(total_us: int) -> str:
    """iso_duration of a count of microseconds, of any size (DuckDB's 2^31 days are past timedelta's)."""
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
    from sqlglot import exp  # heavy: sqlglot, for a query's SQL only

    template: exp.Expr = exp.maybe_parse(_ISO_DURATION_SQL, dialect=DIALECT)
    return template.transform(lambda n: micros.copy() if isinstance(n, exp.Column) and n.name == "u" else n)


def iso_interval(months: int, days: int, nanoseconds: int) -> str:
    """ISO 8601 for DuckDB's INTERVAL by its parts: months stay months (P1M, P1Y2M3DT4H, never
    30 days each: a month has no fixed length); days and time are written as iso_duration writes
    a timedelta (PT26H15M as P1DT2H15M). Parts of one sign share it (-P1M2D); months of the
    other sign than the rest (an interval computed by subtraction) carry their own (P-1M5D, and
    1 month less 5 days as -P-1M5D: a sign before the P negates the whole)."""
    rest = _iso_micros(days * 86_400_000_000 + nanoseconds // 1000)
    if not months:
        return rest
    if rest.startswith("-") or (months < 0 and rest == "PT0S"):  # one sign before all (-P1M2D, -P-1M5D)
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
_COLUMN_CONVERTERS: dict[frozenset[type], Callable[[Any], Any] | None] = {
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
    columns: list[Sequence[Any]] = []
    for column in list(zip(*rows))[:width]:
        kinds = set(map(type, column))
        kinds.discard(type(None))
        convert = _COLUMN_CONVERTERS.get(frozenset(kinds), to_json)
        if not kinds or convert is None:
            columns.append(column)
        else:
            columns.append(list(map(convert, column)))
    return [list(row) for row in zip(*columns)]


_INTEGERS = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT")

# Arrow writes a decimal of more places in scientific notation where its exponent is below -6
# (0 at scale 8 is "0E-8"): those are written from Python's Decimal, every place kept.
ARROW_DECIMAL_SCALE = 6


# The DuckDB types whose Python values (a DB-API fetch) json_rows writes as json_column writes
# Arrow's: text, booleans, integers, floating point and decimals. Not dates and times (DuckDB's
# Python values make 'infinity' 9999-12-31 and a year past 9999 text), intervals (a month as 30
# days), bytes, or UHUGEINT.
_ROW_TYPES = frozenset({"VARCHAR", "BOOLEAN", "HUGEINT", "FLOAT", "DOUBLE", *_INTEGERS})


def rows_readable(types: Sequence[str]) -> bool:
    """Whether a result of these DuckDB types is written alike read row by row (json_rows, from
    a DB-API fetch) or a column at a time from Arrow (json_columns): what a few rows are read by."""
    return all(t in _ROW_TYPES or t.startswith("DECIMAL(") for t in types)


def arrow_readable(types: list[str]) -> bool:
    """Whether a result of these DuckDB types is read as JSON from Arrow (json_columns): every
    type a plan can give is; only nested ones (a LIST, STRUCT or MAP) are read as rows."""
    return not any(t.endswith("]") or t.startswith(("STRUCT", "MAP", "UNION")) for t in types)


def json_columns(table: pa.Table | pa.RecordBatch, types: list[str] | None = None) -> list[list]:
    """An Arrow result's columns in their SPEC §3 JSON form, each converted a column at a time
    (json_column); `types`, DuckDB's, tell a HUGEINT (Arrow's decimal128(38, 0)) from a DECIMAL."""
    kinds = types or [""] * table.num_columns
    return [json_column(column, kind) for column, kind in zip(table.columns, kinds)]


def json_column(column: pa.Array | pa.ChunkedArray, kind: str = "") -> list:
    """One Arrow column's values in their SPEC §3 JSON form, for every value DuckDB can hold:
    decimals as text with every place of their scale, integers past 2^53 as text, floats that are
    not finite as "nan", "inf", "-inf", dates and times as ISO 8601 text (iso_text: years past
    9999 and before 1 in the expanded form, "infinity"), intervals as ISO durations, bytes as hex.
    Only decimals of more than six places, intervals and bytes are converted value by value."""
    import pyarrow.compute as pc  # heavy: Arrow's compute functions, for columns only

    t = column.type
    if pa.types.is_decimal(t) and t.scale == 0 and kind == "HUGEINT":
        return [None if v is None else _integer(int(v)) for v in column.to_pylist()]
    if pa.types.is_decimal(t) and t.scale > ARROW_DECIMAL_SCALE:
        return list(map(_decimal, column.to_pylist()))
    if pa.types.is_decimal(t):
        return pc.cast(column, pa.string()).to_pylist()
    if pa.types.is_integer(t):
        ends = pc.min_max(column)
        low, high = ends["min"].as_py(), ends["max"].as_py()
        safe = low is None or (-MAX_SAFE_INT <= low and high <= MAX_SAFE_INT)
        return column.to_pylist() if safe else list(map(_integer, column.to_pylist()))
    if pa.types.is_floating(t):
        finite = column.null_count == len(column) or pc.all(pc.is_finite(column)).as_py()
        return column.to_pylist() if finite else list(map(_double, column.to_pylist()))
    if _is_clock_or_calendar(t):
        return iso_text(column).to_pylist()
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_boolean(t) or pa.types.is_null(t):
        return column.to_pylist()
    return list(map(to_json, column.to_pylist()))  # intervals, durations, bytes …


def _is_clock_or_calendar(t: pa.DataType) -> bool:
    return pa.types.is_date(t) or pa.types.is_timestamp(t) or pa.types.is_time(t)


# --- dates and times as ISO 8601 text, a column at a time, for every value DuckDB holds -------------

# DuckDB's 'infinity' and '-infinity' as Arrow carries them: the largest count of days (date32)
# or of its unit (timestamps), and its negation.
_INFINITE = {32: 2**31 - 1, 64: 2**63 - 1}
# Days since 1970 of 0001-01-01 and 9999-12-31: between them Arrow writes a date as ISO does.
_YEAR_1, _YEAR_9999 = -719_162, 2_932_896
_PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}


def _civil(days: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Year, month and day of counts of days since 1970-01-01 in the proleptic Gregorian calendar,
    years astronomical (0 is 1 BC, -1 is 2 BC), for any int64 (Howard Hinnant's civil_from_days:
    Python's date ends at 9999, Arrow's own year() wraps past 32767)."""
    z = days + 719_468
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    month = np.where(mp < 10, mp + 3, mp - 9)
    return yoe + era * 400 + (month <= 2), month, doy - (153 * mp + 2) // 5 + 1


def _digits(values: np.ndarray, width: int) -> pa.Array:
    import pyarrow.compute as pc  # heavy: Arrow's compute functions, for columns only

    return pc.utf8_lpad(pc.cast(pa.array(values), pa.string()), width, "0")


def _common(days: np.ndarray) -> bool:
    """Whether every day is of the years 1 to 9999, which Arrow's own text writes as ISO does."""
    return len(days) == 0 or (_YEAR_1 <= days.min() and days.max() <= _YEAR_9999)


def _date_text(days: np.ndarray) -> pa.Array:
    """YYYY-MM-DD; a year past 9999 as +YYYYY, one before 0 as -YYYY (ISO 8601's expanded form)."""
    import pyarrow.compute as pc  # heavy: Arrow's compute functions, for columns only

    if _common(days):  # Arrow's own text: 10x faster
        return pc.cast(pa.array(days.astype(np.int32)).view(pa.date32()), pa.string())
    year, month, day = _civil(days)
    sign = pc.if_else(pa.array(year < 0), "-", pc.if_else(pa.array(year > 9999), "+", ""))
    return pc.binary_join_element_wise(sign, _digits(np.abs(year), 4), "-", _digits(month, 2), "-", _digits(day, 2), "")


def _clock_text(ticks: np.ndarray, per_second: int) -> pa.Array:
    """HH:MM:SS of a count of ticks since midnight, with the fraction where there is one (six
    places, nine for nanoseconds), as Python's isoformat writes it."""
    import pyarrow.compute as pc  # heavy: Arrow's compute functions, for columns only

    seconds, fraction = np.divmod(ticks, per_second)
    hours, rest = np.divmod(seconds, 3600)
    places = 9 if per_second > 1_000_000 else 6
    fraction = fraction * (10**places // per_second)
    dot = pc.if_else(pa.array(fraction > 0), pc.binary_join_element_wise(".", _digits(fraction, places), ""), "")
    return pc.binary_join_element_wise(
        _digits(hours, 2), ":", _digits(rest // 60, 2), ":", _digits(rest % 60, 2), dot, ""
    )


def iso_text(column: pa.Array | pa.ChunkedArray) -> pa.Array:
    """A date, timestamp or time column as ISO 8601 text, nulls kept: 2024-03-01,
    2024-03-01T10:00:00 (+00:00 where it has a time zone: DuckDB's session is UTC), 10:00:00.5;
    any year DuckDB holds (+10000-01-01, 0000-12-31 for 1 BC, -0001-… before it), its
    'infinity' and '-infinity' as those words, and a time of 24:00:00 as that."""
    import pyarrow.compute as pc  # heavy: Arrow's compute functions, for columns only

    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    t = column.type
    if pa.types.is_date32(t):
        # Arrow's own text, nulls kept, where every day is of the years 1 to 9999 (found from the
        # column's ends, with no pass of ours over its values): an answer's few rows cost no more.
        ends = pc.min_max(column.view(pa.int32()))
        low, high = ends["min"].as_py(), ends["max"].as_py()
        if low is None or (_YEAR_1 <= low and high <= _YEAR_9999):
            return pc.cast(column, pa.string())
    bits = 32 if pa.types.is_date32(t) or (pa.types.is_time(t) and t.bit_width == 32) else 64
    ticks = pc.fill_null(column.view(pa.int32() if bits == 32 else pa.int64()), 0).to_numpy().astype(np.int64)
    if pa.types.is_time(t):
        text = _clock_text(ticks, _PER_SECOND[t.unit])
    else:
        per_day = 1 if pa.types.is_date32(t) else 86_400_000 if pa.types.is_date64(t) else 86_400 * _PER_SECOND[t.unit]
        infinite = (np.abs(ticks) == _INFINITE[bits]).any()
        days, rest = np.divmod(np.where(np.abs(ticks) == _INFINITE[bits], 0, ticks), per_day)
        zone = "+00:00" if pa.types.is_timestamp(t) and t.tz else ""
        if pa.types.is_timestamp(t) and t.unit != "ms" and not infinite and _common(days):
            # Arrow's own text (YYYY-MM-DD HH:MM:SS.ffffff: 5x faster) with its T, and its fraction
            # of zeros dropped as Python's isoformat does.
            text = pc.utf8_replace_slice(pc.cast(column.view(pa.timestamp(t.unit)), pa.string()), 10, 11, "T")
            text = pc.binary_join_element_wise(pc.replace_substring_regex(text, r"\.0+$", ""), zone, "")
        elif pa.types.is_timestamp(t):
            clock = _clock_text(rest, _PER_SECOND[t.unit])
            text = pc.binary_join_element_wise(_date_text(days), "T", clock, zone, "")
        else:
            text = _date_text(days)
        if infinite:
            text = pc.if_else(pa.array(ticks == _INFINITE[bits]), "infinity", text)
            text = pc.if_else(pa.array(ticks == -_INFINITE[bits]), "-infinity", text)
    return pc.if_else(column.is_valid(), text, pa.scalar(None, pa.string()))


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
