"""The parts of a plan said in words (words.py says the whole plan): values as a reader takes
them, filters ("Status is paid, any case", "Year is from 2003 to 2012", "Team is empty or is not
Reds", 'Name contains "son"'), and expressions ("units × amount", "the year of sold_on"). A part
with no words here raises Unsayable."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

from planner.models import EXPR_OPERATORS


class Unsayable(ValueError):
    """A plan part with no words here (a key or an operator this module does not know)."""


# --- values ------------------------------------------------------------------------------------

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?")
# A text value is written as it is unless a reader could take it for more than one value or for
# the reading's own words: then it is quoted.
_NEEDS_QUOTES = re.compile(r'[,;"()\[\]]|\b(?:and|or|nor|not|any case|then|else)\b', re.IGNORECASE)
# How many values of an `in` list are named; the rest are counted.
LISTED = 10


def value(v: Any) -> str:
    """A value as the reading says it: text as written (quoted where it could be misread), a
    number as the plan wrote it, true/false, null."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float, Decimal)):
        return str(v)
    if isinstance(v, str):
        plain = v and v == v.strip() and not _NEEDS_QUOTES.search(v)
        return v if plain else json.dumps(v, ensure_ascii=False)
    return json.dumps(v, ensure_ascii=False, default=str)


def quoted(v: Any) -> str:
    """A text a test looks for inside a cell ("contains "son""): always quoted."""
    return json.dumps(v, ensure_ascii=False) if isinstance(v, str) else value(v)


def listed(values: list, last: str = "and") -> str:
    """Values as a list in words: "A", "A or B", "A, B and C", past LISTED "A, B, … and 7 more"."""
    said = [value(v) for v in values[:LISTED]]
    if len(values) > LISTED:
        return f"{', '.join(said)}, … and {len(values) - LISTED} more"
    if len(said) <= 1:
        return said[0] if said else "nothing"
    return f"{', '.join(said[:-1])} {last} {said[-1]}"


def joined(parts: list[str]) -> str:
    """Several parts as one: "A", "A and B", "A, B and C"; with "; " between parts that hold commas."""
    if len(parts) <= 1:
        return "".join(parts)
    if any("," in p for p in parts):
        return "; ".join(parts[:-1]) + "; and " + parts[-1]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def bare(column: str) -> str:
    return column.rsplit(".", 1)[-1]


def known(part: Any, keys: set[str], what: str) -> dict:
    """`part` as a dict whose keys this module has words for; any other key is Unsayable."""
    if not isinstance(part, dict):
        raise Unsayable(f"{what}: {part!r} is not an object")
    unknown = set(part) - keys
    if unknown:
        raise Unsayable(f"{what}: no words for {', '.join(sorted(unknown))}")
    return part


# --- filters -----------------------------------------------------------------------------------

FILTER_KEYS = {"column", "op", "value", "values", "other", "ignore_case", "any", "all"}
# Comparisons: (for numbers and text, for dates and times).
_ORDERED = {
    "lt": ("less than", "before"),
    "le": ("at most", "on or before"),
    "gt": ("more than", "after"),
    "ge": ("at least", "on or after"),
}


def _is_date(v: Any) -> bool:
    return isinstance(v, str) and bool(_DATE.fullmatch(v))


def _like(pattern: str, negated: bool) -> str:
    """A LIKE pattern in words: "%son%" contains "son", "son%" starts with it, "%son" ends with
    it, no wildcard is the text itself; any other pattern is said as one (% any run, _ one
    character)."""
    runs: list[tuple[str, str]] = []  # ("%" or "_", "") for a wildcard, ("T", text) for plain text
    for piece in (p for p in re.split(r"(\\.|[%_])", pattern) if p):
        if piece in ("%", "_"):
            runs.append((piece, ""))
            continue
        plain = piece[1:] if len(piece) == 2 and piece.startswith("\\") else piece  # an escape undone
        if runs and runs[-1][0] == "T":
            runs[-1] = ("T", runs[-1][1] + plain)
        else:
            runs.append(("T", plain))
    shape = tuple(kind for kind, _ in runs)
    text = next((t for kind, t in runs if kind == "T"), "")
    verbs = {
        (): ("is", "is not"),
        ("T",): ("is", "is not"),
        ("%", "T", "%"): ("contains", "does not contain"),
        ("T", "%"): ("starts with", "does not start with"),
        ("%", "T"): ("ends with", "does not end with"),
    }
    if shape in verbs:
        return f"{verbs[shape][negated]} {quoted(text)}"
    said = f"the pattern {quoted(pattern)} (% any text, _ one character)"
    return f"does not match {said}" if negated else f"matches {said}"


