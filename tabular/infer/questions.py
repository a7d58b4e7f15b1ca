"""Every kind of question a typing asks, in one table (KINDS): who asks it, and
whether rows past a sample could raise it when the sample did not (the one pass's guard, see
ingest/onepass.py). Then the typing a column gets and the question its values leave open, chosen
from the tallies (tally.py), and the questions another column of the table answers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import duckdb

from .. import readings as C
from ..readings import Reading
from ..settings import Settings
from .tally import (
    ReadingCount,
    Source,
    Tally,
    doubles_lost,
    doubtful_years,
    lone_groups,
    physical_from,
    tally,
    zone_endings,
)


def _never(typing: Typing, tally: Tally) -> bool:
    """The sample's own typing stops the one pass at the first later row that would ask it."""
    return False


def _zeros_and_ones(typing: Typing, tally: Tally) -> bool:
    """A whole-number column of only 0s and 1s so far: the flag-or-number question is asked
    once both values appear, which no sample can promise for the rows past it."""
    reading = typing.reading
    return reading.type == "number" and not reading.exponent and typing.physical == "BIGINT" and tally.binary


@dataclass(frozen=True)
class Kind:
    """A kind of question. `open_past_sample(typing, tally)`: True when rows the sample did not
    see could raise it though the sample raised none, so the column cannot be typed on a sample
    (the careful way counts every row). A kind the sample's typing rules out answers False and
    says, in `guard`, what stops the one pass instead."""

    name: str
    asked_by: str
    guard: str
    open_past_sample: Callable[[Typing, Tally], bool] = _never


KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind(
            "header_row",
            "ingest/pipeline.py",
            "decided from the first lines, before any row is typed",
        ),
        Kind(
            "mixed_values",
            "infer/questions.py",
            "a later value the sample's reading does not read fails its conversion",
        ),
        Kind(
            "leading_zeros",
            "infer/questions.py",
            "the integer gate refuses a leading zero (readings.number_gate)",
        ),
        Kind(
            "leading_plus",
            "infer/questions.py",
            "the integer gate refuses a '+' before 7 digits or more (readings.number_gate)",
        ),
        Kind(
            "bool_or_number",
            "infer/questions.py",
            "none: a column of only 0s and 1s so far is typed by the careful way",
            _zeros_and_ones,
        ),
        Kind(
            "decimal_mark",
            "infer/questions.py",
            "asked when two marks read every sampled value; more rows only rule readings out, and the gate holds the sample's scale",
        ),
        Kind(
            "group_mark",
            "infer/questions.py",
            "a gate narrowed to a sample of decimals refuses a value with one group mark and no decimal mark "
            "(7.125 beside 7,5: readings.number_gate)",
        ),
        Kind(
            "date_order",
            "infer/questions.py",
            "asked when both orders read every sampled value; more rows only rule an order out, never in",
        ),
        Kind(
            "century",
            "infer/questions.py",
            "a later two-digit year read past next year stops the pass (ingest/onepass._typed_value)",
        ),
        Kind(
            "scientific",
            "infer/questions.py",
            "none past the sample: asked only where every value is so, which the careful way's count decides",
        ),
        Kind(
            "precision",
            "infer/questions.py",
            "a later value a DOUBLE would not hold as written stops the pass (ingest/onepass)",
        ),
        Kind(
            "time_zone",
            "infer/questions.py",
            "a text column is typed again on the careful way's own sample (ingest/onepass.careful_sample_reads)",
        ),
        Kind(
            "carried_approval",
            "infer/retype.py",
            "asked after the whole revision is stored, over every row",
        ),
        Kind(
            "approval_not_carried",
            "infer/retype.py",
            "asked after the whole revision is stored, over every row",
        ),
    )
}


@dataclass(frozen=True)
class Option:
    reading: Reading
    physical: str
    rows_rejected: int
    example: str | None


@dataclass(frozen=True)
class Question:
    kind: str  # a key of KINDS
    text: str
    options: tuple[Option, ...]

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"{self.kind!r} is no kind of question: add it to infer/questions.KINDS")
        # Never two options that are one reading (a carried type beside the engine's same one):
        # the first of them is kept.
        seen: set[tuple[Reading, str]] = set()
        options = []
        for o in self.options:
            if (o.reading, o.physical) not in seen:
                seen.add((o.reading, o.physical))
                options.append(o)
        object.__setattr__(self, "options", tuple(options))


