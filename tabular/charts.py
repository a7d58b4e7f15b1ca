"""A chart of an answer: a bar, line or scatter chosen from its columns' types (or as the caller
says), drawn offline by matplotlib, which is imported only when a chart is drawn.

The rule, from the answer's columns: a date or datetime column with numbers → a line per
number, and per value of the text columns, when the date comes first, or there is no text, or
the text makes a few series over the dates (segment, month); else text with numbers → bars;
numbers only → a scatter of the first against the others; no number, no row, or one number with
nothing to draw it against → refused, saying what would draw. A chart is a picture: each exact
value (a Decimal) is converted once to a float to be drawn, and the answer keeps it exact; the
bars say their exact values when there are few. What the chart leaves out says itself under the
title: a truncated answer, bars or lines past the most drawn, rows without a value to place, an
incomplete answer's reasons, the receipt's warnings."""

from __future__ import annotations

import datetime as dt
import functools
import io
import textwrap
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from .errors import ErrorItem, ValidationFailed, close_names

KINDS = ("bar", "line", "scatter")
MAX_BARS = 40  # rows drawn as bars; past it, the first MAX_BARS and a note that says so
MAX_LINES = 12  # lines of one chart when a text column splits them
SAVED_AS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
LONG_LABEL = 12  # bars whose longest label is longer are drawn across, labels to the left
EXACT_LABELS = 24  # at most this many bars carry their exact value
JOIN = " · "  # labels made of several text columns (north · lamp)
# The most characters of text drawn as one label (a tick, a legend entry, an axis' name), a title,
# and the notes under it: a cell or a name is drawn whole up to these, cut with "…" past them, so
# a cell of a thousand characters cannot push the bars off the picture (nor take seconds to lay out).
LABEL_CHARS = 40
TITLE_CHARS = 160
NOTE_CHARS = 440
NO_ROWS = "the answer has no rows; a plan whose filters match rows would draw"


@dataclass(frozen=True)
class Choice:
    """What is drawn: the kind, the x column(s) (several text columns make one label), the y
    columns, and the text columns that split a line chart into one line per value."""

    kind: str
    x: tuple[str, ...]
    y: tuple[str, ...]
    split: tuple[str, ...] = ()


def _role(type_: str, values: list[Any]) -> str:
    """How a column can be drawn: "number", "time" (an axis of dates), or "label" (text)."""
    present = [v for v in values if v is not None]
    if type_ == "number" and all(isinstance(v, (int, float, Decimal)) and not isinstance(v, bool) for v in present):
        return "number"
    if type_ == "duration" and all(isinstance(v, dt.timedelta) for v in present):
        return "number"  # drawn in hours
    if type_ in ("date", "datetime") and all(isinstance(v, dt.date) for v in present):
        return "time"  # a value Python cannot hold stays text (typed_rows): then it is a label
    return "label"


def _refusal(why: str) -> ValidationFailed:
    """An answer with nothing a chart can draw: why, and what would draw (no argument was wrong)."""
    return ValidationFailed(f"nothing to chart: {why}")


def _unfit(why: str, path: str, short: str, **item: Any) -> ValidationFailed:
    """A chart asked for (kind, x, y) that the answer's columns cannot draw: why, and the argument."""
    return ValidationFailed(f"this chart cannot be drawn: {why}", [ErrorItem(path, short, **item)])


