"""Words into spans (a value of a column, a column, a dataset, a date, a number), what the spans
are read as (TaskReading), and the spans as the reading's rules see them (TaskSpans)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .schemas import VALUES_SHOWN, ColumnSchema, DatasetSchema
from .vocabulary import (
    COMPARE,
    MONTHS,
    QUANTITY_NOUNS,
    QUARTER_WORDS,
    STOPWORDS,
    grammar_words,
    singular,
    words,
)

# Words that name a measure without being a column's name: each may be any of these columns.
SYNONYMS = {
    "revenue": ("amount", "net", "gross", "revenue", "sales", "total", "price"),
    "sales": ("amount", "revenue"),
    "spend": ("amount",),
    "spent": ("amount",),
    "value": ("amount",),
    "quantity": ("units", "qty", "quantity"),
    "qty": ("units", "qty", "quantity"),
    "weight": ("weight", "weight_kg", "kg"),
    "date": (),
    "when": (),
}
# Column names written short, and the words a task uses for them ("Pts": "points").
ABBREVIATIONS = {
    "pts": ("points",),
    "pos": ("position", "place"),
    "att": ("attendance",),
    "apps": ("appearances",),
    "gls": ("goals",),
    "rnd": ("round",),
    "res": ("result",),
    "pop": ("population",),
    "yr": ("year",),
    "ht": ("height",),
    "wt": ("weight",),
    "dob": ("birth", "born"),
    "pct": ("percentage", "percent"),
    "avg": ("average",),
    "govt": ("government",),
    "dist": ("distance",),
    "elev": ("elevation",),
    "alt": ("altitude",),
    "temp": ("temperature",),
    "gf": ("goals for",),
    "ga": ("goals against",),
    "gd": ("goal difference",),
    "gp": ("games played",),
    "mp": ("matches played",),
    "pld": ("played",),
    "w": ("wins", "won"),
    "l": ("losses", "lost"),
    "d": ("draws", "drawn"),
    "t": ("ties",),
    "won": ("wins",),
    "lost": ("losses",),
    "drawn": ("draws",),
    "sq": ("square",),
    "mi": ("miles",),
    "km": ("kilometers", "kilometres"),
}
# Names a cell may write short, and the words a task uses for them.
ALIASES = {
    "usa": ("united states", "united states of america"),
    "us": ("united states",),
    "united states of america": ("united states",),
    "uk": ("united kingdom",),
    "ussr": ("soviet union",),
    "uae": ("united arab emirates",),
    "drc": ("democratic republic of the congo",),
    "nz": ("new zealand",),
    "prc": ("people's republic of china",),
}
# Parts of column names that say nothing of what the column holds.
GENERIC_PARTS = {"id", "on", "at", "kg", "no", "num", "nr", "the", "of"}


@dataclass
class Span:
    """A run of the task's words and what they were read as."""

    start: int
    end: int
    kind: str  # value, column, dataset, date, year, month, quarter, number, word
    targets: list = field(default_factory=list)
    text: str = ""


@dataclass
class TaskReading:
    """What the task asks, before columns are chosen."""

    fn: str | None = None
    fns: set[str] = field(default_factory=set)  # every calculation a word asked for
    distinct: bool = False
    count_of: list = field(default_factory=list)  # spans after "how many"
    groups: list = field(default_factory=list)  # spans after per/by/each
    loose_each: bool = False  # a group said by a bare "each"/"every" ("do each author have"), not "per" or "for each"
    buckets: list[str] = field(default_factory=list)
    ranges: list[tuple[str, list]] = field(default_factory=list)  # (op, values) on a date column
    compares: list[tuple[Span, str, float | str]] = field(default_factory=list)  # a number, or AVERAGE
    values: list[tuple[Span, bool]] = field(default_factory=list)  # (value span, negated)
    top: tuple[int, bool] | None = None  # (n, descending)
    top_group: Span | None = None
    measures: list[Span] = field(default_factory=list)
    datasets: list[Span] = field(default_factory=list)
    date_words: bool = False
    product: tuple[Span, Span] | None = None  # "units times amount"
    share: str = ""  # "share of": each group's part of the whole, as a fraction ("share") or per hundred ("percentage")
    likes: list = field(default_factory=list)  # "names containing 'son'": text tests (text_match.Like), read apart
    lacking: list[Span] = field(default_factory=list)  # "without any orders": datasets the rows have no match in
    entity: bool = False  # "who …", "which …": the answer names a row, not a number
    only: bool = False  # "the only single in 1992": the words say one row matches
    choice: bool = False  # "did A or B earn more points": the answer is one of the values named
    choices: list[tuple[Span, Span]] = field(default_factory=list)  # the values on each side of an "or"
    yes_no: str = ""  # "is K2 taller than X?": "yes" (a yes or a no), "more" ("did A win more or less … than B": more, less or the same)
    empty: list[Span] = field(
        default_factory=list
    )  # "do not have a description": columns empty (a number: 0) in the rows
    than: str = (
        ""  # "which building has more floors than X": the rows whose column is more ("gt") or less ("lt") than X's
    )
    same: tuple[Span, Span | None] | None = (
        None  # "the same height as X": (the column, X's value span; None until found)
    )
    speed: bool = False  # "the fastest": the least of a time, never of a speed
    dimension: str = ""  # "taller", "longest": a size word, which says what it measures when no column is named
    row_noun: str = ""  # "how many games", "which country": a noun no column names, read as what the rows are
    difference: str = ""  # "difference between A and B": "abs"; "how many more … A … than B": "signed"
    listed: bool = False  # the task says "listed": the order of the rows, whatever their dates
    placed: bool = (
        False  # the position is a place won ("finished first", "the top placed"), not only a place in the list
    )
    origins: list[Span] = field(default_factory=list)  # values read after "from": where a row's subject comes from
    position: tuple[str | int, Span | None] | None = (
        None  # row order: ("first" | "last" | a place, None) or ("after" | "before", the value's span)
    )


