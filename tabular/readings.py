"""The readings a column of text can have: one table, each entry a gate and a conversion.

A reading is how text becomes one of SPEC §3's types (`number` with a decimal mark, a group
mark and a unit; `date` with a strptime pattern …). Inference (infer/columns.py) keeps the readings no
value refutes; the cast (store/snapshot.py) applies the chosen one. Both build their SQL from here, so
what is checked and what is converted cannot drift apart. How a number is written (marks, units,
signs) is number_forms.py's: here it becomes readings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import cast

from sqlglot import exp

from planner.dialect import DIALECT, duckdb_function

from . import number_forms as N
from .number_forms import NUMBER_MARKS, UNITS

TYPES = ("string", "number", "bool", "date", "datetime", "time", "duration")
TRUE_WORDS = ("true", "yes", "y", "t")
FALSE_WORDS = ("false", "no", "n", "f")
# Every word a bool column may hold, in the order a regex tries them (whole words: "no" before "n").
BOOL_WORDS = tuple(w for pair in zip(TRUE_WORDS, FALSE_WORDS) for w in pair)
BOOL_PATTERN = r"(?i)(" + "|".join(BOOL_WORDS) + ")"

DMY_DATES = ("%d/%m/%Y", "%d.%m.%Y", "%d-%m-%Y", "%d/%m/%y", "%d.%m.%y", "%d-%m-%y")
MDY_DATES = ("%m/%d/%Y", "%m-%d-%Y", "%m/%d/%y", "%m-%d-%y")
YMD_DATES = ("%Y-%m-%d", "%Y/%m/%d", "%Y.%m.%d")
# Tried after every other order: 31-12-13 reads as 2031-12-13 too, which a date_order question
# then offers beside 31 December 2013 (never a silent pick).
YMD_SHORT = ("%y-%m-%d",)


def doubtful_year_after() -> int:
    """A two-digit year is read as DuckDB's strptime reads it, 00-68 as 2000-2068 and 69-99 as
    1969-1999. One it puts after this year (next year's: `05/06/60` as 2060, a birth date of
    1960 perhaps) is as likely the last century's, so its column is asked (infer/kinds: century)."""
    return date.today().year + 1


def two_digit_year(reading: Reading) -> bool:
    return "%y" in reading.format


NAMED_DATES = ("%d-%b-%Y", "%d %b %Y", "%d %B %Y", "%b %d, %Y", "%B %d, %Y", "%d-%b-%y")
# At most six decimals of a second: a TIMESTAMP keeps microseconds, and would cut a seventh.
# A year 0001-9999: DuckDB reads the year 0000 as 1 BC ('0001-01-01 (BC)'), which no file means
# (0000-01-01 is a placeholder) and Python cannot hold. An hour 0-23: DuckDB's cast reads
# `2024-01-02 24:00` as the next day's midnight, moving the value to another date without a word.
YEAR = r"(?:[1-9]\d{3}|0[1-9]\d{2}|00[1-9]\d|000[1-9])"
ISO_DATETIME = YEAR + r"-\d{1,2}-\d{1,2}[T ]([01]?\d|2[0-3]):\d{2}(:\d{2}(\.\d{1,6})?)?"
# An offset some zone has (-12:00 to +14:00): DuckDB's cast takes +15:00 or -13:30 too.
OFFSET = r"(\+(0\d|1[0-3])(:?[0-5]\d)?|\+14(:?00)?|-(0\d|1[01])(:?[0-5]\d)?|-12(:?00)?)"
# An offset, UTC or GMT, or an IANA zone (Europe/Paris), which DuckDB's cast resolves. Not an
# abbreviation: BST, IST, CST name several zones, and DuckDB would pick one silently.
ISO_OFFSET = rf"(Z|z|{OFFSET}|\s?(UTC|GMT)|\s[A-Za-z]+/[A-Za-z_]+)"
# Each amount within what an INTERVAL holds once added up (PT99999999999H stopped the ingest with
# DuckDB's out-of-range error), and seconds to the microsecond it keeps (PT0.0000001S was 0).
ISO_DURATION = r"-?P(\d{1,6}Y)?(\d{1,6}M)?(\d{1,6}W)?(\d{1,8}D)?(T(\d{1,9}H)?(\d{1,9}M)?(\d{1,9}(\.\d{1,6})?S)?)?"


