"""The views of an ingest's answers: upload, ingest, ingest_status, ingest_cancel, the open jobs
and the formats."""

from __future__ import annotations

from .html import (
    HIGHLIGHT,
    NOTE,
    bullets,
    clip,
    esc,
    fold,
    html_table,
    ignored_note,
    pair_table,
    plural,
    size,
    view,
    when,
)

# --- jobs: upload, ingest, ingest_status, ingest_cancel, the open jobs ----------------------------


def phase_words(p) -> str:
    """A job's progress in words: 'type: 12,000 of 50,000 rows', 'read: 1.2 MB of 4.0 MB'."""
    if p.unit == "bytes":
        return f"{p.phase}: {size(p.done)} of {size(p.total) if p.total else '?'}"
    return f"{p.phase}: {p.done:,} of {f'{p.total:,}' if p.total else '?'} {p.unit or 'rows'}"


# A job in one of these states is over: its status will not change.
ENDED = ("ready", "partial", "failed", "cancelled")
STATE_COLOURS = {"ready": "#1e7b34", "partial": "#b26a00", "failed": "#b00020", "cancelled": "#757575"}


def _state(state: str) -> str:
    colour = STATE_COLOURS.get(state)
    return f'<b style="color:{colour}">{esc(state)}</b>' if colour else f"<b>{esc(state or 'waiting')}</b>"


def read_words(coverage) -> str:
    """'1,234 of 1,234 rows read' (nothing when nothing was counted)."""
    if not coverage.total:
        return ""
    said = f"{coverage.extracted:,} of {coverage.total:,} {coverage.unit} read"
    return said + (f", {coverage.failed:,} failed" if coverage.failed else "")


def _going(s) -> str:
    """Where a job is: its phase and counts while it runs, else its state or stage."""
    if s.state not in ENDED and s.progress.phase:
        return phase_words(s.progress)
    return s.stage or ""


def status_html(s) -> str:
    """An ingest job's status: its state, the source and revision it made, how much was read,
    its error, warnings and what was lost, its progress while it runs; the ids folded."""
    if not s.found:
        return view(
            "tabular-ingest-status", f"<p>no ingest job <code>{esc(s.ingestion_id)}</code> in this namespace</p>"
        )
    head = f"<p>{_state(s.state)} {esc(s.filename or s.source_uri)}"
    if s.filename and s.source_uri and s.filename != s.source_uri:
        head += f" → {esc(s.source_uri)}"
    if s.revision is not None:
        head += f", revision {s.revision}"
    read = read_words(s.coverage)
    head += (f" <small>({esc(read)})</small>" if read else "") + "</p>"
    parts = [head]
    if s.state not in ENDED:
        p = s.progress
        meter = f'<progress value="{p.done:g}" max="{p.total:g}"></progress> ' if p.total else ""
        said = _going(s) + ("; cancel asked" if s.cancel_requested else "")
        parts.append(f'<p class="tabular-progress">{meter}<small>{esc(said or "waiting for a worker")}</small></p>')
    if s.error_code:
        parts.append(
            f'<div class="tabular-error" style="{HIGHLIGHT}"><b>{esc(s.error_code)}</b> {esc(s.error_message or "")}</div>'
        )
    parts.append(bullets("lost", s.coverage.lost, "tabular-lost", HIGHLIGHT))
    parts.append(bullets("warnings", s.warnings, "tabular-warnings", NOTE))
    if s.state in ("ready", "partial") and s.source_uri:
        parts.append(
            f"<p><small>ns.dataset_get({esc(repr(s.source_uri))}) shows its columns, open questions and rejected rows</small></p>"
        )
    facts = [
        ("ingestion id", s.ingestion_id),
        ("format", s.format),
        ("attempts", s.attempts),
        ("expected revision", s.expected_revision),
        ("created at", s.created_at),
        ("updated at", s.updated_at),
    ]
    parts.append(
        fold(f"job {s.ingestion_id}", pair_table((k, v) for k, v in facts if v not in (None, "")), "tabular-job")
    )
    parts.append(ignored_note(s))
    return view("tabular-ingest-status", *parts)


