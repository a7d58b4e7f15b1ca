"""Rules of the reading for dates and periods: "between D and D", "after D", "before 2006",
"March 2024", "Q2 2024", "the second quarter of 2024", a year or a date alone, and a period to
group by ("monthly", "per year"). A rule is handed the task's spans and one of them, and returns
whether it read that span."""

from __future__ import annotations

import calendar

from .spans import TaskSpans
from .vocabulary import BUCKETS, DATE_RANGE_WORDS, GROUP_WORDS, QUARTER_WORDS, YEAR_RANGE_WORDS


def quarter(year: int, q: int) -> tuple[str, list]:
    """The range of a year's quarter q (1 to 4), from its first day to its last."""
    first = 3 * q - 2
    last = calendar.monthrange(year, first + 2)[1]
    return ("between", [f"{year}-{first:02d}-01", f"{year}-{first + 2:02d}-{last}"])


def _between(task: TaskSpans, i: int, kind: str) -> bool:
    """ "between A and B", "from A to B", A and B spans of this kind."""
    spans = task.spans
    return (
        task.word(i, "between", "from")
        and i + 3 < task.n
        and spans[i + 1].kind == kind
        and task.word(i + 2, "and", "to")
        and spans[i + 3].kind == kind
    )


def between_dates(task: TaskSpans, i: int) -> bool:
    """ "between 2024-01-01 and 2024-03-31": from the one to the other."""
    spans = task.spans
    if not _between(task, i, "date"):
        return False
    task.reading.ranges.append(("between", [spans[i + 1].text, spans[i + 3].text]))
    task.take(i, i + 1, i + 2, i + 3)
    return True


def between_years(task: TaskSpans, i: int) -> bool:
    """ "from 1990 to 1995": from the first day of the one to the last of the other."""
    spans = task.spans
    if not _between(task, i, "year"):
        return False
    task.reading.ranges.append(("between", [f"{spans[i + 1].targets[0]}-01-01", f"{spans[i + 3].targets[0]}-12-31"]))
    task.take(i, i + 1, i + 2, i + 3)
    return True


def before_or_after_a_year(task: TaskSpans, i: int) -> bool:
    """ "before 2006": before its first day; "after 2006": after its last."""
    spans, s = task.spans, task.spans[i]
    if not (task.word(i, *YEAR_RANGE_WORDS) and i + 1 < task.n and spans[i + 1].kind == "year"):
        return False
    op, day = YEAR_RANGE_WORDS[s.text]
    task.reading.ranges.append((op, [f"{spans[i + 1].targets[0]}-{day}"]))
    task.take(i, i + 1)
    return True


def before_or_after_a_date(task: TaskSpans, i: int) -> bool:
    """ "after 2024-03-01", "on 2024-03-01": the dates past, before or on it."""
    spans, s = task.spans, task.spans[i]
    if not (s.kind == "word" and s.text in DATE_RANGE_WORDS and i + 1 < task.n and spans[i + 1].kind == "date"):
        return False
    task.reading.ranges.append((DATE_RANGE_WORDS[s.text], [spans[i + 1].text]))
    task.take(i, i + 1)
    return True


def month_of_a_year(task: TaskSpans, i: int) -> bool:
    """ "March 2024": its first day to its last."""
    spans, s = task.spans, task.spans[i]
    if not (s.kind == "month" and i + 1 < task.n and spans[i + 1].kind == "year"):
        return False
    year, month = spans[i + 1].targets[0], s.targets[0]
    last = calendar.monthrange(year, month)[1]
    task.reading.ranges.append(("between", [f"{year}-{month:02d}-01", f"{year}-{month:02d}-{last}"]))
    task.take(i, i + 1)
    return True


def quarter_of_a_year(task: TaskSpans, i: int) -> bool:
    """ "Q2 2024": the quarter's first day to its last."""
    spans, s = task.spans, task.spans[i]
    if not (s.kind == "quarter" and i + 1 < task.n and spans[i + 1].kind == "year"):
        return False
    task.reading.ranges.append(quarter(spans[i + 1].targets[0], s.targets[0]))
    task.take(i, i + 1)
    return True


def nth_quarter_of_a_year(task: TaskSpans, i: int) -> bool:
    """ "the second quarter of 2024": the quarter's first day to its last."""
    spans, s = task.spans, task.spans[i]
    if not (
        s.kind == "word"
        and s.text in QUARTER_WORDS
        and task.word(i + 1, "quarter")
        and task.word(i + 2, "of")
        and i + 3 < task.n
        and spans[i + 3].kind == "year"
    ):
        return False
    task.reading.ranges.append(quarter(spans[i + 3].targets[0], QUARTER_WORDS[s.text]))
    task.take(i, i + 1, i + 2, i + 3)
    return True


def a_year(task: TaskSpans, i: int) -> bool:
    """ "in 2008": its first day to its last."""
    s = task.spans[i]
    if s.kind != "year":
        return False
    year = s.targets[0]
    task.reading.ranges.append(("between", [f"{year}-01-01", f"{year}-12-31"]))
    task.take(i)
    return True


def a_date(task: TaskSpans, i: int) -> bool:
    """ "on 2024-03-01" said without a word before it: that day."""
    s = task.spans[i]
    if s.kind != "date":
        return False
    task.reading.ranges.append(("eq", [s.text]))
    task.take(i)
    return True


def a_period(task: TaskSpans, i: int) -> bool:
    """ "monthly", "per year", "a quarter": the period the rows are grouped by (a bare "year" is
    no period: it may be a column's name)."""
    s = task.spans[i]
    if not (
        s.kind == "word"
        and s.text in BUCKETS
        and (BUCKETS[s.text] != s.text or task.word(i - 1, *GROUP_WORDS) or task.word(i - 1, "a"))
    ):
        return False
    task.reading.buckets.append(BUCKETS[s.text])
    task.take(i)
    if task.word(i - 1, *GROUP_WORDS, "a"):
        task.take(i - 1)
    return True