def predicate(op: str, v: Any = None, values: list | None = None, other: str | None = None) -> str:
    """A condition's words after its column: "is North", "is from 10 to 20", "is empty"."""
    if other is not None:
        target = f"column {other}"
    elif values is not None and op in ("between", "in", "not_in"):
        target = ""
    else:
        target = value(v)
    if op == "eq":
        return f"is {target}"
    if op == "ne":
        return f"is not {target}"
    if op in _ORDERED:
        plain, timely = _ORDERED[op]
        return f"is {timely if _is_date(v) else plain} {target}"
    if op == "between":
        lo, hi = (values or [None, None]) + [None] * (2 - len(values or []))
        return f"is from {value(lo)} to {value(hi)}" if other is None else f"is between {target}"
    if op == "in":
        given = values or []
        if other is not None:
            return f"is in {target}"
        return (
            f"is {value(given[0])}"
            if len(given) == 1
            else f"is {'' if len(given) == 2 else 'one of '}{listed(given, 'or')}"
        )
    if op == "not_in":
        given = values or []
        if other is not None:
            return f"is not in {target}"
        if len(given) == 1:
            return f"is not {value(given[0])}"
        return (
            f"is neither {value(given[0])} nor {value(given[1])}" if len(given) == 2 else f"is none of {listed(given)}"
        )
    if op == "is_null":
        return "is empty"
    if op == "not_null":
        return "is not empty"
    if op in ("contains", "not_contains", "starts_with", "ends_with"):
        said = target if other is not None else quoted(v)
        verb = {
            "contains": "contains",
            "not_contains": "does not contain",
            "starts_with": "starts with",
            "ends_with": "ends with",
        }[op]
        return f"{verb} {said}"
    if op in ("like", "not_like"):
        if other is not None:
            return f"{'does not match' if op == 'not_like' else 'matches'} the pattern in {target}"
        return _like(str(v), op == "not_like")
    raise Unsayable(f"a filter: no words for the operator {op!r}")


_NO_CASE = ("is_null", "not_null")


def condition(f: Any, alone: bool = True, named=None) -> str:
    """One filter in words; a group in brackets unless it stands alone. `named`: how a result
    column is said (in having and a measure's case); a column as written by default."""
    f = known(f, FILTER_KEYS, "a filter")
    name = named or (lambda c: c)
    for key, word in (("any", "or"), ("all", "and")):
        if f.get(key) is not None:
            group = [known(x, FILTER_KEYS, "a filter") for x in f[key]]
            if not group:
                return "always" if key == "all" else "never"
            plain = [g for g in group if g.get("any") is None and g.get("all") is None]
            if key == "any" and len(plain) == len(group) and len({g.get("column") for g in group}) == 1:
                # one column's alternatives: "Nation is empty or is not Total, any case"
                cased = [bool(g.get("ignore_case")) for g in group if g.get("op") not in _NO_CASE]
                once = bool(cased) and all(cased)
                said = _and_or(
                    [
                        predicate(g["op"], g.get("value"), g.get("values"), g.get("other"))
                        + (", any case" if g.get("ignore_case") and not once else "")
                        for g in group
                    ],
                    word,
                )
                text = f"{name(group[0]['column'])} {said}" + (", any case" if once else "")
            else:
                text = _and_or([condition(g, False, named) for g in group], word)
            return text if alone or len(group) == 1 else f"({text})"
    if f.get("column") is None or f.get("op") is None:
        raise Unsayable(f"a filter needs a column and an op: {f!r}")
    other = f.get("other")
    said = predicate(f["op"], f.get("value"), f.get("values"), None if other is None else name(other))
    text = f"{name(f['column'])} {said}"
    return text + (", any case" if f.get("ignore_case") else "")


def conditions(filters: list, named=None) -> str:
    """Filters that must all hold, in words joined by "and" (", and" after one that holds a comma)."""
    if not isinstance(filters, list):
        raise Unsayable(f"filters: {filters!r} is not a list")
    return _and_or([condition(f, len(filters) == 1, named) for f in filters], "and")