@dataclass(frozen=True)
class Reading:
    """One way to read text as a type. `format` is what dataset_get reports (SPEC §4)."""

    type: str
    format: str = ""
    gate: str | None = None  # a regex every accepted (trimmed) value matches whole
    decimal_mark: str = "."
    group_mark: str | None = None
    unit: str | None = None
    exponent: bool = False
    order: str = ""  # DMY / MDY / YMD for dates read by position
    negative: str = ""  # how a number's negatives are written beside a minus before it (number_forms.NEGATIVES)

    @property
    def label(self) -> str:
        return f"{self.type} ({self.format})" if self.format else self.type


STRING = Reading("string")


def number_gate(reading: Reading, scale: int, no_leading_zero: bool) -> str:
    """The reading's gate narrowed to values of at most `scale` decimals (and no leading zero):
    the values a column typed on a sample can take without changing its type."""
    return N.gate(
        reading.decimal_mark,
        reading.group_mark,
        reading.unit,
        reading.exponent,
        reading.negative,
        scale,
        no_leading_zero,
    )


def number_reading(
    decimal_mark: str = ".",
    group_mark: str | None = None,
    unit: str | None = None,
    exponent: bool = False,
    negative: str = "",
) -> Reading:
    """A number written with these marks and unit, its negatives signed so (number_forms.NEGATIVES);
    the format names each (`decimal_mark=.;group_mark=,;negative=brackets`)."""
    gate = N.gate(decimal_mark, group_mark, unit, exponent, negative)
    parts = [f"decimal_mark={decimal_mark}"]
    if group_mark:
        parts.append(f"group_mark={group_mark}")
    if unit:
        parts.append(f"unit={unit}")
    if negative:
        parts.append(f"negative={negative}")
    return Reading("number", ";".join(parts), gate, decimal_mark, group_mark, unit, exponent, negative=negative)


def date_reading(pattern: str, type_: str = "date") -> Reading:
    order = "DMY" if pattern in DMY_DATES or pattern.startswith(DMY_DATES) else ""
    order = order or ("MDY" if pattern in MDY_DATES or pattern.startswith(MDY_DATES) else "")
    order = order or ("YMD" if pattern.startswith(YMD_DATES + YMD_SHORT) else "")
    return Reading(type_, pattern, order=order)


BOOL = Reading("bool", "true/false", BOOL_PATTERN)
BOOL_01 = Reading("bool", "1/0", r"[01]")
ISO_TIMESTAMP = Reading("datetime", "%Y-%m-%dT%H:%M:%S", ISO_DATETIME, order="YMD")
# Tried after ISO_TIMESTAMP: it reads a column where some values have an offset and some have
# none (those are read as UTC, and infer/columns.py asks about them).
ISO_TIMESTAMPTZ = Reading("datetime", "%Y-%m-%dT%H:%M:%S%z", ISO_DATETIME + ISO_OFFSET + "?", order="YMD")
CLOCK_TIME = Reading("time", "%H:%M:%S", r"([01]?\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?")
CLOCK_DURATION = Reading("duration", "h:mm:ss", r"\d+:[0-5]\d(:[0-5]\d(\.\d{1,6})?)?")
# Minutes and seconds, with a fraction of a second or not (a lap, a race, a track: 1:45.32, 2:34):
# tried after the clock readings, so a column of only m:ss stays a time of day (h:mm).
MINUTES_DURATION = Reading("duration", "m:ss.f", r"[0-5]?\d:[0-5]\d(\.\d{1,6})?")
ISO_8601_DURATION = Reading("duration", "ISO 8601", ISO_DURATION)