@dataclass(frozen=True)
class Typing:
    """What a column became: its reading, storage type, how many rows it rejects, and why.

    `clean`: every row was checked, none is rejected, and no cell holds a null marker or
    surrounding blanks, so the snapshot converts the raw text without testing it again."""

    reading: Reading
    physical: str
    rejected: int = 0
    question: Question | None = None
    forced: bool = False
    clean: bool = False
    spaces: bool = False  # a string column of single characters: a cell of whitespace is a value


def choose(tally: Tally, share: float) -> tuple[ReadingCount | None, list[ReadingCount]]:
    """The first reading that reads every value, else (None, readings ranked by what they read)."""
    if tally.nonnull == 0:
        return None, []
    for count in tally.counts:
        if count.fails == 0:
            return count, []
    ranked = sorted(tally.counts, key=lambda n: n.fails)  # stable: the first reading on a tie
    return None, [n for n in ranked if (tally.nonnull - n.fails) / tally.nonnull >= share]


def decide(
    con: duckdb.DuckDBPyConnection,
    rel: Source,
    col: str,
    counted: Tally,
    settings: Settings,
    markers: tuple[str, ...],
) -> Typing:
    """A column's typing from the counts of its readings, with the question its values leave open."""
    chosen, ranked = choose(counted, settings.mixed_values_share)
    if chosen is None:
        # Only a column whose values looked like datetimes (their readings were tried) is looked
        # at, before mixed values: GMT beside BST would read as some datetimes and some rejects.
        tried = any(n.reading.type == "datetime" for n in counted.counts)
        zoned = _zone_abbreviated(con, rel, col, markers) if tried else None
        if zoned is not None:
            return Typing(C.STRING, "VARCHAR", 0, zoned)
        if not ranked:
            return Typing(C.STRING, "VARCHAR", spaces=counted.single and counted.spaces > 0)
        best = ranked[0].reading
        (whole,) = tally(con, rel, [col], {col: [best]}, markers, examples=True)[col].counts
        physical = physical_from(best, whole.number)
        fails, example = whole.fails, whole.example
        question = Question(
            "mixed_values",
            f"Most values read as {best.type} but {fails} do not (e.g. {example!r}). "
            f"Keep the column as text, or read it as {best.type} and reject those rows?",
            (Option(C.STRING, "VARCHAR", 0, None), Option(best, physical, fails, example)),
        )
        return Typing(C.STRING, "VARCHAR", 0, question)
    reading = chosen.reading
    full = [n for n in counted.counts if n.fails == 0]
    if reading.type == "bool" and counted.one_sided:
        # Letters of one side only (F, F, F: Female or False? N: North or No?) are no proof of
        # a flag: kept as written. A letter is a flag beside its other (Y with N, T with F).
        return Typing(C.STRING, "VARCHAR", spaces=counted.single and counted.spaces > 0)
    if reading.type == "number":
        physical = physical_from(reading, chosen.number)
        if physical == "DOUBLE" and not (chosen.number and chosen.number.floating):
            # Floating point for want of a fixed scale (1E3, or more than 38 digits): only
            # where it holds every value as written (a floating column was checked in tally).
            lost, example = doubles_lost(con, rel, col, reading, markers)
            if lost:
                return _held_as_text(
                    "precision",
                    f"{lost} value{'s' if lost != 1 else ''} (e.g. {example!r}) have more digits than floating "
                    "point keeps, or lie beyond its range. Keep the column as text, or read it as floating point and round them?",
                    reading,
                    physical,
                )
        if reading.exponent and counted.coded_exponents:
            return _held_as_text(
                "scientific",
                "Every value is a whole number with an unsigned exponent (like 12E3), as codes are written and floating "
                "point seldom writes a number; read as numbers, 1E5 and 10E4 are one. "
                "Keep them as text, or read them as numbers in scientific notation?",
                reading,
                physical,
            )
        plain_integer = physical == "BIGINT" and reading.unit is None and reading.group_mark is None
        if plain_integer and counted.leading_zeros:
            return _held_as_text(
                "leading_zeros",
                f"{counted.leading_zeros} values start with 0 (e.g. an identifier like '007'). "
                "Keep them as text, or read them as numbers and drop the zeros?",
                reading,
                physical,
            )
        if plain_integer and counted.plus_ids and not counted.negatives:
            return _held_as_text(
                "leading_plus",
                f"{counted.plus_ids} values start with + (e.g. a phone number like '+31205550123'). "
                "Keep them as text, or read them as numbers and drop the +?",
                reading,
                physical,
            )
        if physical == "BIGINT" and counted.zero_one:
            question = Question(
                "bool_or_number",
                "Every value is 0 or 1. Is this a number, or a yes/no flag?",
                (Option(reading, physical, 0, None), Option(C.BOOL_01, "BOOLEAN", 0, None)),
            )
            return Typing(reading, physical, 0, question)
        rivals = [
            n
            for n in full
            if n.reading.type == "number"
            and n.reading.decimal_mark != reading.decimal_mark
            and n.reading.unit == reading.unit
        ]
        fractional = physical.startswith("DECIMAL") and not physical.endswith(", 0)")
        if fractional and reading.group_mark in (".", ","):
            lone, example = lone_groups(con, rel, col, reading, markers)
            if lone:
                return _lone_group(con, rel, col, reading, physical, lone, example, markers, counted.plain)
        if rivals and physical.startswith("DECIMAL") and not physical.endswith(", 0)"):
            rival = rivals[0].reading
            rival_physical = physical_from(rival, rivals[0].number)
            question = Question(
                "decimal_mark",
                f"Is '{reading.decimal_mark}' the decimal mark here, or a thousands separator?",
                (Option(reading, physical, 0, None), Option(rival, rival_physical, 0, None)),
            )
            return Typing(reading, physical, 0, question, clean=counted.plain)
        return Typing(reading, physical, clean=counted.plain)
    physical = C.physical_of(reading)
    if reading is C.ISO_TIMESTAMPTZ or reading.format.endswith(C.ANY_ZONE):
        question = _bare_as_utc(con, rel, col, reading, physical, markers)
        if question is not None:
            return Typing(reading, physical, 0, question, clean=counted.plain)
    return _dated(con, rel, col, reading, physical, full, markers, counted.plain)


