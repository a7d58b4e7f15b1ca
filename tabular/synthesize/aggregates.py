"""Rules of the reading for the calculation a task asks: a count ("how many", "number of"), a
total, average, least or most, a ranking ("the top 3", "which team has the most"), the groups
("per region"), two columns multiplied ("units times price"), a difference ("how many more"),
and a share ("what percentage of"). A rule is handed the task's spans and one of them, and
returns whether it read that span."""

from __future__ import annotations

from .spans import TaskSpans
from .vocabulary import (
    AGGREGATE_WORDS,
    COUNT_PHRASES,
    DISTINCT_WORDS,
    GROUP_WORDS,
    PERCENT_WORDS,
    PRODUCT_WORDS,
    RANK_WORDS,
    SHARE_WORDS,
)


def product(task: TaskSpans, i: int) -> bool:
    """ "units times price", "units multiplied by price": one measure, the two columns' product."""
    spans, n, s = task.spans, task.n, task.spans[i]
    if s.kind != "column":
        return False
    phrase = next((p for p in PRODUCT_WORDS if task.seq(i + 1, p)), None)
    after = i + 1 + len(phrase) if phrase else -1
    if not (phrase and after < n and spans[after].kind == "column"):
        return False
    task.reading.product = (s, spans[after])
    task.take(i, *range(i + 1, after + 1))
    return True


def how_many_more(task: TaskSpans, i: int) -> bool:
    """ "how many more medals did A win than B": A's less B's."""
    if not (task.seq(i, ("how", "many", "more")) or task.seq(i, ("how", "much", "more"))):
        return False
    task.reading.difference = "signed"
    task.take(i, i + 1, i + 2)
    return True


def difference(task: TaskSpans, i: int) -> bool:
    """ "the difference between A and B": how far apart."""
    if not task.word(i, "difference"):
        return False
    task.reading.difference = "abs"
    task.take(i)
    return True


def share_of(task: TaskSpans, i: int) -> bool:
    """ "what percentage of the votes", "share of amount by region": each group's part of the whole,
    not "at least 60 percent of the vote" (a number's unit)."""
    spans, s = task.spans, task.spans[i]
    if not (
        task.word(i, *SHARE_WORDS, *PERCENT_WORDS)
        and task.word(i + 1, "of")
        and not (i > 0 and spans[i - 1].kind == "number")
    ):
        return False
    task.reading.share = "percentage" if s.text in PERCENT_WORDS else "share"
    task.take(i, i + 1)
    return True


def top_n(task: TaskSpans, i: int) -> bool:
    """ "the top 3 products", "bottom region by amount": a ranking, of the column or dataset after
    it, by the measure after "by"."""
    spans, n, r, s = task.spans, task.n, task.reading, task.spans[i]
    if not (s.kind == "word" and s.text in ("top", "bottom")):
        return False
    count = (
        spans[i + 1].targets[0]
        if i + 1 < n and spans[i + 1].kind == "number" and isinstance(spans[i + 1].targets[0], int)
        else 1
    )
    r.top = (count, s.text == "top")
    task.take(i)
    j = i + 2 if i + 1 < n and spans[i + 1].kind == "number" else i + 1
    task.take(j - 1)
    if j < n and spans[j].kind in ("column", "dataset"):
        r.top_group = spans[j]
        task.take(j)
    if task.word(j + 1, "by") and j + 2 < n and spans[j + 2].kind in ("column", "dataset"):
        r.measures.append(spans[j + 2]) if spans[j + 2].kind == "column" else r.datasets.append(spans[j + 2])
        task.take(j + 1, j + 2)
    return True


def which_ranks_first(task: TaskSpans, i: int) -> bool:
    """ "which team has the most laps": the row of the column (or dataset) after "which", ranked by
    the first rank word after it; not "at the top" (the first row listed), not "less than 11"
    (a comparison)."""
    spans, n, r = task.spans, task.n, task.reading
    word = task.word
    if not (word(i, "which", "what") and i + 1 < n and spans[i + 1].kind in ("column", "dataset")):
        return False
    at_top = {k for k in range(i + 2, n) if word(k, "top", "bottom") and word(k - 1, "the", "at")}
    ranked = next(
        (
            spans[k].text
            for k in range(i + 2, n)
            if word(k, *RANK_WORDS)
            and k not in task.used
            and k not in at_top
            and not word(k - 1, "at")
            and not word(k + 1, "than")
        ),
        None,
    )
    if ranked:
        k = next(k for k in range(i + 2, n) if word(k, ranked) and k not in at_top)
        r.top, r.top_group = (1, RANK_WORDS[ranked]), spans[i + 1]
        task.take(i, i + 1, k)
    return True


