"""How the built-in proposer reads a task: words into spans (a value of a column, a column, a
dataset, a date, a number), spans into a TaskReading (what is counted, measured, grouped, filtered).
Tables of words, not branches per phrasing; a word it cannot place is reported, never dropped."""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, field

from .schemas import VALUES_SHOWN, DatasetSchema

AGGREGATE_WORDS = {
    "total": "sum",
    "sum": "sum",
    "combined": "sum",
    "average": "avg",
    "mean": "avg",
    "avg": "avg",
    "median": "median",
    "minimum": "min",
    "min": "min",
    "smallest": "min",
    "lowest": "min",
    "least": "min",
    "earliest": "min",
    "first": "min",
    "oldest": "min",
    "maximum": "max",
    "max": "max",
    "largest": "max",
    "biggest": "max",
    "highest": "max",
    "greatest": "max",
    "latest": "max",
    "last": "max",
    "newest": "max",
    "most": "max",
    "recent": "max",
    # "who had more goals, A or B?": the larger of the rows named ("more than 5" is a comparison, read first)
    "more": "max",
    "less": "min",
    "fewer": "min",
    "larger": "max",
    "bigger": "max",
    "greater": "max",
    "higher": "max",
    "smaller": "min",
    "lower": "min",
    # sizes and lengths: the larger is the more
    "tallest": "max",
    "taller": "max",
    "heaviest": "max",
    "heavier": "max",
    "longest": "max",
    "longer": "max",
    "shortest": "min",
    "shorter": "min",
    "lightest": "min",
    "lighter": "min",
    # speed over a time: the fastest is the least time (a speed column is asked, see SPEED_WORDS)
    "fastest": "min",
    "faster": "min",
    "quickest": "min",
    "quicker": "min",
    "slowest": "max",
    "slower": "max",
}
SPEED_WORDS = {"fastest", "faster", "quickest", "quicker", "slowest", "slower"}
# What a size or speed word measures, when the task names no column: the columns named so.
DIMENSIONS = {
    "tallest": ("height",),
    "taller": ("height",),
    "heaviest": ("weight",),
    "heavier": ("weight",),
    "lightest": ("weight",),
    "lighter": ("weight",),
    "longest": ("length", "duration"),
    "longer": ("length", "duration"),
    "shortest": ("length", "duration", "height"),
    "shorter": ("length", "duration", "height"),
    **dict.fromkeys(SPEED_WORDS, ("time",)),
}
# ... and the size words a comparison with a named row may use besides ("which mountains are higher
# than K2": the height, or the elevation); "finished higher than X" is a place won, not a size.
THAN_SIZES = {**DIMENSIONS, **dict.fromkeys(("higher", "lower"), ("height", "elevation", "altitude"))}
COUNT_PHRASES = (("how", "many"), ("number", "of"), ("count", "of"), ("amount", "of", "times"), ("count",))
DISTINCT_WORDS = {"distinct", "unique", "different"}
RANK_WORDS = {
    "highest": True,
    "most": True,
    "largest": True,
    "biggest": True,
    "greatest": True,
    "top": True,
    "lowest": False,
    "least": False,
    "smallest": False,
    "fewest": False,
    "bottom": False,
    # "which chip has the larger flash size, A or B?": the one of the two named
    "larger": True,
    "bigger": True,
    "more": True,
    "less": False,
    "tallest": True,
    "taller": True,
    "heaviest": True,
    "heavier": True,
    "longest": True,
    "longer": True,
    "shortest": False,
    "shorter": False,
    "lightest": False,
    "lighter": False,
    "fastest": False,
    "faster": False,
    "quickest": False,
    "quicker": False,
    "slowest": True,
    "slower": True,
    "higher": True,
    "greater": True,
    "smaller": False,
    "lower": False,
    "fewer": False,
}
GROUP_WORDS = {"per", "by", "each", "every", "across"}
BUCKETS = {
    "year": "year",
    "quarter": "quarter",
    "month": "month",
    "week": "week",
    "day": "day",
    "yearly": "year",
    "annual": "year",
    "annually": "year",
    "quarterly": "quarter",
    "monthly": "month",
    "weekly": "week",
    "daily": "day",
}
COMPARE = {
    ("over",): "gt",
    ("above",): "gt",
    ("more", "than"): "gt",
    ("greater", "than"): "gt",
    ("exceeding",): "gt",
    ("at", "least"): "ge",
    ("under",): "lt",
    ("below",): "lt",
    ("less", "than"): "lt",
    ("fewer", "than"): "lt",
    ("at", "most"): "le",
    **{(w, "than"): "gt" for w in ("higher", "larger", "bigger", "taller", "longer", "heavier")},
    **{(w, "than"): "lt" for w in ("lower", "smaller", "shorter", "lighter")},
}
# "more than the average X": a number compared with the column's own average (builtin.py asks for it).
AVERAGE = "average"
AVERAGE_WORDS = ("average", "mean")


