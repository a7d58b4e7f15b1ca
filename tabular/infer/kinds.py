"""Every kind of question a typing asks, one entry each (KINDS), in the order a column is asked
them: the entry's `ask` looks at the column (its detection) and, where it finds the question,
answers its words, its options and how the column is held while it is open; `across` asks or
settles it from the other columns of the table; `guard` says (and `open_past_sample` decides)
whether rows past a sample could raise it when the sample did not (the one pass's guard, see
ingest/onepass.py); `words` say what it asks, as the API describes the kind
(models.QuestionOut.kind, which names the same kinds: tests/service/test_registry.py).

A new kind is one entry here (its ask beside it) and its tests."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

from .. import readings as C
from ..readings import Reading
from .tally import Tally, doubles_lost, doubtful_years, lone_groups, physical_from, tally, zone_endings
from .typings import KEEP_TEXT, TEXT, Ask, Column, Option, Question, Typing, text_or


def _never(typing: Typing, tally: Tally) -> bool:
    """The sample's own typing stops the one pass at the first later row that would ask it."""
    return False


@dataclass(frozen=True)
class Kind:
    """A kind of question. `ask(column)`: the question on one column, or None. `across(typings)`:
    the columns the rest of the table asks it of (an Ask) or settles (a Typing). `open_past_sample
    (typing, tally)`: True when rows the sample did not see could raise it though the sample
    raised none, so the column cannot be typed on a sample (the careful way counts every row). A
    kind the sample's typing rules out answers False and says, in `guard`, what stops the one pass
    instead. A kind with no `ask` is asked by another stage (`asked_by`)."""

    name: str
    words: str
    guard: str
    ask: Callable[[Column], Ask | None] | None = None
    across: Callable[[dict[str, Typing]], dict[str, Ask | Typing]] | None = None
    open_past_sample: Callable[[Typing, Tally], bool] = _never
    asked_by: str = "infer/kinds.py"

    def asked(self, ask: Ask) -> Typing:
        """The column held as `ask` says, with this kind's question open."""
        return replace(ask.held, question=Question(self.name, ask.text, ask.options))


def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


# -- a column no reading reads whole ---------------------------------------------------------


def _time_zone(column: Column) -> Ask | None:
    """Datetimes that all end in zone abbreviations (`2024-01-02 10:15 EST`): an abbreviation
    names more than one zone (CST: US Central, China, Cuba), so it is never resolved. Held as
    text. One abbreviation: the other option reads the local times as written, the abbreviation
    kept in the format. Both names of a region's standard and daylight pair (EST, EDT): an option
    per region with that pair, each name read at its offset, then the local times with the names
    dropped. Any other names: the local times. Looked at before mixed values (GMT beside BST
    would read as some datetimes and some rejects), and only where datetime readings were tried."""
    if column.chosen is not None or not any(n.reading.type == "datetime" for n in column.tally.counts):
        return None
    names, bare = zone_endings(column.con, column.rel, column.name, column.markers)
    if bare or not names or len(names) > 8 or {"AM", "PM"} & set(names) or names in (["UTC"], ["GMT"]):
        return None
    if len(names) == 1:
        readings = [C.date_reading(f"{r.format} {names[0]}", "datetime") for r in C.zone_free_datetimes()]
    else:
        readings = [C.zone_listed(r.format, [(n, None) for n in names]) for r in C.zone_free_datetimes()]
    (counted,) = tally(column.con, column.rel, [column.name], {column.name: readings}, column.markers).values()
    local = next((n.reading for n in counted.counts if n.fails == 0), None)
    if local is None:
        return None
    said = " and ".join(repr(n) for n in names)
    local_option = Option(local, C.physical_of(local), 0, None)
    if len(names) == 1:
        return Ask(
            f"Every value ends in {said}, a zone abbreviation that names more than one zone "
            "(so it is not resolved to one). Keep the column as text, or read the local times as "
            f"written (as TIMESTAMP, {said} kept in the format)?",
            (KEEP_TEXT, local_option),
        )
    listed = C.zone_list(local.format)
    assert listed is not None  # more than one name: `local` is one of the zone_listed readings
    pattern = listed[0]
    regions = {
        region: pair for region, pair in C.ZONE_PAIRS.items() if sorted(name for name, _ in pair) == sorted(names)
    }
    if not regions:
        return Ask(
            f"The values end in {said}, zone abbreviations of no one region's standard and daylight time "
            "(and each may name more than one zone, so none is resolved). Keep the column as text, or read "
            "the local times as written (as TIMESTAMP, the abbreviations dropped: times of different zones "
            "then read as if of one)?",
            (KEEP_TEXT, local_option),
        )
    zoned = [C.zone_listed(pattern, sorted(pair)) for pair in regions.values()]
    which = " or ".join(f"{region} time ({', '.join(f'{n} {o}' for n, o in pair)})" for region, pair in regions.items())
    return Ask(
        f"The values end in {said}, the standard and daylight names of {which}. Keep the column as text, "
        "read each value at its name's offset (as TIMESTAMPTZ), or read the local times as written "
        "(as TIMESTAMP, the names dropped)?",
        (KEEP_TEXT, *(Option(r, C.physical_of(r), 0, None) for r in zoned), local_option),
    )


