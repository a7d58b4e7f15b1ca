"""The plans of a task settled: a candidate plan for each way of taking one option of each
choice (its datasets, joins, filters, groups, aggregates and order), what each assumed, and the
question to ask when their answers differ."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from .choices import COUNT_FILLED, LOOKUP, ROWS, WAY_WORDS, Asked, Choice, Compare, Match, Measure, Picked, Product, Way
from .filters import date_filters, empty_filter, value_filter
from .kinds.aggregate import aggregate_of
from .kinds.count import count_unreadable
from .kinds.difference import plan_parts as difference_parts
from .kinds.lookup import plan_parts as lookup_parts
from .kinds.ranking import order as ranked_order
from .kinds.share import each_groups_share
from .proposal import Candidate, Proposal
from .schemas import ColumnSchema, DatasetSchema
from .spans import TaskReading
from .text_match import Like, column_of, like_filter
from .vocabulary import AVERAGE


def candidates(r: TaskReading, asked: Asked, choices: list[Choice], by_alias: dict[str, DatasetSchema]) -> Proposal:
    """A candidate plan for each way of taking one option of each choice (the first 16), each
    saying what it assumed where a choice had several options; the question to ask when their
    answers differ. A reading that cannot be built (two datasets with no key) is no reading."""
    candidates, why = [], []
    for options in itertools.islice(itertools.product(*(ch.options for ch in choices)), 16):
        plan = _assemble(r, asked, Picked.of(choices, options), by_alias)
        if isinstance(plan, str):
            why.append(plan)
            continue
        assumes = tuple((ch.word, _name(o)) for ch, o in zip(choices, options) if len(ch.options) > 1)
        candidates.append(Candidate(plan, assumes, _answer(r, plan)))
    if not candidates:
        return Proposal(why=why[0] if why else "no plan fits the task")
    return Proposal(
        tuple(candidates),
        question=_question(choices),
        one_row=asked.one_row if asked.fn == LOOKUP else "",
        rows_are=r.row_noun if asked.fn == "count" and not r.count_of else "",
    )


def _answer(r: TaskReading, plan: dict) -> tuple[str, ...]:
    """The plan parts that answer the task: a difference; the values looked up; for a ranking
    ("which region has the most sales", "what city has the most barangays", "what team has the
    highest number of wins", "the top 3 teams by points", "did A or B earn more"), the groups
    ranked, not their totals (the totals are evidence: a ranking that asks its number, "how many
    wins did the team with the most have", is two calculations, not read); else every group with
    its aggregates, a table per group."""
    if any(m.get("as") == "difference" for m in plan.get("measures", [])):
        return ("difference",)
    groups = [f"group_by[{k}]" for k in range(len(plan.get("group_by", [])))]
    aggregates = [f"aggregates[{k}]" for k in range(len(plan.get("aggregates", [])))]
    ranked = r.top and plan.get("order_by") and not plan.get("having")
    if groups and aggregates and ranked:
        return tuple(groups)
    shares = [
        f"measures[{k}]" for k, m in enumerate(plan.get("measures", [])) if m.get("as") in ("share", "percentage")
    ]
    shares = shares[-1:]  # a percentage is its share per hundred: one answer
    return tuple(groups + aggregates + shares)


def _name(option) -> str:
    """An option as the answer says what it assumed: "the number of rows", "orders.amount"."""
    if option is ROWS:
        return "the number of rows"
    if isinstance(option, Way):
        return f"{option.alias}.{option.name} ({WAY_WORDS[option.fn]})"
    column = option.column if isinstance(option, Match | Compare) else option
    return f"{column.alias}.{column.name}"


def _question(choices: list[Choice]) -> str:
    """The question to ask for each word the task left open: "revenue: the column net or gross?"."""
    parts = []
    for ch in (ch for ch in choices if len(ch.options) > 1):
        columns = [o for o in ch.options if o is not ROWS]
        one = len({_name(o).split(".")[0] for o in columns}) == 1
        names = list(dict.fromkeys(_name(o).split(".", 1)[1] if one else _name(o) for o in columns))
        said = "the column " + (f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0])
        rows = ROWS in ch.options
        parts.append(
            f"{ch.word}: " + (f"the number of rows{',' if len(names) > 1 else ''} or {said}?" if rows else f"{said}?")
        )
    return " ".join(parts)


def _assemble(r: TaskReading, asked: Asked, picked: Picked, by_alias: dict[str, DatasetSchema]) -> dict | str:
    """The plan of one reading of the task (an option taken of each choice), or why it cannot be built."""
    fn, measure = _settled(r, asked.fn, picked)
    aliases = _aliases(picked, measure, asked.counted, by_alias, r.likes)
    lacking = [span.targets[0].alias for span in r.lacking]
    if any(a in aliases for a in lacking):
        return "the task reads a dataset it also asks to have no match in"
    if len(aliases) + len(lacking) > 2:
        return "the task reads more than two datasets; the built-in proposer joins two at most"
    several = len(aliases) + len(lacking) > 1
    q = _namer(several)
    plan: dict = {"datasets": [by_alias[a].ref() for a in aliases + lacking]}
    joins = _joins(aliases, lacking, by_alias)
    if isinstance(joins, str):
        return joins
    if joins:
        plan["joins"] = joins
    where = _where(r, picked, aliases, several, by_alias)
    if isinstance(where, str):
        return where
    if where:
        plan["where"] = where
    averaged = [c for c in picked.compares if c.number == AVERAGE]
    if averaged:
        nested = _average(r, picked, averaged, aliases, by_alias)
        if isinstance(nested, str):
            return nested
        plan["datasets"].append(nested)
        plan["joins"] = [{"alias": AVERAGE_ALIAS, "on": []}]
    group_by = [{"column": q(c)} for c in picked.groups]
    if r.buckets:
        assert picked.date is not None  # a period ("monthly") has its date column (calculation._dates)
        group_by += [{"column": q(picked.date), "bucket": b} for b in r.buckets]
    if group_by:
        plan["group_by"] = group_by
    why = count_unreadable(fn, measure, picked.values)
    if why:
        return why
    if fn == LOOKUP:
        assert isinstance(measure, ColumnSchema)  # a lookup's measure is the column it reads (Picked.measure)
        return plan | lookup_parts(measure, q)
    if fn == "count":
        result = "count"
    elif measure is None:
        return "the task names no column to compute over"
    else:
        result = f"count_{measure.name}" if fn == COUNT_FILLED else f"{fn}_{measure.name}"
    plan["aggregates"] = [aggregate_of(fn, measure, result, q)]
    if r.difference:
        difference = difference_parts(r, fn, measure, picked.values, q)
        return difference if isinstance(difference, str) else plan | difference
    if r.share:
        shares = each_groups_share(r, bool(group_by), fn, result)
        if isinstance(shares, str):
            return shares
        plan["measures"] = shares
    order = ranked_order(r, result, [q(c) for c in picked.groups], bool(group_by), plan.get("measures", []))
    return order if isinstance(order, str) else plan | order


def _settled(r: TaskReading, fn: str | None, picked: Picked) -> tuple[str, Measure | None]:
    """The calculation and what it is over, once the options are taken: a measure read one way
    (Way) brings its calculation; with none asked, the rows taken are counted and a column taken
    totalled; a least or most of the dates, with nothing else to measure, is of the date column."""
    measure = picked.measure
    if isinstance(measure, Way):
        way = {"count_distinct": "count_distinct", "count": COUNT_FILLED}.get(measure.fn, measure.fn)
        fn, measure = way, measure.column
    if fn is None:
        fn, measure = ("count", None) if measure is ROWS else ("sum", measure)
    assert not isinstance(measure, str)  # ROWS, offered only where no calculation is named (fn None)
    if measure is None and fn in ("min", "max") and picked.date is not None and r.date_words:
        measure = picked.date
    return fn, measure


def _aliases(
    picked: Picked,
    measure: Measure | None,
    counted: DatasetSchema | None,
    by_alias: dict[str, DatasetSchema],
    likes: list | tuple = (),
) -> list[str]:
    """The datasets a reading reads, the one measured (else the one counted) first."""
    parts = [measure.left, measure.right] if isinstance(measure, Product) else []
    used = (
        [c for c in (picked.date, measure, *picked.groups) if c is not None and not isinstance(c, Product)]
        + parts
        + [v.column for v in picked.values]
        + [c.column for c in picked.compares]
        + [_like_column(like) for like in likes]
    )
    aliases = list(dict.fromkeys(c.alias for c in used))
    first = (
        measure.alias
        if measure is not None
        else (counted.alias if counted is not None else (aliases[0] if aliases else next(iter(by_alias))))
    )
    if counted is not None and counted.alias not in aliases:
        aliases.append(counted.alias)
    return [first] + [a for a in aliases if a != first]


def _joins(aliases: list[str], lacking: list[str], by_alias: dict[str, DatasetSchema]) -> list[dict] | str:
    """How the datasets read meet: the second joined to the first on a key unique in it; a dataset
    the rows must have no match in ("customers without any orders"), anti-joined on a column they
    share. Why not, when no column fits."""
    joins: list[dict] = []
    if len(aliases) > 1:
        key = _key(by_alias[aliases[0]], by_alias[aliases[1]])
        if key is None:
            return f"the task reads {aliases[0]} and {aliases[1]}, which share no key column unique in {aliases[1]} to join on"
        joins = [{"alias": aliases[1], "on": [{"left": f"{aliases[0]}.{key}", "right": f"{aliases[1]}.{key}"}]}]
    for other in lacking:
        key = _shared(by_alias[aliases[0]], by_alias[other])
        if key is None:
            return f"the task asks for {aliases[0]} without {other}, which share no key column to match them on"
        joins = [{"alias": other, "kind": "anti", "on": [{"left": f"{aliases[0]}.{key}", "right": f"{other}.{key}"}]}]
    return joins


def _like_column(like: Like) -> ColumnSchema:
    """The text column of a text test: one, as builtin._place_likes made sure before any plan."""
    column = column_of(like)
    assert not isinstance(column, str), column
    return column


def _namer(several: bool) -> Callable[[ColumnSchema], str]:
    """How a plan names a column: after its dataset's alias when the plan reads several datasets."""
    return (lambda c: f"{c.alias}.{c.name}") if several else (lambda c: c.name)


def _where(
    r: TaskReading, picked: Picked, aliases: list[str], several: bool, by_alias: dict[str, DatasetSchema]
) -> list[dict] | str:
    """The filters of one reading: its date ranges, the values named (several of one column are one
    `in`; a value excluded keeps the empty cells), the numbers compared, the columns asked empty,
    and each dataset's rows that total the others left out. Why not, when a column cannot be empty."""
    q = _namer(several)
    where = []
    for op, vals in r.ranges:
        assert picked.date is not None  # a task's dates have their date column (calculation._dates)
        where += date_filters(q(picked.date), picked.date.type, op, vals)
    by_column: dict = {}
    for match in picked.values:
        by_column.setdefault((match.column, match.negated), []).append(match.value)
    for (column, negated), vals in by_column.items():
        where.append(value_filter(q(column), column, vals, negated))
    for compare in picked.compares:
        if compare.number == AVERAGE:  # against the plan of the average beside the rows (_average)
            where.append({"column": q(compare.column), "op": compare.op, "other": _average_name(compare.column)})
        else:
            where.append({"column": q(compare.column), "op": compare.op, "value": compare.number})
    for span in r.empty:
        where_empty = empty_filter(span)
        if isinstance(where_empty, str):
            return where_empty
        (column,) = set(span.targets)
        where.append({**where_empty, "column": q(column)})
    for like in r.likes:
        where.append(like_filter(q(_like_column(like)), like))
    for alias in aliases:
        where += by_alias[alias].without_totals(lambda name, alias=alias: f"{alias}.{name}" if several else name)
    return where


AVERAGE_ALIAS = "all_rows_average"


def _average_name(column: ColumnSchema) -> str:
    return f"average_{column.name}"


def _average(
    r: TaskReading, picked: Picked, averaged: list, aliases: list[str], by_alias: dict[str, DatasetSchema]
) -> dict | str:
    """ "More than the average X": the plan of X's average over the rows the comparison reads, as
    a dataset of one row beside them. Only where nothing else narrows the rows: "players of team
    Red above the average" may mean Red's average or everyone's, so it is not guessed."""
    if len(aliases) != 1 or len(averaged) != 1:
        return "a comparison with an average reads one table and one average"
    if picked.values or r.ranges or r.empty or r.likes or len(picked.compares) > 1 or picked.groups or r.buckets:
        return "the task compares with an average and narrows the rows too: the average of all rows or of those kept is not said"
    (compare,) = averaged
    schema = by_alias[aliases[0]]
    if any(c.name.lower() == _average_name(compare.column).lower() for c in schema.columns):
        return f"the table has a column named {_average_name(compare.column)!r} already"
    inner = {
        "datasets": [schema.ref()],
        "aggregates": [{"fn": "avg", "column": compare.column.name, "as": _average_name(compare.column)}],
    }
    totals = schema.without_totals(lambda name: name)
    if totals:
        inner["where"] = totals  # the average of the rows, not of the rows and their Total
    return {"plan": inner, "alias": AVERAGE_ALIAS}


def _shared(left: DatasetSchema, right: DatasetSchema) -> str | None:
    """A column both datasets have, of one type, that names rows in one of them (unique there):
    for "without any", where a match need not be unique."""
    for c in left.columns:
        other = next((o for o in right.columns if o.name == c.name and o.type == c.type), None)
        if other is not None and (c.unique or other.unique):
            return c.name
    return None


def _key(left: DatasetSchema, right: DatasetSchema) -> str | None:
    """A column both datasets have, of one type, unique in the one joined: each row of the first
    meets at most one row of the second, so no total counts a row twice."""
    for c in left.columns:
        other = next((o for o in right.columns if o.name == c.name and o.type == c.type), None)
        if other is not None and other.unique:
            return c.name
    return None