def _compared_before(i: int, spans: list, seq, word) -> tuple[tuple[str, ...], int, int | None] | None:
    """The comparison just before the word at `i`: "above [the] average", "more than [the]
    average", or "more points than [the] average" (a column between its words): (the phrase,
    where it starts, the column's place between its words or None), or None."""
    end = i - (2 if word(i - 1, "the") else 1)
    phrase = next((p for p in COMPARE if seq(end - len(p) + 1, p)), None)
    if phrase is not None:
        return phrase, end - len(phrase) + 1, None
    if word(end, "than") and end >= 2 and spans[end - 1].kind == "column" and (spans[end - 2].text, "than") in COMPARE:
        return (spans[end - 2].text, "than"), end - 2, end - 1
    return None


# Units a compared number may carry ("taller than 200 feet"): the number's, placed with it.
UNITS = {
    "m",
    "meter",
    "meters",
    "metre",
    "metres",
    "feet",
    "foot",
    "ft",
    "km",
    "kilometer",
    "kilometers",
    "kilometre",
    "kilometres",
    "mile",
    "miles",
    "mi",
    "kg",
    "kilograms",
    "pounds",
    "lbs",
    "mph",
    "kmh",
    "year",
    "years",
    "day",
    "days",
    "percent",
    "%",
    "minute",
    "minutes",
    "second",
    "seconds",
    "hour",
    "hours",
    "ton",
    "tons",
    "tonnes",
    "people",
    "points",
    "votes",
    "inhabitants",
}
# "which building has more floors than the Landmark Hotel": a comparative before "than" and a row named after it.
THAN_WORDS = {
    "more": "gt",
    "higher": "gt",
    "larger": "gt",
    "bigger": "gt",
    "greater": "gt",
    "taller": "gt",
    "longer": "gt",
    "heavier": "gt",
    "later": "gt",
    "less": "lt",
    "fewer": "lt",
    "lower": "lt",
    "smaller": "lt",
    "shorter": "lt",
    "lighter": "lt",
    "earlier": "lt",
}
DATE_RANGE_WORDS = {"after": "gt", "since": "ge", "before": "lt", "until": "le", "on": "eq"}
YEAR_RANGE_WORDS = {
    "before": ("lt", "01-01"),
    "after": ("gt", "12-31"),
    "since": ("ge", "01-01"),
    "until": ("le", "12-31"),
    "through": ("le", "12-31"),
    "prior": ("lt", "01-01"),
}
NEGATIONS = {"not", "excluding", "except", "without"}
PRODUCT_WORDS = (("times",), ("multiplied", "by"), ("x",))  # "units times price": one measure, their product
SHARE_WORDS = {"share", "proportion", "fraction"}  # "share of amount by region": each group's part of the whole
PERCENT_WORDS = {"percentage", "percent", "%"}  # "what percentage of the votes": a share, said per hundred
NONE_WORDS = (
    ("without", "any"),
    ("without",),
    ("with", "no"),
    ("have", "no"),
    ("has", "no"),
    ("had", "no"),
)  # "customers without any orders"
# "how many names do not have a description", "nations that won no silver": a column empty (or 0)
EMPTY_WORDS = (
    ("do", "not", "have"),
    ("does", "not", "have"),
    ("did", "not", "have"),
    ("not", "have"),
    ("have", "no"),
    ("has", "no"),
    ("had", "no"),
    ("with", "no"),
    ("won", "no"),
    ("win", "no"),
    ("without",),
    ("without", "any"),
)
MONTHS = {name.lower(): k for k, name in enumerate(calendar.month_name) if name} | {
    name.lower(): k for k, name in enumerate(calendar.month_abbr) if name
}
QUARTER_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
ORDINAL_WORDS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
}
# Words that point at the table itself ("listed", "on the chart"); meaningless but beside ORDER_WORDS.
TABLE_WORDS = {"listed", "list", "chart", "table", "according", "shown", "on", "mentioned", "given"}
ORDER_WORDS = {
    "first",
    "last",
    "before",
    "after",
    "next",
    "previous",
    "preceding",
    "following",
    "top",
    "bottom",
    "above",
    "below",
    "earliest",
    "latest",
    "then",
    "prior",
}
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
# Verbs that say only that a row holds its values: "how many bronzes did Finland win" is Finland's
# Bronze, "what song earned the most points" the Song of the most Points. A verb that names a column
# is that column (columns are read first); these are placed only when no column has their name.
LIGHT_VERBS = {
    "win",
    "won",
    "scored",
    "earned",
    "received",
    "got",
    "finished",
    "finish",
    "played",
    "play",
    "took",
    "take",
    "taken",
    "came",
    "come",
    "held",
    "hold",
    "released",
    "published",
    "produced",
    "achieved",
    "gained",
    "reached",
    "obtained",
    "collected",
    "claimed",
    "secured",
    "awarded",
    "garnered",
    "attained",
    "managed",
    "appear",
    "appeared",
    "appears",
    "publish",
    "release",
    "produce",
    "earn",
    "receive",
    "score",
    "achieve",
    "gain",
    "reach",
    "obtain",
    "collect",
    "claim",
    "secure",
    "garner",
    "located",
    "based",
    "situated",
    "used",
    "participated",
    "competed",
    "completed",
    "went",
    "represented",
    "featured",
    "picked",
    "served",
    "compete",
    "often",
}
# Words of a match's outcome: where a column holds outcomes ("W 12–10", "Won", a Result column),
# "how many games did they win" is a filter on it that the built-in proposer cannot place, not a light verb.
OUTCOME_VERBS = {"win", "won", "lose", "lost", "draw", "drew", "tied", "beat", "defeated"}
OUTCOME_COLUMNS = {"result", "results", "score", "outcome", "decision", "w", "l", "res"}
_OUTCOME_VALUE = re.compile(r"(w|l|d|t|won|lost|win|loss|draw|drawn|tie|tied)\b", re.I)