def _dated(
    con: duckdb.DuckDBPyConnection,
    rel: Source,
    col: str,
    reading: Reading,
    physical: str,
    full: list[ReadingCount],
    markers: tuple[str, ...],
    plain: bool,
) -> Typing:
    """The typing of a column `reading` reads whole, with the question its dates leave open:
    a two-digit year read past next year (century), or another order that reads them too."""
    # Every reading of another date order that reads every value too: day/month or month/day
    # (03/04/2024), or a two-digit year first (31-12-13 as 2031-12-13).
    first_of_order: dict[str, Reading] = {}
    for n in full if reading.order else ():
        if n.reading.type == reading.type and n.reading.order not in ("", reading.order):
            first_of_order.setdefault(n.reading.order, n.reading)
    rivals = list(first_of_order.values())
    # Two-digit years the held reading puts past next year: asked before the order is.
    if C.two_digit_year(reading):
        doubtful, example = doubtful_years(con, rel, col, reading, markers)
        if doubtful:
            return _century(reading, physical, rivals, doubtful, example)
    if rivals:
        orders = " and as ".join(ORDER_WORDS[r.order] for r in (reading, *rivals))
        question = Question(
            "date_order",
            f"Every value reads both as {orders} (like 03/04/2024 or 01-02-03). Which order is it?",
            (Option(reading, physical, 0, None), *(Option(r, physical, 0, None) for r in rivals)),
        )
        return Typing(reading, physical, 0, question, clean=plain)
    return Typing(reading, physical, clean=plain)


def _bare_as_utc(
    con: duckdb.DuckDBPyConnection, rel: Source, col: str, reading: Reading, physical: str, markers: tuple[str, ...]
) -> Question | None:
    """A `mixed_values` question for a column of datetimes read with a zone or none, where
    some values have none (read as UTC); None where every value has one."""
    # Counted on every value: the sample's tally of the plain reading may stop at a probe.
    bare = (
        C.ISO_TIMESTAMP
        if reading is C.ISO_TIMESTAMPTZ
        else C.date_reading(reading.format.removesuffix(C.ANY_ZONE), "datetime")
    )
    offsets = tally(con, rel, [col], {col: [bare]}, markers)[col]
    plain = offsets.nonnull - offsets.count_of(bare).fails
    if not plain:
        return None
    return Question(
        "mixed_values",
        f"{plain} values have no time zone or offset while the others do. Read them as UTC, or keep the column as text?",
        (Option(reading, physical, 0, None), Option(C.STRING, "VARCHAR", 0, None)),
    )