def _and_or(parts: list[str], word: str) -> str:
    """Parts joined by "and" or "or"; with a comma before the word where a part holds one
    ("Status is paid, any case, and Year is 2024")."""
    return (f", {word} " if any("," in p for p in parts) else f" {word} ").join(parts)


# --- expressions -------------------------------------------------------------------------------

_SYMBOLS = {"add": "+", "sub": "−", "mul": "×", "div": "÷"}
_PARTS_OF_TIME = ("year", "quarter", "month", "day", "weekday", "hour")
EXPR_KEYS = {*EXPR_OPERATORS, "else"}  # an operator with no words below is Unsayable at the end


def _literal(e: dict) -> str:
    e = known(e, {"value", "type"}, "a value")
    v, type_ = e.get("value"), e.get("type")
    if v is None:
        return "empty"
    if type_ in ("date", "datetime", "time", "duration"):
        return f"the {type_} {v}"
    return json.dumps(v, ensure_ascii=False) if isinstance(v, str) else value(v)


def _word(e: Any) -> str:
    """A unit or a type an expression names (`"day"`, `{"value": "number"}`), as the word."""
    if isinstance(e, dict) and isinstance(e.get("value"), str):
        return e["value"]
    return e if isinstance(e, str) else value(e)


def expression(e: Any, named=None, inner: bool = False) -> str:
    """An expression in words: "units × amount", "the year of sold_on", "(first − second)"."""
    name = named or (lambda c: c)
    if isinstance(e, str):
        return name(e)
    if isinstance(e, (bool, int, float, Decimal)) or e is None:
        return value(e)
    if isinstance(e, dict) and "value" in e:
        return _literal(e)
    e = known(e, EXPR_KEYS, "an expression")
    ops = [k for k in e if k != "else"]
    if len(ops) != 1:
        raise Unsayable(f"an expression has one operator: {e!r}")
    op = ops[0]
    args = e[op] if isinstance(e[op], list) else [e[op]]

    def say(a: Any, nested: bool = True) -> str:
        return expression(a, named, nested)

    if op in _SYMBOLS:
        text = f" {_SYMBOLS[op]} ".join(say(a) for a in args)
        return f"({text})" if inner and len(args) > 1 else text
    if op == "case":
        branches = []
        for w in args:
            when = condition(known(w, {"when", "then"}, "a case")["when"], True, named)
            branches.append(f"if {when}{',' if ',' in when else ''} then {say(w['then'], False)}")
        rest = say(e["else"], False) if e.get("else") is not None else "empty"
        text = "; ".join(branches) + f"; else {rest}"
        return f"({text})" if inner else text
    if op == "neg":
        return f"−{say(args[0])}"
    if op in ("abs", "length", *_PARTS_OF_TIME):
        what = {"abs": "the absolute value", "length": "the length"}.get(op, f"the {op}")
        return f"{what} of {say(args[0])}"
    if op == "round":
        digits = args[1] if len(args) > 1 else 0
        return f"{say(args[0])} rounded" + (" to a whole number" if digits == 0 else f" to {say(digits)} decimals")
    if op in ("floor", "ceil"):
        return f"{say(args[0])} rounded {'down' if op == 'floor' else 'up'}"
    if op in ("lower", "upper"):
        return f"{say(args[0])} in {op} case"
    if op == "coalesce":
        return f"the first filled of {joined([say(a) for a in args])}"
    if op == "nullif":
        return f"{say(args[0])}, empty where it equals {say(args[1]) if len(args) > 1 else 'null'}"
    if op == "date_diff":
        unit = _word(args[0])
        return (
            f"the {unit}s from {say(args[1])} to {say(args[2])}"
            if len(args) == 3
            else f"date_diff of {joined([say(a) for a in args])}"
        )
    if op == "date_add":
        return (
            f"{say(args[0])} moved on by {say(args[1])}"
            if len(args) == 2
            else f"date_add of {joined([say(a) for a in args])}"
        )
    if op == "concat":
        return "the text " + " followed by ".join(say(a) for a in args)
    if op == "substring":
        start = say(args[1]) if len(args) > 1 else "1"
        how_many = f"at most {say(args[2])} characters" if len(args) > 2 else "the characters"
        return f"{how_many} of {say(args[0])} from character {start}"
    if op == "cast":
        return f"{say(args[0])} read as {_word(args[1]) if len(args) > 1 else 'its own type'}"
    raise Unsayable(f"an expression: no words for {op!r}")
