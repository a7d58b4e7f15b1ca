"""What the terminal shows: datasets, rows, answers and linked folders as tables, counts in words."""

from __future__ import annotations

import json
import os
import re
import shlex
import sys

from rich.console import Console
from rich.markup import escape
from rich.rule import Rule
from rich.table import Table

from ..display import ENDED, phase_words, size
from ..display.html import meant, when
from ..display.jobs import cancel_words, read_words
from ..display.questions import asked, kind_command, open_said, option_words
from ..display.sources import format_words

# The ops a hand-written command serves (a person needs more than the op's JSON there); every
# other op is a command made from the registry: its name, its input's fields as arguments.
HAND_WRITTEN = {
    "knowledge.upload": "ingest",
    "knowledge.ingest": "ingest",
    "knowledge.dataset_get": "datasets",
    "knowledge.list": "list",
    "knowledge.ingest_jobs": "jobs",
    "knowledge.delete": "delete",
    "knowledge.restore": "restore",
    "knowledge.dataset_approve": "approve",
    "knowledge.query": "query",
    "knowledge.query_export": "query",  # its --output: every row, streamed to a file
    "knowledge.synthesize": "ask",
    "knowledge.link_dir": "link",
    "knowledge.list_dirs": "links",
    "knowledge.dir_files": "dir-files",
    "knowledge.retry_dir": "retry-dir",
    "knowledge.unlink_dir": "unlink",
}


def command_of(op: str) -> str:
    """The command that runs an op: its hand-written one, else the one made from it
    (`knowledge.ingest_status` is `ingest-status`)."""
    return HAND_WRITTEN.get(op) or op.removeprefix("knowledge.").replace("_", "-")


# An op named in words: not a citation ([knowledge.query#1]) nor part of a path (/v1/knowledge.get).
OP_NAMED = re.compile(r"(?<![/\w.])knowledge\.([a-z_]+)\b(?!#)")


def cli_words(text: str) -> str:
    """An op's words as the command line says them: each op they name is the command that runs it
    (`knowledge.dataset_approve` is `tabular approve`), as a person at the terminal types it."""
    return OP_NAMED.sub(lambda m: f"`tabular {command_of('knowledge.' + m.group(1))}`", text)


def incomplete_words(reason: str, answer) -> str:
    """Why an answer is incomplete, in the CLI's words: open questions name the `tabular approve`
    of the dataset they are on (its source and dataset id), and where to see each choice."""
    for d in answer.receipt.datasets:
        if d.open_questions and reason.startswith(f"{d.alias}{f' (in {d.within})' if d.within else ''}: "):
            source = shlex.quote(d.source_uri)
            approve = f"`tabular approve {source} {shlex.quote(d.dataset_id)} …` (`tabular datasets {source}` shows each choice)"
            return cli_words(reason.replace("knowledge.dataset_approve", approve))
    return cli_words(reason)


