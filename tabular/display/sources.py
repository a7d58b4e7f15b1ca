"""The views of the answers about sources (list, get, delete, restore), linked folders and a
whole result streamed (query_export)."""

from __future__ import annotations

from collections import Counter

from .answers import history_html
from .html import (
    NOTE,
    ROW_HIGHLIGHT,
    TYPE,
    bullets,
    cell,
    clip,
    column_names,
    completeness,
    esc,
    fold,
    html_table,
    ignored_note,
    meant,
    pair_table,
    plural,
    receipt_html,
    size,
    view,
    when,
)
from .jobs import read_words

# --- sources: list, get, delete, restore ----------------------------------------------------------


def sources_html(out) -> str:
    if not out.rows:
        return view("tabular-list", "<p>no sources</p>", ignored_note(out))
    rows = [
        [
            f"<b>{esc(r.source_uri)}</b>",
            "deleted" if r.deleted else cell(r.revision),
            esc(when(r.ingested_at)),
            esc(r.title),
            esc(", ".join(r.tags)),
        ]
        for r in out.rows
    ]
    more = (
        f"<p><small>more: pass cursor={esc(repr(out.next_cursor))} for the next page</small></p>"
        if out.next_cursor
        else ""
    )
    return view(
        "tabular-list",
        f"<p><b>{plural(len(out.rows), 'source')}</b>{' on this page' if out.next_cursor else ''}</p>",
        html_table(["source", "revision", "ingested", "title", "tags"], rows, (1,), css="tabular-sources"),
        more,
        ignored_note(out),
    )


def sources_repr(out) -> str:
    """<ListOut 3 sources (orders.csv, sales.csv r2, old.csv deleted); more: next_cursor>"""
    if not out.rows:
        return "<ListOut no sources>"
    said = [r.source_uri + (" deleted" if r.deleted else f" r{r.revision}") for r in out.rows]
    more = "; more: next_cursor" if out.next_cursor else ""
    return f"<ListOut {plural(len(out.rows), 'source')} ({clip(', '.join(said), 120)}){more}>"


def format_words(out) -> str:
    """'csv (parser duckdb)': a source's format and what read its cells."""
    return f"{out.format or ''}{f' (parser {out.parser})' if out.parser else ''}".strip()


def get_html(out) -> str:
    if not out.found:
        return view("tabular-get", f"<p>not found: no such source in this namespace{meant(out)}</p>")
    if out.deleted:
        state = f"deleted (revision {out.deleted_revision} restorable: knowledge.restore)"
    else:
        state = f"revision {out.revision}"
    head = f"<p><b>{esc(out.source_uri)}</b> <small>{esc(state)}</small>" + (
        f"<br>{esc(out.title)}" if out.title else ""
    )
    facts = [
        ("datasets", ", ".join(out.datasets)),
        ("ingested at", out.ingested_at),
        ("format", format_words(out)),
        ("read", read_words(out.coverage) if out.coverage else ""),
        ("lost", "; ".join(out.coverage.lost) if out.coverage else ""),
        ("last revision", out.last_revision),
        ("tags", ", ".join(out.tags)),
        ("description", out.description),
        ("doc id", out.doc_id),
    ]
    parts = [head + "</p>", pair_table((k, v) for k, v in facts if v not in (None, ""))]
    if out.metadata:
        parts.append(fold("metadata", pair_table(out.metadata.items()), "tabular-metadata"))
    if out.history:
        parts.append(fold(f"{plural(len(out.history), 'approval')}", history_html(out.history), "tabular-approvals"))
    return view("tabular-get", *parts, ignored_note(out))


def get_repr(out) -> str:
    """<GetOut sales.csv revision 2: csv, 2 datasets (a, b), 1 approval>"""
    if not out.found:
        return f"<GetOut not found{meant(out, html=False)}>"
    if out.deleted:
        return f"<GetOut {out.source_uri} deleted (revision {out.deleted_revision} restorable)>"
    said = [out.format or "", f"{plural(len(out.datasets), 'dataset')} ({clip(', '.join(out.datasets), 60)})"]
    if out.history:
        said.append(plural(len(out.history), "approval"))
    return f"<GetOut {out.source_uri} revision {out.revision}: {', '.join(s for s in said if s)}>"


