"""Text matched inside cells: "players whose names contain 'son'", "titles that start with 'The'",
"cities ending in 'burg'", "teams with 'United' in their name". The text is read from the task as
written (quoted, or one clear word), its words taken out of the task before the rest is read, and
it becomes a `like` filter (case ignored, as text equality is) on the one text column the task
names for it; where no one column is named, or an unquoted word may describe rather than quote
("names that begin with a vowel"), there is no filter but a reason."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from .columns import label_column
from .schemas import ColumnSchema
from .spans import Span
from .vocabulary import WORD, grammar_words, words

QUOTE = '"'  # the token that stands for the text matched: words() never makes one, no phrase holds one

# The words before the text, and what they test: contains, starts or ends.
TEST_PHRASES: dict[tuple[str, ...], str] = {
    **{(w,): "contains" for w in ("contain", "contains", "containing", "contained")},
    **{(w,): "contains" for w in ("include", "includes", "including", "included")},
    **{(w, "with"): "starts" for w in ("start", "starts", "starting", "started", "begin", "begins", "beginning")},
    ("began", "with"): "starts",
    **{(w, p): "ends" for w in ("end", "ends", "ending", "ended") for p in ("in", "with")},
}
# "teams with 'United' in their name", "songs that had the word 'love' in the title": the text held
# in a column said after it.
HOLD_PHRASES: dict[tuple[str, ...], str] = {
    **{(w,): "contains" for w in ("have", "has", "had", "having", "with", "feature", "features", "featuring")},
    **{p: "contains" for p, op in TEST_PHRASES.items() if op == "contains"},
}
# "the letter c", "the word 'blood'": words that say the text after them is quoted as written.
QUOTING_WORDS = {
    "letter",
    "letters",
    "word",
    "words",
    "string",
    "text",
    "prefix",
    "suffix",
    "character",
    "characters",
    "digit",
    "digits",
    "phrase",
    "term",
}
_ARTICLES = ("a", "an")
_INCLUDE_WORDS = ("include", "includes", "including", "included")  # "including playoff games": no text unquoted
_NAMED_WORDS = ("name", "names", "title", "titles")  # "… dhaivata in their name": a word held in a name
_POSSESSIVES = ("their", "its", "the", "his", "her")
_NAME_WORDS = ("name", "names")
_OWNER_WORDS = ("whose", "with", "have", "has", "had", "having")
_LINK_WORDS = ("that", "which", "who", "to")
_NOT_WORDS = ("not", "never")
# Every word this reading takes out of a task: the answer check needs no column or value for them.
LIKE_WORDS = (
    {w for p in (*TEST_PHRASES, *HOLD_PHRASES) for w in p}
    | QUOTING_WORDS
    | set(_POSSESSIVES)
    | set(_NAME_WORDS)
    | set(_OWNER_WORDS)
    | {"in", "with", "not", "never", "don", "doesn", "didn"}
)

_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|‘([^’]+)’|(?<!\w)'([^']+)'(?!\w)")


@dataclass(frozen=True)
class Quoted:
    """The text a task matches, as written, and how it was said: in quotes ("quoted"), after
    "the letter" or as one letter or digit ("letter"), or as one bare word ("word", which may
    describe rather than quote: it must be in a cell of the column to be read as written)."""

    text: str
    how: str


@dataclass(frozen=True)
class Like:
    """A text test the task names: of what text, the rows it is about (`subject`: "players"), the
    column it names for the text (`named`: "names", "the title"), negated or not."""

    op: str  # contains, starts, ends
    quoted: Quoted
    negated: bool
    subject: Span | None
    named: Span | None


def tokens(task: str) -> tuple[list[str], list[Quoted]]:
    """The task's words (as reading.words() reads them), with the text each text test matches
    (after "containing", "starting with", "ending in", before "in their name") as one QUOTE
    token, and those texts in order."""
    lowered = task.lower().replace("_", " ")
    if len(lowered) != len(task):  # a letter whose lower case is longer: no offsets to read by
        return words(task), []
    found = [(m.group(), m.start(), m.end()) for m in WORD.finditer(lowered)]
    quotes = [(m.start(), m.end(), next(g for g in m.groups() if g is not None)) for m in _QUOTED.finditer(task)]
    out: list[str] = []
    texts: list[Quoted] = []
    k = 0
    while k < len(found) or quotes:
        quote = quotes[0] if quotes and (k == len(found) or quotes[0][0] <= found[k][1]) else None
        if quote is not None:
            quotes.pop(0)
            inside = [f for f in found[k:] if f[1] < quote[1]]
            after = [f[0] for f in found[k + len(inside) :][:3]]
            if _tested(out) or (_held(out) and _in_a_column(after)):
                # "the letters 'du'": letters, not a word; a quote of symbols alone ('\\') is a text too
                texts.append(Quoted(quote[2], "letter" if out and out[-1] in QUOTING_WORDS else "quoted"))
                out.append(QUOTE)
                k += len(inside)
            continue
        word, start, end = found[k]
        how = _unquoted(out, found, k, task)
        if how:
            texts.append(Quoted(task[start:end], "letter" if len(word) == 1 else how))
        out.append(QUOTE if how else word)
        k += 1
    return out, texts


def _tested(before: list[str]) -> str:
    """How a text right after these words is said, when they end with a text test ("containing",
    "starting with the letter"): "letter" (after a quoting word), "article" (after a or an),
    "word" (then also "bare": "ending in", not "including", may take a word unquoted); "" when
    they do not. "An end in round nine" is no test: an article before it makes it a noun."""
    how = "word"
    if before and before[-1] in _ARTICLES:
        before, how = before[:-1], "article"
    elif before and before[-1] in QUOTING_WORDS:
        before = before[:-2] if len(before) > 1 and before[-2] == "the" else before[:-1]
        how = "letter"
    phrase = next((p for p in TEST_PHRASES if tuple(before[-len(p) :]) == p), None)
    if phrase is None or (len(before) > len(phrase) and before[-len(phrase) - 1] in ("a", "an", "the")):
        return ""
    return "bare" if how == "word" and phrase[0] not in _INCLUDE_WORDS else how


def _held(before: list[str]) -> str:
    """How a text right after these words is said, when they end as "have", "with the word",
    "include" do before a text held in a column: "letter" after a quoting word, else "word"."""
    how = "word"
    if before and before[-1] in QUOTING_WORDS:
        before = before[:-2] if len(before) > 1 and before[-2] == "the" else before[:-1]
        how = "letter"
    return how if any(tuple(before[-len(p) :]) == p for p in HOLD_PHRASES) else ""


def _in_a_column(after: list[str]) -> bool:
    """ "in their name", "in the title": the words after a text held in a column."""
    return len(after) >= 3 and after[0] == "in" and after[1] in _POSSESSIVES


def _unquoted(before: list[str], found: list[tuple[str, int, int]], k: int, task: str) -> str:
    """How the unquoted word found[k] is said as a text tested, or "" when it is not one: one
    letter or digit after "a"/"an" ("start with an s"); a word or number after "the letter" or
    "the word"; else one word of letters that ends its clause ("cities ending in burg?", "…
    dhaivata in their name"), which no word of the reading's own is ("starting with the 2007
    season")."""
    word = found[k][0]
    after = [f[0] for f in found[k + 1 : k + 4]]
    how = _tested(before)
    if how == "word":
        how = ""  # "including playoff games", "not including deaths": after an include word, quoted only
    if how == "bare":
        gap = task[found[k][2] : found[k + 1][1]] if k + 1 < len(found) else ""
        if not (k + 1 == len(found) or re.search(r"[?.,!;:]", gap) or after[0] in ("and", "or")):
            return ""  # "which album contains no original music": more words of the text may follow
        how = "word"
    elif not how:
        how = _held(before)
        if not (how and _in_a_column(after) and (how == "letter" or after[2] in _NAMED_WORDS)):
            return ""
    if how == "article":
        return "letter" if len(word) == 1 and word.isalnum() else ""
    if how == "letter":
        return how if word.isalnum() else ""
    return how if word.isalpha() and (len(word) == 1 and word != "a" or word not in grammar_words()) else ""


def read_likes(spans: list[Span], texts: list[Quoted]) -> tuple[list[Span], list[Like]] | str:
    """The text tests in a task's spans, and the spans left for the rest of the reading (the words
    of each test taken out, its subject left in: "how many players" is still what is counted).
    A string says why a test cannot be read."""
    found: list[_Found] = []
    drop: set[int] = set()
    quotes = [i for i, s in enumerate(spans) if s.kind == "word" and s.text == QUOTE]
    if len(quotes) != len(texts):
        return "the built-in proposer could not read a quoted text apart from the words around it"
    n = len(spans)

    def word(i: int, *texts_: str) -> bool:
        return 0 <= i < n and spans[i].kind == "word" and spans[i].text in texts_

    def ending(i: int, table: dict) -> tuple[int, str] | None:
        for phrase, op in table.items():
            start = i - len(phrase) + 1
            if start >= 0 and all(word(start + k, p) for k, p in enumerate(phrase)):
                return start, op
        return None

    for q, quoted in zip(quotes, texts):
        k = q - 1
        if word(k, *QUOTING_WORDS, *_ARTICLES):
            k -= 2 if word(k - 1, "the") and not word(k, *_ARTICLES) else 1
        tested, held = ending(k, TEST_PHRASES), ending(k, HOLD_PHRASES)
        named = None
        last = q
        if held and word(q + 1, "in") and word(q + 2, *_POSSESSIVES) and q + 3 < n:
            # "teams with 'United' in their name": the text held in the column said after it
            named = spans[q + 3]
            if not (named.kind == "column" or word(q + 3, *_NAME_WORDS)):
                return f"'in {spans[q + 2].text} {named.text}' names no column to look for '{quoted.text}' in"
            start, op, last = held[0], held[1], q + 3
        elif tested:
            start, op = tested
        else:
            return f"the built-in proposer cannot read what '{quoted.text}' is to be found in"
        m, negated = start - 1, False
        while m >= 0:  # "that", "who", "to"; "do not", "don't", "never": the test negated
            if word(m, *_LINK_WORDS, "listed"):
                m -= 1
            elif word(m, *_NOT_WORDS):
                negated, m = True, m - (2 if word(m - 1, "do", "does", "did") else 1)
            elif word(m, "t") and word(m - 1, "don", "doesn", "didn"):
                negated, m = True, m - 2
            else:
                break
        if word(m, "and") and found and found[-1].end == m - 1:
            # "starting with 'A' and ending with 'n'": the same rows and column as the test before
            found.append(_Found(op, quoted, negated, found[-1].subject, found[-1].named, last))
            drop.update(range(m, last + 1))
            continue
        first = m + 1
        m = _past_values(spans, m)
        subject = spans[m] if m >= 0 else None
        if word(m - 1, "of") and m > 1 and (spans[m - 2].kind == "column" or _noun(spans[m - 2])):
            # "how many titles of albums start with 'The'": the titles', or the albums'?
            return (
                f"'{spans[m - 2].text} of {spans[m].text}' does not say which column '{quoted.text}' is looked for in"
            )
        if named is None and subject is not None and (subject.kind == "column" or word(m, *_NAME_WORDS)):
            o = m - 1
            while word(o, *_POSSESSIVES, *_ARTICLES):
                o -= 1
            if word(o, *_OWNER_WORDS):
                # "players whose names contain …", "countries with a name that begins with …"
                named = subject
                while word(o, *_OWNER_WORDS, *_POSSESSIVES, *_ARTICLES):
                    o -= 1
                first = o + 1
                o = _past_values(spans, o)
                subject = spans[o] if o >= 0 else None
            elif word(m, *_NAME_WORDS):
                named, subject, first = subject, None, m  # "how many names start with 'A'"
        if subject is not None and subject.kind == "word" and subject.text in ("and", "or", QUOTE):
            return f"the built-in proposer cannot read which rows '{quoted.text}' is looked for in"
        found.append(_Found(op, quoted, negated, subject, named, last))
        drop.update(range(first, last + 1))
    # "the first title listed that starts with 'N'": "listed" says the list's order, read with the rest
    left = [s for i, s in enumerate(spans) if i not in drop or (s.kind == "word" and s.text == "listed")]
    return left, [Like(f.op, f.quoted, f.negated, f.subject, f.named) for f in found]


def _noun(span: Span) -> bool:
    return span.kind == "word" and span.text.isalpha() and span.text not in grammar_words()


def _past_values(spans: list[Span], m: int) -> int:
    """The span the rows are named by, back from span m past the values that narrow them ("players
    of team Red have names …", "towns in the North region end in …": players, towns), with the
    words between and the column said beside its value; m itself when it is no value."""
    k, beside = m, False
    if k > 0 and spans[k].kind == "column" and spans[k - 1].kind == "value":
        if {c for c, _ in spans[k - 1].targets} & set(spans[k].targets):
            k, beside = k - 1, True  # "the North region": the value's column said after it, not the rows'
    while k >= 0 and spans[k].kind == "value":
        held = {c for c, _ in spans[k].targets}
        k -= 1
        while k >= 0 and (
            spans[k].kind == "word"
            and spans[k].text in ("of", "from", "in", "at", "on", "for", "the")
            or spans[k].kind == "column"
            and held & set(spans[k].targets)
        ):
            k -= 1
    if k != m and k >= 0 and spans[k].kind in ("column", "dataset"):
        return k
    return -1 if beside else m


@dataclass(frozen=True)
class _Found:
    op: str
    quoted: Quoted
    negated: bool
    subject: Span | None
    named: Span | None
    end: int


def column_of(like: Like) -> ColumnSchema | str:
    """The one text column a test is on: the column named for the text ("names", "the title"), else
    the column of the rows it is about ("titles start with …"); why not, when neither says one,
    they say different ones, or an unquoted word is in no cell of it (it may describe the text:
    "a vowel")."""
    text = like.quoted.text
    named = like.named if like.named is not None and like.named.kind == "column" else None
    subject = like.subject if like.subject is not None and like.subject.kind == "column" else None
    said = named or subject
    if said is None and like.subject is not None and like.subject.kind == "dataset":
        # "how many players have names containing 'son'" over players.csv: its column of names
        label = label_column(like.subject.targets[0])
        said = Span(like.subject.start, like.subject.end, "column", [label], like.subject.text) if label else None
    if said is None:
        return f"the task does not say which column '{text}' is looked for in: name it"
    columns = list(dict.fromkeys(c for c in said.targets if c.type == "string"))
    if not columns:
        return f"'{said.text}' is no column of text to look for '{text}' in"
    if named is not None and subject is not None:
        others = {c for c in subject.targets if c.type == "string"}
        if others and others != set(columns):
            return f"'{subject.text}' and '{named.text}' are different columns: say which holds '{text}'"
    if len(columns) > 1:
        return f"'{said.text}' names several columns ({', '.join(c.name for c in columns)}): name the one that holds '{text}'"
    (column,) = columns
    if like.quoted.how == "word" and not any(text.lower() in v.lower() for v in column.values):
        # "names that begin with a vowel", "titles ending in numbers": a word no cell holds may
        # say what the text is rather than be it
        return f"no {column.name} holds '{text}': if the text is meant as written, put it in quotes"
    return column


def unsure(like: Like, column: ColumnSchema, others: tuple[ColumnSchema, ...] = ()) -> str:
    """The question to ask when the cells leave the test open, or "": a cell of another column
    (of `others`) is the text whole, and no column is named for it ("which album contains
    yesterday": the album with the track Yesterday, or one whose title holds the word?); a cell
    holds the text written another way, with other punctuation, spacing, case or accents
    ("Bull-Dog Drummond" for 'bulldog drummond'), which the text as written misses; or some cells
    hold a word of text as a word ("The Sea") and others inside a longer one ("Theory"): the
    word, or its letters? Not asked of a letter ("the letter c"), nor where a column's values are
    too many to be shown (the text is then matched as written)."""
    text = like.quoted.text.lower()
    holder = next((c for c in others if c != column and any(v.lower() == text for v in c.values)), None)
    if like.op == "contains" and like.named is None and holder is not None:
        return (
            f"'{like.quoted.text}' is a {holder.name} of its own: the rows whose {holder.name} it is, "
            f"or those whose {column.name} holds it?"
        )
    loose = lambda cell: "".join(ch for ch in unicodedata.normalize("NFKD", cell.lower()) if ch.isalnum())
    holds = {"contains": lambda v, t: t in v, "starts": str.startswith, "ends": str.endswith}[like.op]
    want = loose(text)
    # written in plain words ("bulldog drummond"), not a letter ('ü' is no 'u') nor with symbols
    # said on purpose ('_1', '50%')
    plain = len(want) >= 3 and all(ch.isalnum() or ch == " " for ch in text)
    missed = [v for v in column.values if plain and holds(loose(v), want) and not holds(v.lower(), text)]
    if missed:
        return (
            f"{column.name} holds {missed[0]!r}, which has '{like.quoted.text}' written another way: "
            "say whether it counts (or write the text as that cell has it)"
        )
    if like.quoted.how == "letter" or len(text) < 2 or not text[0].isalnum() or not text[-1].isalnum():
        return ""
    edges = {"contains": r"(?<!\w){}(?!\w)", "starts": r"^{}(?!\w)", "ends": r"(?<!\w){}$"}[like.op]
    word = re.compile(edges.format(re.escape(text)))
    matched = [v for v in column.values if holds(v.lower(), text)]
    whole = [v for v in matched if word.search(v.lower())]
    part = [v for v in matched if not word.search(v.lower())]
    if whole and part:
        return (
            f"'{like.quoted.text}' is a word in {whole[0]!r} and part of one in {part[0]!r}: "
            "the word, or the letters wherever they are?"
        )
    return ""


def like_filter(name: str, like: Like) -> dict:
    """The `like` filter of a test on the column called `name` in the plan: the text as written
    (`%`, `_` and `\\` in it escaped), case ignored; negated, an empty cell holds no text either."""
    text = like.quoted.text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    pattern = {"contains": f"%{text}%", "starts": f"{text}%", "ends": f"%{text}"}[like.op]
    test = {"column": name, "op": "not_like" if like.negated else "like", "value": pattern, "ignore_case": True}
    return {"any": [{"column": name, "op": "is_null"}, test]} if like.negated else test
