"""The words of a task (`words`, `singular`) and the tables of words the built-in reading knows:
what each word asks (a calculation, a ranking, a comparison, a period, a place in the list) and the
words it lets go. Tables of words, not branches per phrasing."""

from __future__ import annotations

import calendar
import re

from .schemas import DatasetSchema

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
COMPARE: dict[tuple[str, ...], str] = {
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
