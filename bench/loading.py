"""How well tabular gets the shape of damaged CSV files right, against DuckDB's automatic read_csv.

    python bench/loading.py                     # every clean table x every pollution kind (~1.5 min)
    python bench/loading.py --quick             # the three smallest tables
    python bench/loading.py --kind total_row --detail   # one kind, each file that scored below 1
    python bench/loading.py --corpus [DIR] [--base REV] # shapes of the real files, this tree against REV

A few clean tables of our own (`TABLES`: English, German with decimal commas and `;`, French with
accents; 2 to 12 columns; 20 to 2,000 rows) are written as a clean CSV and as one polluted variant
per kind (`KINDS`, one generator each), every variant with its clean truth: the header names, the
records, the cells. Each file is loaded by tabular (ingest, then `ns.read` of every dataset) and
by DuckDB (`read_csv` with its defaults), in one run, and scored against the truth (`score`):

- header F1: the multiset of names, trimmed, case-folded, every run of non-letters and non-digits
  one space (so `Unit Price` and `unit_price` are one name); a headerless read has no names;
- record F1: the multiset of rows, each a tuple of its values with trailing nulls dropped;
- cell F1: the multiset of (column position, value) over non-null cells.

Values are compared as values (`canon`): numbers by Decimal value whatever their group marks,
unit or decimal mark (the table's own), dates and datetimes by the day in the table's stated
order, times by the clock, text trimmed. The score out of 10 is the mean of the three F1 x 10.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from datetime import time as clock
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
EXTENSIONS = {".csv", ".tsv", ".txt", ".prn"}
MAX_BYTES = 50 * 1024 * 1024  # corpus files past this are skipped, as bench/typing_vs_duckdb.py does
WAIT = 60.0  # seconds for one tabular ingest
DUCKDB_TIMEOUT = 30.0


# --- the clean tables ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """A clean table as written: every cell its text ("" for empty). `decimal_mark` and
    `date_order` say how its numbers and slashed dates are written, for reading values back."""

    name: str
    header: list[str]
    rows: list[list[str]]
    sep: str = ","
    decimal_mark: str = "."
    date_order: str = "MDY"
    text: tuple[int, ...] = ()  # columns of words, where pollution puts quotes and separators
    amount: int = -1  # the numeric column a total row sums
    groups: tuple[str, str] = ("Details", "Figures")  # a group row's two names
    units: tuple[str, ...] = ()  # a third header row's unit per column ("" for none)

    @property
    def width(self) -> int:
        return len(self.header)


def money(d: Decimal, mark: str = ".", unit: str = "$") -> str:
    whole, cents = f"{d:,.2f}".split(".")
    if mark == ",":
        return f"{whole.replace(',', '.')},{cents}{' ' + unit if unit else ''}"
    return f"{unit}{whole}.{cents}"


def cents(rng: random.Random, low: int, high: int) -> Decimal:
    return Decimal(rng.randint(low * 100, high * 100)) / 100


def some_date(rng: random.Random, start: int = 2015) -> date:
    return date(rng.randint(start, 2024), rng.randint(1, 12), rng.randint(1, 28))


def sales_en(n: int = 200) -> Table:
    rng = random.Random(1)
    products = ["Widget, large", 'Bolt 3/8"', "Gasket", "Hinge (brass)", "Cable, 2 m", "Lamp"]
    rows = []
    for i in range(n):
        qty, price = rng.randint(1, 400), cents(rng, 1, 90)
        d = some_date(rng)
        rows.append(
            [
                str(1000 + i),
                f"{d.month:02d}/{d.day:02d}/{d.year}",
                rng.choice(["North", "South", "East", "West"]),
                rng.choice(products),
                str(qty),
                f"{price:.2f}",
                money(price * qty),
            ]
        )
    header = ["Order ID", "Order Date", "Region", "Product", "Quantity", "Unit Price", "Total"]
    units = ("", "", "", "", "(units)", "(USD)", "(USD)")
    return Table("sales_en", header, rows, text=(2, 3), amount=6, groups=("Order", "Amounts"), units=units)


def lager_de(n: int = 500) -> Table:
    rng = random.Random(2)
    lager = ["Müller & Söhne", "Straßenbau Nord", "Größe, klein", "Bäckerei Kühn", "Lager Süd"]
    rows = []
    for _ in range(n):
        d = some_date(rng)
        rows.append(
            [
                f"{d.day:02d}.{d.month:02d}.{d.year}",
                rng.choice(lager),
                f"A-{rng.randint(1, 999):03d}",
                str(rng.randint(1, 5000)),
                money(cents(rng, 1, 20000), ",", "€"),
                f"{Decimal(rng.randint(1, 9999)) / 1000}".replace(".", ","),
            ]
        )
    header = ["Datum", "Lager", "Artikel", "Menge", "Preis", "Gewicht (kg)"]
    units = ("", "", "", "(Stück)", "(EUR)", "")
    return Table(
        "lager_de", header, rows, ";", ",", "DMY", text=(1,), amount=3, groups=("Bestand", "Werte"), units=units
    )


def villes_fr(n: int = 60) -> Table:
    rng = random.Random(3)
    names = ["Hélène Dubois", "François Lefèvre", "Zoé Garçon", "Jérôme Bélanger", "Anaïs Noël"]
    towns = ["Besançon", "Saint-Étienne", "Paris, 5e", "Orléans", "Nîmes"]
    rows = []
    for _ in range(n):
        d = some_date(rng)
        rows.append(
            [rng.choice(names), rng.choice(towns), f"{d.day:02d}/{d.month:02d}/{d.year}", f"{cents(rng, 0, 900):.2f}"]
        )
    header = ["Nom", "Ville", "Date d'arrivée", "Montant"]
    return Table(
        "villes_fr", header, rows, date_order="DMY", text=(0, 1), amount=3, groups=("Personne", "Séjour"), units=()
    )


def sample_xy(n: int = 20) -> Table:
    rng = random.Random(4)
    rows = [[str(i * 5), f"{rng.uniform(-3, 3):.4f}"] for i in range(n)]
    return Table("sample_xy", ["Time", "Reading"], rows, amount=1, groups=("", "Sensor"), units=("(s)", "(mV)"))


def hits(n: int = 20) -> Table:
    """A crowdsourcing platform's export: a task's description (with `;`) the same on every line."""
    rng = random.Random(5)
    header = ["HITId", "HITTypeId", "Title", "Description", "Keywords", "Reward", "CreationTime", "MaxAssignments"]
    header += ["AssignmentDurationInSeconds"]
    rows = []
    for _ in range(n):
        created = f"Tue Feb 11 {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00 PST 2017"
        rows.append(
            [
                f"3{rng.randint(10**8, 10**9)}XK",
                "3QX0KTYPE",
                "Transcribe a short audio clip",
                "Listen to the clip; type what you hear; no punctuation",
                "audio, transcription",
                f"${rng.choice(['0.05', '0.10', '0.25'])}",
                created,
                str(rng.choice([1, 3, 5])),
                "3600",
            ]
        )
    return Table("hits", header, rows, text=(2, 3, 4), amount=5, groups=("Task", "Terms"))


def survey_wide(n: int = 2000) -> Table:
    rng = random.Random(6)
    cities = ["Leeds", "York", "Bath", "Hull", "Ely"]
    comments = ["fine", 'said "ok"', "late, again", "none", "good, thanks", 'the "new" one']
    rows = []
    for i in range(n):
        born = some_date(rng, 1950)
        rows.append(
            [
                str(i + 1),
                f"R{rng.randint(1, 99999):05d}",
                f"2021-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}",
                born.strftime("%d %b %Y"),
                str(rng.randint(18, 90)),
                f"{rng.uniform(0, 100):.3f}",
                money(Decimal(rng.randint(1000, 200000))),
                rng.choice(cities),
                rng.choice(comments),
                str(rng.randint(0, 50)),
                f"{rng.randint(1, 10) / 2:.1f}",
                rng.choice(["yes", "no"]),
            ]
        )
    header = ["ID", "Respondent", "Submitted", "Born", "Age", "Score", "Income", "City", "Comment", "Visits"]
    header += ["Rating", "Consent"]
    return Table("survey_wide", header, rows, text=(7, 8), amount=4, groups=("Respondent", "Answers"))


def tables(quick: bool = False) -> list[Table]:
    made = [sample_xy(), hits(), villes_fr()]
    return made if quick else [*made, sales_en(), lager_de(), survey_wide()]


# --- writing and the truth ----------------------------------------------------------------------


@dataclass
class Truth:
    """One table as a clean load gives it."""

    header: list[str]
    rows: list[list[str]]


@dataclass
class Variant:
    text: str
    truth: list[Truth]
    decimal_mark: str = "."
    date_order: str = "MDY"


def field_text(value: str, sep: str, quote: str = '"', always: bool = False) -> str:
    if always or sep in value or quote in value or "\n" in value or "\r" in value:
        return quote + value.replace(quote, quote * 2) + quote
    return value


def line(fields: list[str], sep: str, quote: str = '"', always: bool = False) -> str:
    return sep.join(field_text(f, sep, quote, always) for f in fields)


def csv_text(t: Table, header: list[str] | None = None, rows: list[list[str]] | None = None, nl: str = "\n") -> str:
    lines = [line(header if header is not None else t.header, t.sep)]
    lines += [line(r, t.sep) for r in (t.rows if rows is None else rows)]
    return nl.join(lines) + nl


def variant(t: Table, text: str, truth: list[Truth] | None = None, rows: list[list[str]] | None = None) -> Variant:
    truth = truth or [Truth(list(t.header), [list(r) for r in (t.rows if rows is None else rows)])]
    return Variant(text, truth, t.decimal_mark, t.date_order)


def with_text(t: Table, every: int, change: Callable[[str], str]) -> list[list[str]]:
    """The rows with every `every`-th row's text cells changed."""
    return [[change(v) if i % every == 0 and c in t.text else v for c, v in enumerate(r)] for i, r in enumerate(t.rows)]