def date_readings(order: str | None = None) -> list[Reading]:
    pools = {"YMD": YMD_DATES + YMD_SHORT, "DMY": DMY_DATES, "MDY": MDY_DATES}
    chosen = [pools[order]] if order else [YMD_DATES, DMY_DATES, MDY_DATES, YMD_SHORT]
    return [date_reading(p) for pool in chosen for p in pool] + [date_reading(p) for p in NAMED_DATES]


def order_dates(order: str) -> list[Reading]:
    """A date order a person named (DMY, MDY, YMD) with every separator and year width a column
    may write it in (31-12-13, 31.12.2013, 12/31/13): the column's own values choose among them."""
    parts = {"DMY": ("%d", "%m", "{y}"), "MDY": ("%m", "%d", "{y}"), "YMD": ("{y}", "%m", "%d")}[order]
    return [
        Reading("date", sep.join(parts).format(y=year), order=order)
        for year in ("%Y", "%y")
        for sep in ("/", ".", "-", " ")
    ]


# After a datetime pattern: UTC, GMT, an offset or no zone at all (see datetime_readings).
ANY_ZONE = " [%z]"
# A clock after a date by position, a fraction of a second (at most six digits: %f) or not.
CLOCKS = ("%H:%M", "%H:%M:%S", "%H:%M:%S.%f")


def datetime_readings(order: str | None = None) -> list[Reading]:
    out = [ISO_TIMESTAMP, ISO_TIMESTAMPTZ] if order in (None, "YMD") else []
    for d in DMY_DATES[:3] + MDY_DATES[:2] + YMD_DATES[1:2]:
        reading = date_reading(d)
        if order and reading.order != order:
            continue
        for clock in CLOCKS:
            out.append(date_reading(f"{d} {clock}", "datetime"))
    if order in (None, "MDY"):
        out += [date_reading("%m/%d/%Y %I:%M %p", "datetime"), date_reading("%m/%d/%Y %I:%M:%S %p", "datetime")]
    # The same with a zone after the clock (31/12/2024 10:15 UTC, 12/31/2024 10:15 +01:00): tried last.
    zoned = [r.format for r in out if r.gate is None]
    # Then a zone or none (` [%z]`: UTC, GMT, an offset, or nothing, read as UTC and asked), as
    # ISO_TIMESTAMPTZ reads ISO text.
    return out + [date_reading(f"{f}{zone}", "datetime") for zone in (" %Z", " %z", ANY_ZONE) for f in zoned]


def zone_free_datetimes() -> list[Reading]:
    """Every datetime pattern with no zone, ISO ones written as strptime patterns (a zone
    abbreviation is put after them as a literal: see infer/kinds: time_zone)."""
    iso = [f"%Y-%m-%d{sep}%H:%M{sec}" for sep in (" ", "T") for sec in ("", ":%S", ":%S.%f")]
    return [date_reading(f, "datetime") for f in iso] + [
        r for r in datetime_readings() if r.gate is None and not r.format.endswith(("%z", "%Z", ANY_ZONE))
    ]


# The standard and daylight names of a region's time, with their offsets: a column holding both
# names of a pair is asked whether they are that region's (CST and CDT: US Central or Cuba).
ZONE_PAIRS = {
    "US Eastern": (("EST", "-05:00"), ("EDT", "-04:00")),
    "US Central": (("CST", "-06:00"), ("CDT", "-05:00")),
    "Cuba": (("CST", "-05:00"), ("CDT", "-04:00")),
    "US Mountain": (("MST", "-07:00"), ("MDT", "-06:00")),
    "US Pacific": (("PST", "-08:00"), ("PDT", "-07:00")),
    "Alaska": (("AKST", "-09:00"), ("AKDT", "-08:00")),
    "Atlantic (Canada)": (("AST", "-04:00"), ("ADT", "-03:00")),
    "Newfoundland": (("NST", "-03:30"), ("NDT", "-02:30")),
    "British": (("GMT", "+00:00"), ("BST", "+01:00")),
    "Western European": (("WET", "+00:00"), ("WEST", "+01:00")),
    "Central European": (("CET", "+01:00"), ("CEST", "+02:00")),
    "Eastern European": (("EET", "+02:00"), ("EEST", "+03:00")),
    "Israel": (("IST", "+02:00"), ("IDT", "+03:00")),
    "Australian Eastern": (("AEST", "+10:00"), ("AEDT", "+11:00")),
    "Australian Central": (("ACST", "+09:30"), ("ACDT", "+10:30")),
    "New Zealand": (("NZST", "+12:00"), ("NZDT", "+13:00")),
}
# A datetime pattern followed by the zone names its values end in, each with the offset it is
# read at (`%Y-%m-%d %H:%M [EST=-05:00, EDT=-04:00]`: TIMESTAMPTZ) or none (`… [EST, CET]`: the
# local times as written, TIMESTAMP). Only a person's answer to a time_zone question gives one.
_ZONE_LIST = re.compile(
    r"(?P<pattern>.*%.*) \[(?P<zones>[A-Z]{2,5}(=[+-]\d{2}:\d{2})?(, [A-Z]{2,5}(=[+-]\d{2}:\d{2})?)*)\]"
)


