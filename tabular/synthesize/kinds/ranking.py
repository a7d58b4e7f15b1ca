"""The ranking kind: the rows or groups that rank first by a measure. "which team has the most
laps", "the top 3 products by amount", "the top 2 products per region", "who had the most free
throws", "did A or B earn more points". Built as part of the one calculation (calculation.py,
plans.py): which rows a most or least ranks (`most_or_least`) and how the ranked rows come out
(`order`) are here; the rows ranked answer, their totals are evidence (plans.py)."""

from __future__ import annotations

from dataclasses import replace

from ..choices import Asked
from ..columns import label_column
from ..proposal import Proposal
from ..schemas import DatasetSchema
from ..spans import Span, TaskReading, TaskSpans
from ..vocabulary import RANK_WORDS

# --- grammar ---------------------------------------------------------------------------------------


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


RULES = {"narrowing": (top_n, which_ranks_first)}
STEPS = ()

# --- plans -----------------------------------------------------------------------------------------


def propose(r: TaskReading, schemas: list[DatasetSchema]) -> Proposal | None:
    """None: a ranking is built by the one calculation, with `most_or_least` and `order`."""
    return None


def most_or_least(r: TaskReading, asked: Asked, schemas: list[DatasetSchema]) -> Asked | Proposal:
    """Which rows a "most" or "least" ranks: with two values of one column named ("did A or B earn
    more points"), those two, each named as the task names it; with "who" or "which", every row,
    named by its column of names (r.top and r.top_group are set to say so). A ranking has no
    calculation of its own (fn None). A least or most of "each" is asked about: of all, or per group?"""
    fn, measures = asked.fn, asked.measures
    named = {c for span, _ in r.values for c, _ in span.targets}
    if r.choice and not r.entity and fn in ("min", "max") and not (r.top or r.groups or r.count_of) and len(named) == 1:
        (column,) = named
        r.top, r.top_group = (1, fn == "max"), Span(0, 0, "column", [column], column.name)
    if r.entity and fn in ("min", "max") and not (r.top or r.groups or r.count_of):
        # "who had the most free throws?": the row with the largest value, named by its label column
        labels = [label_column(s) for s in schemas]
        if len(schemas) != 1 or labels[0] is None:
            return Proposal(why="the task asks who or which, and no column of unique names says which row it is")
        r.top = (1, fn == "max")
        r.top_group = Span(0, 0, "column", [labels[0]], labels[0].name)
        # "which parish was founded first": Parish names the row asked, it is no measure
        measures = [m for m in measures if m.targets != [labels[0]]] if len(measures) > 1 else measures
    if r.top and fn in (None, "max", "min"):
        fn = None
    if fn in ("min", "max") and r.loose_each:
        # "what is the minimum of years each author has": the least of all, or each author's least?
        return Proposal(
            abstain="ambiguous",
            question=f"the {'least' if fn == 'min' else 'most'} of all, or one for each {r.groups[-1].text}?",
        )
    return replace(asked, fn=fn, measures=measures)


def order(r: TaskReading, result: str, names: list[str], grouped: bool, measures: list[dict]) -> dict | str:
    """How the answer's rows come out: "the top 3 products per region" ranks within each group and
    keeps the first n of each; a ranking keeps the first n groups; groups come all (up to 1000).
    Why not, when a ranking has nothing to rank."""
    if r.top and r.top_group is not None and len(names) > 1:
        n, desc = r.top
        within = names[:-1]
        rank = {"fn": "rank", "partition_by": within, "order_by": [{"column": result, "desc": desc}]}
        return {
            "measures": measures + [{"as": "rank", "window": rank}],
            "having": [{"column": "rank", "op": "le", "value": n}],
            "order_by": [{"column": name} for name in within] + [{"column": "rank"}, {"column": names[-1]}],
            "limit": 1000,
        }
    if r.top:
        n, desc = r.top
        if not grouped:
            return "a ranking ('top', 'which … highest') needs something to rank: name it"
        return {"order_by": [{"column": result, "desc": desc}] + [{"column": name} for name in names], "limit": n}
    return {"limit": 1000} if grouped else {}


# --- features --------------------------------------------------------------------------------------


def made(plan: dict) -> str | None:
    """A plan that orders its groups."""
    return "ranking" if plan.get("order_by") and plan.get("group_by") else None
