"""The share kind: a part of a column's total. "what share of the total points did Ada score?",
"what percentage of the votes did Smith get?", "what fraction of all goals were scored by Red?"
(one row's or group's part, built here), and "share of amount by region" (each group's part, a
window over the one calculation's groups: `each_groups_share`). The part is the total of the rows
the value names, the whole the total of every row (a row that totals the others left out of both,
as everywhere); "percentage" and "percent" answer per hundred, "share", "fraction" and
"proportion" as a fraction. The quotient is the plan language's `div` (DOUBLE) of the two exact
totals, which the answer shows beside it."""

from __future__ import annotations

from ..columns import is_id, yearlike
from ..filters import value_filter
from ..proposal import Candidate, Proposal
from ..schemas import DatasetSchema
from ..spans import TaskReading, TaskSpans
from ..vocabulary import PERCENT_WORDS, SHARE_WORDS, words

# --- grammar ---------------------------------------------------------------------------------------


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


RULES = {"shapes": (share_of,)}
STEPS = ()

# --- plans -----------------------------------------------------------------------------------------


def propose(r: TaskReading, schemas: list[DatasetSchema]) -> Proposal | None:
    """One row's or group's share (`share_of_total`); each group's share is the one calculation's."""
    return share_of_total(r, schemas) if r.share and not r.groups else None


WHOLE_ALIAS = "all_rows_total"


# Column names that say a table holds its own shares: its rows may not be all the whole has (an
# election's table lists candidates, not every ballot), so a share computed from them is not surely it.
_SHARE_NAMES = {"%", "percent", "percentage", "pct", "share", "proportion", "fraction"}


def share_of_total(r: TaskReading, schemas: list[DatasetSchema]) -> Proposal:
    """The part of a column's total that the rows a value names hold, over the total of all rows:
    one plan, the whole a one-row plan joined beside the rows named. Why not, where other words
    narrow the rows (whose total is the whole is then not said), no one number column is named, or
    the table holds shares of its own."""
    if len(schemas) != 1:
        return Proposal(why="a share of a total reads one table")
    if r.compares or r.ranges or r.empty or r.likes or r.lacking or r.buckets:
        return Proposal(
            why="the task asks for a part of a total and narrows the rows too: the total of every row or of those kept is not said"
        )
    if r.top or r.difference or r.position or r.count_of or r.product or r.distinct or r.fns - {"sum"}:
        return Proposal(
            why="the task asks for a share of a total, with more than the built-in proposer reads beside it"
        )
    if not r.values:
        return Proposal(
            why="a share of a total is the part one row or group holds: name it (or say 'by' a column for each group's share)"
        )
    if any(negated for _, negated in r.values):
        return Proposal(why="a share of the rows other than those named is not read: name the rows whose share it is")
    held = list(dict.fromkeys(c for span, _ in r.values for c, _ in span.targets))
    if len(held) != 1:
        return Proposal(why=f"'{r.values[0][0].text}' is a value of several columns; name the one meant")
    (column,) = held
    named = list(dict.fromkeys(c for m in r.measures for c in m.targets if c != column))
    numbers = [c for c in named if c.type == "number" and not is_id(c)]
    if len(numbers) != 1:
        said = ", ".join(m.text for m in r.measures) or "nothing"
        return Proposal(
            why=f"a share of a total needs the one number column it totals; the task names {said}"
            + (f" ({', '.join(c.name for c in numbers)})" if numbers else "")
        )
    (measure,) = numbers
    if yearlike(measure):
        return Proposal(why=f"{measure.name} holds years, which are no quantity to total")
    if _negative(measure.min):
        return Proposal(why=f"{measure.name} holds negative values: a part of its total is no share of it")
    schema = schemas[0]
    own = [c.name for c in schema.columns if "%" in c.name or set(words(c.name)) & _SHARE_NAMES]
    if own:
        return Proposal(
            why=f"the table holds shares of its own ({own[0]}): its rows may not be all of the whole, so a share computed from {measure.name} is not surely it; ask for {own[0]}"
        )
    if schema.alias.lower() == WHOLE_ALIAS:
        return Proposal(why=f"the table's alias is {WHOLE_ALIAS!r}, the name the whole's plan takes")
    a, w = schema.alias, WHOLE_ALIAS
    values = [v for span, _ in r.values for _, v in span.targets]
    whole: dict = {"datasets": [schema.ref()], "aggregates": [{"fn": "sum", "column": measure.name, "as": "whole"}]}
    totals = schema.without_totals(lambda name: name)
    if totals:
        whole["where"] = totals
    per = {"mul": ["part", 100]} if r.share == "percentage" else "part"
    plan = {
        "datasets": [schema.ref(), {"plan": whole, "alias": w}],
        "joins": [{"alias": w, "on": []}],
        "where": schema.without_totals(lambda name: f"{a}.{name}")
        + [value_filter(f"{a}.{column.name}", column, values)],
        "aggregates": [
            {"fn": "sum", "column": f"{a}.{measure.name}", "as": "part"},
            {"fn": "max", "column": f"{w}.whole", "as": "whole"},
        ],
        "measures": [{"as": r.share, "expr": {"div": [per, "whole"]}}],
    }
    return Proposal((Candidate(plan, answer=(r.share,)),))


def _negative(value) -> bool:
    try:
        return float(str(value)) < 0
    except (TypeError, ValueError):
        return False


def each_groups_share(r: TaskReading, grouped: bool, fn: str, result: str) -> list[dict] | str:
    """ "share of amount by region": each group's part of the total, a window over the groups'
    totals (or counts), per hundred for "percentage of"; why not, with no groups or no total."""
    if not grouped or fn not in ("sum", "count"):
        return "a share ('share of … by …') is each group's part of a total: it needs a total and groups"
    measures = [{"as": "share", "window": {"fn": "share", "of": result}}]
    if r.share == "percentage":  # "percentage of amount by region": the share per hundred
        measures.append({"as": "percentage", "expr": {"mul": ["share", 100]}})
    return measures


# --- features --------------------------------------------------------------------------------------


def made(plan: dict) -> str | None:
    """A plan of a share: one that measures a share or a percentage."""
    said = {m.get("as") for m in plan.get("measures") or [] if isinstance(m, dict)}
    return "share" if said & {"share", "percentage"} else None