def zone_list(fmt: str) -> tuple[str, tuple[tuple[str, str | None], ...]] | None:
    """A format's datetime pattern and its zone names with their offsets (see _ZONE_LIST), or
    None for a format that ends in no zone list."""
    found = _ZONE_LIST.fullmatch(fmt)
    if found is None:
        return None
    zones = tuple((name, offset or None) for name, _, offset in (z.partition("=") for z in found["zones"].split(", ")))
    return found["pattern"], zones


def zone_listed(pattern: str, zones: list[tuple[str, str | None]]) -> Reading:
    """The reading of `pattern` followed by one of `zones` (see zone_list)."""
    names = ", ".join(f"{name}={offset}" if offset else name for name, offset in zones)
    return date_reading(f"{pattern} [{names}]", "datetime")


def _zone_listed_value(pattern: str, zones, t: exp.Expression) -> exp.Expression:
    """A value of a zone-listed reading: the pattern read on the text before the zone name,
    with the name's offset written in its place (or no zone); NULL for a name not listed."""
    name = _fn("regexp_extract", t, _lit(rf"\s({ZONE_ABBREVIATION})$"), exp.Literal.number(1))
    head = _fn("regexp_extract", t, _lit(rf"^(.*?)\s+{ZONE_ABBREVIATION}$"), exp.Literal.number(1))
    out = exp.Case()
    for zone, offset in zones:
        if offset:
            value = convert(
                date_reading(f"{pattern} %z", "datetime"),
                exp.DPipe(this=head, expression=_lit(f" {offset}")),
                "TIMESTAMPTZ",
            )
        else:
            value = convert(date_reading(pattern, "datetime"), head, "TIMESTAMP")
        out = out.when(exp.EQ(this=name, expression=_lit(zone)), value)
    return out


def candidate_readings(
    symbols: set[str], decimal_mark: str | None = None, date_order: str | None = None
) -> list[Reading]:
    """Every typed reading worth trying for a column whose values hold `symbols` (marks, units),
    most specific first (string is last)."""
    numbers = []
    units = sorted(u for u in UNITS if u in symbols)
    for exponent in (False, True):
        if exponent and not {"e", "E"} & symbols:
            continue
        for dm, gm in NUMBER_MARKS:
            if decimal_mark and dm != decimal_mark:
                continue
            # A mark the values never hold cannot matter, except a decimal comma beside a '.' group.
            if (exponent and gm) or (gm and gm not in symbols) or (dm != "." and dm not in symbols and not gm):
                continue
            for unit in [None, *units]:
                numbers.append(number_reading(dm, gm, unit, exponent))
    # Then the same marks with negatives in brackets or a minus after, where the column writes
    # some value so as an amount (number_forms.negatives_for): tried only once the plain ones fail.
    numbers += [
        number_reading(r.decimal_mark, r.group_mark, r.unit, False, negative)
        for negative in N.negatives_for(symbols)
        for r in numbers
        if not r.exponent
    ]
    return [
        BOOL,
        *numbers,
        *date_readings(date_order),
        *datetime_readings(date_order),
        CLOCK_TIME,
        date_reading("%I:%M %p", "time"),
        CLOCK_DURATION,
        MINUTES_DURATION,
        ISO_8601_DURATION,
    ]