def status_repr(s) -> str:
    """<IngestStatusOut ready: sales.csv → revision 2, 1,234 of 1,234 rows read, 1 warning>"""
    if not s.found:
        return f"<IngestStatusOut not found: {s.ingestion_id}>"
    said = [s.source_uri or s.filename or s.ingestion_id]
    if s.revision is not None:
        said[0] += f" → revision {s.revision}"
    said += [w for w in (read_words(s.coverage) if s.state in ENDED else _going(s),) if w]
    if s.error_code:
        said.append(f"{s.error_code}: {clip(s.error_message or '', 80)}")
    if s.warnings:
        said.append(plural(len(s.warnings), "warning"))
    if s.cancel_requested and s.state not in ENDED:
        said.append("cancel asked")
    return f"<IngestStatusOut {s.state or 'waiting'}: {', '.join(said)}>"


def jobs_html(out) -> str:
    if not out.jobs:
        return view("tabular-jobs", "<p>no ingest job is pending or running in this namespace</p>", ignored_note(out))
    rows = [
        [
            f"<code>{esc(j.ingestion_id)}</code>",
            esc(j.source_uri),
            esc(j.state) + (" <small>(cancel asked)</small>" if j.cancel_requested else ""),
            esc(_going(j)),
            esc(when(j.created_at)),
        ]
        for j in out.jobs
    ]
    table = html_table(["ingestion id", "source", "state", "progress", "since"], rows, css="tabular-jobs")
    return view(
        "tabular-jobs",
        f"<p><b>{plural(len(out.jobs), 'job')}</b> pending or running, oldest first</p>",
        table,
        "<p><small>knowledge.ingest_cancel (tabular ingest-cancel ID) cancels one</small></p>",
        ignored_note(out),
    )


def jobs_repr(out) -> str:
    """<JobsOut 2 jobs: i_1 sales.csv processing (type: 10 of 50 rows); i_2 big.csv pending>"""
    if not out.jobs:
        return "<JobsOut no job pending or running>"
    said = [f"{j.ingestion_id} {j.source_uri} {j.state}" + (f" ({_going(j)})" if _going(j) else "") for j in out.jobs]
    return f"<JobsOut {plural(len(out.jobs), 'job')}: {clip('; '.join(said), 160)}>"


def upload_html(out) -> str:
    facts = [("upload id", out.upload_id), ("sha256", out.sha256), ("content type", out.content_type)]
    return view(
        "tabular-upload",
        f"<p><b>uploaded</b> {esc(out.filename)} ({esc(size(out.bytes))}): knowledge.ingest reads it by its upload id</p>",
        pair_table(facts),
        ignored_note(out),
    )


def upload_repr(out) -> str:
    return f"<UploadOut {out.upload_id}: {out.filename}, {size(out.bytes)}, sha256 {out.sha256[:12]}…>"


def ingest_html(out) -> str:
    return view(
        "tabular-ingest",
        f"<p>{_state(out.state)} ingest <code>{esc(out.ingestion_id)}</code> of {esc(out.source_uri)}"
        f" <small>(namespace {esc(out.namespace)})</small></p>",
        "<p><small>knowledge.ingest_status follows it; ns.ingest_file uploads, ingests and follows in one call</small></p>",
        ignored_note(out),
    )


def ingest_repr(out) -> str:
    return f"<IngestOut {out.ingestion_id} {out.state}: {out.source_uri}>"


def cancel_words(out) -> str:
    if not out.found:
        return "not found: no such ingest job in this namespace"
    if out.cancelled:
        return "cancelled"
    if out.state == "processing":
        return "cancel asked: the job is still processing and stops before it publishes"
    return f"not cancelled: the job had already ended ({out.state})"


def cancel_html(out) -> str:
    return view("tabular-ingest-cancel", f"<p>{esc(cancel_words(out))}</p>", ignored_note(out))


def cancel_repr(out) -> str:
    return f"<IngestCancelOut {cancel_words(out)}>"


def formats_html(out) -> str:
    table = html_table(
        ["format", "extensions", "media types"],
        ([f"<b>{esc(f.name)}</b>", esc(", ".join(f.extensions)), esc(", ".join(f.media_types))] for f in out.formats),
        css="tabular-formats",
    )
    notes = [
        f"uploads up to {size(out.max_upload_bytes)} (max_upload_bytes)",
        f"a file whose name has no extension is read as {out.default_format}",
        "refused by name: " + (", ".join(out.refused_extensions) or "none"),
    ]
    return view(
        "tabular-formats",
        f"<p><b>{plural(len(out.formats), 'format')}</b> read</p>",
        table,
        f"<p><small>{esc('; '.join(notes))}</small></p>",
        ignored_note(out),
    )


def formats_repr(out) -> str:
    names = clip(", ".join(f.name for f in out.formats), 80)
    return f"<FormatsOut {plural(len(out.formats), 'format')} ({names}); uploads up to {size(out.max_upload_bytes)}>"
