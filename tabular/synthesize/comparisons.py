"""Rules of the reading for comparisons: a column against a number ("more than 5 points", "taller
than 200 feet"), against its own average ("above the average points"), or against a row named
("more floors than the Landmark Hotel", "the same height as the London pylon", "is K2 taller than
X?"). A rule is handed the task's spans and one of them, and returns whether it read that span."""

from __future__ import annotations

from .spans import Span, TaskSpans
from .vocabulary import AVERAGE, AVERAGE_WORDS, COMPARE, DIMENSIONS, PLACE_VERBS, THAN_SIZES, THAN_WORDS, UNITS


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


def _than(spans: list[Span], i: int) -> tuple[str, int | None, int, int] | None:
    """At "than" (span i): "more COLUMN than [the] VALUE" or "taller than [the] VALUE": the
    comparison, the column's span (None: the size word says it), the value's span, the start."""
    n = len(spans)
    k = i + 1
    while k < n and spans[k].kind == "word" and spans[k].text == "the":
        k += 1
    if not (k < n and spans[k].kind == "value"):
        return None
    before = spans[i - 1] if i > 0 else None
    if (
        before is not None
        and before.kind == "column"
        and i > 1
        and spans[i - 2].kind == "word"
        and spans[i - 2].text in THAN_WORDS
    ):
        return THAN_WORDS[spans[i - 2].text], i - 1, k, i - 2
    if (
        before is not None
        and before.kind == "word"
        and before.text in THAN_WORDS
        and before.text in THAN_SIZES
        and not (i > 1 and spans[i - 2].kind == "word" and spans[i - 2].text in PLACE_VERBS)
    ):
        return THAN_WORDS[before.text], None, k, i - 1
    return None


def _same_as(spans: list[Span], i: int) -> tuple[int, int | None, int] | None:
    """At "same" (span i): "same [amount of] COLUMN as [the] VALUE" or "… as which/what …":
    the column's span, the value's span (None when the value is said elsewhere), the end."""
    n = len(spans)
    j = i + 1
    while j < n and spans[j].kind == "word" and spans[j].text in ("amount", "number", "of", "the"):
        j += 1
    if not (j + 1 < n and spans[j].kind == "column" and spans[j + 1].kind == "word" and spans[j + 1].text == "as"):
        return None
    k = j + 2
    while k < n and spans[k].kind == "word" and spans[k].text == "the":
        k += 1
    if k < n and spans[k].kind == "value":
        return j, k, k + 1
    if k < n and spans[k].kind == "word" and spans[k].text in ("which", "what"):
        return j, None, k  # the value is named before "same"; "which pylon" is read as the question it is
    return None


def more_than_a_row(task: TaskSpans, i: int) -> bool:
    """ "which building has more floors than the Landmark Hotel", "which player is taller than X":
    the rows whose column is more or less than the named row's (a size word: the size it measures)."""
    spans, r = task.spans, task.reading
    if not (task.word(i, "than") and r.same is None and _than(spans, i) is not None):
        return False
    op, column, anchor, start = _than(spans, i)
    r.same, r.than = (
        (
            spans[column] if column is not None else Span(i, i, "dimension", [], spans[i - 1].text),
            spans[anchor],
        ),
        op,
    )
    task.take(*range(start, anchor + 1))
    return True


def same_as_a_row(task: TaskSpans, i: int) -> bool:
    """ "which pylon has the same height as the London pylon", "the London pylon has the same height
    as which pylon": the rows whose column is the named row's."""
    spans, r = task.spans, task.reading
    if not (task.word(i, "same") and r.same is None and _same_as(spans, i) is not None):
        return False
    column, anchor, end = _same_as(spans, i)
    r.same = (spans[column], spans[anchor] if anchor is not None else None)
    task.take(*range(i, end))
    task.take(*(k for k in range(task.n) if task.word(k, "other", "else")))  # "what other bridge": left out anyway
    return True


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


def the_row_named_before(task: TaskSpans) -> None:
    """ "the London pylon has the same height as which pylon": the row compared is the one value named."""
    r = task.reading
    if r.same and r.same[1] is None and len(r.values) == 1 and not r.values[0][1]:
        r.same = (r.same[0], r.values.pop()[0])


def yes_or_no(task: TaskSpans) -> None:
    """ "is K2 taller than Kangchenjunga?", "did A win more or less rounds than B?": a yes or a no
    (or more, less or the same), said of two rows."""
    r, n = task.reading, task.n
    if (
        r.same
        and r.than
        and task.tokens[0] in ("is", "was", "did", "does", "do", "are", "were", "has", "had", "have")
        and len(r.values) == 1
    ):
        r.yes_no = (
            "more"
            if any(task.seq(k, ("more", "or", "less")) or task.seq(k, ("less", "or", "more")) for k in range(n))
            else "yes"
        )
        task.take(*(k for k in range(n) if task.word(k, "more", "less", "or") or k == 0))