def _lone_group(
    con, rel: Source, col: str, reading: Reading, physical: str, lone: int, example, markers, plain
) -> Typing:
    """A column of decimals where some values hold one group mark and no decimal mark (7.125
    beside 7,5): a thousands separator (7125) or a decimal written the other way (7.125)? Held
    as the reading that rejects none, with the question open; the other reading's rejects counted."""
    g, d = reading.group_mark, reading.decimal_mark
    other = C.number_reading(g, None, reading.unit)
    (count,) = tally(con, rel, [col], {col: [other]}, markers, examples=True)[col].counts
    question = Question(
        "group_mark",
        f"{lone} value{'s' if lone != 1 else ''} (e.g. {example!r}) {'have' if lone != 1 else 'has'} one '{g}' and no "
        f"'{d}' among numbers with '{d}' as the decimal mark. "
        f"Is '{g}' a thousands separator there ({example!r} read as a whole number), or a decimal mark?",
        (
            Option(reading, physical, 0, None),
            Option(other, physical_from(other, count.number), count.fails, count.example),
            Option(C.STRING, "VARCHAR", 0, None),
        ),
    )
    return Typing(reading, physical, 0, question, clean=plain)


def _zone_abbreviated(
    con: duckdb.DuckDBPyConnection, rel: Source, col: str, markers: tuple[str, ...]
) -> Question | None:
    """A `time_zone` question for a column of datetimes that all end in zone abbreviations
    (`2024-01-02 10:15 EST`): an abbreviation names more than one zone (CST: US Central, China,
    Cuba), so it is never resolved. Held as text. One abbreviation: the other option reads the
    local times as written, the abbreviation kept in the format. Both names of a region's
    standard and daylight pair (EST, EDT): an option per region with that pair, each name read
    at its offset, then the local times with the names dropped. Any other names: the local
    times. None for any other column."""
    names, bare = zone_endings(con, rel, col, markers)
    if bare or not names or len(names) > 8 or {"AM", "PM"} & set(names) or names in (["UTC"], ["GMT"]):
        return None
    if len(names) == 1:
        (name,) = names
        readings = [C.date_reading(f"{r.format} {name}", "datetime") for r in C.zone_free_datetimes()]
    else:
        readings = [C.zone_listed(r.format, [(n, None) for n in names]) for r in C.zone_free_datetimes()]
    (counted,) = tally(con, rel, [col], {col: readings}, markers).values()
    local = next((n.reading for n in counted.counts if n.fails == 0), None)
    if local is None:
        return None
    keep = Option(C.STRING, "VARCHAR", 0, None)
    said = " and ".join(repr(n) for n in names)
    if len(names) == 1:
        return Question(
            "time_zone",
            f"Every value ends in {said}, a zone abbreviation that names more than one zone "
            "(so it is not resolved to one). Keep the column as text, or read the local times as "
            f"written (as TIMESTAMP, {said} kept in the format)?",
            (keep, Option(local, C.physical_of(local), 0, None)),
        )
    pattern = C.zone_list(local.format)[0]
    regions = {
        region: pair for region, pair in C.ZONE_PAIRS.items() if sorted(name for name, _ in pair) == sorted(names)
    }
    local_option = Option(local, C.physical_of(local), 0, None)
    if not regions:
        return Question(
            "time_zone",
            f"The values end in {said}, zone abbreviations of no one region's standard and daylight time "
            "(and each may name more than one zone, so none is resolved). Keep the column as text, or read "
            "the local times as written (as TIMESTAMP, the abbreviations dropped: times of different zones "
            "then read as if of one)?",
            (keep, local_option),
        )
    zoned = [C.zone_listed(pattern, sorted(pair)) for pair in regions.values()]
    which = " or ".join(f"{region} time ({', '.join(f'{n} {o}' for n, o in pair)})" for region, pair in regions.items())
    return Question(
        "time_zone",
        f"The values end in {said}, the standard and daylight names of {which}. Keep the column as text, "
        "read each value at its name's offset (as TIMESTAMPTZ), or read the local times as written "
        "(as TIMESTAMP, the names dropped)?",
        (keep, *(Option(r, C.physical_of(r), 0, None) for r in zoned), local_option),
    )