# A broad gate per family: a column is tried with a family's readings only if its values pass.
FAMILIES = {
    "bool": BOOL_PATTERN,
    "number": N.FAMILY,
    "date": r"[0-9]{1,4}[-/.][0-9]{1,2}[-/.][0-9]{1,4}|[0-9]{1,2}[ -][A-Za-z]{3,9}[ -][0-9]{2,4}|[A-Za-z]{3,9} [0-9]{1,2}, [0-9]{4}",
    "datetime": r"[0-9]{1,4}[-/.][0-9]{1,2}[-/.][0-9]{1,4}[T ][0-9]{1,2}:[0-9]{2}.*",
    "time": r"[0-9]{1,2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?(\s?[AaPp][Mm])?",
    "duration": r"[0-9]+:[0-9]{2}(:[0-9]{2})?(\.[0-9]+)?|-?P[0-9YMWDTHS.]+",
}


def reading_from(type_: str, fmt: str) -> Reading:
    """The reading a person named (dataset_approve's `columns` and `formats`)."""
    if type_ == "string":
        return STRING
    if type_ == "bool":
        return BOOL_01 if fmt == "1/0" else BOOL
    if type_ == "number":
        opts = dict(part.split("=", 1) for part in fmt.split(";") if "=" in part)
        return number_reading(
            opts.get("decimal_mark", "."),
            opts.get("group_mark") or None,
            opts.get("unit") or None,
            opts.get("exponent") == "true",
            opts.get("negative", ""),
        )
    if type_ == "duration":
        return {"ISO 8601": ISO_8601_DURATION, MINUTES_DURATION.format: MINUTES_DURATION}.get(fmt, CLOCK_DURATION)
    if type_ == "datetime" and fmt in (ISO_TIMESTAMP.format, ISO_TIMESTAMPTZ.format):
        return ISO_TIMESTAMPTZ if fmt.endswith("%z") else ISO_TIMESTAMP
    if type_ == "time" and fmt in ("", CLOCK_TIME.format):
        return CLOCK_TIME
    if type_ in ("date", "datetime", "time"):
        return date_reading(fmt or {"date": "%Y-%m-%d", "datetime": "%Y-%m-%d %H:%M:%S"}[type_], type_)
    raise ValueError(f"unknown type {type_!r}")


def _lit(text: str) -> exp.Literal:
    return exp.Literal.string(text)


def _fn(name: str, *args: exp.Expression) -> exp.Expression:
    """DuckDB's function `name` called as DuckDB names it. By name, not a sqlglot node: this SQL
    types a file inside DuckDB and is never transpiled, and several of its functions
    (regexp_full_match, try_strptime, to_hours …) have no node, while the nodes of others would
    be written back under another name or argument order (the one Anonymous of readings)."""
    return duckdb_function(name, *args)


def _coalesce(*args: exp.Expression) -> exp.Expression:
    """COALESCE of the arguments (copied, as exp.func copies them). exp.func answers sqlglot's
    Coalesce node, an Expression, though sqlglot types it as any Func."""
    return cast(exp.Expression, exp.func("coalesce", *args))


def matches(t: exp.Expression, pattern: str) -> exp.Expression:
    return _fn("regexp_full_match", t, _lit(pattern))


def number_text(reading: Reading, t: exp.Expression) -> exp.Expression:
    """The value as plain decimal text: unit, spaces, group marks and brackets gone, `.` as the
    mark, a negative's minus first (number_forms.plain_text)."""
    return N.plain_text(reading.decimal_mark, reading.group_mark, reading.unit, reading.negative, t)