def other_sep(t: Table) -> str:
    return "," if t.sep == ";" else ";"


# --- the pollution kinds, one generator each ----------------------------------------------------


def clean(t: Table) -> Variant:
    return variant(t, csv_text(t))


def quoted_other_sep(t: Table) -> Variant | None:
    """Every field quoted (a crowdsourcing export), a text column holding the other separator in
    every row (a task's description, the same on every line) and another in some rows."""
    if not t.text:
        return None  # a table without text has nothing to quote
    first, *rest = t.text
    rows = [
        [f"{v}{other_sep(t)} see note" if c == first or (c in rest and i % 3 == 0) else v for c, v in enumerate(r)]
        for i, r in enumerate(t.rows)
    ]
    text = "".join(line(r, t.sep, always=True) + "\n" for r in [t.header, *rows])
    return variant(t, text, rows=rows)


def header_extra_sep(t: Table) -> Variant:
    """A header with one separator too many: `DATE,TIME,Qty,,PRODUCTID` over 4-field rows."""
    at = min(3, t.width - 1)
    return variant(t, csv_text(t, header=[*t.header[:at], "", *t.header[at:]]))


def header_extra_name(t: Table) -> Variant:
    """A name more than the rows have fields: a 4-name header over 3-field rows (the last column
    empty in every row)."""
    return variant(t, csv_text(t, header=[*t.header, "Notes"]), [Truth([*t.header, "Notes"], t.rows)])