def _mixed_values(column: Column) -> Ask | None:
    """Most values read as one type but some do not: text, or that type with those rows
    rejected. Or datetimes read with a zone where some values have none (read as UTC)."""
    if column.chosen is None:
        if not column.ranked:
            return None  # too few values read as anything: plainly text
        best = column.ranked[0].reading
        con, rel, col = column.con, column.rel, column.name
        (whole,) = tally(con, rel, [col], {col: [best]}, column.markers, examples=True)[col].counts
        fails, example = whole.fails, whole.example
        return Ask(
            f"Most values read as {best.type} but {fails} do not (e.g. {example!r}). "
            f"Keep the column as text, or read it as {best.type} and reject those rows?",
            (KEEP_TEXT, Option(best, physical_from(best, whole.number), fails, example)),
        )
    reading = column.reading
    if not column.is_other() or not (reading is C.ISO_TIMESTAMPTZ or reading.format.endswith(C.ANY_ZONE)):
        return None
    # Counted on every value: the sample's tally of the plain reading may stop at a probe.
    bare = (
        C.ISO_TIMESTAMP
        if reading is C.ISO_TIMESTAMPTZ
        else C.date_reading(reading.format.removesuffix(C.ANY_ZONE), "datetime")
    )
    offsets = tally(column.con, column.rel, [column.name], {column.name: [bare]}, column.markers)[column.name]
    plain = offsets.nonnull - offsets.count_of(bare).fails
    if not plain:
        return None
    return Ask(
        f"{plain} values have no time zone or offset while the others do. Read them as UTC, or keep the column as text?",
        (Option(reading, column.physical, 0, None), KEEP_TEXT),
        column.as_read(),
    )


# -- numbers ---------------------------------------------------------------------------------


def _precision(column: Column) -> Ask | None:
    """Floating point for want of a fixed scale (1E3, or more than 38 digits): only where it
    holds every value as written (a floating column was checked in tally)."""
    if not column.is_number() or column.physical != "DOUBLE":
        return None
    number = column.chosen.number if column.chosen else None
    if number and number.floating:
        return None
    lost, example = doubles_lost(column.con, column.rel, column.name, column.reading, column.markers)
    if not lost:
        return None
    return text_or(
        column.reading,
        column.physical,
        f"{lost} value{_plural(lost, '', 's')} (e.g. {example!r}) have more digits than floating "
        "point keeps, or lie beyond its range. Keep the column as text, or read it as floating point and round them?",
    )


def _scientific(column: Column) -> Ask | None:
    if not (column.is_number() and column.reading.exponent and column.tally.coded_exponents):
        return None
    return text_or(
        column.reading,
        column.physical,
        "Every value is a whole number with an unsigned exponent (like 12E3), as codes are written and floating "
        "point seldom writes a number; read as numbers, 1E5 and 10E4 are one. "
        "Keep them as text, or read them as numbers in scientific notation?",
    )