def counted(count: int, noun: str) -> str:
    """'1 row', '2 rows'."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def cell_text(value) -> str:
    """A value as a person reads it in a table: nothing for no value, true/false for a bool."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def show_datasets(console: Console, got, source_uri: str | None = None, dataset_id: str = "") -> None:
    """Each dataset: its columns, open questions (alike ones as one, with the command that answers
    them all, naming `source_uri` and the dataset where one was asked or there are several),
    rejected rows, warnings and sample rows."""
    several = len(got.datasets) > 1 or bool(dataset_id)
    for d in got.datasets:
        where = [d.origin.format] + [
            f"{k} {v!r}" if k == "delimiter" else f"{k} {v}"
            for k, v in (
                ("sheet", d.origin.sheet),
                ("range", d.origin.range),
                ("delimiter", d.origin.delimiter),
                ("encoding", d.origin.encoding),
            )
            if v
        ]
        console.print(
            f"[bold]{escape(d.dataset_id)}[/bold]  revision {d.revision}  {counted(d.rows, 'row')}  {d.rows_rejected:,} rejected  {escape(', '.join(where))}"
        )
        table = Table(show_header=True, header_style="bold")
        for head in ("column", "type", "physical", "format", "nulls", "distinct", "min", "max"):
            table.add_column(head)
        for c in d.columns:
            table.add_row(
                *(
                    escape(cell_text(v))
                    for v in (c.name, c.type, c.physical, c.format, c.nulls, c.distinct, c.min, c.max)
                )
            )
        console.print(table)
        groups = asked(d.questions)
        if groups:  # counted per column, as the page and the notebook count them
            console.print(f"  [yellow]{escape(open_said(d.questions))}[/yellow]", soft_wrap=True)
        for group in groups:
            show_asked(console, group, groups, d, source_uri, several)
        if len(d.questions) > 1:
            console.print(
                "  [dim](an approval settles the questions it answers; the others stay open unless --settle-rest "
                "accepts them as shown)[/dim]",
                soft_wrap=True,
            )
        for r in d.rejected:
            console.print(
                f"  [red]rejected[/red] row {r.row_id} (line {r.line}) {escape(r.column or '')}: {escape(repr(r.value))} — {escape(r.reason)}"
            )
        for w in d.warnings:
            console.print(f"  [dim]warning[/dim] {escape(w)}")
        if d.sample:
            console.print(f"  first {counted(len(d.sample), 'row')}:")
            names = [c.name for c in d.columns]
            _show_rows(
                console, names, [c.type for c in d.columns], [[row.get(name) for name in names] for row in d.sample]
            )


def show_asked(console: Console, group, groups: list, d, source_uri: str | None, several: bool) -> None:
    """An open question, or alike ones as one entry naming their columns, each option with what
    it rejects and the command that answers every column so."""
    q = group.first
    if len(group.questions) == 1:
        console.print(
            f"  [yellow]question[/yellow] {escape(q.column or '(table)')} \\[{q.kind}] {escape(q.question)}",
            soft_wrap=True,
        )
    else:
        console.print(
            f"  [yellow]question[/yellow] {len(group.questions)} columns \\[{q.kind}] {group.asks()}: {escape(group.question())}",
            soft_wrap=True,
        )
        console.print(f"    columns: {escape(', '.join(group.columns))}", soft_wrap=True)
    for k, o in enumerate(q.options):
        held = " (held now)" if group.held(o) else ""
        console.print(
            f"    {escape(option_words(o))}{held}, rejects {group.rejects(k)}: [bold]{escape(kind_command(group, o, groups, source_uri, d, several))}[/bold]",
            soft_wrap=True,
        )


def _show_rows(console: Console, names: list[str], types: list[str], rows: list[list]) -> None:
    """A grid when the columns fit a line (the terminal's; piped, 80 columns); else each row as
    `column: value` lines (as psql's expanded display), so no header or value is squeezed out of
    sight, nor a row of 40 columns piped as one line of thousands of characters."""
    if sum(max(len(n), len(t)) + 3 for n, t in zip(names, types)) <= line_width(console):
        table = Table(show_header=True, header_style="bold")
        for name, type_ in zip(names, types):
            table.add_column(f"{escape(name)}\n[dim]{type_}[/dim]")
        for row in rows:
            table.add_row(*[escape(cell_text(v)) for v in row])
        console.print(table)
        return
    width = max(len(n) for n in names)
    for k, row in enumerate(rows, 1):
        console.rule(f"row {k}", align="left", style="dim")
        for name, type_, value in zip(names, types, row):
            console.print(
                f"{escape(name.ljust(width))}  [dim]{type_:8}[/dim] {escape(cell_text(value))}", soft_wrap=True
            )


# Piped (to a file, `less`, `grep`), a table is as wide as its values: rich would squeeze it into
# 80 columns and cut ids and names. A rule stays a line's width.
PIPED_WIDTH, RULE_WIDTH = 4000, 80