def title_wider(t: Table) -> Variant:
    """A title line with more fields than the data (`Created as New Dataset,Sample 022, February 11 2017`)."""
    words = ["Created as New Dataset", "Sample 022", " February 11 2017"]
    words += [f" part {i}" for i in range(t.width + 1 - len(words))]
    return variant(t, t.sep.join(words[: max(3, t.width + 1)]) + "\n" + csv_text(t))


def title_padded(t: Table) -> Variant:
    """Title lines padded with separators (`Department for Work and Pensions,,,,,,`) before the header."""
    pad = t.sep * (t.width - 1)
    return variant(t, f"Department for Work and Pensions{pad}\nMinisterial overseas travel{pad}\n{pad}\n" + csv_text(t))


def group_names(t: Table) -> list[str]:
    """The group row: the first column without a group, each group's name over its first column."""
    mid = max(1, (t.width + 1) // 2)
    row = [""] * t.width
    if t.width > 1:
        row[1], row[mid if mid < t.width else 1] = t.groups[0], t.groups[1]
    return row


def spread(row: list[str]) -> list[str]:
    """A merged group cell's name carried right, as a person reads it."""
    out, last = [], ""
    for i, v in enumerate(row):
        last = v or (last if i else "")
        out.append(last)
    return out


def joined(*rows: list[str]) -> list[str]:
    return [" ".join(p for p in parts if p) for parts in zip(*rows)]


def header_group(t: Table) -> Variant:
    """A group name over the names (a merged cell exported: the name once, then empty cells)."""
    groups = group_names(t)
    text = line(groups, t.sep) + "\n" + csv_text(t)
    return variant(t, text, [Truth(joined(spread(groups), t.header), t.rows)])


def header_three_rows(t: Table) -> Variant:
    """Groups, names and units over three rows: "Water consumption Total consumption (m3)"."""
    groups, units = group_names(t), list(t.units or [""] * t.width)
    if not any(units):
        units[-1] = "(EUR)"
    text = line(groups, t.sep) + "\n" + line(t.header, t.sep) + "\n" + line(units, t.sep) + "\n"
    text += "".join(line(r, t.sep) + "\n" for r in t.rows)
    return variant(t, text, [Truth(joined(spread(groups), t.header, units), t.rows)])


def header_repeated(t: Table) -> Variant:
    return variant(t, line(t.header, t.sep) + "\n" + csv_text(t))


def sep_space(t: Table) -> Variant:
    """`, ` as the separator (comma and a space), the text quoted after the space."""
    sep = t.sep + " "
    rows = [[field_text(v, t.sep, always=c in t.text) for c, v in enumerate(r)] for r in t.rows]
    text = "".join(sep.join(r) + "\n" for r in [[field_text(h, t.sep) for h in t.header], *rows])
    return variant(t, text)


def single_quotes(t: Table) -> Variant | None:
    """Single-quote quoting (`1,1,'di4-iN.wav','di'`)."""
    if not t.text:
        return None  # a table without text has nothing to quote
    rows = [[field_text(v, t.sep, "'", always=c in t.text) for c, v in enumerate(r)] for r in t.rows]
    header = [field_text(h, t.sep, "'") for h in t.header]
    return variant(t, "".join(t.sep.join(r) + "\n" for r in [header, *rows]))


def number_of(text: str, mark: str) -> Decimal:
    return canon(text, mark, "MDY")[1]


def total_row(t: Table) -> Variant:
    """A total row at the end (`Total,,,"24,708.55",`) stating the sum of a number column, written
    as the column is."""
    column = [r[t.amount] for r in t.rows]
    total = sum(number_of(v, t.decimal_mark) for v in column)
    written = column[0]
    if written.startswith("$") or written.endswith("€"):
        text = money(total, t.decimal_mark, "$" if written.startswith("$") else "€")
    elif "," in written and t.decimal_mark == ".":
        text = f"{total:,.2f}"
    else:
        places = len(written.split(t.decimal_mark)[1]) if t.decimal_mark in written else 0
        text = f"{total:.{places}f}".replace(".", t.decimal_mark)
    last = [""] * t.width
    last[0], last[t.amount] = "Total", text
    return variant(t, csv_text(t) + line(last, t.sep) + "\n")


def time_stray(t: Table) -> Variant:
    """A column of times, one of them a stray `1`."""
    rng = random.Random(len(t.rows))
    times = [f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}" for _ in t.rows]
    times[len(times) // 2] = "1"
    rows = [[*r, v] for r, v in zip(t.rows, times)]
    truth = Truth([*t.header, "Duration"], rows)
    return variant(t, csv_text(t, header=truth.header, rows=rows), [truth])


def no_final_newline(t: Table) -> Variant:
    return variant(t, csv_text(t).rstrip("\n"))


def blank_lines(t: Table) -> Variant:
    lines = csv_text(t).splitlines()
    text = "\n".join(v + ("\n" if i % 9 == 4 else "") for i, v in enumerate(lines))
    return variant(t, "\n" + text + "\n\n\n")


def comment_lines(t: Table) -> Variant:
    lines = csv_text(t).splitlines()
    lines.insert(len(lines) // 2, "# checkpoint: half of the rows")
    return variant(t, "# exported by ledger-tool 2.1\n# one row per entry\n" + "\n".join(lines) + "\n")


def mixed_newlines(t: Table) -> Variant:
    lines = csv_text(t).splitlines()
    return variant(t, "".join(v + ("\r\n" if i % 2 else "\n") for i, v in enumerate(lines)))


def bom(t: Table) -> Variant:
    return variant(t, "\ufeff" + csv_text(t, nl="\r\n"))


def quotes_in_values(t: Table) -> Variant | None:
    """Quotes inside values, doubled in quoted fields (`"the ""new"" one"`)."""
    if not t.text:
        return None  # a table without text has nothing to quote
    rows = with_text(t, 4, lambda v: f'the "{v}" one')
    return variant(t, csv_text(t, rows=rows), rows=rows)


def ragged_rows(t: Table) -> Variant:
    """Rows whose empty last cells are left out (fewer fields than the header)."""
    cut = max(1, min(2, t.width - 1))
    rows = [[*r[:-cut], *[""] * cut] if i % 4 == 1 else list(r) for i, r in enumerate(t.rows)]
    text = line(t.header, t.sep) + "\n"
    text += "".join(line(r[:-cut] if i % 4 == 1 else r, t.sep) + "\n" for i, r in enumerate(rows))
    return variant(t, text, rows=rows)


def several_tables(t: Table) -> Variant:
    """Two tables in one file: the rows, a blank line, then a small summary under its own header."""
    column = t.text[0] if t.text else 0
    counts = Counter(r[column] for r in t.rows)
    summary = Truth([t.header[column], "Count"], [[k, str(v)] for k, v in sorted(counts.items())])
    text = csv_text(t) + "\n" + csv_text(t, header=summary.header, rows=summary.rows)
    return variant(t, text, [Truth(list(t.header), t.rows), summary])


def preamble_notes(t: Table) -> Variant:
    notes = "Source: City statistics office, 2021\nFigures are provisional.\n\n"
    return variant(t, notes.replace(",", t.sep) + csv_text(t))


def trailing_notes(t: Table) -> Variant:
    notes = "\nNote: figures are provisional.\nSource: City statistics office, 2021\n"
    return variant(t, csv_text(t) + notes.replace(",", t.sep))


# Each kind's generator; None where the kind does not apply to the table (quotes where it has no text).
KINDS: dict[str, Callable[[Table], Variant | None]] = {
    f.__name__: f
    for f in (
        clean,
        quoted_other_sep,
        header_extra_sep,
        header_extra_name,
        title_wider,
        title_padded,
        header_group,
        header_three_rows,
        header_repeated,
        sep_space,
        single_quotes,
        total_row,
        time_stray,
        no_final_newline,
        blank_lines,
        comment_lines,
        mixed_newlines,
        bom,
        quotes_in_values,
        ragged_rows,
        several_tables,
        preamble_notes,
        trailing_notes,
    )
}


# --- values as values, and the scores ------------------------------------------------------------

TIME = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?")
ISO = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?")
NUMERIC_DATE = re.compile(r"(\d{1,2})([/.\-])(\d{1,2})\2(\d{4})")
NAMED_DATES = ("%d %b %Y", "%d %B %Y", "%b %d, %Y", "%B %d, %Y")
UNITS = re.compile(r"^[$€£]\s*|\s*[$€£%]$|\s*(EUR|USD)$")
NUMBER = {
    ".": re.compile(r"[+-]?(\d{1,3}(,\d{3})+|\d+)?(\.\d+)?"),
    ",": re.compile(r"[+-]?(\d{1,3}(\.\d{3})+|\d+)?(,\d+)?"),
}


BOOLS = {"true": True, "yes": True, "false": False, "no": False}


@lru_cache(maxsize=1 << 18)  # cells repeat; the scores of a 2,000-row table take seconds without it
def text_value(text: str, mark: str, order: str) -> tuple:
    """A cell's text as the value it writes, under the table's decimal mark and date order."""
    if text.casefold() in BOOLS:
        return ("b", BOOLS[text.casefold()])
    if m := TIME.fullmatch(text):
        h, mi, s = m.groups()
        if int(h) < 24:
            return ("t", f"{int(h):02d}:{mi}:{s or '00'}")
    if m := ISO.fullmatch(text):
        y, mo, d, h, mi, s = m.groups()
        try:
            day = date(int(y), int(mo), int(d))
            if h is None or (int(h), int(mi), int(s or 0)) == (0, 0, 0):
                return ("d", day)
            return ("dt", datetime(day.year, day.month, day.day, int(h), int(mi), int(s or 0)))
        except ValueError:
            pass
    if m := NUMERIC_DATE.fullmatch(text):
        a, sep, b, y = m.groups()
        d, mo = (a, b) if order == "DMY" or sep == "." else (b, a)
        try:
            return ("d", date(int(y), int(mo), int(d)))
        except ValueError:
            pass
    for pattern in NAMED_DATES:
        try:
            return ("d", datetime.strptime(text, pattern).date())
        except ValueError:
            pass
    bare = UNITS.sub("", text).strip()
    if bare and NUMBER[mark].fullmatch(bare) and any(ch.isdigit() for ch in bare):
        other = "," if mark == "." else "."
        try:
            return ("n", Decimal(bare.replace(other, "").replace(mark, ".")))
        except InvalidOperation:
            pass
    return ("s", text)


def canon(value, mark: str = ".", order: str = "MDY") -> tuple | None:
    """One value, loaded or written, as a comparable key; None for a null or an empty cell."""
    if value is None:
        return None
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, int | Decimal):
        return ("n", Decimal(value))
    if isinstance(value, float):
        return ("n", Decimal(repr(value))) if value == value and abs(value) != float("inf") else ("s", repr(value))
    if isinstance(value, datetime):
        plain = value.replace(tzinfo=None)
        return ("d", plain.date()) if plain.time() == clock() else ("dt", plain.replace(microsecond=0))
    if isinstance(value, date):
        return ("d", value)
    if isinstance(value, clock):
        return ("t", value.replace(microsecond=0).isoformat())
    if isinstance(value, timedelta):
        if timedelta(0) <= value < timedelta(days=1):
            return ("t", (datetime.min + value).time().replace(microsecond=0).isoformat())
        return ("dur", value.total_seconds())
    text = str(value).strip()
    return text_value(text, mark, order) if text else None


def header_key(name: str) -> str:
    return " ".join(re.sub(r"[^\w]+|_", " ", str(name).casefold()).split())


def f1(truth: Counter, got: Counter) -> float:
    total = sum(truth.values()) + sum(got.values())
    return 1.0 if total == 0 else 2 * sum((truth & got).values()) / total


@dataclass
class Loaded:
    """What one reader gave: its tables (header names, None when it read no header; rows of
    values), and what it said."""

    tables: list[tuple[list[str] | None, list[tuple]]] = field(default_factory=list)
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)


def keys(tables, mark: str, order: str) -> tuple[Counter, Counter, Counter]:
    """The header, record and cell multisets of tables given as (names or None, rows)."""
    names, records, cells = Counter(), Counter(), Counter()
    for header, rows in tables:
        names.update(header_key(n) for n in header or [])
        for row in rows:
            values = [canon(v, mark, order) for v in row]
            while values and values[-1] is None:
                values.pop()
            records[tuple(values)] += 1
            cells.update((c, v) for c, v in enumerate(values) if v is not None)
    return names, records, cells


def truth_keys(v: Variant) -> tuple[Counter, Counter, Counter]:
    return keys([(t.header, t.rows) for t in v.truth], v.decimal_mark, v.date_order)


def score(v: Variant, loaded: Loaded, truth: tuple | None = None) -> tuple[float, float, float]:
    """Header, record and cell F1 of a reader's tables against the variant's truth (its keys,
    when the caller has them already)."""
    if loaded.error:
        return (0.0, 0.0, 0.0)
    truth = truth or truth_keys(v)
    got = keys(loaded.tables, v.decimal_mark, v.date_order)
    return tuple(f1(a, b) for a, b in zip(truth, got))


def out_of_ten(f: tuple[float, float, float]) -> float:
    return 10 * sum(f) / 3


# --- the two readers ----------------------------------------------------------------------------


def load_tabular(ns, path: Path, uri: str) -> Loaded:
    """tabular's ingest of the file, then every dataset it published as `ns.read` gives it."""
    try:
        status = ns.ingest_file(path, source_uri=uri, wait=WAIT, progress=False)
    except Exception as err:  # a crash is a finding, not the end of the run
        return Loaded(error=f"crash: {type(err).__name__}: {err}"[:200])
    if status.state not in ("ready", "partial"):
        return Loaded(error=f"{status.state} {status.error_code}: {status.error_message}"[:200])
    out = Loaded()
    for d in ns.dataset_get(uri).datasets:
        names = [c.header or c.name for c in d.columns] if d.origin.header_rows else None
        out.tables.append((names, ns.read(uri, d.dataset_id).rows()))
        out.warnings += d.warnings
        out.questions += [q.kind for q in d.questions]
    return out


def load_duckdb(con, path: Path) -> Loaded:
    """DuckDB's `read_csv` with every default; `sniff_csv` says whether it took a header."""
    timer = threading.Timer(DUCKDB_TIMEOUT, con.interrupt)
    timer.start()
    try:
        cursor = con.execute("SELECT * FROM read_csv(?)", [str(path)])
        rows = cursor.fetchall()
        names = [d[0] for d in cursor.description]
        header = con.execute("SELECT HasHeader FROM sniff_csv(?)", [str(path)]).fetchone()[0]
    except Exception as err:
        return Loaded(error=f"{type(err).__name__}: {str(err).splitlines()[0]}"[:200])
    finally:
        timer.cancel()
    return Loaded(tables=[(names if header else None, rows)])


# --- the run ------------------------------------------------------------------------------------


@dataclass
class Result:
    kind: str
    table: str
    tabular: tuple[float, float, float]
    duckdb: tuple[float, float, float]
    said: Loaded  # tabular's reading, for its warnings and questions
    duck_error: str | None = None


def machine(tree: Path = ROOT) -> str:
    import duckdb

    cpu = next((ln.split(":", 1)[1].strip() for ln in _cpuinfo() if ln.startswith("model name")), platform.processor())
    return (
        f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}; Python {platform.python_version()}, "
        f"DuckDB {duckdb.__version__}; tabular at {revision(tree)}"
    )