def _plain_integer(column: Column) -> bool:
    """Whole numbers with no unit and no group mark, as identifiers are written."""
    if not column.is_number() or column.physical != "BIGINT":
        return False
    return column.reading.unit is None and column.reading.group_mark is None


def _leading_zeros(column: Column) -> Ask | None:
    zeros = column.tally.leading_zeros
    if not (_plain_integer(column) and zeros):
        return None
    return text_or(
        column.reading,
        column.physical,
        f"{zeros} values start with 0 (e.g. an identifier like '007'). "
        "Keep them as text, or read them as numbers and drop the zeros?",
    )


def _leading_plus(column: Column) -> Ask | None:
    plus = column.tally.plus_ids
    if not (_plain_integer(column) and plus and not column.tally.negatives):
        return None
    return text_or(
        column.reading,
        column.physical,
        f"{plus} values start with + (e.g. a phone number like '+31205550123'). "
        "Keep them as text, or read them as numbers and drop the +?",
    )


def _bool_or_number(column: Column) -> Ask | None:
    if not (column.is_number() and column.physical == "BIGINT" and column.tally.zero_one):
        return None
    return Ask(
        "Every value is 0 or 1. Is this a number, or a yes/no flag?",
        (Option(column.reading, column.physical, 0, None), Option(C.BOOL_01, "BOOLEAN", 0, None)),
        Typing(column.reading, column.physical),
    )


def _zeros_and_ones(typing: Typing, tally: Tally) -> bool:
    """A whole-number column of only 0s and 1s so far: the flag-or-number question is asked
    once both values appear, which no sample can promise for the rows past it."""
    reading = typing.reading
    return reading.type == "number" and not reading.exponent and typing.physical == "BIGINT" and tally.binary


def _group_mark(column: Column) -> Ask | None:
    """A column of decimals where some values hold one group mark and no decimal mark (7.125
    beside 7,5): a thousands separator (7125) or a decimal written the other way (7.125)? Held
    as the reading that rejects none, with the question open; the other reading's rejects counted."""
    if not (column.is_number() and column.fractional() and column.reading.group_mark in (".", ",")):
        return None
    con, rel, col, reading = column.con, column.rel, column.name, column.reading
    lone, example = lone_groups(con, rel, col, reading, column.markers)
    if not lone:
        return None
    g, d = reading.group_mark, reading.decimal_mark
    assert g is not None  # one of '.' and ',' (above)
    other = C.number_reading(g, None, reading.unit)
    (count,) = tally(con, rel, [col], {col: [other]}, column.markers, examples=True)[col].counts
    return Ask(
        f"{lone} value{_plural(lone, '', 's')} (e.g. {example!r}) {_plural(lone, 'has', 'have')} one '{g}' and no "
        f"'{d}' among numbers with '{d}' as the decimal mark. "
        f"Is '{g}' a thousands separator there ({example!r} read as a whole number), or a decimal mark?",
        (
            Option(reading, column.physical, 0, None),
            Option(other, physical_from(other, count.number), count.fails, count.example),
            KEEP_TEXT,
        ),
        column.as_read(),
    )


def _decimal_mark(column: Column) -> Ask | None:
    """Another decimal mark (of the same unit) reads every value too: 1,234 and 2,500."""
    if not (column.is_number() and column.fractional()):
        return None
    reading = column.reading
    rivals = [
        n
        for n in column.full()
        if n.reading.type == "number"
        and n.reading.decimal_mark != reading.decimal_mark
        and n.reading.unit == reading.unit
    ]
    if not rivals:
        return None
    rival = rivals[0]
    return Ask(
        f"Is '{reading.decimal_mark}' the decimal mark here, or a thousands separator?",
        (
            Option(reading, column.physical, 0, None),
            Option(rival.reading, physical_from(rival.reading, rival.number), 0, None),
        ),
        column.as_read(),
    )


