"""How a number is written as text: its decimal and group marks, a unit beside it, and how a
negative is signed (a minus before it; or, by a column's convention, brackets around it or a
minus after it). For each form, the regex its text matches whole (a gate) and the SQL giving the
plain decimal text it stands for; readings.py makes readings of them.
"""

from __future__ import annotations

import re

from sqlglot import exp

from planner.dialect import duckdb_function

UNITS = ("%", "$", "€", "£", "¥", "₹", "₽", "₩", "₺", "₪", "₫")
CURRENCIES = tuple(u for u in UNITS if u != "%")

# (decimal mark, group mark) in order of precedence: the first that reads every value wins.
NUMBER_MARKS = ((".", None), (",", None), (".", ","), (",", "."), (",", " "), (".", " "), (".", "'"))
_GROUP_PATTERN = {",": ",", ".": r"\.", " ": "[ \u00a0\u202f]", "'": "['\u2019]"}

# How a column writes its negatives, as its reading's format says it (`negative=brackets`): ""
# a minus before the number only (-250, -£250, £-250); "brackets" as accounts write them,
# (250.00), (£250.00), € (1.250,00), a minus before also read; "trailing" a minus after it,
# 250.00- (as ledgers exported from SAP write them), a minus before also read.
NEGATIVES = ("", "brackets", "trailing")

# The symbols (see infer/survey.py) saying a column writes some value in brackets, or with a
# minus after it, *as an amount*: only then are that convention's readings tried (negatives_for).
BRACKETED = "(…)"
TRAILING = "…-"

_CURRENCY = "[" + "".join(re.escape(u) for u in CURRENCIES) + "]"
# A value written as an amount: a currency sign, two decimals, or a group mark between digits
# (£250, 250.00, 1,250, 1.250,00). A bracketed `(3)` or `(0.023)` is no amount: a note's number,
# a standard error under a coefficient. Such a column gets no bracket reading, so nothing turns
# it negative without a person's word (a mix of numbers and them is asked as mixed_values).
AMOUNT = rf"(?:.*{_CURRENCY}.*|.*[0-9][.,][0-9]{{2}}[^0-9]*|.*[1-9][0-9]{{0,2}}(?:[,.'’ \x{{a0}}\x{{202f}}][0-9]{{3}})+[^0-9]*)"


def negatives_for(symbols: set[str]) -> list[str]:
    """The negative conventions worth trying on a column whose values hold `symbols`, beyond a
    minus before the number (always tried)."""
    return [n for n, symbol in (("brackets", BRACKETED), ("trailing", TRAILING)) if symbol in symbols]


def gate(
    decimal_mark: str,
    group_mark: str | None,
    unit: str | None,
    exponent: bool,
    negative: str = "",
    scale: int | None = None,
    no_leading_zero: bool = False,
) -> str:
    """The regex a number written so matches whole. `scale`: at most that many decimals (0:
    none); `no_leading_zero`: an integer part of one 0 or none that starts with 0."""
    d = re.escape(decimal_mark)
    plain = r"(?:0|[1-9]\d*)" if no_leading_zero else r"\d+"
    # A number written with group marks starts with a digit other than 0: `012 345 678` (a
    # SIREN), `0.123.456` are identifiers, whose 0 a number would drop (see tally.leading_zeros).
    digits = plain if group_mark is None else rf"(?:[1-9]\d{{0,2}}(?:{_GROUP_PATTERN[group_mark]}\d{{3}})+|{plain})"
    fraction = r"\d+" if scale is None else rf"\d{{1,{scale}}}"
    core = digits if scale == 0 else rf"(?:{digits}(?:{d}{fraction})?|{d}{fraction})"
    if scale and group_mark in (".", ","):
        # Narrowed to a sample with decimals: one group mark and no decimal mark (7.125 beside
        # 7,5) may be a decimal written the other way, which the careful way asks about.
        g = _GROUP_PATTERN[group_mark]
        lone_free = rf"(?:{plain}|[1-9]\d{{0,2}}(?:{g}\d{{3}}){{2,}})"
        core = rf"(?:{lone_free}(?:{d}{fraction})?|[1-9]\d{{0,2}}{g}\d{{3}}{d}{fraction}|{d}{fraction})"
    if no_leading_zero and scale == 0 and group_mark is None and unit is None and not exponent and not negative:
        # An identifier's shape ends a typing that had none: a leading zero, or a '+' before 7
        # digits or more (a phone number; see infer/tally.PLUS_ID).
        return r"-?(?:0|[1-9]\d*)|\+?(?:0|[1-9]\d{0,5})"
    if exponent:  # 1E-7 beside 3 and 6: a column in scientific notation need not use it on every value
        core += r"(?:[eE][+-]?\d+)?"
    signed = _signed(core, unit)
    if not negative:
        return signed
    return rf"(?:{signed}|{_NEGATIVE_FORMS[negative](core, unit)})"