def _iso_duration(t: exp.Expression) -> exp.Expression:
    day_part = _fn("split_part", t, _lit("T"), exp.Literal.number(1))
    time_part = _fn("split_part", t, _lit("T"), exp.Literal.number(2))

    def amount(part: exp.Expression, unit: str, cast: str = "BIGINT") -> exp.Expression:
        found = _fn("regexp_extract", part, _lit(rf"([0-9.]+){unit}"), exp.Literal.number(1))
        return _coalesce(
            exp.TryCast(this=exp.Nullif(this=found, expression=_lit("")), to=exp.DataType.build(cast)),
            exp.Literal.number(0),
        )

    pieces = [
        _fn("to_years", amount(day_part, "Y")),
        _fn("to_months", amount(day_part, "M")),
        _fn(
            "to_days",
            exp.Add(
                this=exp.Mul(this=amount(day_part, "W"), expression=exp.Literal.number(7)),
                expression=amount(day_part, "D"),
            ),
        ),
        _fn("to_hours", amount(time_part, "H")),
        _fn("to_minutes", amount(time_part, "M")),
        _fn(
            "to_microseconds",
            exp.cast(
                exp.func(
                    "round", exp.Mul(this=amount(time_part, "S", "DOUBLE"), expression=exp.Literal.number(1_000_000))
                ),
                "BIGINT",
            ),
        ),
    ]
    total = pieces[0]
    for piece in pieces[1:]:
        total = exp.Add(this=total, expression=piece)
    signed = exp.If(this=_fn("starts_with", t, _lit("-")), true=exp.Neg(this=exp.paren(total)), false=total.copy())
    return exp.If(this=exp.Is(this=t.copy(), expression=exp.null()), true=exp.null(), false=signed)  # -PT5S; NULL kept


def convert(reading: Reading, t: exp.Expression, physical: str, checked: bool = False) -> exp.Expression:
    """SQL that turns trimmed text `t` into the reading's value, NULL when the value refutes it.
    `checked`: every value is known to pass the gate, so it is not tested again."""
    if reading.type == "string":
        return t
    value: exp.Expression
    if reading.type == "bool":
        # Each word said as true or false, anything else NULL: the gate's (?i) folds case by
        # Unicode (`yeſ` passes it), and a plain `IN` of the true words made every such text false.
        lowered = exp.func("lower", t)
        value = exp.Case(
            ifs=[
                exp.If(this=exp.In(this=lowered, expressions=[_lit(w) for w in words]), true=exp.Boolean(this=truth))
                for words, truth in (((*TRUE_WORDS, "1"), True), ((*FALSE_WORDS, "0"), False))
            ]
        )
    elif reading.type == "number":
        value = exp.TryCast(this=number_text(reading, t), to=exp.DataType.build(physical, dialect=DIALECT))
    elif reading.type == "duration":
        if reading.format == "ISO 8601":
            value = _iso_duration(t)
        else:  # h:mm:ss is DuckDB's own interval text; m:ss.f is that with no hours
            text = exp.DPipe(this=_lit("0:"), expression=t) if reading.format == MINUTES_DURATION.format else t
            value = exp.TryCast(this=text, to=exp.DataType.build("INTERVAL"))
    elif reading.gate is not None:  # ISO datetimes and clock times: DuckDB's own cast, behind the gate
        value = exp.TryCast(this=t, to=exp.DataType.build(physical, dialect=DIALECT))
        if physical == "TIMESTAMPTZ":
            value = _zone_clock_kept(t, value)
    elif (listed := zone_list(reading.format)) is not None:
        return _zone_listed_value(*listed, t)
    elif reading.format.endswith(ANY_ZONE):
        base = reading.format.removesuffix(ANY_ZONE)
        zoned = [convert(date_reading(f"{base} {z}", "datetime"), t, "TIMESTAMPTZ") for z in ("%z", "%Z")]
        return _coalesce(*zoned, convert(date_reading(base, "datetime"), t, "TIMESTAMPTZ"))
    elif reading.format.endswith(" %Z"):
        # Only UTC and GMT pass the gate (strptime's %Z resolves any abbreviation, CET or EST, to
        # one zone), both at offset 0: the text is read with the zone as a literal, at UTC. Under
        # %Z itself DuckDB's strptime rolls a day the month lacks into the next month
        # (`31/04/2024 10:00 UTC` became 1 May).
        base = reading.format.removesuffix(" %Z")
        local = _fn("try_strptime", t, exp.Array(expressions=[_lit(f"{base} {zone}") for zone in ("UTC", "GMT")]))
        value = _fn("timezone", _lit("UTC"), local) if physical == "TIMESTAMPTZ" else exp.cast(local, physical)
        return exp.Case().when(matches(t, pattern_gate(reading.format)), value)
    else:
        parsed = _fn("try_strptime", t, _lit(reading.format))
        value = exp.cast(parsed, physical) if physical != "TIMESTAMP" else parsed
        if "%Z" in reading.format or "%z" in reading.format:
            # strptime's %Z resolves any abbreviation (CET, EST) to one zone: only UTC and GMT
            # pass; its %z takes +15:00, an offset no zone has.
            return exp.Case().when(matches(t, pattern_gate(reading.format)), value)
        if "%Y" in reading.format:
            # strptime takes `2.2.2` as the year 2 under %d.%m.%Y: a year is four digits. Tested
            # on the result, at a tenth of the cost of matching the text; the text is matched
            # only for a year before 1000 (0001-01-01, a placeholder, is a date: see pattern_gate).
            year = _fn("year", parsed)
            return (
                exp.Case()
                .when(exp.Between(this=year, low=exp.Literal.number(1000), high=exp.Literal.number(9999)), value)
                .when(matches(t, pattern_gate(reading.format)), value)
            )
        if not checked:
            return exp.Case().when(matches(t, pattern_gate(reading.format)), value)
    if reading.gate is None or checked:
        return value
    return exp.Case().when(matches(t, reading.gate), value)


