"""The pieces every view is drawn with: escaped cells, tables, folded blocks, notes, the styles
they share (dark text on a light ground, so they read in a dark notebook theme too), and counts
in words."""

from __future__ import annotations

import json
from collections.abc import Iterable
from html import escape
from typing import Any

# The most rows of one table a notebook shows; the footer says how many of how many.
HTML_ROWS = 50
# A longer cell is cut (its start in the cell, more of it in the tooltip).
CELL_CHARS = 200
# Highlighted blocks (open questions, incomplete answers, abstentions) carry their own colours,
# dark text on a light ground, so they read in a dark notebook theme too.
HIGHLIGHT = "background:#fff4ce;color:#1f1f1f;border-left:4px solid #d39e00;padding:4px 8px;margin:6px 0"
ROW_HIGHLIGHT = "background:#fff4ce;color:#1f1f1f"
NOTE = "border-left:4px solid #9e9e9e;padding:2px 8px;margin:6px 0"
NULL = '<span class="tabular-null" style="color:#999">null</span>'
# Alignment and spacing, scoped to these views (a front end that drops <style> loses only this).
STYLE = (
    "<style>.tabular th,.tabular td{text-align:left;vertical-align:top}.tabular th.tabular-num,.tabular td.tabular-num{text-align:right}"
    ".tabular table{border-collapse:collapse;margin:4px 0}.tabular details{margin:4px 0}</style>"
)
TYPE = "font-weight:normal;color:#888"


def plural(count: int, word: str, words: str | None = None) -> str:
    """'1 row', '2 rows', '1,234 rows'."""
    return f"{count:,} {word if count == 1 else words or word + 's'}"


def clip(text: str, most: int) -> str:
    """`text` on one line, at most `most` characters (cut with …)."""
    text = " ".join(str(text).split())
    return text if len(text) <= most else text[: most - 1].rstrip() + "…"


# --- pieces -------------------------------------------------------------------------------


def esc(value: Any) -> str:
    return escape(str(value))


# Control characters shown as their pictures (U+2400 …: ␀ ␁ ␡): HTML would drop or garble them.
# Tab, line feed and carriage return stay (HTML shows them as a space).
_SEEN = {c: 0x2400 + c for c in range(0x20) if chr(c) not in "\t\n\r"} | {0x7F: 0x2421}


def cell(value: Any) -> str:
    """One value as HTML: null dimmed, true/false, lists and objects as JSON, the rest as written
    (a control character as its picture)."""
    if value is None:
        return NULL
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (dict, list)):
        text = json.dumps(value, ensure_ascii=False, default=str)
    else:
        text = str(value)
    text = text.translate(_SEEN)
    if len(text) > CELL_CHARS:
        return f'<span title="{esc(text[:2000])}">{esc(text[:CELL_CHARS])}…</span>'
    return esc(text)


def html_table(
    head: list[str],
    rows: Iterable[list[str]],
    right: Iterable[int] = (),
    css: str = "",
    row_style: list[str] | None = None,
) -> str:
    """A table of HTML cells; columns in `right` right-aligned (numbers), `row_style` per row."""
    right = set(right)
    align = lambda k: ' class="tabular-num"' if k in right else ""
    ths = "".join(f"<th{align(k)}>{h}</th>" for k, h in enumerate(head))
    thead = f"<thead><tr>{ths}</tr></thead>" if any(head) else ""
    body = []
    for i, row in enumerate(rows):
        style = f' style="{row_style[i]}"' if row_style and row_style[i] else ""
        body.append(f"<tr{style}>" + "".join(f"<td{align(k)}>{v}</td>" for k, v in enumerate(row)) + "</tr>")
    opening = f'<table class="{css}">' if css else "<table>"
    return f"{opening}{thead}<tbody>{''.join(body)}</tbody></table>"


def pair_table(items: Iterable[tuple[str, Any]]) -> str:
    """A two-column table of names and values."""
    return html_table(["", ""], ([f"<b>{esc(k)}</b>", cell(v)] for k, v in items), css="tabular-pairs")


def bullets(title: str, lines: list[str], css: str, style: str) -> str:
    if not lines:
        return ""
    items = "".join(f"<li>{esc(line)}</li>" for line in lines)
    return f'<div class="{css}" style="{style}"><b>{esc(title)}</b><ul style="margin:2px 0">{items}</ul></div>'


def fold(summary: str, body: str, css: str) -> str:
    return f'<details class="{css}"><summary>{esc(summary)}</summary>{body}</details>'


def div(css: str, *parts: str) -> str:
    return f'<div class="tabular {css}">{"".join(parts)}</div>'


