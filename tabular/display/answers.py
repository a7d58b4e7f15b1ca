"""The views of the answers about data: query, dataset_get, synthesize, an approval and the
history of approvals."""

from __future__ import annotations

import json

from .html import (
    HIGHLIGHT,
    HTML_ROWS,
    NOTE,
    ROW_HIGHLIGHT,
    TYPE,
    bullets,
    cell,
    clip,
    column_names,
    completeness,
    div,
    esc,
    fold,
    html_table,
    ignored_note,
    meant,
    pair_table,
    plural,
    receipt_html,
    result_rows,
    view,
)
from .questions import Asked, asked, column_list, kind_command, option_words, python_call

# --- the query answer -----------------------------------------------------------------------


def query_html(answer) -> str:
    return view(
        "tabular-query",
        result_rows(answer.columns, answer.rows, answer.truncated, ": to_polars(whole=True) reads them all"),
        completeness(answer.complete, answer.incomplete),
        bullets("warnings", answer.receipt.warnings, "tabular-warnings", NOTE),
        ignored_note(answer),
        receipt_html(answer.receipt),
    )


def query_repr(answer) -> str:
    """<QueryOut 100 rows × 4 columns (a, b, c, d), complete, truncated>"""
    said = [
        f"{plural(len(answer.rows), 'row')} × {plural(len(answer.columns), 'column')}"
        + (f" ({column_names(answer.columns)})" if answer.columns else "")
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


def _asked(group: Asked, groups: list[Asked], d, source_uri: str | None, several: bool) -> str:
    """An open question, or a group of alike ones, with its options, what each rejects, and the
    one approval (ns.approve, tabular approve) that answers every column of it."""
    q = group.first
    examples = [
        next((x.options[k].example for x in group.questions if x.options[k].example), None)
        for k in range(len(q.options))
    ]
    options = html_table(
        ["option: type", "format", "rows it rejects", "example", "answer every column so"],
        (
            [
                esc(o.type) + (" <small>(held now)</small>" if group.held(o) else ""),
                esc(o.format),
                group.rejects(k),
                "" if examples[k] is None else cell(examples[k]),
                f"<code>{esc(python_call(group, o, source_uri, d, several))}</code><br>"
                f'<small style="{TYPE}"><code>{esc(kind_command(group, o, groups, source_uri, d, several))}</code></small>',
            ]
            for k, o in enumerate(q.options)
        ),
        (2,),
        css="tabular-options",
    )
    if len(group.questions) == 1:
        head = f"<b>open question on {esc(q.column)}</b> ({esc(q.kind)}, <code>{esc(q.id)}</code>): {esc(q.question)}"
        columns = ""
    else:
        head = f"<b>{len(group.questions)} columns {group.asks()}</b> ({esc(q.kind)}): {esc(group.question())}"
        rows = [
            [f"<b>{esc(x.column)}</b>", f"<code>{esc(x.id)}</code>"]
            + ([] if group.alike else [esc(x.question)])
            + [f"{o.rows_rejected:,}" for o in x.options]
            for x in group.questions
        ]
        table = html_table(
            ["column", "question id"]
            + ([] if group.alike else ["question"])
            + [f"rejects as {esc(option_words(o))}" for o in q.options],
            rows,
            range(2 if group.alike else 3, 3 + len(q.options)),
            css="tabular-asked-columns",
        )
        columns = fold(f"the {len(group.questions)} columns: {column_list(group)}", table, "tabular-asked")
    return (
        f'<div class="tabular-question" style="{HIGHLIGHT}">{head}<br><small>held now as {esc(q.current.type)} '
        f"{esc(q.current.format)}; one approval answers {'it' if len(group.questions) == 1 else 'them all'} "
        f"(knowledge.dataset_approve); the other open questions stay open unless it accepts the rest as shown "
        f"(settle_rest)</small>"
        f"{columns}{options}</div>"
    )


def _columns(d) -> str:
    asked = {q.column for q in d.questions}
    head = ["column", "type", "physical", "format", "nulls", "distinct", "min", "max"]
    rows, styles = [], []
    for c in d.columns:
        name = f"<b>{esc(c.name)}</b>"
        if c.header != c.name:
            name += f' <small style="{TYPE}">({esc(c.header)})</small>'
        if c.name in asked:
            name += ' <span class="tabular-question-mark" title="open question">?</span>'
        if c.approved:
            name += ' <small title="a person set this type">✓ approved</small>'
        unique = ' <small title="every value differs">unique</small>' if c.unique else ""
        ends = ["" if v is None else cell(v) for v in (c.min, c.max)]  # none for a column of bools or of nulls
        rows.append(
            [name, esc(c.type), esc(c.physical), esc(c.format), f"{c.nulls:,}", f"{c.distinct:,}{unique}", *ends]
        )
        styles.append(ROW_HIGHLIGHT if c.name in asked else "")
    return html_table(head, rows, (4, 5), css="tabular-columns", row_style=styles)


def _rejected(d) -> str:
    if not d.rows_rejected:
        return ""
    table = html_table(
        ["row id", "line", "column", "value", "reason"],
        ([esc(r.row_id), cell(r.line), cell(r.column), cell(r.value), esc(r.reason)] for r in d.rejected),
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
        f'{esc(n)}<br><small style="{TYPE}">{esc(by_name[n].type) if n in by_name else ""}</small>' for n in names
    ]
    ids = d.sample_row_ids or [None] * len(d.sample)
    shown = list(zip(ids, d.sample))[:HTML_ROWS]
    numbers = [k + 1 for k, n in enumerate(names) if n in by_name and by_name[n].type == "number"]
    table = html_table(
        head, ([cell(i)] + [cell(row.get(n)) for n in names] for i, row in shown), [0, *numbers], css="tabular-sample"
    )
    return f"{table}<p class='tabular-footer'><small>showing {len(shown):,} of {plural(len(d.sample), 'sample row')}</small></p>"


def _dataset(d, source_uri: str | None = None, several: bool = False) -> str:
    groups = asked(d.questions)
    title = f"<b>{esc(d.dataset_id)}</b>" + (
        f" <small>({esc(d.name)})</small>" if d.name and d.name != d.dataset_id else ""
    )
    facts = [
        f"revision {d.revision}",
        plural(d.rows, "row"),
        plural(len(d.columns), "column"),
        f"{d.rows_rejected:,} rejected",
        "complete" if d.complete else "incomplete",
    ]
    facts = [esc(f) for f in facts] + [f"snapshot <code>{esc(d.snapshot_id)}</code>"]
    if d.questions:
        facts.append(f"<b>{plural(len(d.questions), 'open question')}</b>")
    if d.approved:
        facts.append(f"approved by {esc(d.approved_by or 'someone')} at {esc(d.approved_at or '?')}")
    origin = d.origin.model_dump(exclude_none=True)
    said = ", ".join(
        [origin["format"]] + [f"{k} {origin[k]!r}" for k in ("sheet", "encoding", "delimiter") if k in origin]
    )
    return div(
        "tabular-dataset",
        f'<p style="font-size:1.1em;margin:8px 0 2px">{title}</p><p style="margin:2px 0"><small>{" · ".join(facts)}</small></p>',
        "".join(_asked(g, groups, d, source_uri, several) for g in groups),
        _columns(d),
        _rejected(d),
        bullets("warnings", d.warnings, "tabular-warnings", NOTE),
        _sample(d),
        fold(f"origin: {said}", pair_table(origin.items()), "tabular-origin"),
    )


def datasets_html(got, source_uri: str | None = None, dataset_id: str = "") -> str:
    """dataset_get's answer; `source_uri` and `dataset_id` (what was asked, when known) are
    written in the calls that answer its questions."""
    if not got.found:
        return view("tabular-datasets", f"<p>not found: no such source or dataset in this namespace{meant(got)}</p>")
    head = f"<p><b>{plural(len(got.datasets), 'dataset')}</b> of revision {esc(got.revision)}</p>"
    several = len(got.datasets) > 1 or bool(dataset_id)  # the approval must name its dataset
    return view("tabular-datasets", head, ignored_note(got), *(_dataset(d, source_uri, several) for d in got.datasets))


def datasets_repr(got) -> str:
    """<DatasetGetOut revision 2: sales (1,234 rows × 7 columns, 2 open questions, 3 rejected)>"""
    if not got.found:
        return f"<DatasetGetOut not found{meant(got, html=False)}>"
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
            f'<div class="tabular-abstain" style="{HIGHLIGHT}"><b>abstained: {esc(reason)}</b>'
            f'<p class="tabular-clarification" style="margin:4px 0;white-space:pre-wrap">{esc(out.clarification or "")}</p></div>'
        )
    else:
        head = f'<div class="tabular-answer-text" style="white-space:pre-wrap;margin:6px 0">{esc(out.answer)}</div>'
    notes = [f"proposed by {out.model}"]
    if out.truncated:
        notes.append("the answer or the note was cut to its limit")
    if out.unsupported_citations:
        notes.append("citations of calculations not run were removed: " + ", ".join(out.unsupported_citations))
    parts = [head, f"<p><small>{esc('; '.join(notes))}</small></p>", ignored_note(out)]
    for c in out.calculations:
        plan = f'<pre class="tabular-plan" style="white-space:pre-wrap">{esc(json.dumps(c.plan, ensure_ascii=False, indent=2, default=str))}</pre>'
        parts += [
            f"<p><b>[{esc(c.id)}]</b> {esc(c.task)}</p>",
            reading_html(c),
            result_rows(c.columns, c.rows, c.truncated),
            completeness(c.complete, c.incomplete),
            bullets("warnings", c.receipt.warnings, "tabular-warnings", NOTE),
            receipt_html(c.receipt, extra=plan),
        ]
    return view("tabular-synthesize", *parts)


