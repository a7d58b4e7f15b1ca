"""The same-as kind: rows compared with one row the task names. "which pylon has the same height
as the London pylon", "which buildings have more floors than X", "how many players scored more
points than Bob". The named row's value is a window over all rows (it must name exactly one
row); the other rows are kept by comparing with it, or counted. A question that asks yes or no of
the two rows ("is K2 taller than X?") is read here and answered by yes_no.py."""

from __future__ import annotations

from ..filters import value_filter
from ..proposal import Candidate, Proposal
from ..schemas import ColumnSchema, DatasetSchema
from ..spans import Span, TaskReading, TaskSpans
from ..vocabulary import PLACE_VERBS, THAN_SIZES, THAN_WORDS

# --- grammar ---------------------------------------------------------------------------------------


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
    found = _than(spans, i) if task.word(i, "than") and r.same is None else None
    if found is None:
        return False
    op, column, anchor, start = found
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
    found = _same_as(spans, i) if task.word(i, "same") and r.same is None else None
    if found is None:
        return False
    column, anchor, end = found
    r.same = (spans[column], spans[anchor] if anchor is not None else None)
    task.take(*range(i, end))
    task.take(*(k for k in range(task.n) if task.word(k, "other", "else")))  # "what other bridge": left out anyway
    return True


def the_row_named_before(task: TaskSpans) -> None:
    """ "the London pylon has the same height as which pylon": the row compared is the one value named."""
    r = task.reading
    if r.same and r.same[1] is None and len(r.values) == 1 and not r.values[0][1]:
        r.same = (r.same[0], r.values.pop()[0])


RULES = {"shapes": (more_than_a_row, same_as_a_row)}
STEPS = (the_row_named_before,)

# --- plans -----------------------------------------------------------------------------------------


def propose(r: TaskReading, schemas: list[DatasetSchema]) -> Proposal | None:
    """The plan of rows compared with a named row; a yes or no asked of the two is yes_no.py's."""
    return same_as(r, schemas) if r.same and not r.yes_no else None


def same_as(r: TaskReading, schemas: list[DatasetSchema]) -> Proposal:
    """ "Which pylon has the same height as the London pylon": the rows, other than the one the value
    names, whose column holds what that row holds. The named row's value is a window over all rows
    (it must name exactly one row), the others are kept by comparing with it."""
    assert r.same is not None  # propose asks it only of a task that names a row compared
    span, anchor = r.same
    if anchor is None:
        return Proposal(why="'the same … as' names no row to compare with")
    counted = r.fns == {"count"} and not r.distinct  # "how many players scored more points than Bob"
    if r.values or r.compares or r.ranges or r.empty or r.likes or r.lacking:
        # "players of Red with more points than Bob": is Bob one of the rows kept, or any row?
        said = f" ('{r.values[0][0].text}')" if r.values else ""
        return Proposal(
            why=f"the task compares rows with one it names and says more of the rows{said}: which rows are compared, "
            "and whether the named row must be among them, is not said"
        )
    if len(schemas) != 1 or r.groups or r.top or (r.fns and not counted) or r.position or r.difference or r.share:
        return Proposal(
            why="the task asks for rows with the same value as another, with more than the built-in proposer reads beside it"
        )
    schema = schemas[0]
    (held, value), *more_held = anchor.targets
    sames = list(dict.fromkeys(span.targets))
    if more_held or len(sames) > 1:
        return Proposal(why=f"'{anchor.text if more_held else span.text}' names several columns; name the one meant")
    (same,) = sames
    if r.than and same.type != "number":
        return Proposal(why=f"'{span.text}' is no number column to compare with {anchor.text}'s")
    if counted:
        return _counted(r, schema, held, value, same)
    if r.count_of:
        return Proposal(why=f"'{r.count_of[0].text}' is counted, and nothing asks for a count")
    asked = list(dict.fromkeys(c for m in r.measures for c in m.targets if c != same))
    if len(asked) > 1:
        return Proposal(why="the task names several columns to read: ask for one")
    if not asked:
        # "what delegate is the same age as Rita …": one of what the named row is (its column),
        # whatever column names the rows
        asked = [held]
    (column,) = asked
    plan = {
        **_compared(r, schema, held, value, same),
        "select": [{"column": column.name}, {"column": same.name}]
        + ([{"column": held.name}] if held not in (column, same) else []),
        # the named row is one row, it is not its own answer, and the others hold what it holds (or more, or less)
        "having": [{"column": "anchors", "op": "eq", "value": 1}, *_kept(r)],
        "limit": 50,
    }
    said = r.measures[0].text if r.measures else r.row_noun
    return Proposal((Candidate(plan, answer=(column.name,)),), one_row=said if said and not said.endswith("s") else "")


