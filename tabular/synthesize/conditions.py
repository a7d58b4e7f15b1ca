"""Rules of the reading for what the rows hold: a value named (kept, or excluded: "not X"), a
column empty ("do not have a description"), a dataset they have no match in ("customers without
any orders"), and "the only" one. A rule is handed the task's spans and one of them, and returns
whether it read that span."""

from __future__ import annotations

from .spans import TaskSpans
from .vocabulary import EMPTY_WORDS, NEGATIONS, NONE_WORDS


def column_empty(task: TaskSpans, i: int) -> bool:
    """ "do not have a description", "nations that won no silver": the column empty (a number: 0)."""
    spans, n, r, word = task.spans, task.n, task.reading, task.word
    empty = next((p for p in EMPTY_WORDS if task.seq(i, p)), None)
    after = i + len(empty) if empty else 0
    while empty and word(after, "a", "an", "any", "the"):
        after += 1
    if not (
        empty
        and after < n
        and spans[after].kind == "column"
        and (word(after + 1, "at") and word(after + 2, "all") or after + 1 >= n or spans[after + 1].kind == "word")
    ):
        return False
    r.empty.append(spans[after])
    task.take(*range(i, after + 1))
    if word(after + 1, "at") and word(after + 2, "all"):
        task.take(after + 1, after + 2)
    return True


def dataset_lacking(task: TaskSpans, i: int) -> bool:
    """ "customers without any orders": the rows with no match in the dataset named."""
    spans, n, r = task.spans, task.n, task.reading
    phrase = next((p for p in NONE_WORDS if task.seq(i, p)), None)
    if not (phrase and i + len(phrase) < n and spans[i + len(phrase)].kind == "dataset"):
        return False
    r.lacking.append(spans[i + len(phrase)])
    task.take(*range(i, i + len(phrase) + 1))
    if task.word(i - 1, "that", "who", "which"):
        task.take(i - 1)
    return True


def the_only_one(task: TaskSpans, i: int) -> bool:
    """ "the only episode written by X": the words say one row matches (checked when it runs)."""
    r = task.reading
    if not (task.word(i, "only") and not r.only):
        return False
    r.only = True
    task.take(i)
    return True


def value_named(task: TaskSpans, i: int) -> bool:
    """A value of a column: the rows that hold it, or those that do not ("not X", "other than X");
    "from X" says where a row's subject comes from. The column named beside it ("the North
    region") is read with it."""
    spans, n, r, s = task.spans, task.n, task.reading, task.spans[i]
    if s.kind != "value":
        return False
    back = i - 1
    while task.word(back, "the", "a"):
        back -= 1
    start = back if task.word(back, *NEGATIONS) else back - 1 if task.seq(back - 1, ("other", "than")) else None
    r.values.append((s, start is not None))
    task.take(i)
    if task.word(back, "from"):
        r.origins.append(s)
    if start is not None:
        task.take(*range(start, i))
    for k in (i - 1, i + 1):
        if 0 <= k < n and spans[k].kind == "column" and any(c in spans[k].targets for c, _ in s.targets):
            task.take(k)
    return True