def synthesize_repr(out) -> str:
    """<SynthesizeOut answer: "The total …" (confidence 0.93)> or <SynthesizeOut abstained (ambiguous): "…">"""
    if out.abstain:
        return f"<SynthesizeOut abstained ({out.abstain_reason}): {json.dumps(clip(out.clarification or '', 120), ensure_ascii=False)}>"
    sure = next((c.confidence for c in out.calculations if c.confidence is not None), None)
    said = f" (confidence {sure.score:.2f})" if sure is not None else ""
    return f"<SynthesizeOut answer: {json.dumps(clip(out.answer, 140), ensure_ascii=False)}{said}>"


def confidence_words(sure) -> str:
    """A calculation's confidence for a reader: "confidence 0.93: at most 2.0% of answers this sure
    are wrong (measured on 1,200 questions of calibrate)"."""
    bound = f"{sure.wrong_bound * 100:.1f}%".replace(".0%", "%")
    return (
        f"confidence {sure.score:.2f}: at most {bound} of answers this sure are wrong "
        f"(measured on {sure.calibrated_on})"
    )


def reading_html(c) -> str:
    """A calculation's reading (the plan said back in words) and its confidence."""
    if not c.reading and c.confidence is None:
        return ""
    said = f'<p class="tabular-reading" style="margin:2px 0"><b>read as</b>: {esc(c.reading)}</p>' if c.reading else ""
    if c.confidence is not None:
        said += f'<p class="tabular-confidence" style="{TYPE};margin:2px 0"><small>{esc(confidence_words(c.confidence))}</small></p>'
    return said


