"""An independent check of a reading, from the plan and its result alone, whichever proposer wrote
the plan: an answer that echoes what the task gave, a total of identifiers where rows were
counted, a yes or no (or "who", or "which thing") answered with a value, first or last read off
a column that is no time, values taken together that the task does not join, a placeholder cell
or a cell of several lines as the answer, an answer column named only in part beside a row found
in another, a row beside a named row among filtered rows, a value found whole beside cells that
are the same value with a bracketed note, a count a column of unique names holds to one row,
every content word of the task placed in the plan stated back as its words (placed.py), a value
matched whole where a cell lists it among others (listed.py), and a sum where the task counts names or a count of rows where a column holds how
many (kinds/count.py). Each rule says why it refused; the step abstains with that reason rather than
answer."""

from __future__ import annotations

import re
from typing import Any

from .columns import ORDINAL_NAMES, PLACE_NAMES, is_id, ordinal, yearlike
from .kinds.count import count_where_held, sum_where_counted
from .listed import matched_whole_where_listed
from .placed import stem, task_grammar, words_left_out
from .schemas import ColumnSchema, DatasetSchema
from .total_rows import total_row_read
from .vocabulary import UNITS, grammar_words, singular, words

# Cells that stand for no value: a table's dash, star or "n/a" is never an answer.
PLACEHOLDERS = {"", "-", "--", "—", "–", "‒", "―", "−", "*", "?", "x", "n/a", "na", "n.a.", "tbd", "tba", "none", "nil"}
# Names of a column that only numbers rows in a sequence: the ordinal nouns, not "No." or
# "Number" (which name counts: "No. of Barangays"), and a draw, goal or overall pick.
_SEQUENCE_NAMES = (ORDINAL_NAMES - {"no", "number", "series"}) | {"draw", "goal", "overall"}
# Size words: they rank by a size ("the largest margin"), not by how often a value comes.
_SIZE_WORDS = {
    "largest",
    "biggest",
    "greatest",
    "highest",
    "longest",
    "tallest",
    "heaviest",
    "smallest",
    "lowest",
    "shortest",
    "widest",
    "oldest",
    "youngest",
}
# Words that say how often: "the most times", "most often", "most frequent", "how many".
_FREQUENCY_WORDS = {"times", "often", "frequent", "frequently", "common", "commonly", "many", "number", "count"}
# Words that join two values the task takes together: "A or B", "A, B and C", "more in A than B".
_JOINS = re.compile(r"[,/&]|\b(or|and|nor|vs|versus|than|compared|over|against|with|to|from|between)\b")
# Words that rank by a size or an amount: "the first … with the most", "the lowest".
_RANK_SIZE_WORDS = {
    "least",
    "most",
    "fewest",
    "lowest",
    "highest",
    "largest",
    "smallest",
    "biggest",
    "longest",
    "shortest",
    "top",
    "bottom",
    "best",
    "worst",
    "fastest",
    "slowest",
    "oldest",
    "youngest",
    "greatest",
    "minimum",
    "maximum",
}
# Nouns whose answer is a number or a date ("which year", "what score").
_NUMBER_NOUNS = set(
    """year season date day month time number score result rank position place age length height
weight population total amount percentage percent record round week pick decade century era period
distance margin price value size speed frequency capacity attendance elevation area code version
edition term episode game match lap grid seed no""".split()
)
# Singular nouns after "the number of the" that still count ("the number of the times").
_GRAMMAR_NOUNS = {"times", "people", "total"}
# Words that open a question answered yes or no ("is K2 taller than …?", "did they win …?").
_YES_NO_OPENERS = {
    "is",
    "was",
    "are",
    "were",
    "did",
    "does",
    "do",
    "has",
    "have",
    "had",
    "can",
    "could",
    "will",
    "would",
    "should",
    "isn",
    "wasn",
}