def _delete_said(out) -> str:
    if not out.found:
        return f"not found: no live source{meant(out, html=False)}"
    if out.deleted:
        return f"deleted revision {out.revision}; knowledge.restore brings it back"
    return "was already deleted"


def delete_html(out) -> str:
    return view("tabular-delete", f"<p>{esc(_delete_said(out))}</p>", ignored_note(out))


def delete_repr(out) -> str:
    return f"<DeleteOut {_delete_said(out)}>"


def _restore_said(out) -> str:
    if not out.found:
        return f"not found: no deleted source{meant(out, html=False)}"
    if out.restored:
        return f"restored revision {out.revision}"
    return f"not restored: {out.reason}"


def restore_html(out) -> str:
    return view("tabular-restore", f"<p>{esc(_restore_said(out))}</p>", ignored_note(out))


def restore_repr(out) -> str:
    return f"<RestoreOut {_restore_said(out)}>"


# --- linked folders -------------------------------------------------------------------------------


def link_status(link) -> str:
    """What a link is doing: missing, paused, watching, or nothing."""
    if link.missing:
        return "missing (retry_dir looks again)"
    if link.learning_paused:
        p = link.learning_paused
        return f"learning paused: {p.reason.replace('_', ' ')}, {p.count:,} over the limit {p.limit:,}"
    return "watching" if link.watching else "not watched (tabular serve, or an open engine that linked it, follows it)"


def _states(link) -> str:
    return ", ".join(f"{n:,} {state}" for state, n in link.states.items() if n)


def _link_rows(links: list) -> str:
    rows = [
        [
            f"<code>{esc(k.link_id)}</code>",
            esc(k.path),
            esc(k.prefix),
            f"{k.files:,}",
            esc(_states(k)),
            esc(link_status(k)),
            esc(when(k.last_scanned_at)),
        ]
        for k in links
    ]
    styles = [ROW_HIGHLIGHT if k.missing or k.learning_paused else "" for k in links]
    return html_table(
        ["link id", "folder", "prefix", "files", "states", "status", "last scanned"],
        rows,
        (3,),
        css="tabular-links",
        row_style=styles,
    )


def link_html(link) -> str:
    return view("tabular-link", _link_rows([link]), ignored_note(link))


def link_repr(link) -> str:
    """<LinkOut l_1 exports → sales/: 12 files (10 learned, 2 pending), watching>"""
    states = f" ({_states(link)})" if _states(link) else ""
    return f"<LinkOut {link.link_id} {link.path} → {link.prefix}: {plural(link.files, 'file')}{states}, {link_status(link).split(' (')[0]}>"


def links_html(out) -> str:
    if not out.links:
        return view("tabular-links", "<p>no linked folders in this namespace</p>", ignored_note(out))
    return view(
        "tabular-links",
        f"<p><b>{plural(len(out.links), 'linked folder')}</b></p>",
        _link_rows(out.links),
        ignored_note(out),
    )


def links_repr(out) -> str:
    if not out.links:
        return "<ListDirsOut no linked folders>"
    said = [f"{k.link_id} {k.path} ({plural(k.files, 'file')})" for k in out.links]
    return f"<ListDirsOut {plural(len(out.links), 'linked folder')}: {clip('; '.join(said), 140)}>"


def unlink_html(out) -> str:
    return view("tabular-unlink", f"<p>{esc(_unlink_said(out))}</p>", ignored_note(out))


def _unlink_said(out) -> str:
    if not out.found:
        return "not found: no such link in this namespace"
    if not out.sources_deleted:
        return "unlinked: the folder is untouched; its sources stay"
    return f"unlinked: the folder is untouched; {plural(out.sources_deleted, 'source')} deleted (restorable)"