@dataclass
class TaskSpans:
    """A task's words and spans as each rule of the reading sees them: the reading the rules fill,
    and the spans already placed in it (a span is placed once; a later rule passes it by)."""

    tokens: list[str]
    spans: list[Span]
    reading: TaskReading = field(default_factory=TaskReading)
    used: set[int] = field(default_factory=set)

    @property
    def n(self) -> int:
        return len(self.spans)

    def word(self, i: int, *texts: str) -> bool:
        """Whether span i is a plain word, one of `texts`."""
        return 0 <= i < self.n and self.spans[i].kind == "word" and self.spans[i].text in texts

    def seq(self, i: int, phrase: tuple[str, ...]) -> bool:
        """Whether the plain words from span i on are `phrase`."""
        return all(self.word(i + k, p) for k, p in enumerate(phrase))

    def take(self, *ids: int) -> None:
        """Mark these spans placed."""
        self.used.update(ids)

    def row_noun(self, k: int) -> bool:
        """Whether span k is a noun no column names that may say what the rows are: not placed,
        not a word of the reading's grammar, not a noun of an amount, not a word of the reading's own."""
        if not (0 <= k < self.n) or k in self.used or self.spans[k].kind != "word":
            return False
        text = self.spans[k].text
        return (
            text.isalpha()
            and len(text) > 2
            and text not in grammar_words()
            and singular(text) not in QUANTITY_NOUNS
            and text not in QUANTITY_NOUNS
            and text not in MONTHS
            and text not in QUARTER_WORDS
            and text not in SYNONYMS
            and text not in ("or", "than", "not", "no", "where", "who")
        )


# What a phrase names: a column, a dataset, or a value (its column and its text).
Target = ColumnSchema | DatasetSchema | tuple[ColumnSchema, str]


def _phrases(schemas: list[DatasetSchema]) -> dict[tuple[str, ...], list[tuple[str, Target]]]:
    """Every phrase a task may use for a value, a column or a dataset, longest first."""
    table: dict[tuple[str, ...], list[tuple[str, Target]]] = {}

    def add(phrase: tuple[str, ...], kind: str, target: Target) -> None:
        if phrase and (kind, target) not in table.setdefault(phrase, []):
            table[phrase].append((kind, target))

    for s in schemas:
        for c in s.columns:
            many = c.distinct > VALUES_SHOWN
            for v in c.values:
                if (c.name, v) in s.totals:
                    continue  # a Total row is left out of every plan: "total" is never its value
                if many and set(words(v)) <= grammar_words():
                    continue  # a title "Only" among 80 titles is not what "the only one" means
                add(tuple(words(v)), "value", (c, v))
                head = v.split(",")[0].strip()
                if many and head != v and len(words(head)) < len(words(v)):
                    add(tuple(words(head)), "value", (c, v))  # "Seville, Spain": the place before its country
                add(tuple(singular(w) for w in words(v)), "value", (c, v))
                short = re.sub(
                    r"\s*[\(\[][^\)\]]*[\)\]]", "", v
                ).strip()  # "Canada (CAN)", "Norway [a]": the name before its note
                if short and short != v:
                    add(tuple(words(short)), "value", (c, v))
                for alias in ALIASES.get(short.lower().replace(".", ""), ()):
                    add(tuple(words(alias)), "value", (c, v))  # "USA" is read for "the United States"
    for s in schemas:
        add(tuple(words(s.dataset_id)), "dataset", s)
        add(tuple(singular(w) for w in words(s.dataset_id)), "dataset", s)
        for c in s.columns:
            parts = tuple(words(c.name))
            add(parts, "column", c)
            if len(parts) > 1 and re.fullmatch(r"(19|20)\d\d", parts[-1]):
                for joint in ("of", "in", "for"):
                    add((*parts[:-1], joint, parts[-1]), "column", c)  # "Population (2009)": "the population of 2009"
            for p in parts:
                if p not in GENERIC_PARTS and not p.isdigit():
                    add((p,), "column", c)
                    add((singular(p),), "column", c)
                for full in ABBREVIATIONS.get(p, ()) if len(parts) <= 2 else ():
                    add(tuple(full.split()), "column", c)  # "Pts" is read for "points"
    for s in schemas:
        # a medal table (Gold, Silver, Bronze, Total): "gold medals" is Gold, "medals" its Total
        named = {words(c.name)[0]: c for c in s.columns if c.type == "number" and words(c.name)}
        if {"gold", "silver", "bronze"} <= set(named):
            for kind in ("gold", "silver", "bronze", "total"):
                if kind in named:
                    for noun in ("medal", "medals", "medal count", "medals count"):
                        add((kind, *noun.split()), "column", named[kind])
            if "total" in named:
                for noun in ("medal", "medals", "medal count", "medals won"):
                    add(tuple(noun.split()), "column", named["total"])
    for word, names in SYNONYMS.items():
        for s in schemas:
            for c in s.columns:
                if c.name.lower() in names and c.type == "number":
                    add((word,), "column", c)
    return table