class PlainConsole(Console):
    """rich's console, except that a closed pipe is raised (rich exits 1 in silence) and said once,
    and output that goes to no terminal is not wrapped (COLUMNS, when set, still decides)."""

    def __init__(self, **kwargs) -> None:
        piped = (
            "width" not in kwargs and "COLUMNS" not in os.environ and not _terminal(kwargs.get("file") or sys.stdout)
        )
        if piped:
            kwargs["width"] = PIPED_WIDTH
        super().__init__(**kwargs)
        self.piped = piped

    @property
    def line_width(self) -> int:
        """The width a line is read at: the terminal's (or COLUMNS'); piped, a rule's, where a
        table is as wide as its values but rows wider than that read better a column a line."""
        return RULE_WIDTH if self.piped else self.width

    def rule(self, title="", *, characters: str = "─", style="rule.line", align="center") -> None:
        self.print(Rule(title, characters=characters, style=style, align=align), width=min(self.width, RULE_WIDTH))

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError


def line_width(console: Console) -> int:
    """The width a line is read at (a PlainConsole's, piped or not; another console's own)."""
    return getattr(console, "line_width", console.width)


def _terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def warn_ignored(answer, what: str) -> None:
    """Keys the op does not know were not used: said on stderr, so a --json answer stays JSON."""
    if getattr(answer, "ignored_args", None):
        Console(stderr=True).print(
            f"[yellow]warning[/yellow] the {what} keys {escape(', '.join(answer.ignored_args))} are not used by this op and were ignored"
        )


def show_answer(console: Console, answer) -> None:
    _show_rows(console, [c.name for c in answer.columns], [c.type for c in answer.columns], answer.rows)
    more = " (more rows matched: raise limit or use offset)" if answer.truncated else ""
    console.print(f"{counted(len(answer.rows), 'row')}{more}")
    for reason in answer.incomplete:
        console.print(f"[yellow]incomplete[/yellow] {escape(incomplete_words(reason, answer))}", soft_wrap=True)
    for warning in answer.receipt.warnings:
        console.print(f"[yellow]warning[/yellow] {escape(cli_words(warning))}", soft_wrap=True)


def show_link(console: Console, link: dict) -> None:
    states = ", ".join(f"{n} {state}" for state, n in link["states"].items() if n)
    status = (
        "missing (retry-dir looks again)"
        if link["missing"]
        else "paused"
        if link["learning_paused"]
        else "watching"
        if link["watching"]
        else ""
    )
    console.print(
        f"[bold]{escape(link['link_id'])}[/bold]  {escape(link['path'])} → {escape(link['prefix'])}…  {counted(link['files'], 'file')}"
        f"{f' ({states})' if states else ''}  {status}"
    )
    if link["learning_paused"]:
        p = link["learning_paused"]
        console.print(
            f"  [yellow]learning paused[/yellow] {p['reason']}: {p['count']:,} over the limit {p['limit']:,}; nothing more is learned until it fits"
        )


def show_files(console: Console, files: list[dict]) -> None:
    table = Table(show_header=True, header_style="bold")
    for head in ("path", "state", "revision", "source", "why"):
        table.add_column(head)
    colour = {"learned": "green", "pending": "yellow", "no_table": "dim", "failed": "red", "skipped": "dim"}
    for f in files:
        why = f"{f['error_code']}: {f['error_message']}" if f["error_code"] else ""
        table.add_row(
            escape(f["path"]),
            f"[{colour[f['state']]}]{f['state']}[/]",
            cell_text(f["revision"]),
            escape(f["source_uri"]),
            escape(why),
        )
    console.print(table)


# --- the answers of the commands made from the registry (tabular get, formats, ingest-status, …) ---


STATE_STYLE = {"ready": "green", "partial": "yellow", "failed": "red", "cancelled": "dim"}


