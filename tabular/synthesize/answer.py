"""The answer a reader gets: the result table as a note, the result in words with its citation,
citations of anything not run taken out, and incompleteness said, not hidden."""

from __future__ import annotations

import math
import re
from typing import Any

from . import phrases

CITATION = re.compile(r"\[([A-Za-z_.]+#\d+)\]")
# How many result rows the answer's words name; the note holds the table.
ROWS_IN_WORDS = 12


_PART = re.compile(r"(group_by|aggregates|select|measures)\[(\d+)\]")
# Measures a plan computes as the answer itself (a yes or no, a difference), not as evidence.
_ANSWER_MEASURES = ("answer", "difference")


def answer_columns(plan: dict, names: list[str], said: tuple[str, ...] = ()) -> list[str]:
    """The result columns that answer the task; the others are its evidence (a row's position,
    the two values of a difference). `said`: what the proposer named, each a result column's name
    or the plan part that makes it ("group_by[0]", "measures[2]"). Unsaid, read off the plan: a
    measure named answer or difference; the selected columns; a ranking's groups ("which region
    has the most sales": the region); else the groups and aggregates."""
    groups, aggregates = len(plan.get("group_by") or []), len(plan.get("aggregates") or [])
    selected, measures = len(plan.get("select") or []), len(plan.get("measures") or [])

    def column(part: str) -> int | None:
        if part in names:
            return names.index(part)
        found = _PART.fullmatch(part)
        if not found:
            return None
        kind, k = found.group(1), int(found.group(2))
        start = {
            "group_by": 0,
            "aggregates": groups,
            "select": groups + aggregates,
            "measures": len(names) - measures,
        }[kind]
        size = {"group_by": groups, "aggregates": aggregates, "select": selected, "measures": measures}[kind]
        return start + k if k < size and start + k < len(names) else None

    found = [column(p) for p in said]
    picked = [k for k in found if k is not None]
    ranking = groups and aggregates and plan.get("order_by") and int(plan.get("limit") or 0) <= 10
    if said and len(picked) == len(found):  # every name said is a result column
        if ranking and any(k < groups for k in picked):
            # "which team has the most wins": the team answers, the total it ranks by is evidence,
            # whatever the proposer named beside the group.
            picked = [k for k in picked if not groups <= k < groups + aggregates]
        return [names[k] for k in dict.fromkeys(picked)]
    made = [m.get("as") for m in plan.get("measures") or [] if isinstance(m, dict)]
    for word in _ANSWER_MEASURES:
        if word in made and word in names:
            return [word]
    evidence = len(names) - measures
    if ranking:
        return names[:groups]
    return names[: max(evidence, 0)] or names


def cell(value: Any) -> str:
    return "null" if value is None else str(value)


# A duration as SPEC §3 writes it in JSON (jsonval.iso_duration): days and a clock, no months.
_ISO_DURATION = re.compile(r"(-?)P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?")


def clock(duration: str) -> str:
    """A duration as a reader writes it, [h:]mm:ss[.f]: PT1M24.1S is 1:24.1, P1DT2H15M is
    26:15:00 (the rows keep ISO 8601); text of another shape as it is."""
    found = _ISO_DURATION.fullmatch(duration)
    if not found:
        return duration
    sign, days, hours, minutes, seconds = found.groups()
    hours = int(days or 0) * 24 + int(hours or 0)
    whole, _, fraction = (seconds or "0").partition(".")
    secs = f"{int(whole):02d}" + (f".{fraction}" if fraction else "")
    return f"{sign}{hours}:{int(minutes or 0):02d}:{secs}" if hours else f"{sign}{int(minutes or 0)}:{secs}"


def spoken(value: Any, type_: str = "") -> str:
    """A value in words: a DOUBLE rounded to what a reader takes in (88.64285714285714 is 88.64;
    the rows keep every digit), a duration on a clock (1:24.1), anything else as it is."""
    if type_ == "duration" and isinstance(value, str):
        return clock(value)
    if isinstance(value, float) and math.isfinite(value):
        if value == int(value) and abs(value) < 1e15:
            return str(int(value))
        digits = max(2, 4 - len(str(int(abs(value)))))
        return f"{value:.{digits}f}".rstrip("0").rstrip(".") if abs(value) >= 1e-4 else f"{value:.4g}"
    return cell(value)


def note(columns: list[str], rows: list[list[Any]], more: bool, limit: int, scope: str = "") -> tuple[str, bool]:
    """The result as a text table of at most `limit` characters, under what was read and every
    condition (`scope`: describe's words) where given; (text, whether rows were left out)."""
    head = " | ".join(columns)
    lines = ([f"{scope[:1].upper()}{scope[1:]}:"] if scope else []) + [head, "-" * min(len(head), 80)]
    shown, cut = 0, False
    for row in rows:
        line = " | ".join(cell(v) for v in row)
        tail = f"… {len(rows) - shown} more rows not shown (the note is limited to {limit} characters)"
        if sum(len(x) + 1 for x in lines) + len(line) + len(tail) + 2 > limit:
            lines.append(tail)
            cut = True
            break
        lines.append(line)
        shown += 1
    if more and not cut:
        lines.append("… more rows matched than the plan's limit; these are the first")
    text = "\n".join(lines)
    if len(text) > limit:  # even the header is too wide for the window
        text, cut = text[: max(0, limit - 1)] + "…", True
    return text, cut