def view(css: str, *parts: str) -> str:
    """A whole view: its parts, with the style they share."""
    return STYLE + div(css, *parts)


def result_rows(columns: list, rows: list[list[Any]], truncated: bool, whole: str = "") -> str:
    """Result rows under headers with each column's type, at most HTML_ROWS of them, and a
    footer saying exactly how many are shown of how many were returned."""
    head = [f'{esc(c.name)}<br><small class="tabular-type" style="{TYPE}">{esc(c.type)}</small>' for c in columns]
    shown = rows[:HTML_ROWS]
    numbers = [k for k, c in enumerate(columns) if c.type == "number"]
    table = html_table(head, ([cell(v) for v in row] for row in shown), numbers)
    footer = f"showing {len(shown):,} of {plural(len(rows), 'row')} returned"
    if truncated:
        footer += f"; more rows matched (truncated at the plan's limit{whole})"
    return table + f'<p class="tabular-footer"><small>{esc(footer)}</small></p>'


def ignored_note(out) -> str:
    return bullets("ignored: not fields of this op", out.ignored_args, "tabular-ignored", NOTE)


def completeness(complete: bool, incomplete: list[str]) -> str:
    if complete:
        return '<p class="tabular-complete"><small>complete: no rows rejected or left unread, no open questions on the columns read</small></p>'
    return bullets("incomplete", incomplete or ["(no reason given)"], "tabular-incomplete", HIGHLIGHT)


def receipt_html(receipt, extra: str = "") -> str:
    """The receipt of a query, folded: SQL, parameters, snapshots read, timings."""
    elapsed = receipt.elapsed_ms
    snapshots = html_table(
        ["alias", "source", "dataset", "snapshot", "revision", "rows", "rejected", "columns read", "open questions"],
        (
            [
                esc(d.alias),
                esc(d.source_uri),
                esc(d.dataset_id),
                f"<code>{esc(d.snapshot_id)}</code>",
                esc(d.revision),
                f"{d.rows:,}",
                f"{d.rows_rejected:,}",
                esc(", ".join(d.columns_read)),
                esc("; ".join(d.open_questions)),
            ]
            for d in receipt.datasets
        ),
        (4, 5, 6),
        css="tabular-snapshots",
    )
    parts = [extra, f'<pre class="tabular-sql" style="white-space:pre-wrap">{esc(receipt.sql)}</pre>']
    if receipt.params:
        parts.append(
            html_table(
                ["parameter", "value"], ([esc(k), cell(v)] for k, v in receipt.params.items()), css="tabular-params"
            )
        )
    parts.append(snapshots)
    if receipt.resolved:
        parts.append(
            bullets(
                "names read as",
                [f"{r.input} → {r.column} ({r.how})" for r in receipt.resolved],
                "tabular-resolved",
                NOTE,
            )
        )
    if receipt.computed:
        parts.append(
            html_table(
                ["computed", "type", "physical", "stage"],
                ([esc(c.name), esc(c.type), esc(c.physical), esc(c.stage)] for c in receipt.computed),
                css="tabular-computed",
            )
        )
    parts.append(
        pair_table(
            [
                ("engine", receipt.engine),
                ("plan hash", receipt.plan_hash),
                ("computed at", receipt.computed_at),
                (
                    "elapsed ms",
                    f"validate {elapsed.validate_:g}, compile {elapsed.compile:g}, execute {elapsed.execute:g}, total {elapsed.total:g}",
                ),
            ]
        )
    )
    summary = f"receipt: {plural(len(receipt.datasets), 'snapshot')} read, {receipt.engine}, {elapsed.total:g} ms"
    return fold(summary, "".join(parts), "tabular-receipt")


def column_names(columns: list, most: int = 60) -> str:
    return clip(", ".join(c.name for c in columns), most)


def meant(answer, html: bool = True) -> str:
    """`; did you mean 'sales.csv'?` where a not-found answer names close names."""
    meant = ", ".join(repr(m) for m in getattr(answer, "did_you_mean", []))
    if not meant:
        return ""
    return f"; did you mean {esc(meant) if html else meant}?"


def size(count: int) -> str:
    """Bytes in decimal units: '512 bytes', '1.2 MB', '268.4 MB'."""
    if count < 1000:
        return plural(count, "byte")
    amount: float = count
    for unit in ("kB", "MB", "GB", "TB", "PB"):
        amount /= 1000
        if amount < 1000 or unit == "PB":
            return f"{amount:,.1f} {unit}"
    raise AssertionError("unreachable")


def when(stamp: str | None) -> str:
    return (stamp or "")[:19].replace("T", " ")
