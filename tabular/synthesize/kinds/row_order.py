"""The row-by-place kind: a row by its place in the order of the rows. "the first listed", "the
last game", "who came third", "who finished first", "the one after X", "previous to X", "at the
top". The rows are numbered as listed (a row_number window without an order follows the row ids),
unless one date column or one column of places won says the order; the row wanted is picked by
its number, or by its place beside the one row a value names. (A count of a place won, "how many
times did they finish ninth", is a count: count.py reads it again.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from ..columns import PLACE_NAMES, date_columns, label_column, place_columns, time_columns
from ..filters import row_filters, value_filter
from ..proposal import Candidate, Proposal
from ..schemas import ColumnSchema, DatasetSchema
from ..spans import Span, TaskReading, TaskSpans
from ..vocabulary import ORDINAL_WORDS, PLACE_VERBS, RANK_WORDS, TABLE_WORDS, words

# --- grammar: in the list ("the first listed", "the third team listed", "after X", "at the top"), or
# won ("who finished first", "placed 10th") --------------------------------------------------------


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
    place = "last" if s.text == "last" else "first" if nth == 1 else cast(int, nth)  # a place: nth is one
    r.position, r.placed = (place, None), True
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


def the_table_not_its_column(task: TaskSpans) -> None:
    """ "the first title listed on the chart" where Chart is also a column: the table, not the column."""
    spans, r, word = task.spans, task.reading, task.word
    if not r.position:
        return
    for k, m in enumerate(spans):
        if (
            m.kind == "column"
            and m.text in TABLE_WORDS
            and word(k - 1, "the", "this")
            and word(k - 2, "on", "in", "of")
            and m in r.measures
        ):
            r.measures.remove(m)


RULES = {
    "shapes": (
        first_or_last_listed,
        place_won,
        nth_listed,
        first_of_a_noun,
        first_of_a_text_column,
        first_column_listed,
        next_to_a_value,
    ),
    "narrowing": (at_the_top,),
}
STEPS = (the_table_not_its_column,)

# --- plans -----------------------------------------------------------------------------------------


def propose(r: TaskReading, schemas: list[DatasetSchema]) -> Proposal | None:
    """The plans of a row by its place, when the task asks one."""
    return in_order(r, schemas) if r.position else None


def in_order(r: TaskReading, schemas: list[DatasetSchema]) -> Proposal:
    """Row order as data ("the first listed", "the one after X", "previous to X"): a candidate plan
    for each column the task may read of the row wanted, among the rows its values, comparisons
    and years keep; after or before a value that names exactly one row."""
    assert r.position is not None  # propose asks it only of a task that names a place
    wanted, anchor = r.position
    if len(schemas) != 1 or r.groups or r.top or r.fns or r.count_of or r.lacking or r.difference:
        return Proposal(
            why="the task asks for a row by its place in the list, with more than the built-in proposer reads beside it"
        )
    schema = schemas[0]
    filters = row_filters(r, schema)  # "the last senator from Erie": the last of the rows from Erie
    if isinstance(filters, str):
        return Proposal(why=filters)
    asked = _columns_read(r, schema, anchor)
    if isinstance(asked, Proposal):
        return asked
    places = place_columns(schema)
    if r.placed and len(places) > 1:
        return Proposal(
            why="the task asks who placed first or last, and several columns hold places ("
            + ", ".join(c.name for c in places)
            + "): name one"
        )
    written = [c for c in schema.columns if c.type == "string" and set(words(c.name)) & PLACE_NAMES]
    said_first = r.placed and not places and written and anchor is None and wanted == "first"
    if r.placed and not places and written and anchor is None and not said_first:
        # "in what season did they finish first" beside a Position column of "1st", "5th": the
        # place is written in a column, the order of the list is not it
        return Proposal(
            why=f"the task asks who placed first or last, and {written[0].name} holds places as text: "
            "the order of the list is not sure to be theirs"
        )
    if r.placed and places and wanted == "first" and places[0].min not in (None, 1, "1"):
        return Proposal(
            why=f"the task asks who placed first, and the places in {places[0].name} start at {places[0].min}: "
            "the first places may be written another way"
        )
    untyped = [c for c in schema.columns if c.type == "string" and set(words(c.name)) & _TIME_NAMES]
    if not r.listed and anchor is None and not isinstance(wanted, int) and untyped and not time_columns(schema):
        # "the last event held" beside a Date column of "September 27": the order of the list is
        # not surely the order in time, and the dates cannot say it
        return Proposal(
            why=f"the task asks for the {wanted} in time, and {untyped[0].name} holds its dates as text, so they "
            "cannot order the rows: say 'listed' for the order of the list, or approve the column as dates"
        )
    if anchor is not None and len(anchor.targets) > 1:
        return Proposal(why=f"'{anchor.text}' is a value of several columns; name the one meant")
    candidates = []
    for column in asked:
        plan: dict = {"datasets": [schema.ref()]}
        where = schema.without_totals(lambda name: name) + filters
        if where:
            plan["where"] = where
        plan.update(_row_wanted(r, schema, column, places, where))
        if said_first:
            _place_says_first(plan, written[0])
        plan.setdefault("limit", 10)
        candidates.append(
            Candidate(
                plan,
                ((r.measures[0].text, f"{column.alias}.{column.name}"),) if len(asked) > 1 else (),
                answer=(column.name,),
            )
        )
    return Proposal(
        tuple(candidates),
        question=f"{r.measures[0].text}: the column " + " or ".join(c.name for c in asked) + "?"
        if len(asked) > 1
        else "",
        one_row=asked[0].name if isinstance(wanted, int) else "",
    )


# Names of a column that says when a row happened.
_TIME_NAMES = {"date", "dates", "year", "years", "season", "seasons", "when", "dated", "held"}


# How a column of places as text writes the first place.
_FIRSTS = ["1", "1st", "1.", "=1", "1=", "t1", "t-1", "gold", "winner", "champion", "champions", "w"]


def _place_says_first(plan: dict, place: ColumnSchema) -> None:
    """ "Who came first" beside a Pos column of "1", "2", "Ret": the first listed, and only if its
    place says first (else nothing is answered)."""
    selected = plan.setdefault("select", [])
    if all(s["column"] != place.name for s in selected):
        selected.append({"column": place.name})
    said = {"column": place.name, "op": "in", "values": _FIRSTS, "ignore_case": True}
    plan.setdefault("measures", []).append(
        {"as": "placed_first", "expr": {"case": [{"when": said, "then": {"value": 1}}]}}
    )
    plan.setdefault("having", []).append({"column": "placed_first", "op": "eq", "value": 1})


def _columns_read(r: TaskReading, schema: DatasetSchema, anchor: Span | None) -> list[ColumnSchema] | Proposal:
    """The columns the task may read of the row wanted: those its one measure word names; for
    "when", the one date column; else the column of the value the row is beside, or the column
    that names the rows."""
    asked = [c for m in r.measures for c in m.targets]
    if len(r.measures) > 1:
        return Proposal(why="the task names several columns beside a row's place in the list: ask for one")
    dates = date_columns(schema)
    if not asked and r.date_words and len(dates) == 1:
        return dates  # "what was the date of the last game", "when was the first game"
    if not asked:
        label = (
            anchor.targets[0][0]
            if anchor is not None and len({c for c, _ in anchor.targets}) == 1
            else label_column(schema)
        )
        if label is None:
            return Proposal(why="the task asks for a row by its place in the list, and no column names the rows")
        asked = [label]
    return asked


def _row_wanted(
    r: TaskReading, schema: DatasetSchema, column: ColumnSchema, places: list[ColumnSchema], where: list[dict]
) -> dict:
    """The parts of a plan that pick the row wanted and read `column` of it: beside the row a
    value names; for "the last game", by the one date column; for "who finished first" or "who
    came third", by the one column of places won; else by the row's place in the list."""
    assert r.position is not None  # in_order's
    wanted, anchor = r.position
    dates = date_columns(schema)
    if anchor is not None:
        return _beside(r, schema, column, anchor, wanted)
    if r.row_noun and len(dates) == 1 and not isinstance(wanted, int):
        return _by_date(column, dates[0], wanted, where)
    if r.placed and places:
        return _by_place(column, places[0], wanted, where)
    listed = _listed(column, wanted)
    times = time_columns(schema)
    if not r.listed and not isinstance(wanted, int) and len(times) == 1 and times[0] != column:
        return _first_in_time_too(listed, times[0], wanted)
    return listed