def refused(
    task: str, plan: dict, names: list[str], rows: list[list[Any]], answer: list[str], schemas: list[DatasetSchema]
) -> str:
    """Why the answer is not sure to be the task's, or "" when every rule holds."""
    tokens = words(task)
    columns = _columns(plan, schemas)
    for rule in (
        _echoes_a_filter,
        _totals_identifiers,
        _yes_no_with_a_value,
        _choice_not_answered,
        _who_with_a_number,
        _who_by_another_role,
        _counts_a_number,
        _size_ranked_by_count,
        _values_not_joined,
        _placeholder,
        _several_lines,
        _answer_named_in_part,
        _beside_a_row_among_some,
        _first_by_no_time,
        _filter_core_shared,
        _count_held_to_one,
        _number_of_the_one,
        _value_unlike_its_column,
        words_left_out,
        _listed_in_a_cell,
        _count_against_total,
    ):
        why = rule(tokens, plan, names, rows, answer, columns, task)
        if why:
            return why
    return total_row_read(plan, schemas)


def _listed_in_a_cell(tokens, plan, names, rows, answer, columns, task) -> str:
    """A value matched whole where another cell of its column lists it among others (listed.py)."""
    return matched_whole_where_listed(plan, columns)


def _count_against_total(tokens, plan, names, rows, answer, columns, task) -> str:
    """A sum where the task counts names, or a count of rows where a column holds how many (kinds/count.py)."""
    return sum_where_counted(tokens, plan, columns) or count_where_held(tokens, plan, columns)


def _columns(plan: dict, schemas: list[DatasetSchema]) -> dict[str, ColumnSchema]:
    """The columns a plan may name, by the name it names them with (alias.name, and name alone)."""
    out: dict[str, ColumnSchema] = {}
    several = len(plan.get("datasets") or []) > 1
    for s in schemas:
        for c in s.columns:
            out[f"{s.alias}.{c.name}"] = c
            if not several:
                out.setdefault(c.name, c)
    return out


def _filters(where: list) -> list[dict]:
    """Every filter that every row must pass (inside an `all`, not inside an `any`)."""
    out = []
    for f in where or []:
        if not isinstance(f, dict):
            continue
        if f.get("all") is not None:
            out += _filters(f["all"])
        elif f.get("any") is None:
            out.append(f)
    return out


def _bare(name: str) -> str:
    return name.split(".", 1)[1] if "." in name and name.split(".", 1)[0] else name


def _echoes_a_filter(tokens, plan, names, rows, answer, columns, task) -> str:
    """An answer column the plan also filters to the task's own values ("was X in A or B?"
    answered "X"): the answer repeats what the task gave. One of several values named, picked by a
    ranking ("did A or B earn more?"), is an answer."""
    for f in _filters(plan.get("where")):
        column = f.get("column")
        if not isinstance(column, str) or _bare(column) not in {_bare(a) for a in answer}:
            continue
        k = names.index(_bare(column)) if _bare(column) in names else None
        picked = {str(row[k]).lower() for row in rows} if k is not None else set()
        given = {str(v).lower() for v in f.get("values") or []}
        if f.get("op") == "eq" or (f.get("op") == "in" and picked >= given):
            return (
                f"the answer column {_bare(column)} is also what the plan filters to the task's own "
                f"value{'s' if f.get('op') == 'in' else ''}: the answer would repeat the task; name the column to read"
            )
    return ""


def identifier_like(c: ColumnSchema) -> bool:
    """A number column whose values name or number rows rather than measure them: ids, years, codes,
    a column named only as a sequence ("No.", "Round", "Pick #"; "No. of Barangays" counts
    barangays); or unique whole numbers that run as a sequence (1 … n)."""
    if c.type != "number":
        return False
    named = set(words(c.name))
    if is_id(c) or yearlike(c) or named & {"code", "zip", "postcode", "phone"}:
        return True
    if "of" not in named and ordinal(c) and named <= _SEQUENCE_NAMES | {"#", "no", "number"}:
        return True
    try:
        low, high = int(str(c.min)), int(str(c.max))
    except (TypeError, ValueError):
        return False
    return (
        c.unique and c.physical in ("BIGINT", "INTEGER", "HUGEINT") and c.distinct > 2 and high - low + 1 == c.distinct
    )


