"""Rules of the reading for a column compared with a number ("more than 5 points", "taller than
200 feet") or with its own average ("above the average points"), which any kind of question may
narrow its rows by. (A comparison with a row the task names is kinds/same_as.py's.) A rule is
handed the task's spans and one of them, and returns whether it read that span."""

from __future__ import annotations

from .spans import Span, TaskSpans
from .vocabulary import AVERAGE, AVERAGE_WORDS, COMPARE, DIMENSIONS, UNITS


def _compared_before(task: TaskSpans, i: int) -> tuple[tuple[str, ...], int, int | None] | None:
    """The comparison just before the word at `i`: "above [the] average", "more than [the]
    average", or "more points than [the] average" (a column between its words): (the phrase,
    where it starts, the column's place between its words or None), or None."""
    spans = task.spans
    end = i - (2 if task.word(i - 1, "the") else 1)
    phrase = next((p for p in COMPARE if task.seq(end - len(p) + 1, p)), None)
    if phrase is not None:
        return phrase, end - len(phrase) + 1, None
    if (
        task.word(end, "than")
        and end >= 2
        and spans[end - 1].kind == "column"
        and (spans[end - 2].text, "than") in COMPARE
    ):
        return (spans[end - 2].text, "than"), end - 2, end - 1
    return None


def compared_with_the_average(task: TaskSpans, i: int) -> bool:
    """ "above the average points", "more points than the average": each row's value against the
    column's average over the rows (a plan of its own, joined beside them)."""
    spans, n, r, used = task.spans, task.n, task.reading, task.used
    if not task.word(i, *AVERAGE_WORDS):
        return False
    found = _compared_before(task, i)
    if found is None:
        return False
    phrase, start, between = found
    k = i + 1
    while task.word(k, "of", "the"):
        k += 1
    after = spans[k] if k < n and spans[k].kind == "column" and k not in used else None
    near = [
        j
        for j in ([between] if between is not None else range(start - 1, max(-1, start - 4), -1))
        if spans[j].kind == "column" and j not in used
    ]
    before = spans[near[0]] if near else None
    target = after or before
    if target is not None and not (after and before and set(after.targets) != set(before.targets)):
        r.compares.append((target, COMPARE[phrase], AVERAGE))
        task.take(*range(start, i + 1), *range(i + 1, k))
        task.take(*(spans.index(t) for t in (after, before) if t is not None))
    return True


def compared_with_a_number(task: TaskSpans, i: int) -> bool:
    """ "more than 5 points", "scored 12 in composition", "taller than 200 feet": a number column
    (the one named after the number, or before the comparison; a size word's) against the number."""
    spans, n, r, s = task.spans, task.n, task.reading, task.spans[i]
    if not (s.kind == "number" and i > 0 and any(task.seq(i - len(p), p) for p in COMPARE)):
        return False
    phrase = next(p for p in COMPARE if task.seq(i - len(p), p))
    unit = 1 if task.word(i + 1, *UNITS) else 0
    if not unit and task.word(i + 1, "in", "of") and i + 2 < n and spans[i + 2].kind == "column":
        unit = 1  # "scored 12 in composition": the column after "in"
    target = (
        spans[i + 1 + unit]
        if i + 1 + unit < n and spans[i + 1 + unit].kind == "column"
        else next(
            (
                spans[k]
                for k in range(i - len(phrase) - 1, max(-1, i - len(phrase) - 4), -1)
                if spans[k].kind == "column"
            ),
            None,
        )
    )
    if target is None and phrase[0] in DIMENSIONS:
        target = Span(i, i, "dimension", [], phrase[0])  # "taller than 200 feet": the height, found in the schema
    if target is not None:
        r.compares.append((target, COMPARE[phrase], s.targets[0]))
        task.take(
            i,
            *range(i - len(phrase), i),
            *((i + 1,) if unit else ()),
            *((spans.index(target),) if target in spans else ()),
        )
    return True
