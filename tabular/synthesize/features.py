"""The facts of one reading, as numbers the confidence model (confidence.py) scores: how the
task's words map onto the plan, what the plan is, what it answered and over what table. They are
facts of the reading, never of a question: the same names for every task and every table, each
a count, a share or a 0/1. Two sources: the plan and its result, whichever proposer wrote it
(`features_of`), and the built-in proposer's own account of how it placed each word
(`reading_facts`, carried in `Candidate.facts`); a chat proposer's plan has none, and its
`builtin` feature is 0 (the model then reads those features at their neutral value)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from .kinds import plan_kind
from .placed import filter_ops, stem, task_grammar
from .proposal import Candidate, Proposal
from .schemas import DatasetSchema
from .spans import ABBREVIATIONS, ALIASES, SYNONYMS, Span, TaskReading
from .vocabulary import singular, words

# The kinds of plan, each a 0/1 feature `kind:<name>` (exactly one is 1).
KINDS = ("yes_no", "difference", "share", "row_by_place", "ranking", "count", "sum", "average", "extreme", "lookup")
# The question's word, each a 0/1 feature `asks:<name>` (exactly one is 1).
ASKS = ("who", "when", "how_many", "how_much", "where", "which", "what", "yes_no", "other")
# The answer's type, each a 0/1 feature `answer:<name>` (exactly one is 1).
ANSWERS = ("number", "year", "date", "text", "yes_no", "empty")
# How a value or a column was found for the task's words (reading_facts), each counted.
VALUE_MATCHES = ("exact", "stem", "note_dropped", "head", "alias", "other")
COLUMN_MATCHES = ("name", "part", "abbreviation", "synonym", "other")
# The TaskReading fields that are flags of the reading's shape, each a 0/1 `read:<field>`.
READ_FLAGS = (
    "distinct",
    "loose_each",
    "entity",
    "only",
    "choice",
    "yes_no",
    "than",
    "same",
    "speed",
    "dimension",
    "row_noun",
    "difference",
    "listed",
    "placed",
    "position",
    "share",
    "top",
    "product",
)
_OPENERS_YES_NO = {"is", "was", "are", "were", "did", "does", "do", "has", "have", "had", "can", "could", "will"}
_YES_NO_CELLS = {"yes", "no", "true", "false", "same", "more", "less"}


def features_of(
    task: str,
    proposal: Proposal,
    candidate: Candidate,
    plan: dict,
    columns: list[str],
    rows: list[list],
    answer_columns: list[str],
    schemas: list[DatasetSchema],
    complete: bool,
    near: list[str],
) -> dict[str, float]:
    """Every feature of one reading: the plan's kind and parts, the task's words against the plan's,
    the question word against the answer's type, the result, the table's shape, the checks that came
    near (`near`: names of verify rules or warnings), and the proposer's own facts when it gave them."""
    tokens = words(task)
    out: dict[str, float] = {f"kind:{k}": 0.0 for k in KINDS}
    out[f"kind:{plan_kind(plan)}"] = 1.0
    out.update(_plan_parts(plan))
    out.update(_words_placed(tokens, plan))
    asked = question_word(tokens)
    out.update({f"asks:{a}": float(a == asked) for a in ASKS})
    answer = [columns.index(c) for c in answer_columns if c in columns]
    kind = answer_type(rows, answer)
    out.update({f"answer:{a}": float(a == kind) for a in ANSWERS})
    out["answer_mismatch"] = float(_mismatch(asked, kind))
    out.update(_result(rows, answer, columns, answer_columns))
    out.update(_answer_named(tokens, answer_columns, plan))
    out.update(_table(schemas, plan))
    out["complete"] = float(bool(complete))
    out["near"] = float(len(near))
    for name in near:
        out[f"near:{name}"] = 1.0
    out["readings"] = float(len(proposal.candidates))
    out["readings_several"] = float(len(proposal.candidates) > 1)
    out["assumed"] = float(len(candidate.assumes))
    out["answer_said"] = float(bool(candidate.answer))
    out["one_row_asked"] = float(bool(proposal.one_row))
    out["rows_are_noun"] = float(bool(proposal.rows_are))
    out["builtin"] = float(bool(candidate.facts))
    out.update({f"fact:{k}": float(v) for k, v in candidate.facts.items()})
    return out