def _totals_identifiers(tokens, plan, names, rows, answer, columns, task) -> str:
    """A sum (or, for "how many", an average) over a column of identifiers, where it may add
    several rows: years, sequence numbers, codes are no quantity; "how many elections" counts
    rows, it does not add their numbers. A sum within one row (grouped by a column of unique names,
    or filtered to one row by one) is that row's value."""
    how_many = any(a == "how" and b in ("many", "much") for a, b in zip(tokens, tokens[1:]))
    one_row = lambda name: isinstance(name, str) and name in columns and columns[name].unique
    groups = plan.get("group_by") or []
    if groups and all(one_row(g.get("column")) for g in groups):
        return ""
    if any(f.get("op") == "eq" and one_row(f.get("column")) for f in _filters(plan.get("where"))):
        return ""
    counted = {
        singular(tokens[k + 2].lower())
        for k in range(len(tokens) - 2)
        if (tokens[k].lower(), tokens[k + 1].lower()) in (("how", "many"), ("number", "of"))
        and singular(tokens[k + 2].lower()) != tokens[k + 2].lower()  # a plural: "elections", not "gold medals"
    }
    for a in plan.get("aggregates") or []:
        column = columns.get(a.get("column")) if isinstance(a.get("column"), str) else None
        if column is None or a.get("fn") not in ("sum", "avg"):
            continue
        name = column.name.lower()
        if a.get("fn") == "sum" and name in counted and singular(name) == name:
            # "the number of elections" over a column named Election: each row is one; a column
            # named in the plural ("Goals") holds how many
            return (
                f"the task counts {name}s, and the plan adds up the column {column.name}, one per row: count the rows"
            )
        if a.get("fn") == "sum" or how_many:
            if identifier_like(column):
                return f"the plan adds up {column.name}, which names or numbers rows (an id, a year, a sequence), it measures nothing: count the rows, or name the quantity"
    return ""


def _choice_not_answered(tokens, plan, names, rows, answer, columns, task) -> str:
    """ "Did he score more with A or B?", "was X from A or B?": the answer is one of the things named,
    so it is read from the column the plan found them in."""
    if not tokens or tokens[0] not in _YES_NO_OPENERS or "or" not in tokens:
        return ""
    if "answer" in answer:  # more, less or the same; before or after
        return ""
    chosen = [f for f in _filters(plan.get("where")) if f.get("op") == "in" and len(f.get("values") or []) >= 2]
    if any(_bare(f.get("column", "")) in {_bare(a) for a in answer} for f in chosen):
        return ""
    return "the task asks which of two things, and the plan answers with something else: the built-in reading does not decide it"


def _who_with_a_number(tokens, plan, names, rows, answer, columns, task) -> str:
    """ "Who …" asks for someone: an answer of numbers, dates or scores ("−11 (72-68-67-70=277)")
    names no one."""
    if not tokens:
        return ""
    alpha = [t.lower() for t in tokens]
    values = [row[names.index(a)] for row in rows for a in answer if a in names]
    numeric = lambda v: (
        isinstance(v, (int, float))
        or (isinstance(v, str) and sum(ch.isdigit() for ch in v) > sum(ch.isalpha() for ch in v))
    )
    if not values or not all(numeric(v) for v in values):
        return ""
    if alpha[0] in ("who", "whom", "whose"):
        return "the task asks who, and the plan answers with a number, a date or a score"
    if alpha[0] in ("which", "what") and len(alpha) > 1 and alpha[1].isalpha():
        # "which building was the first completed" answered 1958: the building is named by no number
        noun = stem(alpha[1])
        named = {stem(w) for a in answer for w in words(a.lower())}
        if noun not in named and singular(alpha[1]) not in _NUMBER_NOUNS and alpha[1] not in task_grammar():
            return f"the task asks which {alpha[1]}, and the plan answers with a number or a date"
    return ""


def _who_by_another_role(tokens, plan, names, rows, answer, columns, task) -> str:
    """ "Who produced the last track" where a Producer column names who did it: the answer is read
    from that column, not from another (the Title)."""
    alpha = [t.lower() for t in tokens]
    if len(alpha) < 2 or alpha[0] != "who" or not alpha[1].endswith("ed"):
        return ""
    verb = stem(alpha[1])
    role = [c for name, c in columns.items() if "." not in name and verb in {stem(w) for w in words(c.name.lower())}]
    said = {stem(w) for a in answer for w in words(a.lower())}
    if role and verb not in said:
        return f"the task asks who {alpha[1]}, and {role[0].name} says it, not {', '.join(answer)}"
    return ""