def revision(tree: Path) -> str:
    """The tree's commit, and whether files tabular is made of differ from it."""
    git = ["git", "-C", str(tree)]
    commit = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run([*git, "status", "--porcelain", "--", "tabular", "planner"], capture_output=True, text=True)
    return f"{commit or '?'}{' with uncommitted changes' if dirty.stdout.strip() else ''}"


def _cpuinfo() -> list[str]:
    try:
        return Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return []


def run(made: list[Table], kinds: list[str], work: Path) -> list[Result]:
    import duckdb

    import tabular

    con = duckdb.connect()
    results = []
    with tabular.connect(str(work / "home")) as engine:
        ns = engine.namespace("bench", "loading")
        for t in made:
            for kind in kinds:
                v = KINDS[kind](t)
                if v is None:
                    continue
                path = work / f"{t.name}.{kind}.csv"
                path.write_bytes(v.text.encode("utf-8"))
                mine, theirs, truth = load_tabular(ns, path, path.name), load_duckdb(con, path), truth_keys(v)
                results.append(Result(kind, t.name, score(v, mine, truth), score(v, theirs, truth), mine, theirs.error))
    con.close()
    return results


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def means(rs: list[Result], who: str) -> tuple[float, float, float]:
    return tuple(mean([getattr(r, who)[i] for r in rs]) for i in range(3))