def light_verbs(schemas: list[DatasetSchema]) -> set[str]:
    """The LIGHT_VERBS these datasets let go unplaced: a win is no light verb where outcomes are data."""
    outcomes = any(
        set(words(c.name)) & OUTCOME_COLUMNS
        or (c.values and sum(bool(_OUTCOME_VALUE.match(v)) for v in c.values) * 2 >= len(c.values))
        for s in schemas
        for c in s.columns
        if c.type == "string"
    )
    return LIGHT_VERBS - OUTCOME_VERBS if outcomes else LIGHT_VERBS


# Verbs that give a row its place: "who finished first", "the club ranked last", "placed in first place".
PLACE_VERBS = {"finished", "finish", "ranked", "rank", "placed", "place", "came", "come", "ended", "end"}
# Nouns of an amount, never of a row: "how many points did X score" is no count of rows, whatever
# the rows are. Any other plural no column names, after "how many", is what the rows are
# ("how many games were at Braly Stadium": the rows at it).
QUANTITY_NOUNS = {
    "point",
    "goal",
    "vote",
    "run",
    "win",
    "loss",
    "losse",
    "draw",
    "medal",
    "people",
    "person",
    "viewer",
    "spectator",
    "fan",
    "attendance",
    "year",
    "day",
    "week",
    "month",
    "hour",
    "minute",
    "second",
    "time",
    "km",
    "mile",
    "meter",
    "metre",
    "feet",
    "foot",
    "kilometer",
    "dollar",
    "percent",
    "lap",
    "seat",
    "ton",
    "tonne",
    "kg",
    "pound",
    "euro",
    "member",
    "inhabitant",
    "resident",
    "citizen",
    "employee",
    "worker",
    "student",
    "passenger",
    "visitor",
    "casualtie",
    "death",
    "injurie",
    "copie",
    "sale",
    "unit",
    "ticket",
    "appearance",
    "cap",
    "assist",
    "rebound",
    "yard",
    "touchdown",
    "wicket",
    "save",
    "strike",
    "child",
    "children",
    "men",
    "women",
    "age",
    "population",
    "area",
    "length",
    "height",
    "weight",
    "score",
    "mark",
    "grade",
    "rating",
    "rank",
    "place",
    "position",
    "total",
    "amount",
    "number",
    "level",
}
# Words that carry no meaning for the plan; any other word must be placed, or there is no plan.
STOPWORDS = set(
    """
what which who whose is are was were be been being the a an of in for to and or with all our we
did do does there how much many me show give list tell please have has had that this those these at from
i you it its as so per by each every across their them they total overall altogether sum amount amounts value
values sold made placed spent recorded issued ordered shipped were get find compute calculate number rows row
records record entries entry items overall whole grand date dates when time ever one any s name
he she his her him hers
""".split()
)


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
    position: tuple[str, Span | None] | None = (
        None  # row order: ("first" | "last", None) or ("after" | "before", the value's span)
    )


# A word, a number or a symbol of a task (`#`, `&`, `%` …: a symbol is a word to place too, never
# dropped); apostrophes and plain punctuation are not words.
WORD = re.compile(
    r"\d{4}-\d{2}-\d{2}|q[1-4]\b|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:st|nd|rd|th)\b|\d+(?:\.\d+)?|[^\W\d_]+|[#&%$€£+=<>@*/°]"
)


def words(text: str) -> list[str]:
    """The task's words, numbers and symbols, lower case."""
    return WORD.findall(text.lower().replace("_", " "))


def singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _phrases(schemas: list[DatasetSchema]) -> dict[tuple[str, ...], list[tuple[str, object]]]:
    """Every phrase a task may use for a value, a column or a dataset, longest first."""
    table: dict[tuple[str, ...], list[tuple[str, object]]] = {}

    def add(phrase: tuple[str, ...], kind: str, target: object) -> None:
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