def how_many(task: TaskSpans, i: int) -> bool:
    """ "how many", "number of", "count of": a count, of the column or dataset after it ("how many
    different products"), or of rows a noun names ("how many games were at Braly Stadium"), or of
    times ("how many times did X win": the rows where X is)."""
    spans, n, r = task.spans, task.n, task.reading
    word = task.word
    counted = next((p for p in COUNT_PHRASES if task.seq(i, p)), None)
    if not counted:
        return False
    r.fn = r.fn or "count"
    r.fns.add("count")
    task.take(*range(i, i + len(counted)))
    k = i + len(counted)
    if word(k, "times") or (word(k, "total") and word(k + 1, "times")):
        task.take(k, k + 1 if word(k, "total") else k)
        k += 2 if word(k, "total") else 1
    while word(k, *DISTINCT_WORDS, "of", "the", "total"):
        r.distinct |= spans[k].text in DISTINCT_WORDS
        task.take(k)
        k += 1
    if task.row_noun(k) and spans[k].text.endswith("s"):
        r.row_noun = spans[k].text
        task.take(k)
    if k < n and spans[k].kind in ("column", "dataset") and k not in task.used:
        r.count_of.append(spans[k])
        task.take(k)
    return True


def distinct(task: TaskSpans, i: int) -> bool:
    """ "distinct", "unique", "different": of the different values."""
    if not task.word(i, *DISTINCT_WORDS):
        return False
    task.reading.distinct = True
    task.take(i)
    return True


def aggregate_column_as_word(task: TaskSpans, i: int) -> bool:
    """ "the total gold" in a table with a Total column: before another column it is the word, not
    the column."""
    spans, r, s = task.spans, task.reading, task.spans[i]
    if not (s.kind == "column" and s.text in AGGREGATE_WORDS and i + 1 < task.n and spans[i + 1].kind == "column"):
        return False
    r.fn = r.fn or AGGREGATE_WORDS[s.text]
    r.fns.add(AGGREGATE_WORDS[s.text])
    task.take(i)
    return True


def total_number_of(task: TaskSpans, i: int) -> bool:
    """ "the total number of X" is a count of X, not a sum beside it."""
    if not (task.spans[i].text == "total" and task.seq(i + 1, ("number", "of"))):
        return False
    task.take(i)
    return True


def count_said_again(task: TaskSpans, i: int) -> bool:
    """ "how many songs in total", "how many total titles": the count, said again."""
    s = task.spans[i]
    if not (
        s.kind == "word"
        and s.text in ("total", "all", "altogether", "combined")
        and "count" in task.reading.fns
        and (task.word(i - 1, "in") or task.seq(i - 2, ("how", "many")))
    ):
        return False
    task.take(i, *((i - 1,) if task.word(i - 1, "in") else ()))
    return True


def aggregate(task: TaskSpans, i: int) -> bool:
    """ "total", "average", "the most", "the earliest": the calculation the word names; not "first
    quarter" (a period), not "at least" or "at most" (a comparison)."""
    r, s = task.reading, task.spans[i]
    if not (
        task.word(i, *AGGREGATE_WORDS)
        and not (s.text == "first" and task.word(i + 1, "quarter"))
        and not (s.text in ("least", "most") and task.word(i - 1, "at"))
    ):
        return False
    r.fn = r.fn or AGGREGATE_WORDS[s.text]
    r.fns.add(AGGREGATE_WORDS[s.text])
    task.take(i)
    return True


def grouped_by(task: TaskSpans, i: int) -> bool:
    """ "per region", "for each author", "by month": the column or dataset grouped by; after a
    ranking, "by amount" is what ranks ("top 2 products per region by amount")."""
    spans, n, r = task.spans, task.n, task.reading
    word = task.word
    if not (word(i, *GROUP_WORDS) or task.seq(i, ("for", "each"))):
        return False
    k = i + (2 if task.seq(i, ("for", "each")) else 1)
    while word(k, "the", "each"):
        k += 1
    if task.row_noun(k) and spans[k].text.endswith("s"):
        r.row_noun = spans[k].text
        task.take(k)  # "how many games were at Braly Stadium": the rows
    if k < n and spans[k].kind in ("column", "dataset") and k not in task.used:
        if r.top and word(i, "by") and spans[k].kind == "column" and any(c.type == "number" for c in spans[k].targets):
            r.measures.append(spans[k])
            task.take(i, k)
            return True
        r.groups.append(spans[k])
        task.take(*range(i, k + 1))
        r.loose_each |= word(i, "each", "every")
    return True