def _fractional(t: Typing) -> bool:
    """Numbers with decimals: a decimal mark was read, not only integers."""
    return (
        t.physical.startswith("DECIMAL")
        and not t.physical.endswith(", 0)")
        or t.physical == "DOUBLE"
        and t.reading.decimal_mark != "."
    )


def _settled(
    typings: dict[str, Typing], kind: str, proven: set[str], value_of: Callable[[Reading], str]
) -> dict[str, Typing]:
    """The open questions of `kind` another column answers: where the table's settled columns
    prove one value (one date order, one decimal mark), the option of that value is taken."""
    if len(proven) != 1:
        return {}
    (value,) = proven
    out = {}
    for col, t in typings.items():
        if t.question is not None and t.question.kind == kind:
            for opt in t.question.options:
                if value_of(opt.reading) == value:
                    out[col] = Typing(opt.reading, opt.physical, opt.rows_rejected)
    return out


def _decimal_mark_across(typings: dict[str, Typing]) -> dict[str, Ask | Typing]:
    """A decimal mark the table's other numbers answer (one file, one habit), or ask: '1,7' read
    with a decimal comma in a file whose other numbers use '.'."""
    out: dict[str, Ask | Typing] = {}
    for col, t in typings.items():
        if t.question is not None or t.forced or t.reading.type != "number" or not _fractional(t):
            continue
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
            ((m, n) for m, n in marks.items() if m != t.reading.decimal_mark), key=lambda kv: kv[1], default=(None, 0)
        )
        if mark is not None and count >= own:
            out[col] = text_or(
                t.reading,
                t.physical,
                f"The other numbers of this table use '{mark}' as the decimal mark, but these read as numbers only with "
                f"'{t.reading.decimal_mark}'. Keep them as text, or read '{t.reading.decimal_mark}' as the decimal mark here?",
            )
    proven = {
        t.reading.decimal_mark
        for t in typings.values()
        if t.question is None
        and t.reading.type == "number"
        and (t.physical.startswith("DECIMAL") or t.reading.group_mark)
    }
    out.update(_settled(typings, "decimal_mark", proven, lambda r: r.decimal_mark))
    return out


# -- dates -----------------------------------------------------------------------------------


ORDER_WORDS = {"DMY": "day/month/year", "MDY": "month/day/year", "YMD": "year/month/day"}


def _other_orders(column: Column) -> list[Reading]:
    """The first reading of each other date order that reads every value too: day/month or
    month/day (03/04/2024), or a two-digit year first (31-12-13 as 2031-12-13)."""
    reading = column.reading
    first_of_order: dict[str, Reading] = {}
    for n in column.full() if reading.order else ():
        if n.reading.type == reading.type and n.reading.order not in ("", reading.order):
            first_of_order.setdefault(n.reading.order, n.reading)
    return list(first_of_order.values())


def _century(column: Column) -> Ask | None:
    """Dates with two-digit years some of which read past next year (`05/06/60` as 2060): held
    as text, asked, with each order that reads every value as an option. Asked before the order."""
    if not (column.is_other() and C.two_digit_year(column.reading)):
        return None
    reading, physical = column.reading, column.physical
    doubtful, example = doubtful_years(column.con, column.rel, column.name, reading, column.markers)
    if not doubtful:
        return None
    return Ask(
        f"{doubtful} value{_plural(doubtful, ' has', 's have')} (e.g. {example!r}) a two-digit year that reads after "
        f"{C.doubtful_year_after()} (00-68 read as 2000-2068, 69-99 as 1969-1999): a date of the last century, perhaps. "
        "Keep the column as text, or read the years so?",
        (KEEP_TEXT, *(Option(r, physical, 0, None) for r in (reading, *_other_orders(column)))),
    )


def _date_order(column: Column) -> Ask | None:
    if not column.is_other():
        return None
    rivals = _other_orders(column)
    if not rivals:
        return None
    orders = " and as ".join(ORDER_WORDS[r.order] for r in (column.reading, *rivals))
    return Ask(
        f"Every value reads both as {orders} (like 03/04/2024 or 01-02-03). Which order is it?",
        tuple(Option(r, column.physical, 0, None) for r in (column.reading, *rivals)),
        column.as_read(),
    )