def choose(names: list[str], types: dict[str, str], roles: dict[str, str], column: dict[str, list]) -> Choice:
    """The default chart of an answer with these columns (in order), types and roles; a refusal
    saying why and what would draw when there is none."""
    rows = len(column[names[0]]) if names else 0
    if not rows:
        raise _refusal(NO_ROWS)
    numbers = tuple(n for n in names if roles[n] == "number")
    labels = tuple(n for n in names if roles[n] == "label")
    times = [n for n in names if roles[n] == "time"]
    shown = ", ".join(f"{n} ({types[n]})" for n in names)
    if not numbers:
        raise _refusal(
            f"no column of the answer is a number ({shown}); a chart draws numbers: aggregate one "
            "(count, sum …) by a text or date column"
        )
    kind = _kind(names, roles, column)
    if kind == "line":
        return Choice("line", (times[0],), numbers, labels)
    if kind == "bar":
        return Choice("bar", labels, numbers)
    if len(numbers) < 2:
        raise _refusal(
            f"one number ({numbers[0]}) and nothing to draw it against; group_by a text or date column, "
            "or select a second number"
        )
    if rows == 1:
        raise _refusal(f"one row of numbers ({', '.join(numbers)}): nothing to compare; group_by a text or date column")
    return Choice("scatter", (numbers[0],), numbers[1:])


def _kind(names: list[str], roles: dict[str, str], column: dict[str, list]) -> str:
    """The kind the columns call for: a line over a first date column, or over a date with no
    text, or over a date the text columns make a few series of (segment, month: a line per
    segment); bars by text; else a scatter of numbers."""
    times = [n for n in names if roles[n] == "time"]
    labels = [n for n in names if roles[n] == "label"]
    if times and (names[0] == times[0] or not labels or _series(column, labels, times[0])):
        return "line"
    return "bar" if labels else "scatter"


def _series(column: dict[str, list], labels: list[str], time: str) -> bool:
    """Whether the text columns split the rows into at most MAX_LINES series of two points or
    more on average, each date once in a series: a grouped answer over time, not a list of rows."""
    keys = list(zip(*(column[n] for n in labels)))
    series = set(keys)
    pairs = set(zip(keys, column[time]))
    return len(series) <= MAX_LINES and len(keys) >= 2 * len(series) and len(pairs) == len(keys)


def _named(name: Any, path: str, names: list[str]) -> str:
    if not isinstance(name, str) or name not in names:
        raise ValidationFailed(
            f"no column {name!r} in the answer to draw",
            [
                ErrorItem(
                    path,
                    "not a column of the answer",
                    expected=", ".join(names),
                    received=name,
                    did_you_mean=close_names(name, names) if isinstance(name, str) else None,
                )
            ],
        )
    return name


def chosen(
    names: list[str],
    types: dict[str, str],
    roles: dict[str, str],
    column: dict[str, list],
    kind: str | None = None,
    x: str | list[str] | None = None,
    y: str | list[str] | None = None,
) -> Choice:
    """The chart the caller asked for (`kind`, `x`, `y`, each optional), the rest chosen as
    `choose` would; a wrong kind or column name is refused with the close names."""
    if kind is not None and kind not in KINDS:
        raise ValidationFailed(
            f"{kind!r} is not a chart this draws: {', '.join(KINDS)}",
            [
                ErrorItem(
                    "kind",
                    f"no chart {kind!r}",
                    expected=", ".join(KINDS),
                    received=kind,
                    did_you_mean=close_names(str(kind), list(KINDS)),
                )
            ],
        )
    for path, given in (("x", x), ("y", y)):
        if isinstance(given, list) and not given:
            raise ValidationFailed(
                f"{path} names no column: name one, or leave {path} out and it is chosen",
                [ErrorItem(path, "no column named", expected=", ".join(names), received=given)],
            )
    xs = tuple(_named(n, f"x[{k}]", names) for k, n in enumerate(x)) if isinstance(x, list) else None
    xs = (_named(x, "x", names),) if x is not None and xs is None else xs
    ys = tuple(_named(n, f"y[{k}]", names) for k, n in enumerate(y)) if isinstance(y, list) else None
    ys = (_named(y, "y", names),) if y is not None and ys is None else ys
    for k, n in enumerate(ys or ()):
        if roles[n] != "number":
            raise _unfit(
                f"{n} is {types[n]}, not a number: y is what is drawn, a number column",
                f"y[{k}]" if isinstance(y, list) else "y",
                "not a number",
                expected=", ".join(m for m in names if roles[m] == "number") or "a number column",
                received=n,
            )
    if kind is None and xs is None and ys is None:
        return choose(names, types, roles, column)
    if not any(column.values()):
        raise _refusal(NO_ROWS)
    if kind is None:
        kind = _kind(names, roles, column) if xs is None else _kind_of(roles, xs)
    if xs is not None and len(xs) > 1 and kind != "bar":
        raise _unfit(f"a {kind} chart has one x column; {len(xs)} were given", "x", "one column", received=list(xs))
    if xs is None:
        xs = _x_for(kind, names, roles, ys or ())
    if kind == "scatter" and roles[xs[0]] != "number":
        raise _unfit(f"a scatter's x is a number; {xs[0]} is {types[xs[0]]}", "x", "not a number", received=xs[0])
    if ys is None:
        ys = tuple(n for n in names if roles[n] == "number" and n not in xs)
    if not ys:
        raise _unfit(f"no number column besides {JOIN.join(xs)} to draw", "y", "no number column left")
    split = tuple(n for n in names if roles[n] == "label" and n not in xs) if kind == "line" else ()
    return Choice(kind, xs, ys, split)