def said(rs: list[Result]) -> str:
    asked = Counter(q for r in rs for q in r.said.questions)
    warned = sum(len(r.said.warnings) for r in rs)
    failed = sum(bool(r.said.error) for r in rs)
    parts = [f"{k}×{n}" for k, n in asked.most_common()] + ([f"warned {warned}"] if warned else [])
    return ", ".join(parts + ([f"failed {failed}"] if failed else [])) or "-"


def print_table(results: list[Result]) -> None:
    print(f"{'kind':<18} {'files':>5} | {'tabular H':>9} {'R':>5} {'C':>5} {'/10':>5} | ", end="")
    print(f"{'DuckDB H':>8} {'R':>5} {'C':>5} {'/10':>5} | {'Δ/10':>5}  tabular asked / warned")
    groups = {k: [r for r in results if r.kind == k] for k in KINDS if any(r.kind == k for r in results)}
    for kind, rs in [*groups.items(), ("total", results)]:
        if kind == "total":
            print("-" * 110)
        a, b = means(rs, "tabular"), means(rs, "duckdb")
        mark = " <" if out_of_ten(a) < out_of_ten(b) - 1e-9 else ""
        print(
            f"{kind:<18} {len(rs):>5} | {a[0]:>9.3f} {a[1]:>5.3f} {a[2]:>5.3f} {out_of_ten(a):>5.2f} | "
            f"{b[0]:>8.3f} {b[1]:>5.3f} {b[2]:>5.3f} {out_of_ten(b):>5.2f} | {out_of_ten(a) - out_of_ten(b):>+5.2f}{mark:2} "
            f"{said(rs) if kind != 'total' else ''}"
        )
    a, b = out_of_ten(means(results, "tabular")), out_of_ten(means(results, "duckdb"))
    print(f"score out of 10: tabular {a:.2f}, DuckDB {b:.2f} (ratio {a / b if b else float('inf'):.3f})")
    print("  (per file: (header F1 + record F1 + cell F1) / 3 × 10; per kind and in total: the mean over its files)")
    behind = [
        k for k, rs in groups.items() if out_of_ten(means(rs, "tabular")) < out_of_ten(means(rs, "duckdb")) - 1e-9
    ]
    print(f"kinds where tabular is below DuckDB: {', '.join(behind) or 'none'}")