def _signed(core: str, unit: str | None) -> str:
    """`core` with a sign or none before it, and the unit on every value."""
    if not unit:
        return rf"[+-]?{core}"
    # One sign, before or after the unit (-$5, $-5): `-$-5` passed the gate and was stored as null.
    # The unit on every value: a bare `6.00` beside `$5.00` would silently take the dollar.
    u = re.escape(unit)
    if unit == "%":
        return rf"[+-]?{core}\s?%"
    return rf"(?:(?:[+-]?{u}\s?|{u}\s?[+-]){core}|[+-]?{core}\s?{u})"


def _bracketed(core: str, unit: str | None) -> str:
    """`core` in brackets, the unit inside or outside them: (250.00), (£250), £(250), (250 €), (250) €."""
    if not unit:
        return rf"\({core}\)"
    u = re.escape(unit)
    inside = rf"\({core}\s?{u}\)" if unit == "%" else rf"\((?:{u}\s?{core}|{core}\s?{u})\)"
    outside = rf"\({core}\)\s?{u}" if unit == "%" else rf"(?:{u}\s?\({core}\)|\({core}\)\s?{u})"
    return rf"(?:{inside}|{outside})"


def _trailing(core: str, unit: str | None) -> str:
    """`core` with a minus after it, before or after the unit: 250.00-, £250-, 250,00 €-, 250,00- €."""
    if not unit:
        return rf"{core}-"
    u = re.escape(unit)
    before = "" if unit == "%" else rf"|{u}\s?{core}-"
    return rf"(?:{core}\s?{u}-|{core}-\s?{u}{before})"


_NEGATIVE_FORMS = {"brackets": _bracketed, "trailing": _trailing}


def _fn(name: str, *args: exp.Expression) -> exp.Expression:
    """DuckDB's function `name` called as DuckDB names it (regexp_full_match has no sqlglot
    node): this SQL reads a file's numbers inside DuckDB and is never transpiled (the one
    Anonymous of number_forms)."""
    return duckdb_function(name, *args)


def plain_text(
    decimal_mark: str, group_mark: str | None, unit: str | None, negative: str, t: exp.Expression
) -> exp.Expression:
    """SQL of the value of text `t` (which the form's gate reads) as plain decimal text: unit,
    spaces, group marks and brackets gone, `.` as the mark, a negative's minus before it."""
    if decimal_mark == "." and group_mark is None and unit is None and not negative:
        return t  # the gate admits only digits, a sign, a '.' and an exponent: already plain
    # Under a negative convention the minus is taken out wherever it stands and put back first.
    keep = "0-9eE+" + ("" if negative else "\\-") + re.escape(decimal_mark)
    text = _fn("regexp_replace", t, exp.Literal.string(f"[^{keep}]"), exp.Literal.string(""), exp.Literal.string("g"))
    if decimal_mark != ".":
        text = _fn("replace", text, exp.Literal.string(decimal_mark), exp.Literal.string("."))
    if not negative:
        return text
    signs = "[(-]" if negative == "brackets" else "-"
    minus = _fn("regexp_matches", t, exp.Literal.string(signs))
    return exp.If(this=minus, true=exp.DPipe(this=exp.Literal.string("-"), expression=text), false=text.copy())


_U = "[%$€£¥₹₽₩₺₪₫]"
# The broad gate of the number family (readings.FAMILIES): a column is tried with number
# readings only if enough of its values pass. Brackets around and a minus after are let through.
FAMILY = (
    rf"[+-]?\(?({_U}\s?)?\(?[+-]?[.,]?[0-9][0-9.,'’ \x{{a0}}\x{{202f}}]*([eE][+-]?[0-9]+)?(\s?{_U})?\)?-?(\s?{_U})?"
)