def question_word(tokens: list[str]) -> str:
    """The question's word (one of ASKS): who, when (and "what year"), how many, which …"""
    if not tokens:
        return "other"
    first, second = tokens[0], tokens[1] if len(tokens) > 1 else ""
    if first in ("who", "whom", "whose"):
        return "who"
    if first == "when" or (first in ("what", "which", "in") and second in ("year", "date", "season", "month")):
        return "when"
    if first == "how" and second in ("many", "much"):
        return "how_many" if second == "many" else "how_much"
    if "how" in tokens and "many" in tokens:
        return "how_many"
    if first == "where":
        return "where"
    if first in ("which", "what"):
        return first
    if first in _OPENERS_YES_NO:
        return "yes_no"
    return "other"


def answer_type(rows: list[list], answer: list[int]) -> str:
    """The type of the answer's first column (one of ANSWERS), from the values it holds."""
    k = answer[0] if answer else 0
    cells = [r[k] for r in rows if k < len(r) and r[k] is not None and str(r[k]).strip() != ""]
    if not cells:
        return "empty"
    v = cells[0]
    if isinstance(v, bool) or str(v).strip().lower() in _YES_NO_CELLS:
        return "yes_no"
    if isinstance(v, (date, datetime)) or (isinstance(v, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}.*", v)):
        return "date"
    if isinstance(v, (int, float, Decimal)) or (isinstance(v, str) and re.fullmatch(r"[-+]?[\d,]+(\.\d+)?", v)):
        number = float(str(v).replace(",", "")) if not isinstance(v, (int, float, Decimal)) else float(v)
        return "year" if number.is_integer() and 1800 <= number <= 2100 else "number"
    return "text"


def _mismatch(asked: str, kind: str) -> bool:
    """The answer's type is not what the question word asks for."""
    return (
        (asked == "who" and kind in ("number", "year", "date", "yes_no"))
        or (asked == "when" and kind not in ("year", "date", "text"))
        or (asked == "how_many" and kind not in ("number", "year"))
        or (asked == "yes_no" and kind != "yes_no")
        or (asked == "where" and kind in ("number", "year", "date"))
    )


def _plan_parts(plan: dict) -> dict[str, float]:
    where = [f for f in plan.get("where") or [] if isinstance(f, dict) and "any" not in f]
    ops = filter_ops(plan)
    return {
        "filters": float(len(where)),
        "filters_text": float(sum(isinstance(f.get("value"), str) for f in where)),
        "filters_in": float("in" in ops or "not_in" in ops),
        "filters_compare": float(bool(ops & {"gt", "ge", "lt", "le"})),
        "filters_like": float(bool(ops & {"like", "not_like"})),
        "filters_negated": float(bool(ops & {"ne", "not_in"})),
        "groups": float(len(plan.get("group_by") or [])),
        "aggregates": float(len(plan.get("aggregates") or [])),
        "measures": float(len(plan.get("measures") or [])),
        "ordered": float(bool(plan.get("order_by"))),
        "joined": float(bool(plan.get("joins"))),
        "computed": float(bool(plan.get("compute"))),
        "nested": float(any(isinstance(d, dict) and "plan" in d for d in plan.get("datasets") or [])),
        "having": float(bool(plan.get("having"))),
        "limit_one": float(plan.get("limit") == 1),
        "count_of_column": float(
            any(a.get("fn") == "count" and a.get("column") for a in plan.get("aggregates") or [] if isinstance(a, dict))
        ),
    }


def _named(plan: Any) -> Iterable[str]:
    """Every column name and value a plan holds, anywhere in it."""
    if isinstance(plan, dict):
        for key, value in plan.items():
            if key in ("column", "value", "values", "of", "partition_by", "source_uri", "dataset_id"):
                yield from (str(v) for v in (value if isinstance(value, list) else [value]))
            elif key != "as":
                yield from _named(value)
    elif isinstance(plan, list):
        for item in plan:
            yield from _named(item) if isinstance(item, (dict, list)) else [str(item)]


def _words_placed(tokens: list[str], plan: dict) -> dict[str, float]:
    """The task's content words (not grammar, longer than two letters) the plan's columns and
    values hold, by stem, and those it does not."""
    grammar = task_grammar()
    placed: set[str] = set()
    for text in _named(plan):
        for w in words(text):
            placed.add(stem(w))
            for full in (*ABBREVIATIONS.get(w, ()), *ALIASES.get(w, ())):
                placed |= {stem(x) for x in full.split()}
    for word, meant in SYNONYMS.items():
        if any(stem(m) in placed for m in meant):
            placed.add(stem(word))
    content = [t for t in tokens if t.isalpha() and len(t) > 2 and t not in grammar]
    left = [t for t in content if stem(t) not in placed]
    numbers = [t for t in tokens if t[:1].isdigit()]
    return {
        "words": float(len(tokens)),
        "content_words": float(len(content)),
        "content_placed": float(len(content) - len(left)),
        "content_left": float(len(left)),
        "content_left_share": len(left) / len(content) if content else 0.0,
        "numbers_in_task": float(len(numbers)),
        "numbers_left": float(sum(t not in placed and stem(t) not in placed for t in numbers)),
    }


def _result(rows: list[list], answer: list[int], columns: list[str], answer_columns: list[str]) -> dict[str, float]:
    """The result's size and the answer cells' look: long, several lines, a note, several names."""
    k = answer[0] if answer else 0
    cells = [str(r[k]) for r in rows if k < len(r) and r[k] is not None]
    first = cells[0] if cells else ""
    return {
        "rows": math.log1p(len(rows)),
        "rows_one": float(len(rows) == 1),
        "rows_several": float(len(rows) > 1),
        "result_columns": float(len(columns)),
        "answer_columns": float(len(answer_columns)),
        "evidence_columns": float(len(columns) - len(answer_columns)),
        "answer_empty_share": (1 - len([c for c in cells if c.strip()]) / len(rows)) if rows else 1.0,
        "answer_length": math.log1p(len(first)),
        "answer_words": float(len(first.split())),
        "answer_note": float(bool(re.search(r"[\(\[].*[\)\]]", first))),
        "answer_lines": float("\n" in first),
        "answer_several": float(bool(re.search(r",\s|\s&\s|\s/\s|;\s|\band\b", first))),
        "answer_digits_letters": float(bool(re.search(r"\d", first) and re.search(r"[^\W\d_]", first))),
        "answer_zero": float(first.strip() in ("0", "0.0")),
    }


def _answer_named(tokens: list[str], answer_columns: list[str], plan: dict) -> dict[str, float]:
    """Whether the task names the answer's column (a word of its name, by stem) and whether that
    column is also one a filter reads."""
    task = {stem(t) for t in tokens}
    named = [c for c in answer_columns if {stem(w) for w in words(c) if w.isalpha()} & task]
    filtered = {str(f.get("column")) for f in plan.get("where") or [] if isinstance(f, dict)}
    return {
        "answer_column_named": float(bool(named)),
        "answer_column_filtered": float(bool(set(answer_columns) & filtered)),
    }


def _table(schemas: list[DatasetSchema], plan: dict) -> dict[str, float]:
    """The table's shape: rows, columns, the share of number columns, the rows that total the others,
    and the columns the plan reads: unique, a type, open questions."""
    columns = [c for s in schemas for c in s.columns]
    read = set(_named(plan))
    used = [c for c in columns if c.name in read]
    return {
        "datasets": float(len(schemas)),
        "table_rows": math.log1p(sum(s.rows for s in schemas)),
        "table_columns": float(len(columns)),
        "table_number_share": (sum(c.type == "number" for c in columns) / len(columns)) if columns else 0.0,
        "table_totals": float(sum(len(s.totals) for s in schemas)),
        "columns_read": float(len(used)),
        "columns_read_unique": float(sum(c.unique for c in used)),
        "columns_read_text": float(sum(c.type == "string" for c in used)),
        "columns_read_asked": float(sum(bool(c.questions) for c in used)),
    }


def reading_facts(tokens: list[str], spans: list[Span], reading: TaskReading) -> dict[str, float]:
    """The built-in proposer's account of a task read (what each span was found as and how its
    words matched a value or a column), as numbers for `Candidate.facts`."""
    out: dict[str, float] = {"builtin": 1.0}
    out.update({f"value_{m}": 0.0 for m in VALUE_MATCHES})
    out.update({f"column_{m}": 0.0 for m in COLUMN_MATCHES})
    out.update({"value_targets_several": 0.0, "value_words": 0.0, "column_targets_several": 0.0})
    kinds = ("value", "column", "dataset", "date", "year", "month", "quarter", "number", "ordinal", "word")
    out.update({f"spans_{k}": float(sum(s.kind == k for s in spans)) for k in kinds})
    grammar = task_grammar()
    out["words_free"] = float(
        sum(s.kind == "word" and s.text.isalpha() and len(s.text) > 2 and s.text not in grammar for s in spans)
    )
    for s in spans:
        if s.kind == "value":
            out[f"value_{_value_match(s)}"] += 1
            out["value_targets_several"] += float(len(s.targets) > 1)
            out["value_words"] = max(out["value_words"], float(s.end - s.start))
        elif s.kind == "column":
            out[f"column_{_column_match(s)}"] += 1
            out["column_targets_several"] += float(len(s.targets) > 1)
    for flag in READ_FLAGS:
        out[f"read:{flag}"] = float(bool(getattr(reading, flag, None)))
    out["read:groups"] = float(len(reading.groups))
    out["read:measures"] = float(len(reading.measures))
    out["read:values"] = float(len(reading.values))
    out["read:compares"] = float(len(reading.compares))
    out["read:fns"] = float(len(reading.fns))
    out["read:origins"] = float(len(reading.origins))
    return out


def _value_match(s: Span) -> str:
    """How a value span's words matched the cell: whole, by singulars, with its bracketed note
    dropped, as the part before a comma, or through an alias ("USA" for "the United States")."""
    said = tuple(s.text.split())
    best = "other"
    order = {m: k for k, m in enumerate(VALUE_MATCHES)}
    for target in s.targets:
        value = str(target[1]) if isinstance(target, tuple) and len(target) > 1 else ""
        found = words(value)
        short = words(re.sub(r"\s*[\(\[][^\)\]]*[\)\]]", "", value))
        if tuple(found) == said:
            how = "exact"
        elif tuple(singular(w) for w in found) == tuple(singular(w) for w in said):
            how = "stem"
        elif tuple(short) == said:
            how = "note_dropped"
        elif tuple(words(value.split(",")[0])) == said:
            how = "head"
        elif any(tuple(words(a)) == said for a in ALIASES.get(" ".join(short).replace(".", ""), ())):
            how = "alias"
        else:
            how = "other"
        if order[how] < order[best]:
            best = how
    return best


def _column_match(s: Span) -> str:
    """How a column span's words matched the column: its whole name, one word of it, a word for
    its abbreviation ("points" for Pts), or a synonym ("revenue" for amount)."""
    said = s.text.split()
    best = "other"
    order = {m: k for k, m in enumerate(COLUMN_MATCHES)}
    for c in s.targets:
        parts = words(getattr(c, "name", ""))
        if [singular(w) for w in parts] == [singular(w) for w in said]:
            how = "name"
        elif len(said) == 1 and (said[0] in parts or singular(said[0]) in {singular(p) for p in parts}):
            how = "part"
        elif any(" ".join(said) in ABBREVIATIONS.get(p, ()) for p in parts):
            how = "abbreviation"
        elif " ".join(said) in SYNONYMS:
            how = "synonym"
        else:
            how = "other"
        if order[how] < order[best]:
            best = how
    return best
