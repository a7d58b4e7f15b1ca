"""The task's words placed in its plan: the plan stated back as its words (the columns and values
it reads, their aliases, abbreviations and synonyms) must place every content word of the task,
or the answer did not read a part of it. Grammar, the question's frame and the noun the rows are
need no place. One of verify.py's rules, with the words and stems the others share."""

from __future__ import annotations

from typing import Any

from .spans import ABBREVIATIONS, ALIASES, SYNONYMS
from .text_match import LIKE_WORDS
from .vocabulary import (
    COUNT_PHRASES,
    DIMENSIONS,
    EMPTY_WORDS,
    LIGHT_VERBS,
    MONTHS,
    NONE_WORDS,
    ORDINAL_WORDS,
    PERCENT_WORDS,
    PLACE_VERBS,
    PRODUCT_WORDS,
    SHARE_WORDS,
    SPEED_WORDS,
    THAN_WORDS,
    UNITS,
    YEAR_RANGE_WORDS,
    grammar_words,
    singular,
    words,
)

# Words of the question's frame, which no column or value need hold: comparisons with a named
# row ("the same … as", "comes right after", "the difference between"), and "other".
_FRAME_WORDS = {
    "same",
    "between",
    "compared",
    "comparison",
    "comes",
    "immediately",
    "right",
    "just",
    "directly",
    "other",
    "others",
    "count",
    "also",
    "again",
    "ever",
    "currently",
}
# The words after which a noun names what the rows are ("which team", "the last song").
_NOUN_BEFORE = {"many", "which", "what", "whose", "first", "last", "only", "next", "previous", "other", "every"}
# ... and after these two ("the number of athletes", "how many more medals", "many total games").
_NOUN_AFTER_PAIRS = {("number", "of"), ("many", "more"), ("many", "total"), ("count", "of"), ("many", "different")}


def task_grammar() -> set[str]:
    """Every word the reading reads as grammar rather than as a column or a value."""
    phrases = [*PRODUCT_WORDS, *NONE_WORDS, *EMPTY_WORDS, *COUNT_PHRASES]
    return (
        grammar_words()
        | LIGHT_VERBS
        | PLACE_VERBS
        | set(MONTHS)
        | set(ORDINAL_WORDS)
        | UNITS
        | SHARE_WORDS
        | set(THAN_WORDS)
        | set(YEAR_RANGE_WORDS)
        | SPEED_WORDS
        | {w for p in phrases for w in p}
        | _FRAME_WORDS
    )


def stem(word: str) -> str:
    """A word's stem for matching a task's word with a plan's (champion, champions, championship)."""
    word = singular(word.lower())
    return word[:5] if len(word) > 5 else word


def _named(plan: Any) -> list[str]:
    """Every column name and value a plan holds, anywhere in it (filters, aggregates, measures)."""
    out: list[str] = []
    if isinstance(plan, dict):
        for key, value in plan.items():
            if key in ("column", "value", "values", "of", "partition_by"):
                out += [str(v) for v in value] if isinstance(value, list) else [str(value)]
            elif key == "datasets" and isinstance(value, list):
                # a plan read as a dataset names what it reads too (the rows compared with one row)
                out += [
                    n
                    for d in value
                    if isinstance(d, dict) and isinstance(d.get("plan"), dict)
                    for n in _named(d["plan"])
                ]
            elif key != "as":
                out += _named(value)
    elif isinstance(plan, list):
        for item in plan:
            out += _named(item) if isinstance(item, (dict, list)) else [str(item)]
    return out


def filter_ops(plan: Any) -> set[str]:
    """Every filter op a plan holds, anywhere in it (in an any or all, an aggregate, a nested plan)."""
    if isinstance(plan, dict):
        found = {plan["op"]} if isinstance(plan.get("op"), str) else set()
        return found.union(*(filter_ops(v) for v in plan.values()))
    if isinstance(plan, list):
        return set().union(*(filter_ops(v) for v in plan))
    return set()


def words_left_out(tokens, plan, names, rows, answer, columns, task) -> str:
    """The plan stated back as its words (the columns and values it reads) must place every content
    word of the task: a word left out ("how many players from Peru" answered over every row) is
    a part of the task the answer did not read. Grammar, light verbs and the noun the rows are
    ("how many games", "which country") need no place."""
    grammar = task_grammar()
    if filter_ops(plan) & {"like", "not_like"}:
        grammar |= LIKE_WORDS  # "names containing 'son'": the words of a text test, the text is its value
    placed = set()
    made = {m.get("as") for m in plan.get("measures") or [] if isinstance(m, dict)}
    if "percentage" in made:  # "what percentage of the votes": the share per hundred
        placed |= {stem(w) for w in PERCENT_WORDS}
    named = _named(plan)
    named += [a for v in named for a in ALIASES.get(v.lower(), ())]  # USA is "united states"
    for d in plan.get("datasets") or []:  # the table's own name: "how many legendary pokemon" over pokemon.csv
        if isinstance(d, dict):
            named += [
                str(d.get(k) or "").rsplit("/", 1)[-1].rsplit(".", 1)[0] for k in ("source_uri", "dataset_id", "alias")
            ]
    for text in named:
        for w in words(text.lower()):
            placed.add(stem(w))
            for full in ABBREVIATIONS.get(w, ()):
                placed |= {stem(x) for x in full.split()}
    for word, meant in {**SYNONYMS, **DIMENSIONS}.items():
        if any(stem(m) in placed for m in meant):
            placed.add(stem(word))
    medals = {stem(c.name) for c in columns.values()} >= {"gold", "silve", "bronz"}
    if medals:  # a medal table (Gold, Silver, Bronze columns): "gold medals" is Gold, "total medals" Total
        placed |= {"medal", "count"}
    alpha = [t.lower() for t in tokens]
    # the noun the rows are: after "how many", "which", "what", "the first", "the last", "the only"
    # a noun ends where grammar, a participle ("directed by") or the task's end follows it
    ends = lambda k: (
        k + 1 >= len(alpha) or alpha[k + 1] in grammar or not alpha[k + 1].isalpha() or alpha[k + 1].endswith("ed")
    )
    nouns = {alpha[k + 1] for k, t in enumerate(alpha[:-1]) if t in _NOUN_BEFORE and ends(k + 1)}
    nouns |= {alpha[k + 2] for k, t in enumerate(alpha[:-2]) if (t, alpha[k + 1]) in _NOUN_AFTER_PAIRS and ends(k + 2)}
    # what the whole table is of, said at the task's end: "in this competition", "on the album"
    for k in range(len(alpha) - 2):
        if alpha[k] in ("in", "on", "of", "at", "for", "from", "during") and alpha[k + 1] in ("the", "this", "that"):
            if k + 3 >= len(alpha) or (k + 4 == len(alpha) and alpha[-1] in ("listed", "shown")):
                nouns.add(alpha[k + 2])
    left = [
        t for t in alpha if t.isalpha() and len(t) > 2 and t not in grammar and t not in nouns and stem(t) not in placed
    ]
    if left:
        return f"the plan places no {', '.join(repr(w) for w in dict.fromkeys(left))} of the task: it answers another question"
    return ""