def _by_date(column: ColumnSchema, date: ColumnSchema, wanted: str, where: list[dict]) -> dict:
    """ "The last game" where a Date column orders the games: its latest, whatever the rows' order."""
    return {
        "where": where + [{"column": date.name, "op": "not_null"}],
        "select": [{"column": column.name}] + ([{"column": date.name}] if column != date else []),
        "order_by": [{"column": date.name, "desc": wanted == "last"}],
        "limit": 1,
    }


def _by_place(column: ColumnSchema, place: ColumnSchema, wanted: str | int, where: list[dict]) -> dict:
    """ "Who came third" where a Place column says it: the row whose place is 3; "who finished
    first": its smallest place, whatever the rows' order."""
    if isinstance(wanted, int):
        return {
            "where": where + [{"column": place.name, "op": "eq", "value": wanted}],
            "select": [{"column": column.name}],
        }
    return {
        "where": where + [{"column": place.name, "op": "not_null"}],
        "select": [{"column": column.name}, {"column": place.name}],
        "order_by": [{"column": place.name, "desc": wanted == "last"}],
        "limit": 1,
    }


def _first_in_time_too(part: dict, time: ColumnSchema, wanted: str) -> dict:
    """ "The first album" in a table with one column of dates or years: the first listed, and only
    if it is also the earliest (the last: the latest); a table listed newest first, or in another
    order, answers nothing rather than the wrong end."""
    end = {"as": "time_end", "window": {"fn": "min" if wanted == "first" else "max", "of": time.name}}
    gap = (
        {"date_diff": ["day", "time_end", time.name]}
        if time.type in ("date", "datetime")
        else {"sub": [time.name, "time_end"]}
    )
    return {
        "select": part["select"] + [{"column": time.name}],
        "measures": part["measures"] + [end, {"as": "from_end", "expr": gap}],
        "having": part["having"] + [{"column": "from_end", "op": "eq", "value": 0}],
    }