def print_detail(results: list[Result]) -> None:
    for r in results:
        if min(r.tabular) < 1 or min(r.duckdb) < 1:
            h, rr, c = r.tabular
            print(
                f"\n{r.kind} / {r.table}: tabular {h:.3f} {rr:.3f} {c:.3f}, DuckDB {' '.join(f'{x:.3f}' for x in r.duckdb)}"
            )
            if r.said.error:
                print(f"  tabular: {r.said.error}")
            for name, rows in r.said.tables:
                print(f"  tabular table: {len(rows)} rows, names {name}")
            for w in r.said.warnings[:4]:
                print(f"  warning: {w[:160]}")
            if r.said.questions:
                print(f"  asked: {', '.join(r.said.questions)}")
            if r.duck_error:
                print(f"  DuckDB: {r.duck_error}")


# --- the real files: shapes at this tree against a base revision ------------------------------


def corpus_files(corpus: Path) -> list[Path]:
    return sorted(
        p
        for p in corpus.rglob("*")
        if p.is_file()
        and p.suffix.lower() in EXTENSIONS
        and "_meta" not in p.relative_to(corpus).parts
        and p.stat().st_size <= MAX_BYTES
    )


def shapes(corpus: Path) -> dict:
    """Every corpus file's shape as the `tabular` on the import path reads it."""
    import tabular

    out = {}
    with tempfile.TemporaryDirectory(prefix="loading-shapes-") as home, tabular.connect(home) as engine:
        ns = engine.namespace("bench", "shapes")
        for path in corpus_files(corpus):
            uri = str(path.relative_to(corpus))
            try:
                status = ns.ingest_file(path, source_uri=uri, wait=WAIT, progress=False)
            except Exception as err:
                out[uri] = {"state": f"crash {type(err).__name__}"}
                continue
            if status.state not in ("ready", "partial"):
                out[uri] = {"state": f"{status.state} {status.error_code}"}
                continue
            out[uri] = {"state": status.state, "datasets": [shape_of(d) for d in ns.dataset_get(uri).datasets]}
    return out


