"""What a column became (Typing), the question its values leave open (Question, with its
Options), and what each kind of question looks at to ask (Column) and answers when it asks (Ask).
The kinds themselves are one table, infer/kinds.py; infer/questions.py runs it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

import duckdb

from .. import readings as C
from ..models import QuestionKind
from ..readings import Reading
from .tally import ReadingCount, Source, Tally, physical_from


@dataclass(frozen=True)
class Option:
    reading: Reading
    physical: str
    rows_rejected: int
    example: str | None


@dataclass(frozen=True)
class Question:
    kind: str  # a key of infer/kinds.KINDS, which are the API's names (models.QuestionKind)
    text: str
    options: tuple[Option, ...]

    def __post_init__(self) -> None:
        # The API names every kind (a test holds KINDS to models.QuestionKind): a question of
        # no kind it can name is refused where it is made, never answered.
        if self.kind not in get_args(QuestionKind):
            raise ValueError(f"{self.kind!r} is no kind of question: add it to infer/kinds.KINDS")
        # Never two options that are one reading (a carried type beside the engine's same one):
        # the first of them is kept.
        seen: set[tuple[Reading, str]] = set()
        options: list[Option] = []
        for o in self.options:
            if (o.reading, o.physical) not in seen:
                seen.add((o.reading, o.physical))
                options.append(o)
        object.__setattr__(self, "options", tuple(options))


@dataclass(frozen=True)
class Typing:
    """What a column became: its reading, storage type, how many rows it rejects, and why.

    `clean`: every row was checked, none is rejected, and no cell holds a null marker or
    surrounding blanks, so the snapshot converts the raw text without testing it again."""

    reading: Reading
    physical: str
    rejected: int = 0
    question: Question | None = None
    forced: bool = False
    clean: bool = False
    spaces: bool = False  # a string column of single characters: a cell of whitespace is a value


TEXT = Typing(C.STRING, "VARCHAR")
KEEP_TEXT = Option(C.STRING, "VARCHAR", 0, None)


@dataclass(frozen=True)
class Ask:
    """What a kind found to ask about a column: the question's words, its options (each with the
    rows it would reject), and how the column is held while the question is open."""

    text: str
    options: tuple[Option, ...]
    held: Typing = TEXT


def text_or(reading: Reading, physical: str, text: str) -> Ask:
    """A column whose values all read as `reading`, held as text until a person says which it is."""
    return Ask(text, (KEEP_TEXT, Option(reading, physical, 0, None)))


@dataclass
class Column:
    """What a kind looks at to ask about one column: the tallies of its readings, the reading
    chosen from them (None: none reads every value; `ranked`, those that read most), and the
    connection and relation to count more of its values on."""

    con: duckdb.DuckDBPyConnection
    rel: Source
    name: str
    tally: Tally
    markers: tuple[str, ...]
    chosen: ReadingCount | None
    ranked: list[ReadingCount]

    @property
    def reading(self) -> Reading:
        """The chosen reading (a kind that asks of a chosen reading looks at `chosen` first)."""
        assert self.chosen is not None
        return self.chosen.reading

    def is_number(self) -> bool:
        return self.chosen is not None and self.chosen.reading.type == "number"

    def is_other(self) -> bool:
        """A reading was chosen and it is no number (a date, a time, a flag …)."""
        return self.chosen is not None and self.chosen.reading.type != "number"

    @property
    def physical(self) -> str:
        """The storage type the chosen reading gives the column."""
        assert self.chosen is not None
        if self.chosen.reading.type == "number":
            return physical_from(self.chosen.reading, self.chosen.number)
        return C.physical_of(self.chosen.reading)

    def fractional(self) -> bool:
        """Numbers read with decimals: a scale above 0."""
        return self.physical.startswith("DECIMAL") and not self.physical.endswith(", 0)")

    def full(self) -> list[ReadingCount]:
        """Every reading that reads every value, in precedence order."""
        return [n for n in self.tally.counts if n.fails == 0]

    def as_read(self) -> Typing:
        """The chosen reading with no question (the column's values all read so)."""
        return Typing(self.reading, self.physical, clean=self.tally.plain)

    def held(self) -> Typing:
        """The typing with no question open: the chosen reading, else text. Letters of one side
        only (F, F, F: Female or False? N: North or No?) are no proof of a flag: kept as written;
        a letter is a flag beside its other (Y with N, T with F)."""
        if self.chosen is None or (self.reading.type == "bool" and self.tally.one_sided):
            return Typing(C.STRING, "VARCHAR", spaces=self.tally.single and self.tally.spaces > 0)
        return self.as_read()
