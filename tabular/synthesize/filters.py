"""The filters a plan's `where` holds, made from a task's words: a value named (or excluded), a
column asked empty, days on a date or datetime column, a range of whole years on a column of
years; and all of a task's filters on one dataset (text tests too: text_match.py), for the
builders that read one."""

from __future__ import annotations

import datetime as dt
import re

from .columns import date_columns, yearlike
from .schemas import ColumnSchema, DatasetSchema
from .spans import Span, TaskReading
from .text_match import column_of, like_filter


def value_filter(name: str, column: ColumnSchema, values: list, negated: bool = False) -> dict:
    """The filter of values named in `column` (called `name` in the plan): one value `eq`, several
    one `in`; a value excluded `ne` or `not_in`, keeping the empty cells."""
    # "charter" and "Charter" in one column are one value to a person: text compares without case.
    fold = {"ignore_case": True} if column.type == "string" else {}
    if len(values) == 1:
        test = {"column": name, "op": "ne" if negated else "eq", "value": values[0], **fold}
    else:
        test = {"column": name, "op": "not_in" if negated else "in", "values": values, **fold}
    # "schools that are not charter": an empty cell is not charter either (ne alone leaves nulls out)
    return {"any": [{"column": name, "op": "is_null"}, test]} if negated else test


def empty_filter(span: Span) -> dict | str:
    """ "Do not have a description": the column empty; "won no silver": a count column at 0."""
    columns = list(dict.fromkeys(span.targets))
    if len(columns) != 1:
        return f"'{span.text}' names several columns; name the one that is empty"
    (column,) = columns
    if column.type == "number":
        return {"column": column.name, "op": "eq", "value": 0}
    written = [v for v in column.values if _NONE_WRITTEN.match(v.strip())]
    if written:
        # "Non-album singles", "—", "N/A": an empty album written out, which an empty cell is not
        return f"{column.name} holds {written[0]!r}, which may say it is empty as an empty cell does: say which counts"
    return {"column": column.name, "op": "is_null"}


# A cell that says, in words, that there is nothing ("Non-album single", "None", "N/A", "—").
_NONE_WRITTEN = re.compile(r"(non\b|non-|none\b|no\s|n/?a\b|[—–-]+$|\?$|unknown|tb[ad]\b|not\s)", re.I)


def row_filters(r: TaskReading, schema: DatasetSchema) -> list[dict] | str:
    """The task's values, comparisons and years as filters on one dataset, each on the one column
    it names; a string says why not."""
    out: list[dict] = []
    for span, negated in r.values:
        held = {c for c, _ in span.targets}
        if len(held) != 1:
            return f"'{span.text}' is a value of several columns; name the one meant"
        (column,) = held
        out.append(value_filter(column.name, column, [v for _, v in span.targets], negated))
    for span in r.empty:
        test = empty_filter(span)
        if isinstance(test, str):
            return test
        out.append(test)
    for like in r.likes:  # "the first city listed that starts with 'R'"
        column = column_of(like)
        if isinstance(column, str):
            return column
        out.append(like_filter(column.name, like))
    for span, op, number in r.compares:
        numbers = [c for c in span.targets if c.type == "number"]
        if len(numbers) != 1:
            return f"'{span.text}' names {'several' if numbers else 'no'} number columns to compare"
        out.append({"column": numbers[0].name, "op": op, "value": number})
    dates = date_columns(schema)
    years = [c for c in schema.columns if c.type == "number" and yearlike(c)]
    for op, days in r.ranges:
        if len(dates) == 1:
            out += date_filters(dates[0].name, dates[0].type, op, days)
        elif len(years) == 1 and (whole := whole_years(op, days)):
            out += [{"column": years[0].name, "op": o, "value": y} for o, y in whole]
        else:
            return "the task names a date or year, and no one column of dates or years holds it"
    return out


def whole_years(op: str, days: list[str]) -> list[tuple[str, int]] | None:
    """A range of whole years as comparisons of a year number ("in 2008": = 2008, "before 2006":
    < 2006, "between 2003 and 2012": ≥ 2003 and ≤ 2012), or None when it cuts a year."""
    first, last = (days[0], days[-1])
    starts, ends = first.endswith("-01-01"), last.endswith("-12-31")
    if op == "between" and starts and ends:
        a, b = int(first[:4]), int(last[:4])
        return [("eq", a)] if a == b else [("ge", a), ("le", b)]
    if (op in ("lt", "ge") and starts) or (op in ("gt", "le") and ends):
        return [(op, int(first[:4]))]
    return None


# A day's bounds on a datetime column: on D is [D, D+1), after D is from D+1, until D is before D+1.
_DATETIME_OPS = {
    "eq": (("ge", 0), ("lt", 1)),
    "gt": (("ge", 1),),
    "ge": (("ge", 0),),
    "lt": (("lt", 0),),
    "le": (("lt", 1),),
}


def date_filters(column: str, type_: str, op: str, days: list[str]) -> list[dict]:
    """Filters for days on a date column, or the same days on a datetime column (whole days)."""
    if type_ == "date":
        return [{"column": column, "op": op, **({"values": days} if op == "between" else {"value": days[0]})}]
    if op == "between":
        return date_filters(column, type_, "ge", days[:1]) + date_filters(column, type_, "le", days[1:])
    at = lambda day, shift: (dt.date.fromisoformat(day) + dt.timedelta(days=shift)).isoformat() + "T00:00:00"
    return [{"column": column, "op": o, "value": at(days[0], shift)} for o, shift in _DATETIME_OPS[op]]