def shape_of(d) -> dict:
    o = d.origin
    return {
        "delimiter": o.delimiter,
        "quote": o.quote,
        "preamble": o.preamble_lines,
        "header_rows": o.header_rows,
        "names": [c.header or c.name for c in d.columns] if o.header_rows else None,
        "rows": d.rows,
        "rejected": d.rows_rejected,
        "columns": len(d.columns),
        "questions": sorted(f"{q.column or '-'}:{q.kind}" for q in d.questions),
        "warnings": [w[:140] for w in d.warnings],
    }


def shapes_at(tree: Path, corpus: Path, out: Path) -> dict:
    """`shapes` in a fresh process importing the tabular of `tree`."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, str(BENCH / "loading.py"), "--shapes-of", str(corpus), "--json", str(out)]
    subprocess.run(cmd, env=env, check=True)
    return json.loads(out.read_text())


def shape_changes(before: dict, after: dict) -> list[str]:
    """Per field, what changed between two readings of one file, in words."""
    if before.get("state") != after.get("state"):
        return [f"state {before.get('state')} -> {after.get('state')}"]
    a, b = before.get("datasets", []), after.get("datasets", [])
    said = [f"datasets {len(a)} -> {len(b)}"] if len(a) != len(b) else []
    for i, (x, y) in enumerate(zip(a, b)):
        for key in x:
            if key in ("warnings", "questions") and isinstance(x[key], list) and isinstance(y.get(key), list):
                said += [f"[{i}] {key} - {w}" for w in x[key] if w not in y[key]]
                said += [f"[{i}] {key} + {w}" for w in y[key] if w not in x[key]]
            elif x[key] != y.get(key):
                said.append(f"[{i}] {key}: {short(x[key])} -> {short(y.get(key))}")
    return said


def short(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 90 else text[:87] + "..."


def compare_corpus(corpus: Path, base: str) -> None:
    with tempfile.TemporaryDirectory(prefix="loading-base-") as scratch:
        tree = Path(scratch) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(tree), base], check=True)
        try:
            started = time.perf_counter()
            before = shapes_at(tree, corpus, Path(scratch) / "before.json")
            after = shapes_at(ROOT, corpus, Path(scratch) / "after.json")
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)
    print(f"{len(after)} delimited files under {corpus}, read at {base} ({revision(ROOT)} here)")
    print(f"({time.perf_counter() - started:.0f} s; {machine()})\n")
    changed = 0
    for uri in sorted(set(before) | set(after)):
        said = shape_changes(before.get(uri, {"state": "absent"}), after.get(uri, {"state": "absent"}))
        if said:
            changed += 1
            print(uri)
            for s in said:
                print(f"    {s}")
    print(f"\n{changed} of {len(after)} files changed shape")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="the three smallest tables only")
    parser.add_argument("--kind", action="append", choices=list(KINDS), help="only these kinds (repeatable)")
    parser.add_argument("--detail", action="store_true", help="each file that scored below 1, with what tabular said")
    parser.add_argument("--keep", type=Path, help="write the generated files into this folder and keep them")
    parser.add_argument("--corpus", nargs="?", const=ROOT.parent / "shared" / "corpus", type=Path)
    parser.add_argument("--base", default="HEAD", help="the revision --corpus compares with (default HEAD)")
    parser.add_argument("--at", metavar="REV", help="measure the tabular of this git revision instead of this tree")
    parser.add_argument("--tree", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--shapes-of", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path, help="write each file's scores and what tabular said to this file")
    args = parser.parse_args()
    # bench/ off the import path (bench/http.py would shadow the standard library's http); the
    # tree whose tabular is measured first (PYTHONPATH for --shapes-of, else this one).
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH]
    if args.shapes_of:
        args.json.write_text(json.dumps(shapes(args.shapes_of)))
        return
    if args.at:
        at_revision(args.at)
        return
    tree = args.tree or ROOT
    sys.path.insert(0, str(tree))
    if args.corpus:
        compare_corpus(args.corpus, args.base)
        return
    made, kinds = tables(args.quick), args.kind or list(KINDS)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="loading-") as scratch:
        work = args.keep or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        results = run(made, kinds, work)
    print(
        f"{len(results)} files: {len(made)} clean tables × {len(kinds)} kinds (where a kind applies); {time.perf_counter() - started:.0f} s"
    )
    print(f"machine: {machine(tree)}\n")
    print_table(results)
    if args.detail:
        print_detail(results)
    if args.json:
        args.json.write_text(json.dumps([dump(r) for r in results], indent=1, ensure_ascii=False))


def dump(r: Result) -> dict:
    """One file's scores and what tabular said, for --json."""
    return {
        "kind": r.kind,
        "table": r.table,
        "tabular": r.tabular,
        "duckdb": r.duckdb,
        "tabular_error": r.said.error,
        "duckdb_error": r.duck_error,
        "warnings": r.said.warnings,
        "questions": r.said.questions,
    }


def at_revision(rev: str) -> None:
    """This run again, on the tabular of `rev` (a git worktree in a scratch folder)."""
    argv, skip = [], False
    for a in sys.argv[1:]:
        if skip or a == "--at" or a.startswith("--at="):
            skip = a == "--at"
            continue
        argv.append(a)
    with tempfile.TemporaryDirectory(prefix="loading-at-") as scratch:
        tree = Path(scratch) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(tree), rev], check=True)
        try:
            env = {**os.environ, "PYTHONPATH": str(tree)}
            subprocess.run([sys.executable, str(BENCH / "loading.py"), *argv, "--tree", str(tree)], env=env, check=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)


if __name__ == "__main__":
    main()