def _date_order_across(typings: dict[str, Typing]) -> dict[str, Ask | Typing]:
    """A date order another column of the table proves (a day past 12 there) settles it here."""
    proven = {t.reading.order for t in typings.values() if t.question is None and t.reading.order in ("DMY", "MDY")}
    return dict(_settled(typings, "date_order", proven, lambda r: r.order))


# -- the table -------------------------------------------------------------------------------

KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind(
            "header_row",
            "is the first row a header or data?",
            "decided from the first lines, before any row is typed",
            asked_by="ingest/pipeline.py",
        ),
        Kind(
            "time_zone",
            "datetimes that end in a zone abbreviation (EST, CST), which names more than one zone: "
            "text, or local times as written?",
            "a text column is typed again on the careful way's own sample (ingest/onepass.careful_sample_reads)",
            _time_zone,
        ),
        Kind(
            "mixed_values",
            "most values read as one type but some do not (or only some datetimes have an offset).",
            "a later value the sample's reading does not read fails its conversion",
            _mixed_values,
        ),
        Kind(
            "precision",
            "numbers with more digits than floating point keeps (1E3 beside 12345678901234567.89, or past 38 digits): "
            "text, or floating point rounded?",
            "a later value a DOUBLE would not hold as written stops the pass (ingest/onepass)",
            _precision,
        ),
        Kind(
            "scientific",
            "whole numbers with an unsigned exponent in every value (12E3), as codes are written: text, or numbers?",
            "none past the sample: asked only where every value is so, which the careful way's count decides",
            _scientific,
        ),
        Kind(
            "leading_zeros",
            "whole numbers written like identifiers ('007', '+31…'), held as text.",
            "the integer gate refuses a leading zero (readings.number_gate)",
            _leading_zeros,
        ),
        Kind(
            "leading_plus",
            "whole numbers written like identifiers ('007', '+31…'), held as text.",
            "the integer gate refuses a '+' before 7 digits or more (readings.number_gate)",
            _leading_plus,
        ),
        Kind(
            "bool_or_number",
            "every value is 0 or 1.",
            "none: a column of only 0s and 1s so far is typed by the careful way",
            _bool_or_number,
            open_past_sample=_zeros_and_ones,
        ),
        Kind(
            "group_mark",
            "in a column of decimals, values with one group mark and no decimal mark (7.125 beside 7,5): "
            "thousands or decimals?",
            "a gate narrowed to a sample of decimals refuses a value with one group mark and no decimal mark "
            "(7.125 beside 7,5: readings.number_gate)",
            _group_mark,
        ),
        Kind(
            "decimal_mark",
            "is '.' or ',' the decimal mark?",
            "asked when two marks read every sampled value; more rows only rule readings out, and the gate holds "
            "the sample's scale",
            _decimal_mark,
            _decimal_mark_across,
        ),
        Kind(
            "century",
            "dates with two-digit years some of which read past next year (05/06/60 as 2060): text, or the years "
            "as read (00-68 as 2000-2068)?",
            "a later two-digit year read past next year stops the pass (ingest/onepass._typed_value)",
            _century,
        ),
        Kind(
            "date_order",
            "day/month or month/day (or a two-digit year first)?",
            "asked when both orders read every sampled value; more rows only rule an order out, never in",
            _date_order,
            _date_order_across,
        ),
        Kind(
            "carried_approval",
            "no longer asked (a type a person set on an earlier revision that still reads every value is kept "
            "without a question); the kind stays for answers stored before.",
            "asked after the whole revision is stored, over every row",
            asked_by="infer/retype.py",
        ),
        Kind(
            "approval_not_carried",
            "a type a person set on an earlier revision no longer reads every value; typed afresh.",
            "asked after the whole revision is stored, over every row",
            asked_by="infer/retype.py",
        ),
    )
}

__all__ = ["KINDS", "ORDER_WORDS", "TEXT", "Kind"]
