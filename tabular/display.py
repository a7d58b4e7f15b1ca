"""How answers look to a person: HTML for a notebook (`_repr_html_`) and a one-line `__repr__`
for a prompt, for the query answer, dataset_get, the synthesize answer and the history of
approvals. Values are shown as the answer holds them (decimals as written, null dimmed), all
text escaped; what a reader seldom needs (SQL, parameters, snapshots, origin) is folded away.

The models call these from thin methods; nothing here reads storage or runs an op."""

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


def _e(value: Any) -> str:
    return escape(str(value))


def cell(value: Any) -> str:
    """One value as HTML: null dimmed, true/false, lists and objects as JSON, the rest as written."""
    if value is None:
        return NULL
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (dict, list)):
        text = json.dumps(value, ensure_ascii=False, default=str)
    else:
        text = str(value)
    if len(text) > CELL_CHARS:
        return f'<span title="{_e(text[:2000])}">{_e(text[:CELL_CHARS])}…</span>'
    return _e(text)


def _table(
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


def _pairs(items: Iterable[tuple[str, Any]]) -> str:
    """A two-column table of names and values."""
    return _table(["", ""], ([f"<b>{_e(k)}</b>", cell(v)] for k, v in items), css="tabular-pairs")


def _list(title: str, lines: list[str], css: str, style: str) -> str:
    if not lines:
        return ""
    items = "".join(f"<li>{_e(line)}</li>" for line in lines)
    return f'<div class="{css}" style="{style}"><b>{_e(title)}</b><ul style="margin:2px 0">{items}</ul></div>'


def _fold(summary: str, body: str, css: str) -> str:
    return f'<details class="{css}"><summary>{_e(summary)}</summary>{body}</details>'


def _div(css: str, *parts: str) -> str:
    return f'<div class="tabular {css}">{"".join(parts)}</div>'


def _view(css: str, *parts: str) -> str:
    """A whole view: its parts, with the style they share."""
    return STYLE + _div(css, *parts)


def _rows(columns: list, rows: list[list[Any]], truncated: bool, whole: str = "") -> str:
    """Result rows under headers with each column's type, at most HTML_ROWS of them, and a
    footer saying exactly how many are shown of how many were returned."""
    head = [f'{_e(c.name)}<br><small class="tabular-type" style="{TYPE}">{_e(c.type)}</small>' for c in columns]
    shown = rows[:HTML_ROWS]
    numbers = [k for k, c in enumerate(columns) if c.type == "number"]
    table = _table(head, ([cell(v) for v in row] for row in shown), numbers)
    footer = f"showing {len(shown):,} of {plural(len(rows), 'row')} returned"
    if truncated:
        footer += f"; more rows matched (truncated at the plan's limit{whole})"
    return table + f'<p class="tabular-footer"><small>{_e(footer)}</small></p>'


def _ignored(out) -> str:
    return _list("ignored: not fields of this op", out.ignored_args, "tabular-ignored", NOTE)


def _completeness(complete: bool, incomplete: list[str]) -> str:
    if complete:
        return '<p class="tabular-complete"><small>complete: no rows rejected or left unread, no open questions on the columns read</small></p>'
    return _list("incomplete", incomplete or ["(no reason given)"], "tabular-incomplete", HIGHLIGHT)


def _receipt(receipt, extra: str = "") -> str:
    """The receipt of a query, folded: SQL, parameters, snapshots read, timings."""
    elapsed = receipt.elapsed_ms
    snapshots = _table(
        ["alias", "source", "dataset", "snapshot", "revision", "rows", "rejected", "columns read", "open questions"],
        (
            [
                _e(d.alias),
                _e(d.source_uri),
                _e(d.dataset_id),
                f"<code>{_e(d.snapshot_id)}</code>",
                _e(d.revision),
                f"{d.rows:,}",
                f"{d.rows_rejected:,}",
                _e(", ".join(d.columns_read)),
                _e("; ".join(d.open_questions)),
            ]
            for d in receipt.datasets
        ),
        (4, 5, 6),
        css="tabular-snapshots",
    )
    parts = [extra, f'<pre class="tabular-sql" style="white-space:pre-wrap">{_e(receipt.sql)}</pre>']
    if receipt.params:
        parts.append(
            _table(["parameter", "value"], ([_e(k), cell(v)] for k, v in receipt.params.items()), css="tabular-params")
        )
    parts.append(snapshots)
    if receipt.resolved:
        parts.append(
            _list(
                "names read as",
                [f"{r.input} → {r.column} ({r.how})" for r in receipt.resolved],
                "tabular-resolved",
                NOTE,
            )
        )
    if receipt.computed:
        parts.append(
            _table(
                ["computed", "type", "physical", "stage"],
                ([_e(c.name), _e(c.type), _e(c.physical), _e(c.stage)] for c in receipt.computed),
                css="tabular-computed",
            )
        )
    parts.append(
        _pairs(
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
    return _fold(summary, "".join(parts), "tabular-receipt")


# --- the query answer -----------------------------------------------------------------------


def query_html(answer) -> str:
    return _view(
        "tabular-query",
        _rows(answer.columns, answer.rows, answer.truncated, ": to_polars(whole=True) reads them all"),
        _completeness(answer.complete, answer.incomplete),
        _list("warnings", answer.receipt.warnings, "tabular-warnings", NOTE),
        _ignored(answer),
        _receipt(answer.receipt),
    )


def _names(columns: list, most: int = 60) -> str:
    return clip(", ".join(c.name for c in columns), most)


def query_repr(answer) -> str:
    """<QueryOut 100 rows × 4 columns (a, b, c, d), complete, truncated>"""
    said = [
        f"{plural(len(answer.rows), 'row')} × {plural(len(answer.columns), 'column')}"
        + (f" ({_names(answer.columns)})" if answer.columns else "")
    ]
    said.append("complete" if answer.complete else f"incomplete ({plural(len(answer.incomplete), 'reason')})")
    if answer.truncated:
        said.append("truncated")
    if answer.receipt.warnings:
        said.append(plural(len(answer.receipt.warnings), "warning"))
    if answer.ignored_args:
        said.append(f"ignored {clip(', '.join(answer.ignored_args), 40)}")
    return f"<QueryOut {', '.join(said)}>"


# --- dataset_get ----------------------------------------------------------------------------


def _question(q) -> str:
    options = _table(
        ["option: type", "format", "rows it rejects", "example"],
        (
            [
                _e(o.type)
                + (" <small>(held now)</small>" if (o.type, o.format) == (q.current.type, q.current.format) else ""),
                _e(o.format),
                f"{o.rows_rejected:,}",
                "" if o.example is None else cell(o.example),
            ]
            for o in q.options
        ),
        (2,),
        css="tabular-options",
    )
    return (
        f'<div class="tabular-question" style="{HIGHLIGHT}"><b>open question on {_e(q.column)}</b> ({_e(q.kind)}, <code>{_e(q.id)}</code>): '
        f"{_e(q.question)}<br><small>held now as {_e(q.current.type)} {_e(q.current.format)}; answer it with ns.approve "
        f"(knowledge.dataset_approve)</small>{options}</div>"
    )


def _columns(d) -> str:
    asked = {q.column for q in d.questions}
    head = ["column", "type", "physical", "format", "nulls", "distinct", "min", "max"]
    rows, styles = [], []
    for c in d.columns:
        name = f"<b>{_e(c.name)}</b>"
        if c.header != c.name:
            name += f' <small style="{TYPE}">({_e(c.header)})</small>'
        if c.name in asked:
            name += ' <span class="tabular-question-mark" title="open question">?</span>'
        if c.approved:
            name += ' <small title="a person set this type">✓ approved</small>'
        unique = ' <small title="every value differs">unique</small>' if c.unique else ""
        ends = ["" if v is None else cell(v) for v in (c.min, c.max)]  # none for a column of bools or of nulls
        rows.append([name, _e(c.type), _e(c.physical), _e(c.format), f"{c.nulls:,}", f"{c.distinct:,}{unique}", *ends])
        styles.append(ROW_HIGHLIGHT if c.name in asked else "")
    return _table(head, rows, (4, 5), css="tabular-columns", row_style=styles)


def _rejected(d) -> str:
    if not d.rows_rejected:
        return ""
    table = _table(
        ["row id", "line", "column", "value", "reason"],
        ([_e(r.row_id), cell(r.line), cell(r.column), cell(r.value), _e(r.reason)] for r in d.rejected),
        (0, 1),
        css="tabular-rejected",
    )
    return (
        f'<div class="tabular-rejected" style="{HIGHLIGHT}"><b>{plural(d.rows_rejected, "row")} rejected</b> '
        f"<small>(left out of the snapshot; showing {len(d.rejected):,} of {d.rows_rejected:,})</small>{table}</div>"
    )


def _sample(d) -> str:
    if d.sample is None:
        return ""
    by_name = {c.name: c for c in d.columns}
    names = list(by_name) or (list(d.sample[0]) if d.sample else [])
    head = ["row id"] + [
        f'{_e(n)}<br><small style="{TYPE}">{_e(by_name[n].type) if n in by_name else ""}</small>' for n in names
    ]
    ids = d.sample_row_ids or [None] * len(d.sample)
    shown = list(zip(ids, d.sample))[:HTML_ROWS]
    numbers = [k + 1 for k, n in enumerate(names) if n in by_name and by_name[n].type == "number"]
    table = _table(
        head, ([cell(i)] + [cell(row.get(n)) for n in names] for i, row in shown), [0, *numbers], css="tabular-sample"
    )
    return f"{table}<p class='tabular-footer'><small>showing {len(shown):,} of {plural(len(d.sample), 'sample row')}</small></p>"


def _dataset(d) -> str:
    title = f"<b>{_e(d.dataset_id)}</b>" + (
        f" <small>({_e(d.name)})</small>" if d.name and d.name != d.dataset_id else ""
    )
    facts = [
        f"revision {d.revision}",
        plural(d.rows, "row"),
        plural(len(d.columns), "column"),
        f"{d.rows_rejected:,} rejected",
        "complete" if d.complete else "incomplete",
    ]
    facts = [_e(f) for f in facts] + [f"snapshot <code>{_e(d.snapshot_id)}</code>"]
    if d.questions:
        facts.append(f"<b>{plural(len(d.questions), 'open question')}</b>")
    if d.approved:
        facts.append(f"approved by {_e(d.approved_by or 'someone')} at {_e(d.approved_at or '?')}")
    origin = d.origin.model_dump(exclude_none=True)
    said = ", ".join(
        [origin["format"]] + [f"{k} {origin[k]!r}" for k in ("sheet", "encoding", "delimiter") if k in origin]
    )
    return _div(
        "tabular-dataset",
        f'<p style="font-size:1.1em;margin:8px 0 2px">{title}</p><p style="margin:2px 0"><small>{" · ".join(facts)}</small></p>',
        "".join(_question(q) for q in d.questions),
        _columns(d),
        _rejected(d),
        _list("warnings", d.warnings, "tabular-warnings", NOTE),
        _sample(d),
        _fold(f"origin: {said}", _pairs(origin.items()), "tabular-origin"),
    )


def _meant(answer, html: bool = True) -> str:
    """`; did you mean 'sales.csv'?` where a not-found answer names close names."""
    meant = ", ".join(repr(m) for m in getattr(answer, "did_you_mean", []))
    if not meant:
        return ""
    return f"; did you mean {_e(meant) if html else meant}?"


def datasets_html(got) -> str:
    if not got.found:
        return _view("tabular-datasets", f"<p>not found: no such source or dataset in this namespace{_meant(got)}</p>")
    head = f"<p><b>{plural(len(got.datasets), 'dataset')}</b> of revision {_e(got.revision)}</p>"
    return _view("tabular-datasets", head, _ignored(got), *(_dataset(d) for d in got.datasets))


def datasets_repr(got) -> str:
    """<DatasetGetOut revision 2: sales (1,234 rows × 7 columns, 2 open questions, 3 rejected)>"""
    if not got.found:
        return f"<DatasetGetOut not found{_meant(got, html=False)}>"
    said = []
    for d in got.datasets:
        facts = [f"{plural(d.rows, 'row')} × {plural(len(d.columns), 'column')}"]
        if d.questions:
            facts.append(plural(len(d.questions), "open question"))
        if d.rows_rejected:
            facts.append(f"{d.rows_rejected:,} rejected")
        said.append(f"{d.dataset_id} ({', '.join(facts)})")
    return f"<DatasetGetOut revision {got.revision}: {clip('; '.join(said) or 'no datasets', 150)}>"


# --- synthesize -----------------------------------------------------------------------------


def synthesize_html(out) -> str:
    if out.abstain:
        reason = (out.abstain_reason or "").replace("_", " ")
        head = (
            f'<div class="tabular-abstain" style="{HIGHLIGHT}"><b>abstained: {_e(reason)}</b>'
            f'<p class="tabular-clarification" style="margin:4px 0;white-space:pre-wrap">{_e(out.clarification or "")}</p></div>'
        )
    else:
        head = f'<div class="tabular-answer-text" style="white-space:pre-wrap;margin:6px 0">{_e(out.answer)}</div>'
    notes = [f"proposed by {out.model}"]
    if out.truncated:
        notes.append("the answer or the note was cut to its limit")
    if out.unsupported_citations:
        notes.append("citations of calculations not run were removed: " + ", ".join(out.unsupported_citations))
    parts = [head, f"<p><small>{_e('; '.join(notes))}</small></p>", _ignored(out)]
    for c in out.calculations:
        plan = f'<pre class="tabular-plan" style="white-space:pre-wrap">{_e(json.dumps(c.plan, ensure_ascii=False, indent=2, default=str))}</pre>'
        parts += [
            f"<p><b>[{_e(c.id)}]</b> {_e(c.task)}</p>",
            _rows(c.columns, c.rows, c.truncated),
            _completeness(c.complete, c.incomplete),
            _list("warnings", c.receipt.warnings, "tabular-warnings", NOTE),
            _receipt(c.receipt, extra=plan),
        ]
    return _view("tabular-synthesize", *parts)


def synthesize_repr(out) -> str:
    """<SynthesizeOut answer: "The total …"> or <SynthesizeOut abstained (ambiguous): "…">"""
    if out.abstain:
        return f"<SynthesizeOut abstained ({out.abstain_reason}): {json.dumps(clip(out.clarification or '', 120), ensure_ascii=False)}>"
    return f"<SynthesizeOut answer: {json.dumps(clip(out.answer, 140), ensure_ascii=False)}>"


# --- history --------------------------------------------------------------------------------


def _change(change) -> str:
    before, after = change.before, change.after
    said = f"{change.column}: {before.type} {before.format} → {after.type} {after.format}".replace("  ", " ")
    return said + (f" ({plural(change.rows_rejected, 'row')} rejected)" if change.rows_rejected else "")


def approve_html(out) -> str:
    """An approval's answer: what changed (or would, on a dry run), each column with the values
    it rejects of its values and the first of them, then the dataset as it now serves."""
    if not out.found:
        return _view("tabular-approve", f"<p>no live dataset: nothing approved{_meant(out)}</p>")
    if out.dry_run:
        said = "<p><b>dry run</b>: nothing changed; this approval would do as below</p>"
    else:
        d = out.dataset
        said = f"<p><b>approved</b> {_e(d.dataset_id)} by {cell(d.approved_by)}: snapshot <code>{_e(d.snapshot_id)}</code></p>"
    rows = [
        [
            _e(c.column),
            _e(f"{c.before.type} {c.before.format}".strip()),
            _e(f"{c.after.type} {c.after.format}".strip()),
            f"{c.rows_rejected:,} of {c.values:,}",
            _e(", ".join(repr(v) for v in c.examples)),
        ]
        for c in out.changes
    ]
    changes = (
        _table(["column", "before", "after", "rejects", "e.g."], rows, (3,), css="tabular-changes")
        if rows
        else f'<p style="{TYPE}">no type changed</p>'
    )
    dataset = _dataset(out.dataset) if out.dataset is not None else ""
    return _view("tabular-approve", said, changes, dataset)


def approve_repr(out) -> str:
    if not out.found:
        return f"<DatasetApproveOut: not found{_meant(out, html=False)}>"
    head = "dry run" if out.dry_run else f"approved {out.dataset.dataset_id} → {out.dataset.snapshot_id}"
    changes = "; ".join(_change(c) for c in out.changes) or "no type changed"
    return f"<DatasetApproveOut {head}: {changes}>"


def history_html(entries: list) -> str:
    if not entries:
        return _view("tabular-history", "<p>no approvals</p>")
    rows = []
    for h in entries:
        changes = "<br>".join(_e(_change(c)) for c in h.changes) or f'<span style="{TYPE}">no type changed</span>'
        rows.append(
            [
                _e(h.approved_at),
                cell(h.approved_by),
                _e(h.dataset_id),
                _e(h.revision),
                changes,
                f"{len(h.settled):,}",
                f"<small><code>{_e(h.old_snapshot_id)}</code> → <code>{_e(h.new_snapshot_id)}</code></small>",
            ]
        )
    table = _table(
        ["when", "who", "dataset", "revision", "changes", "questions settled", "snapshots"],
        rows,
        (3, 5),
        css="tabular-history",
    )
    return _view("tabular-history", f"<p><b>{plural(len(entries), 'approval')}</b>, oldest first</p>", table)


def history_repr(entries: list) -> str:
    if not entries:
        return "<History: no approvals>"
    last = entries[-1]
    return f"<History {plural(len(entries), 'approval')}; latest: {last.dataset_id} by {last.approved_by or 'someone'} at {last.approved_at}>"


class History(list):
    """The approvals of a source, oldest first (a list of HistoryEntry), shown as a table in a
    notebook."""

    def _repr_html_(self) -> str:
        return history_html(self)

    def __repr__(self) -> str:
        return history_repr(self)
