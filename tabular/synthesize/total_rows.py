"""The rows of a table that total the others, found in a snapshot so every plan leaves them out
(a total kept as a row doubles every sum over the table and is counted or ranked as one more
row). Three ways a row says it: its label is a total word alone, in several languages ("Total",
"Totals:", "Gesamt", "Итого", "Total for …"), or with only a count or a note after it ("Total
(75 NPCs)", "Total 19 nations"), or written across its label columns ("Total towns" twice); its
label starts with a total word and says more ("TOTAL SCOTLAND", "Gesamt Europa"), and more than
half of its whole numbers are the sums of the rows that are no such row; or a weak word ("Overall", "All", "Combined")
labels it and two or more of its whole numbers are those sums. A title that starts with a total
word ("Total Recall") is a row: its numbers are not the others' sums. Reads through knowledge.query
only (`query` takes a plan's fields), so this package never imports ops/."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..read.sheets.rules import TOTAL_CELL

# Words a row's label uses to say it totals the others, in several languages: left out on the
# label alone. A weaker word ("Overall", "All", "Sum", "Combined") also names categories, so
# a row it labels is left out only when its numbers are the sum of the other rows'.
TOTAL_WORDS = (
    "total",
    "totals",
    "grand total",
    "sub-total",
    "subtotal",
    "gesamt",
    "insgesamt",
    "summe",
    "totaal",
    "totale",
    "totali",
    "totaux",
    "suma",
    "razem",
    "ogółem",
    "итого",
    "всего",
    "celkem",
    "yhteensä",
    "i alt",
    "totalt",
    "samtals",
    "σύνολο",
    "toplam",
    "合計",
    "合计",
    "总计",
    "總計",
)
WEAK_TOTAL_WORDS = ("overall", "all", "sum", "combined", "aggregate", "career", "cumulative")
_WORD_TOTAL = re.compile(r"(?i)\s*(" + "|".join(re.escape(w) for w in TOTAL_WORDS) + r")(\s*:|\s+(for|of|in)\b.*|\s*)")
_WEAK_TOTAL = re.compile(r"(?i)\s*(" + "|".join(WEAK_TOTAL_WORDS) + r")(\s*:|\s+(for|of|in)\b.*|\s+total|\s*)")
# The start of a label that says more than a total word ("Total (75 NPCs)", "TOTAL SCOTLAND",
# "Totals 1990–99"): "total" covers totals, totale, totaal, totaux, totalt; the word then ends.
_PREFIXES = tuple(w for w in TOTAL_WORDS if not w.startswith("total")) + ("total",)
_STARTS_TOTAL = re.compile(r"(?i)\s*(" + "|".join(re.escape(w) for w in _PREFIXES) + r")[a-zäöüéè]*(\W|$)")
# A total word with only a count, a range or a note after it ("Total (75 NPCs)", "TOTAL (1–12)",
# "Total 19 nations", "Total:"): no title is written so; left out on the label alone.
_TOTAL_NOTED = re.compile(
    r"(?i)\s*(" + "|".join(re.escape(w) for w in _PREFIXES) + r")[a-zäöüéè]*\s*(\(.*\)|\[.*\]|\d[\d,.]*(\s+\w+)?)\s*",
    re.DOTALL,
)
# Prefix tests a column costs in the probe's where (knowledge.query allows 100 filters a plan).
_COLUMNS_A_PROBE = 100 // (len(_PREFIXES) + 1)
# Rows a table needs before a row's numbers being the others' sums says it totals them.
_FEWEST_ROWS = 4


def total_rows(query: Callable[..., Any], item: Any, columns: list) -> tuple[tuple[str, Any], ...]:
    """The (column, value) of each row of `item` (a plan's dataset entry) that totals the others
    (the module's three ways); `columns` are its columns (name, type, physical)."""
    strings = [c.name for c in columns if c.type == "string"]
    if not strings:
        return ()
    item = item.model_copy(update={"alias": "d"})
    said = [*TOTAL_WORDS, *WEAK_TOTAL_WORDS]
    said += [f"{w}:" for w in said]
    wholes = [c.name for c in columns if c.type == "number" and c.physical in ("BIGINT", "INTEGER", "HUGEINT")]
    found: list[tuple[str, Any]] = []
    weak: list[tuple[str, str, list, int]] = []  # (column, label, whole numbers, how many must be sums)
    for part in range(0, len(strings), _COLUMNS_A_PROBE):
        some = strings[part : part + _COLUMNS_A_PROBE]
        tests = [{"column": f"d.{c}", "op": "in", "values": said, "ignore_case": True} for c in some]
        tests += [
            {"column": f"d.{c}", "op": "starts_with", "value": w, "ignore_case": True} for c in some for w in _PREFIXES
        ]
        answer = query(
            datasets=[item],
            where=[{"any": tests}],
            select=[{"column": f"d.{c}"} for c in some + wholes],
            limit=20,
        )
        for row in answer.rows:
            for c, v in zip(some, row):
                if not isinstance(v, str) or (c, v) in found or any(w[:2] == (c, v) for w in weak):
                    continue
                texts = [x.strip() for x in row[: len(some)] if isinstance(x, str) and any(ch.isalpha() for ch in x)]
                alone = all(x == v.strip() for x in texts)  # no other words in the row (a film has its director)
                if _WORD_TOTAL.fullmatch(v) or TOTAL_CELL.fullmatch(v) or (alone and _TOTAL_NOTED.fullmatch(v)):
                    found.append((c, v))
                elif alone and len(texts) > 1 and _STARTS_TOTAL.match(v):
                    # "Total towns" written across the label columns (a merged cell): a row of the table's own
                    found.append((c, v))
                elif _WEAK_TOTAL.fullmatch(v):
                    weak.append((c, v, list(row[len(some) :]), 2))
                elif _STARTS_TOTAL.match(v):
                    weak.append((c, v, list(row[len(some) :]), 1))
    if weak and wholes:
        found += _summing(query, item, wholes, weak, found)
    return tuple(found)


def _summing(query: Callable[..., Any], item: Any, wholes: list[str], weak: list, found: list) -> list:
    """Of the rows a weak word or a longer total label labels, those whose whole numbers (as many
    filled as the label asks, not all zero) are each the sum of every row that is no such row:
    a grand total is left out, a subtotal ("TOTAL MAINLAND" beside "TOTAL SCOTLAND") or a title
    ("Total Recall") is not."""
    others = [*found, *((c, v) for c, v, _, _ in weak)]
    answer = query(
        datasets=[item],
        where=[
            {"any": [{"column": f"d.{c}", "op": "is_null"}, {"column": f"d.{c}", "op": "ne", "value": v}]}
            for c, v in others
        ],
        aggregates=[{"fn": "sum", "column": f"d.{c}", "as": f"s{k}"} for k, c in enumerate(wholes)]
        + [{"fn": "count", "as": "rows"}],
    )
    *sums, rows = answer.rows[0]
    if int(rows) + 1 < _FEWEST_ROWS:
        return []
    out = [(c, v) for c, v, values, fewest in weak if _sums(values, sums, fewest)]
    # subtotals: the longer total labels left ("TOTAL MAINLAND", "TOTAL ISLANDS") whose numbers
    # together are the others' sums, each a part of them
    parts = [(c, v, values) for c, v, values, fewest in weak if fewest == 1 and (c, v) not in out]
    rows_of = list({v: values for _, v, values in parts}.values())  # a label in two columns is one row
    if len(rows_of) >= 2:
        added = [
            None if any(r[k] is None for r in rows_of) else sum(int(r[k]) for r in rows_of) for k in range(len(sums))
        ]
        if _sums(added, sums, 1):
            out += [(c, v) for c, v, _ in parts]
    return out


def _sums(values: list, sums: list, fewest: int) -> bool:
    """Whether at least `fewest` of a row's whole numbers are filled, not all zero, and are the
    sums beside them: each of them exactly for a weak word (fewest 2); for a longer total label,
    more than half of them within 1% (a published total rounds its parts, 78,759 beside a sum of
    78,760; a density or a rate beside the counts adds up to nothing)."""
    filled = [(int(x), int(t)) for x, t in zip(values, sums) if x is not None and t is not None]
    if fewest > 1:
        matched = sum(x == t for x, t in filled)
        enough = matched == len(filled)
    else:
        matched = sum(100 * abs(x - t) <= abs(t) for x, t in filled)
        enough = 2 * matched > len(filled)
    return len(filled) >= fewest and any(x for x, _ in filled) and matched >= fewest and enough


def _tests(plan: Any) -> list[dict]:
    """Every test of a value in a plan, anywhere in it (filters, kept or excluded; measures)."""
    if isinstance(plan, list):
        return [t for v in plan for t in _tests(v)]
    if not isinstance(plan, dict):
        return []
    found = [plan] if isinstance(plan.get("column"), str) and plan.get("op") else []
    return found + [t for v in plan.values() for t in _tests(v)]


def _leaves_out(test: dict, totals: list) -> bool:
    """Whether a test keeps a total row out: its label column kept equal to other values (`eq`,
    `in`) or kept from the label itself (`ne`, `not_in`). A test of another kind (`ne` another
    nation, `like`, a comparison) keeps the total row among the rows."""
    column = str(test.get("column", "")).rsplit(".", 1)[-1]
    labels = {str(label).casefold() for c, label in totals if c == column}
    if not labels:
        return False
    value = test.get("values", test.get("value"))  # in and not_in list `values`
    values = {str(v).casefold() for v in (value if isinstance(value, list) else [value])}
    op = test.get("op")
    if op in ("eq", "in"):
        return not values & labels
    if op in ("ne", "not_in"):
        return bool(values & labels)
    return False


def total_row_read(plan: dict, schemas: list) -> str:
    """Why an aggregate or a ranking may read a row that totals the others, for a plan from any
    proposer (the built-in one leaves them out, DatasetSchema.without_totals): a dataset it reads
    has such a row, and no test of the plan names the column that labels it, so nothing keeps the
    total out of the rows added, counted or ranked. "" when none may."""
    ranks = bool(plan.get("order_by")) and bool(plan.get("group_by") or plan.get("aggregates"))
    if not (plan.get("aggregates") or ranks):
        return ""
    read = {(d.get("source_uri"), d.get("dataset_id")) for d in plan.get("datasets") or [] if isinstance(d, dict)}
    tests = _tests(plan.get("where") or [])
    for schema in schemas:
        if schema.totals and (schema.source_uri, schema.dataset_id) in read | {(schema.source_uri, None)}:
            column, label = schema.totals[0]
            if not any(_leaves_out(t, schema.totals) for t in tests):
                return (
                    f"the row whose {column} is {label!r} totals the others, and the plan reads it among them "
                    "(a sum counts it twice): leave it out"
                )
    return ""