def spans_of(tokens: list[str], schemas: list[DatasetSchema]) -> list[Span]:
    """Read the task left to right, longest phrase first; values before columns before datasets."""
    table = _phrases(schemas)
    longest = max((len(p) for p in table), default=1)
    rank = {"value": 0, "dataset": 1, "column": 2}
    out, k = [], 0
    while k < len(tokens):
        t = tokens[k]
        hit = None
        for n in range(min(longest, len(tokens) - k), 0, -1):
            for phrase in (tuple(tokens[k : k + n]), tuple(singular(w) for w in tokens[k : k + n])):
                if phrase in table:
                    hit = (n, table[phrase])
                    break
            if hit:
                break
        compared = any(tuple(tokens[max(0, k - len(p)) : k]) == p for p in COMPARE)
        if hit and hit[0] == 1 and compared and re.fullmatch(r"\d[\d,]*(\.\d+)?", t):
            hit = None  # "at least 20 points": a number compared, not the cell "20" of a text column
        if hit:
            n, targets = hit
            if n > 1 and tokens[k + n - 1] in STOPWORDS:
                # "points for the club" in a table with Points and Points for: the name may end before
                # "for", so both readings stay open
                shorter = (
                    table.get(tuple(tokens[k : k + n - 1]))
                    or table.get(tuple(singular(w) for w in tokens[k : k + n - 1]))
                    or []
                )
                targets = targets + [t for t in shorter if t not in targets]
            kind = min((kind for kind, _ in targets), key=rank.__getitem__)
            # A word that names a column exactly is that column, not the dataset of the same name
            # (a "column" target is its ColumnSchema).
            if kind == "dataset" and any(
                isinstance(tgt, ColumnSchema) and tgt.name.lower() == " ".join(tokens[k : k + n]) for _, tgt in targets
            ):
                kind = "column"
            out.append(Span(k, k + n, kind, [tgt for kd, tgt in targets if kd == kind], " ".join(tokens[k : k + n])))
            k += n
        elif re.fullmatch(r"\d+(st|nd|rd|th)", t):
            out.append(Span(k, k + 1, "ordinal", [int(t[:-2])], t))
            k += 1  # "10th": a place, when no cell says "10th"
        elif re.fullmatch(r"\d{4}-\d{2}-\d{2}", t):
            out.append(Span(k, k + 1, "date", [t], t))
            k += 1
        elif re.fullmatch(r"(19|20)\d\d", t):
            out.append(Span(k, k + 1, "year", [int(t)], t))
            k += 1
        elif re.fullmatch(r"\d[\d,]*(\.\d+)?", t):
            plain = t.replace(",", "")  # "10,000": one number
            out.append(Span(k, k + 1, "number", [float(plain) if "." in plain else int(plain)], t))
            k += 1
        elif t in MONTHS and (t != "may" or k + 1 < len(tokens) and re.fullmatch(r"(19|20)\d\d", tokens[k + 1])):
            out.append(Span(k, k + 1, "month", [MONTHS[t]], t))
            k += 1
        elif re.fullmatch(r"q[1-4]", t):
            out.append(Span(k, k + 1, "quarter", [int(t[1])], t))
            k += 1
        else:
            out.append(Span(k, k + 1, "word", [], t))
            k += 1
    return out