# --- history --------------------------------------------------------------------------------


def _change(change) -> str:
    before, after = change.before, change.after
    said = f"{change.column}: {before.type} {before.format} → {after.type} {after.format}".replace("  ", " ")
    return said + (f" ({plural(change.rows_rejected, 'row')} rejected)" if change.rows_rejected else "")


def _typed(settled: list) -> str:
    """'Date date %m/%d/%Y, VAT number': each question's column at the typing it is settled at."""
    return ", ".join(f"{s.column or '(table)'} {s.type}{f' {s.format}' if s.format else ''}" for s in settled)


def _settles(out) -> list[str]:
    """What an approval answers, settles as shown and leaves open (what it would, on a dry run)."""
    said = [
        f"{verb}: {_typed(settled)}"
        for verb, settled in (("answers", out.answered), ("settles as shown", out.settled))
        if settled
    ]
    if out.left_open:
        columns = ", ".join(f"{q.column or '(table)'} [{q.kind}]" for q in out.left_open)
        said.append(f"leaves open: {columns} (settle_rest=True accepts them as shown)")
    return said


def approve_html(out) -> str:
    """An approval's answer: what changed (or would, on a dry run), each column with the values
    it rejects of its values and the first of them; the questions it answers, settles as shown
    and leaves open; then the dataset as it now serves."""
    if not out.found:
        return view("tabular-approve", f"<p>no live dataset: nothing approved{meant(out)}</p>")
    d = out.dataset
    if out.dry_run:
        said = "<p><b>dry run</b>: nothing changed; this approval would do as below</p>"
    elif out.left_open:
        said = (
            f"<p><b>answered</b> {esc(d.dataset_id)}: snapshot <code>{esc(d.snapshot_id)}</code>; not approved while "
            f"{plural(len(out.left_open), 'question')} {'is' if len(out.left_open) == 1 else 'are'} open</p>"
        )
    else:
        said = f"<p><b>approved</b> {esc(d.dataset_id)} by {cell(d.approved_by)}: snapshot <code>{esc(d.snapshot_id)}</code></p>"
    rows = [
        [
            esc(c.column),
            esc(f"{c.before.type} {c.before.format}".strip()),
            esc(f"{c.after.type} {c.after.format}".strip()),
            f"{c.rows_rejected:,} of {c.values:,}",
            esc(", ".join(repr(v) for v in c.examples)),
        ]
        for c in out.changes
    ]
    changes = (
        html_table(["column", "before", "after", "rejects", "e.g."], rows, (3,), css="tabular-changes")
        if rows
        else f'<p style="{TYPE}">no type changed</p>'
    )
    questions = bullets("questions", _settles(out), "tabular-settles", NOTE)
    dataset = _dataset(d) if d is not None else ""
    return view("tabular-approve", said, changes, questions, dataset)