def show_status(console: Console, s) -> None:
    """An ingest job: its state, the source and revision it made, how much was read, its error,
    what was lost, its warnings, its progress while it runs."""
    if not s.found:
        console.print(f"no ingest job {escape(s.ingestion_id)} in this namespace")
        return
    style = STATE_STYLE.get(s.state, "bold")
    head = f"[{style}]{escape(s.state or 'waiting')}[/{style}] {escape(s.source_uri or s.filename)}"
    if s.revision is not None:
        head += f" revision {s.revision}"
    read = read_words(s.coverage)
    console.print(head + (f"  {escape(read)}" if read else ""), soft_wrap=True)
    if s.state not in ENDED:
        going = phase_words(s.progress) if s.progress.phase else (s.stage or "waiting for a worker")
        console.print(f"  {escape(going)}{'; cancel asked' if s.cancel_requested else ''}")
    if s.error_code:
        console.print(f"  [red]{escape(s.error_code)}[/red] {escape(s.error_message or '')}", soft_wrap=True)
    for lost in s.coverage.lost:
        console.print(f"  [yellow]lost[/yellow] {escape(lost)}", soft_wrap=True)
    for warning in s.warnings:
        console.print(f"  [dim]warning[/dim] {escape(warning)}", soft_wrap=True)
    console.print(
        f"  [dim]{escape(s.ingestion_id)}, {s.format or 'format not known yet'}, created {when(s.created_at)}[/dim]"
    )


def show_cancel(console: Console, out) -> None:
    console.print(cancel_words(out))


def show_formats(console: Console, out) -> None:
    table = Table(show_header=True, header_style="bold")
    for head in ("format", "extensions", "media types"):
        table.add_column(head)
    for f in out.formats:
        table.add_row(escape(f.name), escape(", ".join(f.extensions)), escape(", ".join(f.media_types)))
    console.print(table)
    console.print(
        f"uploads up to {size(out.max_upload_bytes)} (max_upload_bytes); a name with no extension is read as "
        f"{out.default_format}; refused by name: {escape(', '.join(out.refused_extensions))}",
        soft_wrap=True,
    )


def show_get(console: Console, out) -> None:
    """A source: its live (or restorable) revision, format, datasets, what was read, its title,
    tags and description, and how many approvals `tabular history` shows."""
    if not out.found:
        console.print(f"not found: no such source in this namespace{escape(meant(out, html=False))}", soft_wrap=True)
        return
    if out.deleted:
        state = f"[yellow]deleted[/yellow] (revision {out.deleted_revision} restorable: tabular restore)"
    else:
        state = f"revision {out.revision}"
    console.print(f"[bold]{escape(out.source_uri)}[/bold]  {state}", soft_wrap=True)
    facts = [
        ("title", out.title),
        ("datasets", ", ".join(out.datasets)),
        ("format", format_words(out)),
        ("read", read_words(out.coverage) if out.coverage else ""),
        ("ingested", when(out.ingested_at)),
        ("tags", ", ".join(out.tags)),
        ("description", out.description),
        ("approvals", f"{len(out.history):,} (tabular history {out.source_uri})" if out.history else ""),
    ]
    for name, value in facts:
        if value:
            console.print(f"  {name:12} {escape(str(value))}", soft_wrap=True)
    if out.metadata:
        console.print(f"  {'metadata':12} {escape(json.dumps(out.metadata, ensure_ascii=False))}", soft_wrap=True)


# The op's terminal view, for the commands made from the registry (--json prints the answer as it is).
VIEWS = {
    "knowledge.ingest_status": show_status,
    "knowledge.ingest_cancel": show_cancel,
    "knowledge.formats": show_formats,
    "knowledge.get": show_get,
}


def show_reading(console: Console, calc) -> None:
    """A synthesize calculation's reading (the plan said back in words) and its confidence (issue 55)."""
    from ..display.answers import confidence_words  # heavy: the notebook views, for an ask only (the CLI starts lazy)

    if calc.reading:
        console.print(f"read as: {escape(calc.reading)}", soft_wrap=True)
    if calc.confidence is not None:
        console.print(f"[dim]{escape(confidence_words(calc.confidence))}[/dim]", soft_wrap=True)