def _kind_of(roles: dict[str, str], xs: tuple[str, ...]) -> str:
    return {"time": "line", "number": "scatter"}.get(roles[xs[0]], "bar") if len(xs) == 1 else "bar"


def _x_for(kind: str, names: list[str], roles: dict[str, str], ys: tuple[str, ...]) -> tuple[str, ...]:
    """The x a kind takes when only y was given: a line the first date (else the first column
    not drawn), bars the text columns, a scatter the first number not drawn."""
    free = [n for n in names if n not in ys]
    want = {"line": ("time", "number", "label"), "bar": ("label", "time", "number"), "scatter": ("number",)}[kind]
    for role in want:
        found = [n for n in free if roles[n] == role]
        if found:
            return tuple(found) if kind == "bar" and role == "label" else (found[0],)
    raise _unfit(f"no column left for a {kind} chart's x", "x", "no column left", expected="a column not drawn as y")


# --- drawing ----------------------------------------------------------------------------------


@functools.cache
def _chart_class():
    """A matplotlib Figure that shows itself in a notebook as its PNG, pyplot or not."""
    from matplotlib.figure import Figure

    class Chart(Figure):
        def _repr_png_(self) -> bytes:
            out = io.BytesIO()
            self.savefig(out, format="png")
            return out.getvalue()

    return Chart


def _drawn(value: Any) -> float:
    """A number as drawn: exact values converted once (a chart is a picture), a duration in
    hours; null as a gap."""
    if isinstance(value, dt.timedelta):
        return value.total_seconds() / 3600
    return float("nan") if value is None else float(value)


def _label(values: list[Any]) -> str:
    return JOIN.join("(null)" if v is None else str(v) for v in values)


def plain(text: Any, most: int = LABEL_CHARS) -> str:
    """`text` as matplotlib draws it as written: on one line, at most `most` characters (cut
    with …), every `$` escaped, so a cell or a name that looks like TeX ($x^y^z$, $\\nosuchmacro$)
    is never parsed as math text (which refused it, or recursed on 200 braces, when drawn)."""
    text = " ".join(str(text).split())
    if len(text) > most:
        text = text[: most - 1].rstrip() + "…"
    return text.replace("$", r"\$")


def _title(answer, choice: Choice) -> str:
    """What the chart shows, from the plan's result columns and its sources: `sum_amount by
    region — sales.csv`, `y against x — floats.csv`."""
    ys = ", ".join(choice.y)
    said = f"{ys} against {choice.x[0]}" if choice.kind == "scatter" else f"{ys} by {JOIN.join(choice.x)}"
    if choice.split:
        said += f", per {JOIN.join(choice.split)}"
    sources = list(dict.fromkeys(d.source_uri for d in answer.receipt.datasets))
    return said + (f" — {', '.join(sources)}" if sources else "")