def _first_by_no_time(tokens, plan, names, rows, answer, columns, task) -> str:
    """ "The first album released", "the first coach to reach …": first and last are of time or of
    the list. A least or most of another column (a chart position, a count) is not what they ask
    unless the task also says least, most, lowest … ."""
    said = set(tokens)
    if not said & {"first", "last", "earliest", "latest"} or said & _RANK_SIZE_WORDS:
        return ""
    ranked = [o.get("column") for o in plan.get("order_by") or []][:1]
    ranked += [a.get("column") for a in plan.get("aggregates") or [] if a.get("fn") in ("min", "max")]
    for name in ranked:
        column = columns.get(name) if isinstance(name, str) else None
        if column is None:  # a result column: the aggregate it names
            made = [
                a for a in plan.get("aggregates") or [] if (a.get("as") or f"{a.get('fn')}_{a.get('column')}") == name
            ]
            column = columns.get(made[0].get("column")) if made and isinstance(made[0].get("column"), str) else None
            if column is None and made:
                return "the task asks for a first or a last, and the plan ranks by a count"
        if column is not None and not (
            column.type in ("date", "datetime", "time")
            or yearlike(column)
            or ordinal(column)
            or set(words(column.name)) & PLACE_NAMES
        ):
            return f"the task asks for a first or a last, and the plan takes the least or most of {column.name}, which is no time"
    return ""


def _number_of_the_one(tokens, plan, names, rows, answer, columns, task) -> str:
    """ "What is the number of the player from Slovakia": the number a row holds, not a count of rows."""
    alpha = [t.lower() for t in tokens]
    counted = any(a.get("fn") in ("count", "count_distinct") for a in plan.get("aggregates") or [])
    for k in range(len(alpha) - 3):
        if alpha[k : k + 3] == ["number", "of", "the"] and singular(alpha[k + 3]) == alpha[k + 3] and counted:
            if alpha[k + 3] not in _GRAMMAR_NOUNS and not alpha[k + 3].endswith("s"):
                return f"'the number of the {alpha[k + 3]}' may be a number the {alpha[k + 3]} has, not a count of rows"
    return ""


def _value_unlike_its_column(tokens, plan, names, rows, answer, columns, task) -> str:
    """A word matched in a column of numbers or years written as text ("ChairPerson" in a Year
    column): a heading repeated inside the table, not a value of the rows."""
    for f in _filters(plan.get("where")):
        column = columns.get(f.get("column")) if isinstance(f.get("column"), str) else None
        value = f.get("value")
        if f.get("op") != "eq" or column is None or column.type != "string" or not isinstance(value, str):
            continue
        ends = [str(column.min or ""), str(column.max or "")]
        if all(e[:1].isdigit() for e in ends) and not value[:1].isdigit():
            return f"{value!r} is text in {column.name}, whose values are numbers: it may be a heading inside the table"
    return ""


def _counts_a_number(tokens, plan, names, rows, answer, columns, task) -> str:
    """A count of the cells of a number column, or of one of numbers written as text ("how many
    episodes" over a column of episode counts): the rows hold how many; count the rows or add
    the numbers?"""
    for a in plan.get("aggregates") or []:
        column = columns.get(a.get("column")) if isinstance(a.get("column"), str) else None
        if column is None or a.get("fn") != "count" or identifier_like(column):
            continue
        written = column.type == "string" and all(str(e or "")[:1].isdigit() for e in (column.min, column.max))
        if column.type == "number" or (written and not set(words(column.name)) & {"year", "season", "date"}):
            return f"the plan counts the rows that have a {column.name}, a number that may itself be how many: count the rows, or add the numbers?"
    return ""


def _size_ranked_by_count(tokens, plan, names, rows, answer, columns, task) -> str:
    """ "Which margin was the largest": a size word ranks by a size, never by how often a value
    comes (the groups' row counts); "the most" may be either, and is left to the reading."""
    counted = {a.get("as") or "count" for a in plan.get("aggregates") or [] if a.get("fn") == "count"}
    ranked = {o.get("column") for o in plan.get("order_by") or []}
    if plan.get("group_by") and counted & ranked and set(tokens) & _SIZE_WORDS and not set(tokens) & _FREQUENCY_WORDS:
        return "the task ranks by a size, and the plan ranks by how many rows each value has"
    return ""