def unlink_repr(out) -> str:
    return f"<UnlinkDirOut {_unlink_said(out)}>"


FILE_COLOURS = {"learned": "#1e7b34", "pending": "#b26a00", "failed": "#b00020"}


def dir_files_html(out) -> str:
    if not out.files:
        return view("tabular-dir-files", f"<p>no files in link <code>{esc(out.link_id)}</code></p>", ignored_note(out))
    rows, styles = [], []
    for f in out.files:
        colour = FILE_COLOURS.get(f.state)
        state = f'<span style="color:{colour}">{esc(f.state)}</span>' if colour else esc(f.state)
        why = f"<b>{esc(f.error_code)}</b> {esc(f.error_message or '')}" if f.error_code else esc(f.error_message or "")
        rows.append(
            [
                esc(f.path),
                state,
                cell(f.revision),
                esc(f.source_uri),
                f"{f.open_questions:,}" if f.open_questions else "",
                "" if f.size is None else esc(size(f.size)),
                why,
            ]
        )
        styles.append(ROW_HIGHLIGHT if f.state == "failed" else "")
    counts = Counter(f.state for f in out.files)
    said = ", ".join(f"{n:,} {state}" for state, n in counts.items())
    return view(
        "tabular-dir-files",
        f"<p><b>{plural(len(out.files), 'file')}</b> of link <code>{esc(out.link_id)}</code> <small>({esc(said)})</small></p>",
        html_table(
            ["path", "state", "revision", "source", "open questions", "size", "why"],
            rows,
            (2, 4, 5),
            css="tabular-files",
            row_style=styles,
        ),
        ignored_note(out),
    )


def dir_files_repr(out) -> str:
    counts = Counter(f.state for f in out.files)
    said = ", ".join(f"{n:,} {state}" for state, n in counts.items()) or "no files"
    return (
        f"<DirFilesOut {out.link_id}: {plural(len(out.files), 'file')} ({said})>"
        if out.files
        else f"<DirFilesOut {out.link_id}: no files>"
    )


# --- a whole result, streamed (query_export) --------------------------------------------------------


def whole_html(whole) -> str:
    """What comes with a streamed result: its columns and their types, complete or why not, the
    receipt; the rows are in `.reader`, read as they come."""
    head = html_table(
        [f'{esc(c.name)}<br><small class="tabular-type" style="{TYPE}">{esc(c.type)}</small>' for c in whole.columns],
        [],
    )
    # Whole knows whether the rows are complete; over HTTP knowledge.receipt says (the headers do not).
    incomplete = getattr(whole, "incomplete", None)
    kept = getattr(whole, "receipt_id", "") if getattr(whole, "receipt_kept", True) else ""
    return view(
        "tabular-whole",
        f"<p><b>every row the plan matches, streamed</b>: {plural(len(whole.columns), 'column')}; "
        "<code>.reader</code> yields them as Arrow record batches (<code>.reader.read_all()</code> reads them all)"
        + (f"; receipt <code>{esc(kept)}</code> (knowledge.receipt answers it for an hour)" if kept else "")
        + "</p>",
        head,
        "" if incomplete is None else completeness(not incomplete, incomplete),
        bullets("warnings", whole.receipt.warnings, "tabular-warnings", NOTE),
        ignored_note(whole),
        receipt_html(whole.receipt),
    )


def whole_repr(whole) -> str:
    """<Whole 4 columns (id, customer, amount, placed), streamed: .reader yields the rows>"""
    named = f" ({column_names(whole.columns)})" if whole.columns else ""
    incomplete = getattr(whole, "incomplete", None)
    said = "" if not incomplete else f", incomplete ({plural(len(incomplete), 'reason')})"
    return f"<{type(whole).__name__} {plural(len(whole.columns), 'column')}{named}{said}, streamed: .reader yields the rows>"