def plot(
    answer,
    kind: str | None = None,
    x: str | list[str] | None = None,
    y: str | list[str] | None = None,
    *,
    path: str | Path | None = None,
    title: str | None = None,
    max_bars: int = MAX_BARS,
):
    """The answer (a QueryOut) as a matplotlib Figure: `kind` bar, line or scatter, `x` a column
    (bars: one or more text columns), `y` the number column(s); each left out is chosen from the
    columns' types. `path` (.png, .svg, .pdf) saves it there too. A chart that cannot be drawn
    is refused (VALIDATION_FAILED) saying why and what would draw."""
    if isinstance(max_bars, bool) or not isinstance(max_bars, int) or max_bars < 1:
        raise ValidationFailed(
            f"max_bars is the most bars drawn, at least 1; {max_bars!r} is not",
            [ErrorItem("max_bars", "not a count of bars", expected="an integer of at least 1", received=max_bars)],
        )
    saved_as = None
    if path is not None:
        saved_as = SAVED_AS.get(Path(path).suffix.lower())
        if saved_as is None:
            raise ValidationFailed(
                f"a chart is saved as {', '.join(SAVED_AS)}; {str(path)!r} says none of them",
                [ErrorItem("path", "not a chart file", expected=", ".join(SAVED_AS), received=str(path))],
            )
    names = [c.name for c in answer.columns]
    table = answer.typed_rows()
    column = {n: [row[k] for row in table] for k, n in enumerate(names)}
    types = {c.name: c.type for c in answer.columns}
    roles = {n: _role(types[n], column[n]) for n in names}
    choice = chosen(names, types, roles, column, kind, x, y)
    said = {n: plain(f"{n} (hours)" if types[n] == "duration" else n) for n in names}  # how axes and legends name it
    notes = []
    if answer.truncated:
        notes.append(f"the first {len(table):,} rows of more (the plan's limit)")
    import matplotlib

    with matplotlib.rc_context({"text.usetex": False}):  # text drawn as text, never through TeX
        fig = _chart_class()(figsize=(8, 4.5), layout="constrained")
        ax = fig.add_subplot()
        if choice.kind == "bar":
            notes += _bars(fig, ax, choice, column, said, len(table), max_bars)
        else:
            if choice.kind == "line":
                notes += _lines(ax, choice, column, said, roles)
            else:
                for name in choice.y:
                    xs, ys = [_drawn(v) for v in column[choice.x[0]]], [_drawn(v) for v in column[name]]
                    ax.scatter(xs, ys, s=18, label=said[name])
                blank = sum(any(column[n][k] is None for n in (*choice.x, *choice.y)) for k in range(len(table)))
                if blank:  # a point needs both values: one without is not drawn, and that is said
                    notes.append(f"{blank:,} row{'s' if blank > 1 else ''} with an empty value not drawn")
            ax.set_xlabel(said[choice.x[0]])
            ax.set_ylabel(said[choice.y[0]] if len(choice.y) == 1 else "")
        if len(ax.get_legend_handles_labels()[0]) > 1:
            ax.legend(fontsize="small")
        if not answer.complete:
            notes.append("incomplete: " + "; ".join(answer.incomplete))
        warnings = answer.receipt.warnings
        if warnings:
            notes.append(f"{len(warnings)} warning{'s' if len(warnings) > 1 else ''}: " + "; ".join(warnings))
        fig.suptitle(plain(title if title is not None else _title(answer, choice), TITLE_CHARS))
        if notes:
            said_notes = plain(" · ".join(notes), NOTE_CHARS)
            ax.set_title(textwrap.fill(said_notes, 110), fontsize="small", color="#a0392b")
        if path is not None:
            fig.savefig(path, format=saved_as)
    return fig