def _values_not_joined(tokens, plan, names, rows, answer, columns, task) -> str:
    """Several values of one column taken together (an `in`) from words the task does not join with
    "or", "and" or a comma ("Nth-stage winners" is no "Nth stage" or "Winner")."""
    text = task.lower()
    for f in _filters(plan.get("where")):
        values = [str(v).lower() for v in f.get("values") or []] if f.get("op") in ("in", "not_in") else []
        found = sorted((text.find(v), v) for v in values if text.find(v) >= 0)
        if len(found) < len(values) or len(found) < 2:
            continue
        for (at, v), (nxt, _) in zip(found, found[1:]):
            if not _JOINS.search(text[at + len(v) : nxt]):
                return f"the plan takes {', '.join(repr(v) for _, v in found)} together, and the task does not join them with or, and or a comma"
    return ""


def _yes_no_with_a_value(tokens, plan, names, rows, answer, columns, task) -> str:
    """A task asked yes or no ("is K2 taller than X?", "did A win in 1998?") answered by anything but
    a yes or no, a bool, or one of two things it names ("was A or B first?")."""
    if not tokens or tokens[0] not in _YES_NO_OPENERS or "or" in tokens:
        return ""
    values = [row[names.index(a)] for row in rows for a in answer if a in names]
    if values and all(isinstance(v, bool) or str(v).lower() in ("yes", "no") for v in values):
        return ""
    return "the task asks yes or no, and the plan answers with a value: the built-in reading does not decide it"


def _placeholder(tokens, plan, names, rows, answer, columns, task) -> str:
    """A placeholder cell ("-", "—", "*", "n/a") as the answer: it stands for no value."""
    for row in rows:
        for a in answer:
            if a in names:
                v = row[names.index(a)]
                if isinstance(v, str) and v.strip().lower() in PLACEHOLDERS:
                    return f"the answer's {a} is {v!r}, a cell that stands for no value"
    return ""


def _several_lines(tokens, plan, names, rows, answer, columns, task) -> str:
    """An answer cell of several lines (a name, a caption under it): which line answers is not sure."""
    for v in (row[names.index(a)] for row in rows for a in answer if a in names):
        if isinstance(v, str) and len([line for line in v.splitlines() if line.strip()]) > 1:
            return f"the answer cell {v.strip().splitlines()[0]!r}… holds several lines: which one answers is not sure"
    return ""


def _value_columns(plan: Any) -> set[str]:
    """The columns a plan finds a row in by a text value, anywhere (filters, the row a measure names)."""
    if isinstance(plan, list):
        return set().union(*(_value_columns(v) for v in plan))
    if not isinstance(plan, dict):
        return set()
    value = plan.get("value", plan.get("values"))
    texts = isinstance(value, str) or (isinstance(value, list) and any(isinstance(v, str) for v in value))
    found = (
        {_bare(plan["column"])}
        if plan.get("op") in ("eq", "in") and isinstance(plan.get("column"), str) and texts
        else set()
    )
    return found.union(*(_value_columns(v) for v in plan.values()))


def _answer_named_in_part(tokens, plan, names, rows, answer, columns, task) -> str:
    """An answer column named only in part ("album" for Original Album) for a row found by a value in
    another column ("which album came after Sally Sendiri", a Title): a guess by likeness. A unit in
    the name (Height ft, Area km2) is no part of what it names."""
    said = {singular(t.lower()) for t in tokens}
    found_by = _value_columns(plan)
    unnamed = grammar_words() | UNITS
    for column in filter(None, (columns.get(a) for a in answer)):
        others = ", ".join(sorted(found_by - {column.name}))
        parts = [singular(w) for w in words(column.name) if w.isalpha() and len(w) > 1 and w not in unnamed]
        hit = " ".join(p for p in parts if p in said)
        if others and hit and len(hit.split()) < len(parts):
            return f"the task names {column.name} only as {hit!r} and finds its row by {others}: {hit!r} may be what {others} holds; name the column to read"
    return ""


