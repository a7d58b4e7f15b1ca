"""The yes/no kind: questions answered yes or no, or with one of two words, about two rows the
task names: "is K2 taller than Kangchenjunga?" (yes or no), "did A win more or less … than B?"
(more, less or the same), "was A prime minister before or after B?" (before or after). Each value
must name exactly one row of one dataset; the plan compares the two rows and says the answer in
words (a measure named `answer`)."""

from __future__ import annotations

from ..columns import time_columns
from ..filters import value_filter
from ..proposal import Candidate, Proposal
from ..schemas import DatasetSchema
from ..spans import TaskReading, TaskSpans

# --- grammar: read once the passes are done (a comparison with a row, same_as.py, read first) ---------


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


RULES: dict = {}
STEPS = (before_or_after, yes_or_no)

# --- plans -----------------------------------------------------------------------------------------


def propose(r: TaskReading, schemas: list[DatasetSchema]) -> Proposal | None:
    """The plan of a question answered yes or no (or more/less, before/after)."""
    return yes_no(r, schemas) if r.yes_no else None


def yes_no(r: TaskReading, schemas: list[DatasetSchema]) -> Proposal:
    """ "Is K2 taller than Kangchenjunga?": the column's value in each of the two rows named (each
    must name exactly one row), compared: yes or no; "did A win more or less … than B": more, less
    or the same."""
    if r.yes_no == "before":
        return _before_or_after(r, schemas)
    assert r.same is not None  # yes_or_no reads a yes or no only beside a row named
    span, anchor = r.same
    assert anchor is not None
    first = r.values[0][0]  # the first row's value span
    if len(schemas) != 1 or r.compares or r.ranges or r.groups or r.top or r.count_of or r.position or r.difference:
        return Proposal(why="the task asks yes or no, with more than the built-in proposer reads beside it")
    held_a, held_b = {c for c, _ in first.targets}, {c for c, _ in anchor.targets}
    columns = [c for c in dict.fromkeys(span.targets) if c.type == "number"]
    if len(held_a | held_b) != 1 or len(columns) != 1:
        return Proposal(why="the two rows compared must be named in one column, and compared on one number column")
    (held,), (column,) = held_a | held_b, columns
    side = lambda span_: [value_filter(held.name, held, [span_.targets[0][1]])]
    plan = {
        "datasets": [schemas[0].ref()],
        "where": schemas[0].without_totals(lambda name: name),
        "aggregates": [
            {"fn": "max", "column": column.name, "where": side(first), "as": "first"},
            {"fn": "max", "column": column.name, "where": side(anchor), "as": "second"},
            {"fn": "count", "where": side(first), "as": "first_rows"},
            {"fn": "count", "where": side(anchor), "as": "second_rows"},
        ],
        "having": [{"column": "first_rows", "op": "eq", "value": 1}, {"column": "second_rows", "op": "eq", "value": 1}],
    }
    gap = {"sub": ["first", "second"]}
    if r.yes_no == "more":
        said = {
            "case": [
                {"when": {"column": "gap", "op": "gt", "value": 0}, "then": {"value": "more"}},
                {"when": {"column": "gap", "op": "lt", "value": 0}, "then": {"value": "less"}},
            ],
            "else": {"value": "the same"},
        }
    else:
        said = {
            "case": [{"when": {"column": "gap", "op": r.than, "value": 0}, "then": {"value": "yes"}}],
            "else": {"value": "no"},
        }
    plan["measures"] = [{"as": "gap", "expr": gap}, {"as": "answer", "expr": said}]
    if not plan["where"]:
        del plan["where"]
    return Proposal((Candidate(plan, answer=("answer",)),))


def _before_or_after(r: TaskReading, schemas: list[DatasetSchema]) -> Proposal:
    """ "Was A prime minister before or after B?": the two rows' places in time (their one date or
    year column) or, with none, in the list; each value must name exactly one row."""
    (a, _), (b, _) = r.values
    if len(schemas) != 1 or r.compares or r.ranges or r.groups or r.top or r.fns or r.count_of:
        return Proposal(why="the task asks before or after, with more than the built-in proposer reads beside it")
    schema = schemas[0]
    held = {c for c, _ in a.targets} | {c for c, _ in b.targets}
    if len(held) != 1 or len(a.targets) != 1 or len(b.targets) != 1:
        return Proposal(why="the two rows compared must be named in one column")
    (column,) = held
    times = time_columns(schema)
    measures: list[dict] = [{"as": "position", "window": {"fn": "row_number"}}]
    order = times[0].name if len(times) == 1 else "position"
    for name, span in (("a", a), ("b", b)):
        hit = value_filter(column.name, column, [span.targets[0][1]])
        measures += [
            {"as": f"{name}_when", "expr": {"case": [{"when": hit, "then": order}]}},
            {"as": f"{name}_at", "window": {"fn": "max", "of": f"{name}_when"}},
            {"as": f"{name}_rows", "window": {"fn": "count", "of": f"{name}_when"}},
        ]
    gap = (
        {"date_diff": ["day", "b_at", "a_at"]}
        if len(times) == 1 and times[0].type in ("date", "datetime")
        else {"sub": ["a_at", "b_at"]}
    )
    measures += [
        {"as": "gap", "expr": gap},
        {
            "as": "answer",
            "expr": {
                "case": [
                    {"when": {"column": "gap", "op": "lt", "value": 0}, "then": {"value": "before"}},
                    {"when": {"column": "gap", "op": "gt", "value": 0}, "then": {"value": "after"}},
                ]
            },
        },
    ]
    plan = {
        "datasets": [schema.ref()],
        "select": [{"column": column.name}]
        + ([{"column": order}] if order != "position" and order != column.name else []),
        "measures": measures,
        # each value one row, the rows in different places, and the answer said once
        "having": [
            {"column": "a_rows", "op": "eq", "value": 1},
            {"column": "b_rows", "op": "eq", "value": 1},
            {"column": "answer", "op": "not_null"},
            {"column": "position", "op": "eq", "value": 1},
        ],
        "limit": 1,
    }
    where = schema.without_totals(lambda name: name)
    if where:
        plan["where"] = where
    return Proposal((Candidate(plan, answer=("answer",)),))


# --- features --------------------------------------------------------------------------------------


def made(plan: dict) -> str | None:
    """A plan that says its answer in words: a measure named `answer`."""
    said = {m.get("as") for m in plan.get("measures") or [] if isinstance(m, dict)}
    return "yes_no" if "answer" in said else None