def approve_repr(out) -> str:
    if not out.found:
        return f"<DatasetApproveOut: not found{meant(out, html=False)}>"
    if out.dry_run:
        head = "dry run"
    else:
        head = f"{'answered' if out.left_open else 'approved'} {out.dataset.dataset_id} → {out.dataset.snapshot_id}"
    changes = "; ".join(_change(c) for c in out.changes) or "no type changed"
    return f"<DatasetApproveOut {head}: {'; '.join([changes, *_settles(out)])}>"


def history_html(entries: list) -> str:
    if not entries:
        return view("tabular-history", "<p>no approvals</p>")
    rows = []
    for h in entries:
        changes = "<br>".join(esc(_change(c)) for c in h.changes) or f'<span style="{TYPE}">no type changed</span>'
        rows.append(
            [
                esc(h.approved_at),
                cell(h.approved_by),
                esc(h.dataset_id),
                esc(h.revision),
                changes,
                f"{len(h.settled):,}",
                f"<small><code>{esc(h.old_snapshot_id)}</code> → <code>{esc(h.new_snapshot_id)}</code></small>",
            ]
        )
    table = html_table(
        ["when", "who", "dataset", "revision", "changes", "questions settled", "snapshots"],
        rows,
        (3, 5),
        css="tabular-history",
    )
    return view("tabular-history", f"<p><b>{plural(len(entries), 'approval')}</b>, oldest first</p>", table)


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