def _beside_a_row_among_some(tokens, plan, names, rows, answer, columns, task) -> str:
    """ "Who finished before X for the USA": beside a named row among filtered rows, or only X's?"""
    made = {m.get("as") for m in plan.get("measures") or [] if isinstance(m, dict)}
    kept = [f for f in _filters(plan.get("where")) if f.get("op") not in ("not_null", "is_null") and f.get("column")]
    if not (made & {"anchor", "anchor_value"} and kept):
        return ""
    said = kept[0].get("value", kept[0].get("values"))
    return f"the task names a row and keeps only rows with {kept[0]['column']} {said!r}: whether that says the rows compared or only the row named is not sure"


# A cell's note: a bracketed part ("(i)", "[37]", "(D3)", "(UKR)"). A part after a comma or on a
# second line is no note: "Comedy, drama" and "FC Zürich / FC Basel" are two values.
_NOTE = re.compile(r"\s*(\([^)]*\)|\[[^\]]*\])\s*")


def core(value: str) -> str:
    """A text cell without its bracketed notes ("Hard (i)" -> "hard", "1992[citation needed]" ->
    "1992"), lower case: what a person reads as the same value."""
    return " ".join(_NOTE.sub(" ", value).split()).lower()


def _same_core(value: str, column: ColumnSchema | None) -> list[str]:
    """The other values of a column (its known values, up to 300) written as `value` is up to notes."""
    if column is None or not isinstance(value, str) or not core(value):
        return []
    return [v for v in column.values if isinstance(v, str) and v.lower() != value.lower() and core(v) == core(value)]


def _filter_core_shared(tokens, plan, names, rows, answer, columns, task) -> str:
    """A text test of one value where other cells of its column are the same value up to a note
    ("1992" beside "1992[citation needed]", "Chicago (Ill.)" beside "Chicago [4]"), in a filter or
    the row a measure names: matching one of them whole counts or finds a part of what a person
    reads as one value. A spelling the plan tests too, in the same `in` or in another test of the
    column (`any` of two eqs), is taken together already."""
    tests = _text_tests(plan)
    for f in tests:
        column = columns.get(f.get("column")) if isinstance(f.get("column"), str) else None
        if column is None:
            continue  # no column of the schema: no other spellings of its values known
        taken = [v for t in tests if t.get("column") == f.get("column") for v in _tested(t)]
        for value in _tested(f):
            others = [v for v in _same_core(value, column) if v not in taken]
            if others:
                return (
                    f"{value!r} of {column.name} is written also as {others[0]!r}"
                    f"{' and ' + str(len(others) - 1) + ' more' if len(others) > 1 else ''}: "
                    "the same value with a note, or another? say whether they count together"
                )
    return ""


def _tested(test: dict) -> list:
    """The values an eq / in test names (none when it compares with another column)."""
    return [test.get("value")] if test.get("op") == "eq" else list(test.get("values") or [])


def _text_tests(plan: Any) -> list[dict]:
    """Every eq / in test of a plan, anywhere in it (its filters, the row a measure names)."""
    if isinstance(plan, list):
        return [t for v in plan for t in _text_tests(v)]
    if not isinstance(plan, dict):
        return []
    found = [plan] if plan.get("op") in ("eq", "in") and isinstance(plan.get("column"), str) else []
    return found + [t for v in plan.values() for t in _text_tests(v)]


def _count_held_to_one(tokens, plan, names, rows, answer, columns, task) -> str:
    """A count of rows kept by a value of a column whose values are all different ("how many medals
    did Kenya win" over one row per nation): the count is 0 or 1 by the table's shape, so the task
    asks for something else (a number in that row), not how many rows."""
    aggregates = plan.get("aggregates") or []
    if plan.get("group_by") or len(aggregates) != 1 or aggregates[0].get("fn") not in ("count", "count_distinct"):
        return ""
    if any(isinstance(v, int) and v > 1 for row in rows for v in row):  # more than one matched: not held to one
        return ""
    for f in _filters(plan.get("where")):
        column = columns.get(f.get("column")) if isinstance(f.get("column"), str) else None
        named = f.get("op") == "eq" and isinstance(f.get("value"), str)
        if named and column is not None and column.type == "string" and column.unique and column.distinct > 2:
            return (
                f"the count keeps the rows whose {column.name} is {f.get('value')!r}, and every row has its own "
                f"{column.name}: at most one row can match, so the task asks another number; name its column"
            )
    return ""