COMPARED_ALIAS = "compared"


def _compared(r: TaskReading, schema: DatasetSchema, held: ColumnSchema, value, same: ColumnSchema) -> dict:
    """The rows with the named row's value beside each (`anchor_value`, a window over all rows),
    how many rows the value names (`anchors`), and how each row's value differs from it."""
    # text is the same whatever its case ("Middle blocker", "Middle Blocker"), as filters compare it
    compared = {"lower": same.name} if same.type == "string" else same.name
    return {
        "datasets": [schema.ref()],
        "where": schema.without_totals(lambda name: name) + [{"column": same.name, "op": "not_null"}],
        "measures": [
            {
                "as": "anchor",
                "expr": {"case": [{"when": value_filter(held.name, held, [value]), "then": compared}]},
            },
            {"as": "anchor_value", "window": {"fn": "max", "of": "anchor"}},
            {"as": "anchors", "window": {"fn": "count", "of": "anchor"}},
            {
                "as": "differs",
                "expr": {"sub": [same.name, "anchor_value"]} if r.than else {"nullif": [compared, "anchor_value"]},
            },
        ],
    }


def _kept(r: TaskReading) -> list[dict]:
    """The rows kept beside the named one: those more or less than it, or (not it) the same."""
    if r.than:
        return [{"column": "differs", "op": r.than, "value": 0}]
    return [{"column": "anchor", "op": "is_null"}, {"column": "differs", "op": "is_null"}]


def _counted(r: TaskReading, schema: DatasetSchema, held: ColumnSchema, value, same: ColumnSchema) -> Proposal:
    """ "How many players scored more points than Bob": the rows compared (a plan of their own)
    counted where they are kept, and the rows the value names counted beside them; no answer
    unless that is one row. "How many teams …" over a Team column that repeats may count its
    rows or its different values: both are read, and asked about when they differ."""
    counted = list(dict.fromkeys(c for span in r.count_of if span.kind == "column" for c in span.targets))
    if len(counted) > 1 or same in counted:
        return Proposal(why=f"'{r.count_of[0].text}' is no one column of the rows to count")
    inner = _compared(r, schema, held, value, same)
    inner["select"] = [{"column": c.name} for c in dict.fromkeys([same, held, *counted])]
    tallies = [{"fn": "count", "where": _kept(r), "as": "count"}]
    if counted and not counted[0].unique:
        tallies.append({"fn": "count_distinct", "column": counted[0].name, "where": _kept(r), "as": "count"})
    candidates = []
    for tally in tallies:
        plan = {
            "datasets": [{"plan": inner, "alias": COMPARED_ALIAS}],
            "aggregates": [tally, {"fn": "max", "column": "anchors", "as": "anchors"}],
            "having": [{"column": "anchors", "op": "eq", "value": 1}],  # the value names one row
        }
        way = "counting its different values" if tally["fn"] == "count_distinct" else "counting the rows"
        candidates.append(Candidate(plan, ((r.count_of[0].text, way),) if len(tallies) > 1 else (), ("count",)))
    return Proposal(
        tuple(candidates),
        question=f"{r.count_of[0].text}: the rows, or the different values of {counted[0].name}?"
        if len(tallies) > 1
        else "",
        rows_are=r.row_noun if not r.count_of else "",
    )


# --- features --------------------------------------------------------------------------------------


def made(plan: dict) -> str | None:
    """A plan that finds the named row by a window (`anchor`): a row by place, to the features
    (their kinds predate this one); a count of the rows compared is an extreme there (its max of
    `anchors`), told apart by aggregate.py."""
    said = {m.get("as") for m in plan.get("measures") or [] if isinstance(m, dict)}
    return "row_by_place" if "anchor" in said else None
