"""The built-in proposer: no network, a task read against the datasets' schemas (spans.py,
reading.py) and built into plans by its kind (kinds/: a share, the same as a row, yes or no and a
row by its place build their own; the rest is one calculation, calculation.py). It proposes only
what it can place: a word it cannot place in the schemas (a value no column holds, a measure no
column names) is no plan, never a guess; a word that fits several columns is several plans, and
the task is ambiguous when their answers differ."""

from __future__ import annotations

from dataclasses import replace

from . import kinds
from .calculation import calculation
from .features import reading_facts
from .proposal import Proposal
from .reading import read
from .schemas import DatasetSchema
from .spans import Span, TaskReading, spans_of
from .text_match import column_of, read_likes, unsure
from .text_match import tokens as text_tokens
from .vocabulary import THAN_SIZES, light_verbs, words


class BuiltinProposer:
    name = "builtin"

    def propose(self, task: str, schemas: list[DatasetSchema]) -> Proposal:
        tokens, texts = text_tokens(task)
        if not tokens:
            return Proposal(why="the task has no words to read")
        spans = spans_of(tokens, schemas)
        likes = read_likes(spans, texts) if texts else (spans, [])
        if isinstance(likes, str):
            return Proposal(why=likes)
        spans, tests = likes  # "names containing 'son'": its words read apart, its subject left in
        reading, unplaced = read(tokens, spans, light_verbs(schemas))
        if unplaced:
            names = ", ".join(f"'{w}'" for w in unplaced)
            return Proposal(
                why=f"the built-in proposer could not place {names} in the datasets' columns or values; name a column or a value they hold"
            )
        reading.likes = tests
        proposal = _plans(reading, schemas)
        if not proposal.candidates:
            return proposal
        facts = reading_facts(tokens, spans, reading)  # how each word was placed: for the confidence model
        return replace(proposal, candidates=tuple(replace(c, facts=facts) for c in proposal.candidates))

    def repair(self, task, schemas, failed, plan, errors) -> Proposal:
        return Proposal(why="the built-in proposer builds its plans from the schemas and has no second reading")


def _dimension(span: Span, schemas: list[DatasetSchema]) -> Span:
    """A size word's span ("taller") as the columns named for what it measures (Height)."""
    if span.kind != "dimension":
        return span
    held = [
        c
        for s in schemas
        for c in s.columns
        if c.type == "number" and set(words(c.name)) & set(THAN_SIZES.get(span.text, ()))
    ]
    return Span(span.start, span.end, "column", held, span.text)


def _plans(r: TaskReading, schemas: list[DatasetSchema]) -> Proposal:
    """The plans for a task read: the kinds of question that build their plans alone (a share of
    one row, the same as another row, yes or no, a row by its place in the order: kinds/) build
    them; the rest is one calculation (calculation.py)."""
    why = _place_sizes(r, schemas)
    if why:
        return Proposal(why=why)
    asked = _place_likes(r, schemas)
    if asked is not None:
        return asked
    if r.likes and (r.yes_no or r.same):
        return Proposal(
            why="the task looks for a text in the rows and compares them with a row it names: which rows hold that row is not said"
        )
    own = kinds.propose(r, schemas)
    return own if own is not None else calculation(r, schemas)


def _place_sizes(r: TaskReading, schemas: list[DatasetSchema]) -> str | None:
    """Reads each size word compared or matched ("taller than 200 feet", "the same height as X") as
    the number columns named for what it measures (rewriting r.compares and r.same); why not, when
    no number column is named so."""
    r.compares = [(_dimension(span, schemas), op, number) for span, op, number in r.compares]
    if r.same:
        r.same = (_dimension(r.same[0], schemas), r.same[1])
    unplaced = [span for span in [*(c[0] for c in r.compares), *([r.same[0]] if r.same else [])] if not span.targets]
    if not unplaced:
        return None
    word = unplaced[0].text
    return f"'{word}' measures {' or '.join(THAN_SIZES.get(word, ('a size',)))}, and no number column is named so: name the column"


def _place_likes(r: TaskReading, schemas: list[DatasetSchema]) -> Proposal | None:
    """Why a text test ("names containing 'son'") names no one text column, or the question to
    ask when the cells leave it open (text_match.unsure); None when each test is sure."""
    for like in r.likes:
        column = column_of(like)
        if isinstance(column, str):
            return Proposal(why=column)
        question = unsure(like, column, tuple(c for s in schemas if s.alias == column.alias for c in s.columns))
        if question:
            return Proposal(abstain="ambiguous", question=question)
    return None