# A zone named after an ISO datetime (Europe/Paris), and the clock time before it.
_ZONE_NAME = r"[A-Za-z]+/[A-Za-z_]+"
# How far a zone's clocks move at once (Lord Howe by 30 minutes, Troll by two hours).
_CLOCK_SHIFTS = ("30 minutes", "1 hour", "2 hours")
# Further than any of them: a zone whose clocks read the same offset this far before and after a
# value neither skips nor doubles its local time.
_CLOCK_CALM = "3 hours"


def _interval(amount: str) -> exp.Expression:
    number, unit = amount.split()
    return exp.Interval(this=_lit(number), unit=exp.var(unit))


def _zone_clock_kept(t: exp.Expression, value: exp.Expression) -> exp.Expression:
    """`value` (TIMESTAMPTZ), NULL where the text names a zone whose clocks skip its local time
    (`2024-03-10 02:30 America/New_York`: DuckDB reads 03:30) or show it twice (01:30 on the
    night clocks go back: DuckDB picks one of the two instants without a word)."""
    zone = _fn("regexp_extract", t, _lit(rf"\s({_ZONE_NAME})$"), exp.Literal.number(1))
    written = _fn("regexp_extract", t, _lit(rf"^(.*?)\s+{_ZONE_NAME}$"), exp.Literal.number(1))
    local = exp.TryCast(this=written, to=exp.DataType.build("TIMESTAMP"))

    def shows(at: exp.Expression, clock: exp.Expression = local) -> exp.Expression:
        return exp.EQ(this=_fn("timezone", zone, at), expression=clock)

    twice = [shows(op(this=value, expression=_interval(shift))) for shift in _CLOCK_SHIFTS for op in (exp.Add, exp.Sub)]
    once = exp.and_(shows(value), exp.not_(exp.or_(*twice)))
    # Most values are far from a change of the zone's clocks: two looks, where `once` takes seven.
    calm = exp.and_(
        *(
            shows(op(this=value, expression=_interval(_CLOCK_CALM)), op(this=local, expression=_interval(_CLOCK_CALM)))
            for op in (exp.Sub, exp.Add)
        )
    )
    # Most values name no zone: one look for a '/' lets them through.
    named = exp.func("contains", t, _lit("/"))
    return (
        exp.Case()
        .when(exp.not_(named), value)
        .when(exp.EQ(this=zone, expression=_lit("")), value)
        .when(calm, value)
        .when(once, value)
    )