def _listed(column: ColumnSchema, wanted: str | int) -> dict:
    """The row by its number in the list: "the third listed", the first, or the last (the one
    whose number is the count of the rows)."""
    if isinstance(wanted, int):
        return {
            "select": [{"column": column.name}],
            "measures": [{"as": "position", "window": {"fn": "row_number"}}],
            "having": [{"column": "position", "op": "eq", "value": wanted}],
        }
    return {
        "select": [{"column": column.name}],
        "measures": [
            {"as": "position", "window": {"fn": "row_number"}},
            {"as": "rows", "window": {"fn": "count", "of": "position"}},
            {"as": "from_last", "expr": {"sub": ["rows", "position"]}},
        ],
        "having": [
            {
                "column": "position" if wanted == "first" else "from_last",
                "op": "eq",
                "value": 1 if wanted == "first" else 0,
            }
        ],
    }


def _beside(r: TaskReading, schema: DatasetSchema, column: ColumnSchema, anchor: Span, wanted: str | int) -> dict:
    """ "The one after X", "previous to X": the row next in the list to the one row the value
    names; also after (or before) it in time, when the rows have one column of dates or years
    and the task does not say "listed"."""
    (held, value), *_ = anchor.targets
    on_anchor: Callable[[str], dict] = lambda then: {
        "case": [{"when": value_filter(held.name, held, [value]), "then": then}]
    }
    part = {
        "select": [{"column": column.name}] + ([{"column": held.name}] if held.name != column.name else []),
        "measures": [
            {"as": "position", "window": {"fn": "row_number"}},
            {"as": "anchor", "expr": on_anchor("position")},
            {"as": "anchor_row", "window": {"fn": "max", "of": "anchor"}},
            {"as": "anchors", "window": {"fn": "count", "of": "anchor"}},
            {"as": "offset", "expr": {"sub": ["position", "anchor_row"]}},
        ],
        # the value must name exactly one row, or "the one after it" is no single row
        "having": [
            {"column": "anchors", "op": "eq", "value": 1},
            {"column": "offset", "op": "eq", "value": 1 if wanted == "after" else -1},
        ],
    }
    times = time_columns(schema)
    if not r.listed and len(times) == 1:
        return _in_time_too(part, times[0], on_anchor, wanted)
    return part


def _in_time_too(part: dict, time: ColumnSchema, on_anchor: Callable[[str], dict], wanted: str | int) -> dict:
    """ "Who won after X" in a table listed newest first: the next row is earlier, not after. The
    row's time must not move against the words, or nothing is answered."""
    gap = (
        {"date_diff": ["day", "anchor_time", time.name]}
        if time.type in ("date", "datetime")
        else {"sub": [time.name, "anchor_time"]}
    )
    return {
        "select": part["select"] + [{"column": time.name}],
        "measures": part["measures"]
        + [
            {"as": "anchor_when", "expr": on_anchor(time.name)},
            {"as": "anchor_time", "window": {"fn": "max", "of": "anchor_when"}},
            {"as": "since", "expr": gap},
        ],
        "having": part["having"] + [{"column": "since", "op": "ge" if wanted == "after" else "le", "value": 0}],
    }


# --- features --------------------------------------------------------------------------------------


def made(plan: dict) -> str | None:
    """A plan that numbers the rows (`position`, `from_last`), finds a row beside a named one
    (`anchor`), or reads the columns of a row an order puts first."""
    said = {m.get("as") for m in plan.get("measures") or [] if isinstance(m, dict)}
    placed = said & {"position", "from_last", "anchor"} or (plan.get("order_by") and plan.get("select"))
    return "row_by_place" if placed else None