def _century(reading: Reading, physical: str, rivals: list[Reading], doubtful: int, example: str | None) -> Typing:
    """A column of dates with two-digit years some of which read past next year (`05/06/60` as
    2060): held as text, asked, with each order that reads every value as an option."""
    after = C.doubtful_year_after()
    return Typing(
        C.STRING,
        "VARCHAR",
        0,
        Question(
            "century",
            f"{doubtful} value{'s have' if doubtful != 1 else ' has'} (e.g. {example!r}) a two-digit year that reads after "
            f"{after} (00-68 read as 2000-2068, 69-99 as 1969-1999): a date of the last century, perhaps. "
            "Keep the column as text, or read the years so?",
            (
                Option(C.STRING, "VARCHAR", 0, None),
                *(Option(r, physical, 0, None) for r in (reading, *rivals)),
            ),
        ),
    )


def _held_as_text(kind: str, question: str, reading: Reading, physical: str) -> Typing:
    """A column whose values all read as `reading`, held as text until a person says which it is."""
    return Typing(
        C.STRING,
        "VARCHAR",
        0,
        Question(kind, question, (Option(C.STRING, "VARCHAR", 0, None), Option(reading, physical, 0, None))),
    )


def _fractional(t: Typing) -> bool:
    """Numbers with decimals: a decimal mark was read, not only integers."""
    return (
        t.physical.startswith("DECIMAL")
        and not t.physical.endswith(", 0)")
        or t.physical == "DOUBLE"
        and t.reading.decimal_mark != "."
    )


ORDER_WORDS = {"DMY": "day/month/year", "MDY": "month/day/year", "YMD": "year/month/day"}


def settle_by_evidence(typings: dict[str, Typing]) -> dict[str, Typing]:
    """A question another column of the same table answers is no question (one file, one habit)."""
    proven_orders = {
        t.reading.order for t in typings.values() if t.question is None and t.reading.order in ("DMY", "MDY")
    }
    proven_marks = {
        t.reading.decimal_mark
        for t in typings.values()
        if t.question is None
        and t.reading.type == "number"
        and (t.physical.startswith("DECIMAL") or t.reading.group_mark)
    }
    out = dict(typings)
    for col, t in typings.items():
        if t.question is None and not t.forced and t.reading.type == "number" and _fractional(t):
            # '1,7' read with a decimal comma in a file whose other numbers use '.': ask.
            # Compared among columns of the same unit: euros may be written 11,10 beside dollars 12.00.
            marks = Counter(
                u.reading.decimal_mark
                for c, u in typings.items()
                if c != col
                and u.question is None
                and u.reading.type == "number"
                and u.reading.unit == t.reading.unit
                and _fractional(u)
            )
            own = marks[t.reading.decimal_mark] + 1
            # As many columns each way: each side is asked (a ';' file's amounts use ',', its
            # coordinates may use '.'; a ',' file's quoted "1,7" may be a list): no silent pick.
            mark, count = max(
                ((m, n) for m, n in marks.items() if m != t.reading.decimal_mark),
                key=lambda kv: kv[1],
                default=(None, 0),
            )
            if mark is not None and count >= own:
                out[col] = _held_as_text(
                    "decimal_mark",
                    f"The other numbers of this table use '{mark}' as the decimal mark, but these read as numbers only with "
                    f"'{t.reading.decimal_mark}'. Keep them as text, or read '{t.reading.decimal_mark}' as the decimal mark here?",
                    t.reading,
                    t.physical,
                )
            continue
        if t.question is None or t.question.kind not in ("date_order", "decimal_mark"):
            continue
        proven = proven_orders if t.question.kind == "date_order" else proven_marks
        if len(proven) != 1:
            continue
        (value,) = proven
        for opt in t.question.options:
            if (opt.reading.order if t.question.kind == "date_order" else opt.reading.decimal_mark) == value:
                out[col] = Typing(opt.reading, opt.physical, opt.rows_rejected)
    return out