# What each strptime field may look like in text: strptime itself takes `2.2.2` as 2 February of
# the year 2 under %d.%m.%Y, so a version number would pass for a date.
_FIELDS = {
    "%d": r"\d{1,2}",
    "%m": r"\d{1,2}",
    "%Y": YEAR,
    "%y": r"\d{2}",
    "%H": r"\d{1,2}",
    "%I": r"\d{1,2}",
    "%M": r"\d{2}",
    "%S": r"\d{2}(?:\.\d{1,9})?",
    "%f": r"\d{1,6}",
    "%b": r"[A-Za-z]{3,4}\.?",
    "%B": r"[A-Za-z]{3,9}",
    "%p": r"[AaPp]\.?[Mm]\.?",
    # Zones strptime may read: UTC and GMT by name (never an abbreviation such as EST or BST,
    # which DuckDB would resolve to one of the zones it names), and offsets.
    "%Z": r"(?:UTC|GMT)",
    "%z": r"(?:\+(?:0\d|1[0-3]):?[0-5]\d|\+14:?00|-(?:0\d|1[01]):?[0-5]\d|-12:?00)",
}
# A zone abbreviation ending a value (EST, CEST, AEDT): asked, never resolved (see time_zone).
ZONE_ABBREVIATION = r"[A-Z]{2,5}"


def pattern_gate(pattern: str) -> str:
    """The regex text read by a strptime pattern must match whole."""
    out, i = [], 0
    while i < len(pattern):
        field = pattern[i : i + 2]
        if field in _FIELDS:
            out.append(_FIELDS[field])
            i += 2
        else:
            out.append(r"\s+" if pattern[i] == " " else re.escape(pattern[i]))
            i += 1
    return "".join(out)


def _offsets_listed(fmt: str) -> bool:
    listed = zone_list(fmt)
    return listed is not None and all(offset for _, offset in listed[1])


def format_of(reading: Reading, physical: str) -> str:
    """The format dataset_get reports: an integer column does not mention a decimal mark it never used."""
    integral = physical == "BIGINT" or physical.endswith(", 0)")
    if reading.type == "number" and integral and reading.decimal_mark == ".":
        return ";".join(p for p in reading.format.split(";") if not p.startswith("decimal_mark"))
    return reading.format


def physical_of(reading: Reading) -> str:
    """The storage type of a non-number reading (numbers depend on the values: see infer/columns.py)."""
    return {
        "string": "VARCHAR",
        "bool": "BOOLEAN",
        "date": "DATE",
        "time": "TIME",
        "duration": "INTERVAL",
        "datetime": "TIMESTAMPTZ"
        if reading.format.endswith(("%z", "%Z", ANY_ZONE)) or _offsets_listed(reading.format)
        else "TIMESTAMP",
    }.get(reading.type, "DOUBLE")


_QUICK = (
    ("int", re.compile(r"[+-]?\d+")),
    ("number", re.compile(r"[+-]?[$€£]?\s?[+-]?(\d{1,3}([,. '’]\d{3})+|\d+)?([.,]\d+)?([eE][+-]?\d+)?\s?[%€$£]?")),
    (
        "date",
        re.compile(
            r"(\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}|\d{1,2}[ -][A-Za-z]{3,9}[ -]\d{2,4}|[A-Za-z]{3,9} \d{1,2}, \d{4})([T ].*)?"
        ),
    ),
    ("time", re.compile(r"\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?")),
    # A bool word of one letter (y, n, t, f) is as likely a code or an initial: text to a header test.
    ("bool", re.compile(r"(?i)(" + "|".join(w for w in BOOL_WORDS if len(w) > 1) + ")")),
)


def quick_kind(value: str) -> str:
    """A coarse kind of one cell, for telling a header row from data (sniff.py)."""
    text = value.strip()
    if not text:
        return "empty"
    for kind, pattern in _QUICK:
        if pattern.fullmatch(text) and any(ch.isalnum() for ch in text):
            return kind
    return "text"
