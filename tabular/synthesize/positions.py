"""Rules of the reading for a row by its place: in the list ("the first listed", "the third team
listed", "after X", "at the top"), or won ("who finished first", "placed 10th"). Each rule is
handed the task's spans and one of them; it returns whether it read that span (and the words it
took with it), which ends the span's turn."""

from __future__ import annotations

from .spans import Span, TaskSpans
from .vocabulary import ORDINAL_WORDS, PLACE_VERBS, RANK_WORDS


def _nth(span: Span) -> int | None:
    """The place a word or an ordinal says ("third", "10th"), or None."""
    return ORDINAL_WORDS.get(span.text) if span.kind == "word" else span.targets[0] if span.kind == "ordinal" else None


def first_or_last_listed(task: TaskSpans, i: int) -> bool:
    """ "the first listed", "listed last": the first or the last row of the list."""
    s, r = task.spans[i], task.reading
    if not (
        task.word(i, "first", "last")
        and (task.word(i - 1, "listed") or task.word(i + 1, "listed"))
        and r.position is None
    ):
        return False
    r.position = (s.text, None)
    task.take(i, i - 1 if task.word(i - 1, "listed") else i + 1)
    return True


def place_won(task: TaskSpans, i: int) -> bool:
    """ "who finished first", "the club ranked in last", "came second", "placed 10th": a place won."""
    spans, n, r, s = task.spans, task.n, task.reading, task.spans[i]
    placed_by = i - 2 if task.word(i - 1, "in") else i - 1
    nth = _nth(s)
    if not ((task.word(i, "last") or nth) and task.word(placed_by, *PLACE_VERBS) and r.position is None):
        return False
    r.position, r.placed = ("last" if s.text == "last" else "first" if nth == 1 else nth, None), True
    task.take(i, placed_by, *range(placed_by, i), *((i + 1,) if i + 1 < n and spans[i + 1].text == "place" else ()))
    return True


def nth_listed(task: TaskSpans, i: int) -> bool:
    """ "the third team listed": the row at that place in the list."""
    spans, n, r = task.spans, task.n, task.reading
    nth = _nth(spans[i])
    if not (
        nth
        and nth > 1
        and (
            task.word(i - 1, "listed")
            or task.word(i + 1, "listed")
            or (i + 2 < n and spans[i + 1].kind == "column" and task.word(i + 2, "listed"))
        )
        and r.position is None
    ):
        return False
    r.position = (nth, None)
    task.take(i, *(k for k in (i - 1, i + 1, i + 2) if task.word(k, "listed")))
    return True


def first_of_a_noun(task: TaskSpans, i: int) -> bool:
    """ "the date of the last game", "the first album": the row the noun's order puts first or last."""
    spans, r = task.spans, task.reading
    if not (
        task.word(i, "first", "last")
        and task.word(i - 1, "the")
        and task.row_noun(i + 1)
        and not spans[i + 1].text.endswith("s")
        and r.position is None
        and not task.word(i + 2, "to", "who", "that", "which")
    ):
        return False
    r.position, r.row_noun = (spans[i].text, None), spans[i + 1].text
    task.take(i, i + 1)
    return True


def first_of_a_text_column(task: TaskSpans, i: int) -> bool:
    """ "the last leader from Progressive": the last row's Leader (a text column has no largest)."""
    spans, n, r = task.spans, task.n, task.reading
    if not (
        task.word(i, "first", "last")
        and task.word(i - 1, "the")
        and i + 1 < n
        and spans[i + 1].kind == "column"
        and r.position is None
        and all(c.type == "string" for c in spans[i + 1].targets)
        and not task.word(i + 2, "to", "who", "that", "which", "listed")
    ):
        return False
    r.position = (spans[i].text, None)
    task.take(i)
    return True


def first_column_listed(task: TaskSpans, i: int) -> bool:
    """ "the first tournament listed": its column is what is asked, of the first row."""
    spans, n, r = task.spans, task.n, task.reading
    if not (
        task.word(i, "first", "last")
        and i + 2 < n
        and spans[i + 1].kind == "column"
        and task.word(i + 2, "listed")
        and r.position is None
    ):
        return False
    r.position = (spans[i].text, None)
    task.take(i, i + 2)
    return True


def next_to_a_value(task: TaskSpans, i: int) -> bool:
    """ "after X", "next after X", "previous to X", "which church is listed below Christ the King":
    the row after or before the row of a value named."""
    spans, n, r = task.spans, task.n, task.reading
    word = task.word
    side = "after" if word(i, "after", "following") else "before" if word(i, "before", "preceding") else ""
    if not side and word(i - 1, "listed", "is", "comes", "appears") and word(i, "below", "above", "beneath", "under"):
        side = "after" if not word(i, "above") else "before"  # "listed below X": the next row
    j = i + 1
    if not side and (task.seq(i, ("previous", "to")) or task.seq(i, ("prior", "to"))):
        side, j = "before", i + 2
    while word(j, "the"):
        j += 1
    if not (side and j < n and spans[j].kind == "value" and r.position is None):
        return False
    r.position = (side, spans[j])
    task.take(*range(i, j + 1))
    if word(i - 1, "next", "right", "immediately", "just") or word(i - 1, "came", "comes", "listed", *PLACE_VERBS):
        task.take(i - 1)
    return True


def at_the_top(task: TaskSpans, i: int) -> bool:
    """ "what tournament is at the top (of the list)?", "the top placed country": the first row
    listed (or the last, at the bottom), not a ranking; unless the task ranks by another word."""
    spans, n, r, s = task.spans, task.n, task.reading, task.spans[i]
    word = task.word
    if not (
        s.kind == "word"
        and s.text in ("top", "bottom")
        and (
            word(i - 1, "the", "at")
            and not (i + 1 < n and spans[i + 1].kind in ("number", "column"))
            and not word(i + 1, "number", "amount")
            or word(i + 1, *PLACE_VERBS)
        )
    ):
        return False
    if r.position is None and not any(w in RANK_WORDS for w in task.tokens if w not in ("top", "bottom")):
        r.position = ("first" if s.text == "top" else "last", None)
        task.take(i, i - 1)
        if word(i + 1, *PLACE_VERBS):
            r.placed = True
            task.take(i + 1)
    return True


def before_or_after(task: TaskSpans) -> None:
    """ "was Macdonald prime minister before or after Bowell?": which of the two rows named comes
    first (a yes or no question of order; "after Bowell" is no row after it)."""
    spans, n, r = task.spans, task.n, task.reading
    ordered = next(
        (k for k in range(n) if task.seq(k, ("before", "or", "after")) or task.seq(k, ("after", "or", "before"))),
        None,
    )
    values = [k for k in range(n) if spans[k].kind == "value"]
    if (
        ordered is not None
        and task.tokens[0] in ("is", "was", "did", "does", "were", "are")
        and len(values) == 2
        and values[0] < ordered < values[1]
    ):
        r.yes_no, r.position, r.values = "before", None, [(spans[values[0]], False), (spans[values[1]], False)]
        task.take(0, ordered, ordered + 1, ordered + 2, *values)