def _bars(
    fig, ax, choice: Choice, column: dict[str, list], said: dict[str, str], rows: int, max_bars: int
) -> list[str]:
    """Bars in the answer's order, one group per row, one bar per y column; drawn across when
    the labels are long or many. The notes on what was left out."""
    n = min(rows, max_bars)
    labels = [plain(_label([column[c][k] for c in choice.x])) for k in range(n)]
    across = max(len(s) for s in labels) > LONG_LABEL or n > 20
    width = 0.8 / len(choice.y)
    for j, name in enumerate(choice.y):
        values = column[name][:n]
        at = [k - 0.4 + width * (j + 0.5) for k in range(n)]
        drawn = [_drawn(v) for v in values]
        draw = ax.barh if across else ax.bar
        bars = draw(at, drawn, width, label=said[name])
        if n * len(choice.y) <= EXACT_LABELS:  # the exact values, as the answer has them
            ax.bar_label(bars, labels=["" if v is None else plain(v) for v in values], fontsize="x-small", padding=2)
    names = (plain(JOIN.join(choice.x)), said[choice.y[0]] if len(choice.y) == 1 else "")
    if across:
        ax.set_yticks(range(n), labels)
        ax.invert_yaxis()  # the first row at the top, as the answer lists them
        ax.set_ylabel(names[0])
        ax.set_xlabel(names[1])
        fig.set_figheight(max(3.0, 0.28 * n * max(1, len(choice.y) // 2) + 1.5))
    else:
        ax.set_xticks(range(n), labels, rotation=30 if n > 8 else 0, ha="right" if n > 8 else "center")
        ax.set_xlabel(names[0])
        ax.set_ylabel(names[1])
    return [f"the first {n:,} of {rows:,} rows as bars"] if rows > n else []


def _lines(ax, choice: Choice, column: dict[str, list], said: dict[str, str], roles: dict[str, str]) -> list[str]:
    """A line per y column (per y column and value of the text columns that split it), its points
    in order of x (a line is read left to right); a point without x is left out."""
    x = choice.x[0]
    groups: dict[str, list[int]] = {}
    for k, values in enumerate(zip(*(column[c] for c in choice.split)) if choice.split else ((),) * len(column[x])):
        if column[x][k] is not None:
            groups.setdefault(_label(list(values)), []).append(k)
    notes = []
    unplaced = sum(v is None for v in column[x])
    if unplaced:
        notes.append(f"{unplaced:,} row{'s' if unplaced > 1 else ''} without {x} left out")
    if len(groups) * len(choice.y) > MAX_LINES:
        kept = max(1, MAX_LINES // len(choice.y))
        notes.append(f"the first {kept} of {len(groups)} {JOIN.join(choice.split)} as lines")
        groups = dict(list(groups.items())[:kept])
    along = {"time": lambda v: v, "number": _drawn, "label": plain}[roles[x]]
    for key, at in groups.items():
        if roles[x] != "label":  # text along x stays in the answer's order
            at = sorted(at, key=lambda k: column[x][k])
        for name in choice.y:
            ax.plot(
                [along(column[x][k]) for k in at],
                [_drawn(column[name][k]) for k in at],
                marker="o" if len(at) <= 40 else None,
                markersize=3,
                label=plain(f"{said[name]}{JOIN}{key}") if key and len(choice.y) > 1 else plain(key) or said[name],
            )
    if roles[x] == "time":
        from matplotlib.dates import AutoDateLocator, ConciseDateFormatter

        locator = AutoDateLocator()
        ax.xaxis.set_major_locator(locator)
        ax.xaxis.set_major_formatter(ConciseDateFormatter(locator))
        when = sorted({column[x][k] for at in groups.values() for k in at})
        if len(when) <= 12 and not any(isinstance(w, dt.datetime) for w in when):
            ax.set_xticks(when)  # a few dates (months of a year): a tick at each, not at days between
    return notes