def describe(plan) -> str:
    """What a plan read, in words, with every condition as it ran: "over sales.csv where status
    is paid, any case" (the reading's words, synthesize/phrases.py: case ignored, ranges, `in`
    lists, empties kept), then what an aggregate's own filter, a join that keeps only matched
    (or unmatched) rows and `having` keep (conditions)."""
    read = " joined with ".join(
        f"{d.alias} ({describe(d.plan)})" if getattr(d, "plan", None) is not None else d.source_uri
        for d in plan.datasets
    )
    said = conditions(plan, nested=False)
    where = f" {said.pop(0)}" if plan.where else ""
    return "; ".join([f"over {read}{where}", *said])


def _filters(filters) -> list[dict]:
    return [f.model_dump(by_alias=True, exclude_none=True, exclude_defaults=True) for f in filters or []]


def _rows_where(filters: list[dict]) -> str:
    """Filters that must all hold, in words, and the rows a negation among them leaves out for
    being empty (SQL's `region <> 'North'` is not true of an empty region, which a reader of
    "region is not North" would take as kept)."""
    empty = list(dict.fromkeys(_left_out(filters)))
    return f"where {phrases.conditions(filters)}" + (
        f" (rows with no {' or no '.join(empty)} left out)" if empty else ""
    )


def conditions(plan, nested: bool = True) -> list[str]:
    """Every condition a plan applied, in words as it ran, one per clause: its `where`, each
    aggregate's own `where`, a semi or anti join, its `having`, and (`nested`) a nested plan's,
    after its alias. The receipt's `conditions` and the answer's scope (describe) say them alike."""
    out = []
    if plan.where:
        out.append(_rows_where(_filters(plan.where)))
    for a in plan.aggregates or []:
        if a.where:
            label = a.as_ or (f"{a.fn} of {a.column}" if a.column else a.fn)
            out.append(f"{label} reads only the rows {_rows_where(_filters(a.where))}")
    for j in plan.joins or []:
        if j.kind in ("semi", "anti"):
            out.append(f"only rows {'with' if j.kind == 'semi' else 'without'} a match in {j.alias}")
    if plan.having:
        out.append(f"result rows kept {_rows_where(_filters(plan.having))}")
    if nested:
        for d in plan.datasets:
            if getattr(d, "plan", None) is not None:
                out += [f"{d.alias}: {c}" for c in conditions(d.plan)]
    return out


# Filters SQL holds untrue of an empty (null) value, where a reader would take it as kept: "region is not North".
_NEGATED = ("ne", "not_in", "not_contains", "not_like")


def _left_out(filters: list[dict]) -> list[str]:
    """The columns whose empty rows a negated filter that must hold leaves out (a plan that keeps
    them says so itself: "region is empty or is not North", an `any` group)."""
    out = []
    for f in filters:
        if f.get("op") in _NEGATED:
            out.append(f["column"])
            if f.get("other"):
                out.append(f["other"])
        elif f.get("all"):
            out += _left_out(f["all"])
        # In an `any` group another alternative may keep such a row: not said either way.
    return out


def words(
    scope: str,
    columns: list[str],
    rows: list[list[Any]],
    more: bool,
    cite: str,
    incomplete: list[str],
    types: list[str] | None = None,
    answer: list[str] | None = None,
) -> str:
    """The result stated in words after what was read (`scope`), cited; incompleteness said in
    the same breath. `types`: each column's type, so a value is said as its type is read;
    `answer`: the columns that answer the task, said first, the others after them as evidence."""
    ref = f"[{cite}]"
    types = types or [""] * len(columns)
    first = [columns.index(c) for c in dict.fromkeys(answer or columns) if c in columns] or list(range(len(columns)))
    rest = [k for k in range(len(columns)) if k not in first]

    def evidence(row: list[Any]) -> str:
        if not rest:
            return ""
        said = {columns[k]: row[k] for k in rest}
        parts = []
        if "position" in said and "rows" in said:  # a row by its place in the list: "row 33 of 33"
            parts.append(f"row {said.pop('position')} of {said.pop('rows')}")
            said.pop("from_last", None)
        parts += [f"{c} {spoken(v, types[columns.index(c)])}" for c, v in said.items()]
        return f" ({', '.join(parts)})"

    if len(rows) == 1:
        row = rows[0]
        said = (
            f"{columns[first[0]]} is {spoken(row[first[0]], types[first[0]])}"
            if len(first) == 1
            else ", ".join(f"{columns[k]} {spoken(row[k], types[k])}" for k in first)
        )
        text = said + evidence(row) + f" {ref}."
    else:
        shown = rows[:ROWS_IN_WORDS]
        parts = ["; ".join(f"{columns[k]} {spoken(row[k], types[k])}" for k in first) + evidence(row) for row in shown]
        left = len(rows) - len(shown)
        tail = f" … and {left} more rows (in the note)" if left else ""
        text = (
            f"{len(rows)} rows{' (more matched than the limit)' if more else ''}: "
            + " | ".join(parts)
            + tail
            + f" {ref}."
        )
    text = f"{scope[:1].upper()}{scope[1:]}: {text}" if scope else text
    if incomplete:
        text += " Not complete: " + "; ".join(incomplete) + "."
    return text


def scrub(answer: str, run: set[str]) -> tuple[str, list[str]]:
    """Remove citations of calculations that were not run; answer (text, the ones removed)."""
    removed: list[str] = []

    def keep(match: re.Match) -> str:
        if match.group(1) in run:
            return match.group(0)
        removed.append(match.group(1))
        return ""

    text = CITATION.sub(keep, answer)
    return re.sub(r" +([.,;])", r"\1", re.sub(r"  +", " ", text)).strip(), removed


def clip(text: str, limit: int) -> tuple[str, bool]:
    """At most `limit` characters, saying so when cut."""
    if len(text) <= limit:
        return text, False
    mark = " … (answer cut at max_answer_chars)"
    return text[: max(0, limit - len(mark))] + mark[:limit], True