def grammar_words() -> set[str]:
    """The words the reading itself uses: a value made only of them is not read as a value."""
    return (
        STOPWORDS
        | set(AGGREGATE_WORDS)
        | set(RANK_WORDS)
        | ORDER_WORDS
        | TABLE_WORDS
        | LIGHT_VERBS
        | PLACE_VERBS
        | NEGATIONS
        | DISTINCT_WORDS
        | GROUP_WORDS
        | set(BUCKETS)
        | set(DATE_RANGE_WORDS)
        | {w for p in COMPARE for w in p}
        | {"only", "times", "difference"}
    )


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
            kind = min((kind for kind, _ in targets), key=rank.get)
            # A word that names a column exactly is that column, not the dataset of the same name.
            if kind == "dataset" and any(
                kd == "column" and tgt.name.lower() == " ".join(tokens[k : k + n]) for kd, tgt in targets
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


def read(tokens: list[str], spans: list[Span], light: set[str] = frozenset()) -> tuple[TaskReading, list[str]]:
    """The TaskReading of a task's spans, and the words it could not place (`light`: verbs let go)."""
    r = TaskReading()
    r.entity = bool(tokens) and tokens[0] in ("who", "whom", "whose", "which")
    used: set[int] = set()
    n = len(spans)

    def word(i: int, *texts: str) -> bool:
        return 0 <= i < n and spans[i].kind == "word" and spans[i].text in texts

    def seq(i: int, phrase: tuple[str, ...]) -> bool:
        return all(word(i + k, p) for k, p in enumerate(phrase))

    def take(*ids: int) -> None:
        used.update(ids)

    for i, s in enumerate(spans):
        if i in used or s.kind != "column":
            continue
        phrase = next((p for p in PRODUCT_WORDS if seq(i + 1, p)), None)
        after = i + 1 + len(phrase) if phrase else -1
        if phrase and after < n and spans[after].kind == "column":
            r.product = (s, spans[after])
            take(i, *range(i + 1, after + 1))
    for i, s in enumerate(spans):
        if i in used:
            continue
        if seq(i, ("how", "many", "more")) or seq(i, ("how", "much", "more")):
            r.difference = "signed"
            take(i, i + 1, i + 2)  # "how many more medals did A win than B": A's less B's
            continue
        if word(i, "difference"):
            r.difference = "abs"
            take(i)  # "the difference between A and B": how far apart
            continue
        # row order: "the first listed", "listed last", "after X", "next after X", "previous to X"
        if word(i, "first", "last") and (word(i - 1, "listed") or word(i + 1, "listed")) and r.position is None:
            r.position = (s.text, None)
            take(i, i - 1 if word(i - 1, "listed") else i + 1)
            continue
        placed_by = i - 2 if word(i - 1, "in") else i - 1
        nth = ORDINAL_WORDS.get(s.text) if s.kind == "word" else s.targets[0] if s.kind == "ordinal" else None
        if (word(i, "last") or nth) and word(placed_by, *PLACE_VERBS) and r.position is None:
            # "who finished first", "the club ranked in last", "came second", "placed 10th": a place won
            r.position, r.placed = ("last" if s.text == "last" else "first" if nth == 1 else nth, None), True
            take(i, placed_by, *range(placed_by, i), *((i + 1,) if i + 1 < n and spans[i + 1].text == "place" else ()))
            continue
        if (
            nth
            and nth > 1
            and (
                word(i - 1, "listed")
                or word(i + 1, "listed")
                or (i + 2 < n and spans[i + 1].kind == "column" and word(i + 2, "listed"))
            )
            and r.position is None
        ):
            r.position = (nth, None)
            take(i, *(k for k in (i - 1, i + 1, i + 2) if word(k, "listed")))  # "the third team listed"
            continue
        if (
            word(i, "first", "last")
            and word(i - 1, "the")
            and _row_noun(spans, i + 1, used)
            and not spans[i + 1].text.endswith("s")
            and r.position is None
            and not word(i + 2, "to", "who", "that", "which")
        ):
            # "the date of the last game", "the first album": the row the noun's order puts first or last
            r.position, r.row_noun = (s.text, None), spans[i + 1].text
            take(i, i + 1)
            continue
        if (
            word(i, "first", "last")
            and word(i - 1, "the")
            and i + 1 < n
            and spans[i + 1].kind == "column"
            and r.position is None
            and all(c.type == "string" for c in spans[i + 1].targets)
            and not word(i + 2, "to", "who", "that", "which", "listed")
        ):
            # "the last leader from Progressive": the last row's Leader (a text column has no largest)
            r.position = (s.text, None)
            take(i)
            continue
        if (
            word(i, "first", "last")
            and i + 2 < n
            and spans[i + 1].kind == "column"
            and word(i + 2, "listed")
            and r.position is None
        ):
            r.position = (s.text, None)
            take(i, i + 2)  # "the first tournament listed": its column is what is asked
            continue
        side = "after" if word(i, "after", "following") else "before" if word(i, "before", "preceding") else ""
        if (
            not side
            and word(i - 1, "listed", "is", "comes", "appears")
            and word(i, "below", "above", "beneath", "under")
        ):
            side = (
                "after" if not word(i, "above") else "before"
            )  # "which church is listed below Christ the King": the next row
        j = i + 1
        if not side and (seq(i, ("previous", "to")) or seq(i, ("prior", "to"))):
            side, j = "before", i + 2
        while word(j, "the"):
            j += 1
        if side and j < n and spans[j].kind == "value" and r.position is None:
            r.position = (side, spans[j])
            take(*range(i, j + 1))
            if word(i - 1, "next", "right", "immediately", "just") or word(
                i - 1, "came", "comes", "listed", *PLACE_VERBS
            ):
                take(i - 1)
            continue
        phrase = next((p for p in NONE_WORDS if seq(i, p)), None)
        empty = next((p for p in EMPTY_WORDS if seq(i, p)), None)
        after = i + len(empty) if empty else 0
        while empty and word(after, "a", "an", "any", "the"):
            after += 1
        if (
            empty
            and after < n
            and spans[after].kind == "column"
            and (word(after + 1, "at") and word(after + 2, "all") or after + 1 >= n or spans[after + 1].kind == "word")
        ):
            r.empty.append(spans[after])
            take(*range(i, after + 1))  # "do not have a description": Description is empty
            if word(after + 1, "at") and word(after + 2, "all"):
                take(after + 1, after + 2)
        elif phrase and i + len(phrase) < n and spans[i + len(phrase)].kind == "dataset":
            r.lacking.append(spans[i + len(phrase)])
            take(*range(i, i + len(phrase) + 1))
            if word(i - 1, "that", "who", "which"):
                take(i - 1)
        elif word(i, "than") and r.same is None and _than(spans, i) is not None:
            # "which building has more floors than the Landmark Hotel", "which player is taller than X"
            op, column, anchor, start = _than(spans, i)
            r.same, r.than = (
                (
                    spans[column] if column is not None else Span(i, i, "dimension", [], spans[i - 1].text),
                    spans[anchor],
                ),
                op,
            )
            take(*range(start, anchor + 1))
        elif word(i, "same") and r.same is None and _same_as(spans, i) is not None:
            # "which pylon has the same height as the London pylon", "the London pylon has the same height as which pylon"
            column, anchor, end = _same_as(spans, i)
            r.same = (spans[column], spans[anchor] if anchor is not None else None)
            take(*range(i, end))
            take(
                *(k for k in range(n) if word(k, "other", "else"))
            )  # "what other bridge": the named row is left out anyway
        elif word(i, "only") and not r.only:
            r.only = True
            take(i)  # "the only episode written by X": one row, checked when it runs
        elif (
            word(i, *SHARE_WORDS, *PERCENT_WORDS)
            and word(i + 1, "of")
            and not (i > 0 and spans[i - 1].kind == "number")
        ):
            # "what percentage of the votes", not "at least 60 percent of the vote" (a number's unit)
            r.share = "percentage" if s.text in PERCENT_WORDS else "share"
            take(i, i + 1)
    for i, s in enumerate(spans):
        if i in used:
            continue
        # dates: between D and D, after D, Month YYYY, Q2 2024, second quarter of 2024, YYYY
        if (
            word(i, "between", "from")
            and i + 3 < n
            and spans[i + 1].kind == "date"
            and word(i + 2, "and", "to")
            and spans[i + 3].kind == "date"
        ):
            r.ranges.append(("between", [spans[i + 1].text, spans[i + 3].text]))
            take(i, i + 1, i + 2, i + 3)
        elif (
            word(i, "between", "from")
            and i + 3 < n
            and spans[i + 1].kind == "year"
            and word(i + 2, "and", "to")
            and spans[i + 3].kind == "year"
        ):
            r.ranges.append(("between", [f"{spans[i + 1].targets[0]}-01-01", f"{spans[i + 3].targets[0]}-12-31"]))
            take(i, i + 1, i + 2, i + 3)
        elif word(i, *YEAR_RANGE_WORDS) and i + 1 < n and spans[i + 1].kind == "year":
            # "before 2006": before its first day; "after 2006": after its last
            op, day = YEAR_RANGE_WORDS[s.text]
            r.ranges.append((op, [f"{spans[i + 1].targets[0]}-{day}"]))
            take(i, i + 1)
        elif s.kind == "word" and s.text in DATE_RANGE_WORDS and i + 1 < n and spans[i + 1].kind == "date":
            r.ranges.append((DATE_RANGE_WORDS[s.text], [spans[i + 1].text]))
            take(i, i + 1)
        elif s.kind == "month" and i + 1 < n and spans[i + 1].kind == "year":
            year, month = spans[i + 1].targets[0], s.targets[0]
            last = calendar.monthrange(year, month)[1]
            r.ranges.append(("between", [f"{year}-{month:02d}-01", f"{year}-{month:02d}-{last}"]))
            take(i, i + 1)
        elif s.kind == "quarter" and i + 1 < n and spans[i + 1].kind == "year":
            r.ranges.append(_quarter(spans[i + 1].targets[0], s.targets[0]))
            take(i, i + 1)
        elif (
            s.kind == "word"
            and s.text in QUARTER_WORDS
            and word(i + 1, "quarter")
            and word(i + 2, "of")
            and i + 3 < n
            and spans[i + 3].kind == "year"
        ):
            r.ranges.append(_quarter(spans[i + 3].targets[0], QUARTER_WORDS[s.text]))
            take(i, i + 1, i + 2, i + 3)
        elif s.kind == "year":
            year = s.targets[0]
            r.ranges.append(("between", [f"{year}-01-01", f"{year}-12-31"]))
            take(i)
        elif s.kind == "date":
            r.ranges.append(("eq", [s.text]))
            take(i)
    for i, s in enumerate(spans):
        if i in used:
            continue
        if (
            s.kind == "word"
            and s.text in BUCKETS
            and (BUCKETS[s.text] != s.text or word(i - 1, *GROUP_WORDS) or word(i - 1, "a"))
        ):
            r.buckets.append(BUCKETS[s.text])
            take(i)
            if word(i - 1, *GROUP_WORDS, "a"):
                take(i - 1)
        elif (
            s.kind == "word"
            and s.text in ("top", "bottom")
            and (
                word(i - 1, "the", "at")
                and not (i + 1 < n and spans[i + 1].kind in ("number", "column"))
                and not word(i + 1, "number", "amount")
                or word(i + 1, *PLACE_VERBS)
            )
        ):
            # "what tournament is at the top (of the list)?", "the top placed country": the first row listed, not a ranking
            if r.position is None and not any(w in RANK_WORDS for w in tokens if w not in ("top", "bottom")):
                r.position = ("first" if s.text == "top" else "last", None)
                take(i, i - 1)
                if word(i + 1, *PLACE_VERBS):
                    r.placed = True
                    take(i + 1)
            continue
        elif s.kind == "word" and s.text in ("top", "bottom"):
            count = (
                spans[i + 1].targets[0]
                if i + 1 < n and spans[i + 1].kind == "number" and isinstance(spans[i + 1].targets[0], int)
                else 1
            )
            r.top = (count, s.text == "top")
            take(i)
            j = i + 2 if i + 1 < n and spans[i + 1].kind == "number" else i + 1
            take(j - 1)
            if j < n and spans[j].kind in ("column", "dataset"):
                r.top_group = spans[j]
                take(j)
            if word(j + 1, "by") and j + 2 < n and spans[j + 2].kind in ("column", "dataset"):
                r.measures.append(spans[j + 2]) if spans[j + 2].kind == "column" else r.datasets.append(spans[j + 2])
                take(j + 1, j + 2)
        elif word(i, "which", "what") and i + 1 < n and spans[i + 1].kind in ("column", "dataset"):
            at_top = {
                k for k in range(i + 2, n) if word(k, "top", "bottom") and word(k - 1, "the", "at")
            }  # the first row listed
            ranked = next(
                (
                    spans[k].text
                    for k in range(i + 2, n)
                    if word(k, *RANK_WORDS)
                    and k not in used
                    and k not in at_top
                    and not word(k - 1, "at")
                    and not word(k + 1, "than")
                ),
                None,
            )  # "which contestants scored less than 11": a comparison
            if ranked:
                k = next(k for k in range(i + 2, n) if word(k, ranked) and k not in at_top)
                r.top, r.top_group = (1, RANK_WORDS[ranked]), spans[i + 1]
                take(i, i + 1, k)
        elif word(i, *AVERAGE_WORDS) and (found := _compared_before(i, spans, seq, word)) is not None:
            # "above the average points", "more points than the average": each row's value
            # against the column's average over the rows (a plan of its own, joined beside them)
            phrase, start, between = found
            k = i + 1
            while word(k, "of", "the"):
                k += 1
            after = spans[k] if k < n and spans[k].kind == "column" and k not in used else None
            near = [
                j
                for j in ([between] if between is not None else range(start - 1, max(-1, start - 4), -1))
                if spans[j].kind == "column" and j not in used
            ]
            before = spans[near[0]] if near else None
            target = after or before
            if target is not None and not (after and before and set(after.targets) != set(before.targets)):
                r.compares.append((target, COMPARE[phrase], AVERAGE))
                take(*range(start, i + 1), *range(i + 1, k))
                take(*(spans.index(t) for t in (after, before) if t is not None))
        elif s.kind == "number" and i > 0 and any(seq(i - len(p), p) for p in COMPARE):
            phrase = next(p for p in COMPARE if seq(i - len(p), p))
            unit = 1 if word(i + 1, *UNITS) else 0
            if not unit and word(i + 1, "in", "of") and i + 2 < n and spans[i + 2].kind == "column":
                unit = 1  # "scored 12 in composition": the column after "in"
            target = (
                spans[i + 1 + unit]
                if i + 1 + unit < n and spans[i + 1 + unit].kind == "column"
                else next(
                    (
                        spans[k]
                        for k in range(i - len(phrase) - 1, max(-1, i - len(phrase) - 4), -1)
                        if spans[k].kind == "column"
                    ),
                    None,
                )
            )
            if target is None and phrase[0] in DIMENSIONS:
                target = Span(
                    i, i, "dimension", [], phrase[0]
                )  # "taller than 200 feet": the height, found in the schema
            if target is not None:
                r.compares.append((target, COMPARE[phrase], s.targets[0]))
                take(
                    i,
                    *range(i - len(phrase), i),
                    *((i + 1,) if unit else ()),
                    *((spans.index(target),) if target in spans else ()),
                )
        elif s.kind == "value":
            back = i - 1
            while word(back, "the", "a"):
                back -= 1
            start = back if word(back, *NEGATIONS) else back - 1 if seq(back - 1, ("other", "than")) else None
            r.values.append((s, start is not None))
            take(i)
            if word(back, "from"):
                r.origins.append(s)
            if start is not None:
                take(*range(start, i))
            for k in (i - 1, i + 1):  # "the North region": the column named beside its value
                if 0 <= k < n and spans[k].kind == "column" and any(c in spans[k].targets for c, _ in s.targets):
                    take(k)
    verb_next = (
        n == 2 or word(2, *STOPWORDS, *LIGHT_VERBS, *PLACE_VERBS) and spans[2].text not in ("of", "and", "or", "s")
    )
    if (
        n > 1
        and word(0, "which", "what")
        and _row_noun(spans, 1, used)
        and not spans[1].text.endswith("s")
        and verb_next
    ):
        r.entity, r.row_noun = True, spans[1].text
        take(0, 1)  # "which country won the least medals": the row's name
    elif (
        n > 3
        and word(0, "name")
        and word(1, "the", "a", "one", "any")
        and _row_noun(spans, 2, used)
        and word(3, "that", "who", "which", "with")
    ):
        r.entity, r.row_noun = True, spans[2].text
        take(0, 1, 2)  # "name the country that had …"
    for i, s in enumerate(spans):
        if i in used:
            continue
        counted = next((p for p in COUNT_PHRASES if seq(i, p)), None)
        if counted:
            r.fn = r.fn or "count"
            r.fns.add("count")
            take(*range(i, i + len(counted)))
            k = i + len(counted)
            if word(k, "times") or (word(k, "total") and word(k + 1, "times")):
                take(k, k + 1 if word(k, "total") else k)
                k += 2 if word(k, "total") else 1  # "how many times did X win": the rows where X is
            while word(k, *DISTINCT_WORDS, "of", "the", "total"):
                r.distinct |= spans[k].text in DISTINCT_WORDS
                take(k)
                k += 1
            if _row_noun(spans, k, used) and spans[k].text.endswith("s"):
                r.row_noun = spans[k].text
                take(k)  # "how many games were at Braly Stadium": the rows
            if k < n and spans[k].kind in ("column", "dataset") and k not in used:
                r.count_of.append(spans[k])
                take(k)
        elif word(i, *DISTINCT_WORDS):
            r.distinct = True
            take(i)
        elif s.kind == "column" and s.text in AGGREGATE_WORDS and i + 1 < n and spans[i + 1].kind == "column":
            # "the total gold" in a table with a Total column: before another column it is the word, not the column
            r.fn = r.fn or AGGREGATE_WORDS[s.text]
            r.fns.add(AGGREGATE_WORDS[s.text])
            take(i)
        elif s.text == "total" and seq(i + 1, ("number", "of")):
            take(i)  # "the total number of X" is a count of X, not a sum beside it
        elif (
            s.kind == "word"
            and s.text in ("total", "all", "altogether", "combined")
            and "count" in r.fns
            and (word(i - 1, "in") or seq(i - 2, ("how", "many")))
        ):
            take(
                i, *((i - 1,) if word(i - 1, "in") else ())
            )  # "how many songs in total", "how many total titles": the count, said again
        elif (
            word(i, *AGGREGATE_WORDS)
            and not (s.text == "first" and word(i + 1, "quarter"))
            and not (s.text in ("least", "most") and word(i - 1, "at"))
        ):
            r.fn = r.fn or AGGREGATE_WORDS[s.text]
            r.fns.add(AGGREGATE_WORDS[s.text])
            take(i)
        elif word(i, *GROUP_WORDS) or seq(i, ("for", "each")):
            k = i + (2 if seq(i, ("for", "each")) else 1)
            while word(k, "the", "each"):
                k += 1
            if _row_noun(spans, k, used) and spans[k].text.endswith("s"):
                r.row_noun = spans[k].text
                take(k)  # "how many games were at Braly Stadium": the rows
            if k < n and spans[k].kind in ("column", "dataset") and k not in used:
                if (
                    r.top
                    and word(i, "by")
                    and spans[k].kind == "column"
                    and any(c.type == "number" for c in spans[k].targets)
                ):
                    r.measures.append(spans[k])
                    take(i, k)  # "top 2 products per region by amount": what ranks them
                    continue
                r.groups.append(spans[k])
                take(*range(i, k + 1))
                r.loose_each |= word(i, "each", "every")
    for i, s in enumerate(spans):
        if i in used:
            continue
        if s.kind == "column":
            # "order amount": a dataset's name before its column qualifies it
            if i > 0 and spans[i - 1].kind == "dataset":
                owner = spans[i - 1].targets[0].alias
                s.targets = [c for c in s.targets if c.alias == owner] or s.targets
            r.measures.append(s)
            take(i)
        elif s.kind == "dataset":
            r.datasets.append(s)
            take(i)
        elif s.text in ("when", "date", "dates"):
            r.date_words = True
            take(i)
        elif s.text == "times" and word(i - 1, "most", "least", "fewest", "more", "fewer"):
            take(i)  # "the runner-up the most times": the most rows
    if r.same and r.same[1] is None and len(r.values) == 1 and not r.values[0][1]:
        r.same = (r.same[0], r.values.pop()[0])  # "the London pylon has the same height as which pylon"
    if (
        n >= 3
        and word(n - 3, "in", "of", "on", "during", "for", "from")
        and word(n - 2, "this", "the")
        and _row_noun(spans, n - 1, used)
    ):
        take(n - 3, n - 2, n - 1)  # "… in this competition", "… of the league": the table's own scope
    r.speed = any(s.kind == "word" and s.text in SPEED_WORDS and i in used for i, s in enumerate(spans))
    r.dimension = next(
        (
            s.text
            for i, s in enumerate(spans)
            if s.kind == "word" and s.text in DIMENSIONS and i in used and not word(i + 1, "than")
        ),
        "",
    )
    ordered = next(
        (k for k in range(n) if seq(k, ("before", "or", "after")) or seq(k, ("after", "or", "before"))), None
    )
    values = [k for k in range(n) if spans[k].kind == "value"]
    if (
        ordered is not None
        and tokens[0] in ("is", "was", "did", "does", "were", "are")
        and len(values) == 2
        and values[0] < ordered < values[1]
    ):
        # "was Macdonald prime minister before or after Bowell?": which of the two comes first ("after Bowell" is no row after it)
        r.yes_no, r.position, r.values = "before", None, [(spans[values[0]], False), (spans[values[1]], False)]
        take(0, ordered, ordered + 1, ordered + 2, *values)
    if (
        r.same
        and r.than
        and tokens[0] in ("is", "was", "did", "does", "do", "are", "were", "has", "had", "have")
        and len(r.values) == 1
    ):
        # "is K2 taller than Kangchenjunga?", "did A win more or less rounds than B?": a yes or a no, said of two rows
        r.yes_no = (
            "more" if any(seq(k, ("more", "or", "less")) or seq(k, ("less", "or", "more")) for k in range(n)) else "yes"
        )
        take(*(k for k in range(n) if word(k, "more", "less", "or") or k == 0))
    r.listed = bool(
        {"listed", "comes", "came", "come", "appears", "appear", "list", "chart", "table"} & set(tokens)
    )  # the list's own order
    r.choices = [
        (spans[i - 1], spans[i + 1])
        for i, s in enumerate(spans)
        if s.kind == "word"
        and s.text == "or"
        and 0 < i < n - 1
        and spans[i - 1].kind == "value"
        and spans[i + 1].kind == "value"
    ]
    r.choice = bool(r.choices)
    unplaced = [
        s.text for i, s in enumerate(spans) if i not in used and s.text not in STOPWORDS and s.text not in light
    ]
    if r.position:
        # "the first title listed on the chart" where Chart is also a column: the table, not the column
        for k, m in enumerate(spans):
            if (
                m.kind == "column"
                and m.text in TABLE_WORDS
                and word(k - 1, "the", "this")
                and word(k - 2, "on", "in", "of")
                and m in r.measures
            ):
                r.measures.remove(m)
        # words that say the same place in the list again ("the next model listed after X", "the last area on this chart")
        unplaced = [
            w
            for w in unplaced
            if w not in ("next", "listed", "previous", "immediately", "right", "came", "comes", "just")
            and w not in TABLE_WORDS
        ]
    if r.difference:
        # the words that join the two sides of a difference
        unplaced = [w for w in unplaced if w not in ("between", "than", "vs", "versus", "compared", "and", "over")]
    if not ORDER_WORDS & set(tokens):
        # "how many titles are listed", "on this chart": the table itself, unless the order of its
        # rows is asked for ("listed first", "the one before"), which is row order, not a value's
        unplaced = [w for w in unplaced if w not in TABLE_WORDS]
    return r, unplaced


def _same_as(spans: list[Span], i: int) -> tuple[int, int | None, int] | None:
    """At "same" (span i): "same [amount of] COLUMN as [the] VALUE" or "… as which/what …":
    the column's span, the value's span (None when the value is said elsewhere), the end."""
    n = len(spans)
    j = i + 1
    while j < n and spans[j].kind == "word" and spans[j].text in ("amount", "number", "of", "the"):
        j += 1
    if not (j + 1 < n and spans[j].kind == "column" and spans[j + 1].kind == "word" and spans[j + 1].text == "as"):
        return None
    k = j + 2
    while k < n and spans[k].kind == "word" and spans[k].text == "the":
        k += 1
    if k < n and spans[k].kind == "value":
        return j, k, k + 1
    if k < n and spans[k].kind == "word" and spans[k].text in ("which", "what"):
        return j, None, k  # the value is named before "same"; "which pylon" is read as the question it is
    return None


def _than(spans: list[Span], i: int) -> tuple[str, int | None, int, int] | None:
    """At "than" (span i): "more COLUMN than [the] VALUE" or "taller than [the] VALUE": the
    comparison, the column's span (None: the size word says it), the value's span, the start."""
    n = len(spans)
    k = i + 1
    while k < n and spans[k].kind == "word" and spans[k].text == "the":
        k += 1
    if not (k < n and spans[k].kind == "value"):
        return None
    before = spans[i - 1] if i > 0 else None
    if (
        before is not None
        and before.kind == "column"
        and i > 1
        and spans[i - 2].kind == "word"
        and spans[i - 2].text in THAN_WORDS
    ):
        return THAN_WORDS[spans[i - 2].text], i - 1, k, i - 2
    if (
        before is not None
        and before.kind == "word"
        and before.text in THAN_WORDS
        and before.text in THAN_SIZES
        and not (i > 1 and spans[i - 2].kind == "word" and spans[i - 2].text in PLACE_VERBS)
    ):
        return THAN_WORDS[before.text], None, k, i - 1
    return None


def _row_noun(spans: list[Span], k: int, used: set[int]) -> bool:
    """Whether span k is a noun no column names that may say what the rows are: not a word of the
    reading's grammar, not a noun of an amount, not a word of the reading's own."""
    if not (0 <= k < len(spans)) or k in used or spans[k].kind != "word":
        return False
    text = spans[k].text
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


def _quarter(year: int, q: int) -> tuple[str, list]:
    first = 3 * q - 2
    last = calendar.monthrange(year, first + 2)[1]
    return ("between", [f"{year}-{first:02d}-01", f"{year}-{first + 2:02d}-{last}"])
