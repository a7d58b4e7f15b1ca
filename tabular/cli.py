"""The command line: a thin layer over the Python API (SPEC §6)."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError, model_validator
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from . import __version__, connect
from .errors import TabularError
from .ops import REGISTRY
from .results import FORMATS as RESULT_FORMATS
from .results import format_of


def _n(count: int, noun: str) -> str:
    """'1 row', '2 rows'."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def _cell(value) -> str:
    """A value as a person reads it in a table: nothing for no value, true/false for a bool."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _show_datasets(console: Console, got) -> None:
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
            f"[bold]{escape(d.dataset_id)}[/bold]  revision {d.revision}  {_n(d.rows, 'row')}  {d.rows_rejected:,} rejected  {escape(', '.join(where))}"
        )
        table = Table(show_header=True, header_style="bold")
        for head in ("column", "type", "physical", "format", "nulls", "distinct", "min", "max"):
            table.add_column(head)
        for c in d.columns:
            table.add_row(
                *(escape(_cell(v)) for v in (c.name, c.type, c.physical, c.format, c.nulls, c.distinct, c.min, c.max))
            )
        console.print(table)
        for q in d.questions:
            options = "; ".join(f"{o.type} {o.format} (rejects {o.rows_rejected})" for o in q.options)
            console.print(
                f"  [yellow]question[/yellow] {escape(q.column or '(table)')} \\[{q.kind}] {escape(q.question)}  options: {escape(options)}"
            )
        for r in d.rejected:
            console.print(
                f"  [red]rejected[/red] row {r.row_id} (line {r.line}) {escape(r.column or '')}: {escape(repr(r.value))} — {escape(r.reason)}"
            )
        for w in d.warnings:
            console.print(f"  [dim]warning[/dim] {escape(w)}")
        if d.sample:
            console.print(f"  first {_n(len(d.sample), 'row')}:")
            names = [c.name for c in d.columns]
            _show_rows(
                console, names, [c.type for c in d.columns], [[row.get(name) for name in names] for row in d.sample]
            )


def _show_rows(console: Console, names: list[str], types: list[str], rows: list[list]) -> None:
    """A grid when the columns fit the terminal; else each row as `column: value` lines (as
    psql's expanded display), so no header or value is squeezed out of sight."""
    if sum(max(len(n), len(t)) + 3 for n, t in zip(names, types)) <= console.width:
        table = Table(show_header=True, header_style="bold")
        for name, type_ in zip(names, types):
            table.add_column(f"{escape(name)}\n[dim]{type_}[/dim]")
        for row in rows:
            table.add_row(*[escape(_cell(v)) for v in row])
        console.print(table)
        return
    width = max(len(n) for n in names)
    for k, row in enumerate(rows, 1):
        console.rule(f"row {k}", align="left", style="dim")
        for name, type_, value in zip(names, types, row):
            console.print(f"{escape(name.ljust(width))}  [dim]{type_:8}[/dim] {escape(_cell(value))}", soft_wrap=True)


class _Console(Console):
    """rich's console, except that a closed pipe is raised (rich exits 1 in silence) and said once."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError


class Refused(Exception):
    """What the command was given cannot be done as given: one line, exit status 2."""


def _namespace(args):
    engine = connect(args.home)
    return engine, engine.namespace(
        args.org or engine.settings.default_org, args.namespace or engine.settings.default_namespace
    )


def _sources(files: list[str], source_uri: str | None) -> list[tuple[Path, str]]:
    """Each file with the source it becomes: its name, unless two files given share a name
    (two data.csv from different folders), then each keeps the path as given."""
    paths = [Path(name) for name in files]
    if source_uri and len(paths) > 1:
        raise Refused(
            f"--source-uri names one source and {len(paths)} files were given; give one file, or leave --source-uri out"
        )
    for path in paths:
        if not path.is_file():
            raise Refused(
                f"{path}: {'is a directory' if path.is_dir() else 'no such file'}; give the path of a CSV, TSV, XLSX, ODS, XLS, JSON or Parquet file"
            )
    shared = {name for name, count in Counter(p.name for p in paths).items() if count > 1}
    return [(p, source_uri or (p.as_posix() if p.name in shared else p.name)) for p in paths]


def cmd_ingest(args, console: Console) -> int:
    options = _json_object(args.options, "--options value") if args.options else {}
    sources = _sources(args.files, args.source_uri)
    renamed = [uri for path, uri in sources if uri != path.name and not args.source_uri]
    if renamed and not args.json:
        console.print(f"[dim]files with the same name keep their paths as sources: {escape(', '.join(renamed))}[/dim]")
    engine, ns = _namespace(args)
    failed = 0
    with engine:
        for path, uri in sources:
            status = ns.ingest_file(path, source_uri=uri, options=options)
            if args.json:
                print(json.dumps(status.model_dump(mode="json"), ensure_ascii=False))
            elif status.state == "ready":
                console.print(f"[green]ready[/green] {escape(str(path))} → {escape(uri)} revision {status.revision}")
                _show_datasets(console, ns.dataset_get(uri))
            else:
                failed += 1
                console.print(
                    f"[red]{status.state}[/red] {escape(str(path))}: {status.error_code}: {escape(status.error_message or '')}",
                    soft_wrap=True,
                )
    return 1 if failed else 0


def _found(got, uri: str, dataset_id: str = "") -> None:
    if not got.found:
        what = f"no live dataset {dataset_id!r} in {uri!r}" if dataset_id else f"no live source {uri!r}"
        raise Refused(f"{what}; `tabular list` shows the sources of this namespace")


def cmd_datasets(args, console: Console) -> int:
    engine, ns = _namespace(args)
    with engine:
        got = ns.dataset_get(args.uri, args.dataset_id, args.sample_rows)
        if args.json:
            print(json.dumps(got.model_dump(mode="json"), ensure_ascii=False, indent=2))
            return 0 if got.found else 1
        _found(got, args.uri, args.dataset_id)
        _show_datasets(console, got)
    return 0


def _pairs(given: list[str], flag: str) -> dict[str, str]:
    """`col=value` arguments as a dict (split at the first `=`: formats may hold one)."""
    out = {}
    for item in given:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise Refused(f"{flag} takes COLUMN=VALUE, got {item!r}")
        out[name] = value
    return out


def cmd_approve(args, console: Console) -> int:
    engine, ns = _namespace(args)
    columns, formats = _pairs(args.set, "--set"), _pairs(args.format, "--format")
    with engine:
        snapshot = args.snapshot_id
        if not snapshot:
            got = ns.dataset_get(args.uri, args.dataset)
            _found(got, args.uri, args.dataset)
            if len(got.datasets) > 1 and not args.dataset:
                names = ", ".join(d.dataset_id for d in got.datasets)
                raise Refused(
                    f"{args.uri!r} holds {len(got.datasets)} datasets ({names}); name the one to approve after the source"
                )
            snapshot = got.datasets[0].snapshot_id
        answer = ns.approve(args.uri, snapshot, columns, formats, args.dataset)
        if args.json:
            print(json.dumps(answer.model_dump(mode="json"), ensure_ascii=False, indent=2))
            return 0 if answer.found else 1
        _found(answer, args.uri, args.dataset)
        d = answer.dataset
        console.print(
            f"[green]approved[/green] {d.dataset_id} by {d.approved_by}: snapshot {snapshot} → {d.snapshot_id}"
        )
        for c in answer.changes:
            console.print(
                f"  {escape(c.column)}: {c.before.type} {escape(c.before.format)} → {c.after.type} {escape(c.after.format)} (rejects {c.rows_rejected} rows)"
            )
        _show_datasets(console, ns.dataset_get(args.uri, d.dataset_id))
    return 0


def cmd_history(args, console: Console) -> int:
    engine, ns = _namespace(args)
    with engine:
        got = ns.call("knowledge.get", {"source_uri": args.uri})
    if not got["found"]:
        raise Refused(f"no source {args.uri!r}; `tabular list` shows the sources of this namespace")
    if args.json:
        print(json.dumps(got["history"], ensure_ascii=False, indent=2))
        return 0
    if not got["history"]:
        console.print(f"{args.uri}: no approvals yet")
    for h in got["history"]:
        console.print(
            f"{h['approved_at']}  [bold]{escape(h['approved_by'] or '')}[/bold] approved {h['dataset_id']} (revision {h['revision']}): {h['old_snapshot_id']} → {h['new_snapshot_id']}"
        )
        for c in h["changes"]:
            b, a = c["before"], c["after"]
            console.print(
                f"  {escape(c['column'])}: {b['type']} {escape(b['format'])} → {a['type']} {escape(a['format'])} (rejects {c['rows_rejected']} rows)"
            )
        if h["settled"]:
            console.print(f"  settled as held: {escape(', '.join(h['settled']))}")
    return 0


def _json_object(text: str, what: str) -> dict:
    """The text as a JSON object, else refused."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        raise Refused(f"VALIDATION_FAILED: the {what} is not JSON: {err}; write it as a JSON object") from None
    if not isinstance(value, dict):
        raise Refused(f"VALIDATION_FAILED: the {what} must be a JSON object, not a {type(value).__name__}")
    return value


def _read_text(name: str, what: str) -> str:
    """A file's text, or stdin for -."""
    if name == "-":
        return sys.stdin.read()
    path = Path(name)
    if not path.is_file():
        raise Refused(f"{name}: no such {what} file; give the path of a JSON file, or - to read it from stdin")
    return path.read_text(encoding="utf-8", errors="replace")


def cmd_query(args, console: Console) -> int:
    text = args.plan if args.plan.lstrip().startswith("{") else _read_text(args.plan, "plan")
    plan = _json_object(text, "plan")
    engine, ns = _namespace(args)
    with engine:
        if args.output:
            fmt = args.format or format_of(args.output)
            if fmt is None:
                raise Refused(
                    f"say the format of {args.output} with --format ({', '.join(RESULT_FORMATS)}) or its extension"
                )
            written = ns.export(plan, args.output, fmt)
            console.print(f"{_n(written, 'row')} written to {escape(args.output)} ({fmt})")
            return 0
        answer = ns.query({**plan, "dry_run": plan.get("dry_run", False) or args.sql})
        _warn_ignored(answer, "plan")
        if args.sql:
            print(answer.receipt.sql)
            print(json.dumps(answer.receipt.params, ensure_ascii=False))
        elif args.json:
            print(json.dumps(answer.model_dump(mode="json", by_alias=True), ensure_ascii=False, indent=2))
        else:
            _show_answer(console, answer)
    return 0


def _warn_ignored(answer, what: str) -> None:
    """Keys the op does not know were not used: said on stderr, so a --json answer stays JSON."""
    if getattr(answer, "ignored_args", None):
        Console(stderr=True).print(
            f"[yellow]warning[/yellow] the {what} keys {escape(', '.join(answer.ignored_args))} are not used by this op and were ignored"
        )


def _show_answer(console: Console, answer) -> None:
    _show_rows(console, [c.name for c in answer.columns], [c.type for c in answer.columns], answer.rows)
    more = " (more rows matched: raise limit or use offset)" if answer.truncated else ""
    console.print(f"{_n(len(answer.rows), 'row')}{more}")
    for reason in answer.incomplete:
        console.print(f"[yellow]incomplete[/yellow] {escape(reason)}")
    for warning in answer.receipt.warnings:
        console.print(f"[yellow]warning[/yellow] {escape(warning)}")


def cmd_ask(args, console: Console) -> int:
    engine, ns = _namespace(args)
    with engine:
        out = ns.synthesize(args.task, args.uris)
    if args.json:
        print(json.dumps(out.model_dump(mode="json", by_alias=True), ensure_ascii=False, indent=2))
    elif out.abstain:
        console.print(f"[yellow]{out.abstain_reason}[/yellow] {escape(out.clarification or '')}")
    else:
        console.print(escape(out.answer))
        console.print(escape(out.calculations[0].note))
        console.print(f"[dim]proposed by {escape(out.model)}[/dim]")
    return 1 if out.abstain else 0


class _Shown(BaseModel):
    title: str
    plan: dict


class _Approval(BaseModel):
    title: str
    source_uri: str
    formats: dict[str, str]
    then_plan: int


class _Task(BaseModel):
    title: str
    text: str
    source_uris: list[str]


class DemoManifest(BaseModel):
    """What `tabular demo` walks through (fixtures/demo.json): files are relative to it."""

    files: list[str]
    prefix: str = ""
    plans: list[_Shown] = Field(min_length=1)
    approve: _Approval
    task: _Task

    @model_validator(mode="after")
    def _plan_there(self) -> DemoManifest:
        if not 0 <= self.approve.then_plan < len(self.plans):
            raise ValueError(f"approve.then_plan {self.approve.then_plan} is not one of the {len(self.plans)} plans")
        return self


def cmd_demo(args, console: Console) -> int:
    """The walk-through a manifest describes (fixtures/demo.json in the repository): its files
    ingested, its plans answered, one question answered by a person, one task in words."""
    manifest = Path(args.manifest)
    try:
        demo = DemoManifest.model_validate_json(manifest.read_bytes())
    except OSError as err:
        raise Refused(f"{args.manifest}: not a demo manifest ({err.strerror})") from None
    except ValueError as err:  # not JSON, or not this shape: pydantic says where
        first = err.errors()[0] if isinstance(err, ValidationError) else {"loc": (), "msg": str(err)}
        where = ".".join(str(p) for p in first["loc"]) or "(the file)"
        raise Refused(f"{args.manifest}: not a demo manifest ({where}: {first['msg']})") from None
    engine, ns = _namespace(args)
    with engine:
        for name in demo.files:
            uri = demo.prefix + Path(name).name
            status = ns.ingest_file(manifest.parent / name, source_uri=uri)
            console.rule(f"{Path(name).name}: {status.state}")
            _show_datasets(console, ns.dataset_get(uri, sample_rows=0))
        for shown in demo.plans:
            console.rule(shown.title)
            console.print(escape(json.dumps(shown.plan)))
            answer = ns.query(shown.plan)
            _show_answer(console, answer)
            console.print(f"[dim]{escape(answer.receipt.sql)}[/dim]")
        approve = demo.approve
        console.rule(approve.title)
        snapshot = ns.dataset_get(approve.source_uri).datasets[0].snapshot_id
        approved = ns.approve(approve.source_uri, snapshot, formats=approve.formats)
        console.print(
            f"approved by {escape(approved.dataset.approved_by or '')}: snapshot {snapshot} -> {approved.dataset.snapshot_id}"
        )
        _show_answer(console, ns.query(demo.plans[approve.then_plan].plan))
        task = demo.task
        console.rule(f"{task.title}: {task.text!r}")
        out = ns.synthesize(task.text, task.source_uris)
        console.print(escape(out.answer or f"{out.abstain_reason}: {out.clarification}"))
    return 0


def cmd_serve(args, console: Console) -> int:
    from .service import serve  # heavy: FastAPI and uvicorn, only for this command

    # The server takes up what other processes left pending or interrupted, and follows the
    # linked folders; it may link only inside TABULAR_LINK_ROOTS (none unless set).
    engine = connect(
        args.home, take_up_jobs=True, watch_links=True, link_roots=os.environ.get("TABULAR_LINK_ROOTS", "")
    )
    with engine:
        serve(engine, args.host, args.port, access_log=args.access_log)
    return 0


def cmd_worker(args, console: Console) -> int:
    """Finish the ingest jobs other processes left pending or interrupted, then exit."""
    with connect(args.home, take_up_jobs=True) as engine:
        taken = engine.jobs.taken_up
        for ingestion_id in taken:
            engine.jobs.wait(ingestion_id)
        console.print(f"{len(taken)} job{'' if len(taken) == 1 else 's'} taken up")
    return 0


def cmd_mcp(args, console: Console) -> int:
    from .service.mcp import run_stdio  # heavy: the MCP SDK, only for this command

    with connect(args.home) as engine:
        run_stdio(engine)
    return 0


def cmd_call(args, console: Console) -> int:
    """Any op by name, the body as JSON (a file, - for stdin, or inline); the answer as JSON."""
    text = args.body or "{}"
    if text == "-" or not text.lstrip().startswith(("{", "[")):
        text = _read_text(text, "body")
    body = _json_object(text, "body")
    for key in ("org", "namespace"):
        if getattr(args, key) and not body.get(key):
            body[key] = getattr(args, key)
    if args.url:
        from .client import Client  # heavy: httpx, only with --url

        with Client(args.url, args.token or os.environ.get("TABULAR_TOKEN")) as client:
            answer = client.call(args.op, body)
    else:
        with connect(args.home) as engine:
            answer = engine.call(args.op, body)
    print(json.dumps(answer, ensure_ascii=False, indent=2))
    return 0


def _call_op(args, op: str, body: dict | None = None) -> dict | None:
    """Run one op in the command's namespace; with --json print its answer and answer None (the
    command is done), else answer it for the command to show."""
    engine, ns = _namespace(args)
    with engine:
        got = ns.call(op, body or {})
    if args.json:
        print(json.dumps(got, ensure_ascii=False, indent=2))
        return None
    return got


def cmd_list(args, console: Console) -> int:
    got = _call_op(args, "knowledge.list", {"prefix": args.prefix, "limit": args.limit, "cursor": args.cursor})
    if got is None:
        return 0
    if not got["rows"]:
        console.print(f"no sources{f' starting with {args.prefix!r}' if args.prefix else ''} in this namespace")
        return 0
    table = Table(show_header=True, header_style="bold")
    for head in ("source", "revision", "ingested", "title"):
        table.add_column(head)
    for row in got["rows"]:
        revision = "deleted" if row["deleted"] else _cell(row["revision"])
        table.add_row(
            escape(row["source_uri"]), revision, _cell(row["ingested_at"])[:19].replace("T", " "), escape(row["title"])
        )
    console.print(table)
    if got["next_cursor"]:
        console.print(f"more: tabular list --cursor {got['next_cursor']}")
    return 0


def cmd_delete(args, console: Console) -> int:
    body = {
        "source_uri": args.uri,
        **({"expected_revision": args.expected_revision} if args.expected_revision is not None else {}),
    }
    got = _call_op(args, "knowledge.delete", body)
    if got is None:
        return 0
    if not got["found"]:
        raise Refused(f"no live source {args.uri!r}; `tabular list` shows the sources of this namespace")
    console.print(
        f"deleted {escape(args.uri)} (revision {got['revision']}); `tabular restore {escape(args.uri)}` brings it back"
        if got["deleted"]
        else f"{escape(args.uri)} was already deleted"
    )
    return 0


def cmd_restore(args, console: Console) -> int:
    got = _call_op(args, "knowledge.restore", {"source_uri": args.uri})
    if got is None:
        return 0
    if not got["found"]:
        raise Refused(f"no source {args.uri!r}; `tabular list` shows the sources of this namespace")
    if not got["restored"]:
        raise Refused(f"{args.uri} was not restored: {got['reason']}")
    console.print(f"restored {escape(args.uri)} (revision {got['revision']})")
    return 0


def _show_link(console: Console, link: dict) -> None:
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
        f"[bold]{escape(link['link_id'])}[/bold]  {escape(link['path'])} → {escape(link['prefix'])}…  {_n(link['files'], 'file')}"
        f"{f' ({states})' if states else ''}  {status}"
    )
    if link["learning_paused"]:
        p = link["learning_paused"]
        console.print(
            f"  [yellow]learning paused[/yellow] {p['reason']}: {p['count']:,} over the limit {p['limit']:,}; nothing more is learned until it fits"
        )


def _show_files(console: Console, files: list[dict]) -> None:
    table = Table(show_header=True, header_style="bold")
    for head in ("path", "state", "revision", "source", "why"):
        table.add_column(head)
    colour = {"learned": "green", "pending": "yellow", "no_table": "dim", "failed": "red", "skipped": "dim"}
    for f in files:
        why = f"{f['error_code']}: {f['error_message']}" if f["error_code"] else ""
        table.add_row(
            escape(f["path"]),
            f"[{colour[f['state']]}]{f['state']}[/]",
            _cell(f["revision"]),
            escape(f["source_uri"]),
            escape(why),
        )
    console.print(table)


def cmd_link(args, console: Console) -> int:
    import time

    body = {"path": args.folder, "label": args.label, "recursive": not args.no_recursive}
    if args.prefix is not None:
        body["prefix"] = args.prefix
    if args.pattern:
        body["patterns"] = args.pattern
    engine = connect(args.home, watch_links=args.watch)
    ns = engine.namespace(args.org or engine.settings.default_org, args.namespace or engine.settings.default_namespace)
    with engine:
        link = ns.call("knowledge.link_dir", body)
        if args.watch:
            _show_link(console, link)
            console.print("[dim]watching; Ctrl-C stops (the link stays: `tabular serve` follows it too)[/dim]")
            shown = 0
            while True:  # until Ctrl-C
                events = engine.context.links.events
                for event in events[shown:]:
                    console.print(escape(event))
                shown = len(events)
                time.sleep(0.5)
        # In the foreground: look again until every file is read (or waits on something else).
        deadline = time.monotonic() + engine.settings.job_seconds
        with console.status("learning the folder …"):
            while time.monotonic() < deadline:
                files = ns.call("knowledge.dir_files", {"link_id": link["link_id"]})["files"]
                if not any(f["state"] == "pending" for f in files):
                    break
                time.sleep(max(0.5, engine.settings.link_settle_seconds / 2))
                link = ns.call("knowledge.retry_dir", {"link_id": link["link_id"]})
        link = next(k for k in ns.call("knowledge.list_dirs")["links"] if k["link_id"] == link["link_id"])
    if args.json:
        print(json.dumps({**link, "files_detail": files}, ensure_ascii=False, indent=2))
        return 0
    _show_link(console, link)
    _show_files(console, [f for f in files if f["state"] != "learned"] if len(files) > 50 else files)
    return 1 if any(f["state"] == "failed" for f in files) else 0


def cmd_links(args, console: Console) -> int:
    got = _call_op(args, "knowledge.list_dirs")
    if got is None:
        return 0
    if not got["links"]:
        console.print("no linked folders in this namespace; `tabular link FOLDER` makes one")
    for link in got["links"]:
        _show_link(console, link)
    return 0


def cmd_dir_files(args, console: Console) -> int:
    got = _call_op(
        args, "knowledge.dir_files", {"link_id": args.link_id, **({"state": args.state} if args.state else {})}
    )
    if got is None:
        return 0
    _show_files(console, got["files"])
    return 0


def cmd_retry_dir(args, console: Console) -> int:
    link = _call_op(args, "knowledge.retry_dir", {"link_id": args.link_id})
    if link is None:
        return 0
    _show_link(console, link)
    return 0


def cmd_unlink(args, console: Console) -> int:
    got = _call_op(args, "knowledge.unlink_dir", {"link_id": args.link_id, "delete_sources": args.delete_sources})
    if got is None:
        return 0
    deleted = (
        f"; {_n(got['sources_deleted'], 'source')} deleted (restorable)"
        if args.delete_sources
        else "; its sources stay"
    )
    console.print(f"unlinked {escape(args.link_id)}: the folder is untouched{deleted}")
    return 0


def cmd_export(args, console: Console) -> int:
    from .store.export import destination, export_live  # heavy: pyarrow's file systems, only for this command

    engine = connect(args.home)
    with engine:
        where = destination(engine.catalog, args.destination or engine.settings.snapshot_export)
        done = export_live(engine.catalog, where, args.org or None, args.namespace or None)
    if args.json:
        print(json.dumps([e.__dict__ for e in done], indent=2))
        return 0
    for e in done:
        console.print(
            f"{escape(e.source_uri)} {escape(e.dataset_id)} (revision {e.revision}): {_n(e.rows, 'row')}, {e.bytes:,} bytes → {escape(e.file)}"
        )
    console.print(
        f"{_n(len(done), 'live snapshot')} exported to {escape(where)}; manifest.json there says which file is which"
        if done
        else "no live snapshot to export"
    )
    return 0


def cmd_token(args, console: Console) -> int:
    from .service.auth import new_token, token_hash  # heavy: the service package, only for this command

    token = new_token()
    entry = {"name": args.name, "org": args.token_org, "namespaces": args.namespaces, "role": args.role}
    console.print("[bold]token[/bold] (give it to the caller; it is not stored):")
    print(token)
    console.print("[bold]entry[/bold] for the tokens file (TABULAR_TOKENS):")
    print(json.dumps({token_hash(token): {k: v for k, v in entry.items() if v}}, indent=2))
    return 0


# Each command's examples: shown under its --help and in the README's CLI section (a test keeps
# the two the same, and fails on a command with no help or no example).
EXAMPLES = {
    "ingest": [
        "tabular ingest sales.csv budget.xlsx",
        'tabular ingest export.csv --source-uri sales/2024.csv --options \'{"delimiter": ";"}\'',
    ],
    "datasets": ["tabular datasets sales.csv --sample-rows 5", "tabular datasets budget.xlsx --dataset-id Q1 --json"],
    "list": ["tabular list", "tabular list --prefix sales/"],
    "delete": ["tabular delete sales.csv"],
    "restore": ["tabular restore sales.csv"],
    "approve": [
        "tabular approve sales.csv --format booked=%m/%d/%Y",
        "tabular approve budget.xlsx Q1 --set code=string",
    ],
    "history": ["tabular history sales.csv"],
    "query": [
        "tabular query plan.json",
        'echo \'{"datasets": [{"source_uri": "sales.csv"}], "limit": 5}\' | tabular query -',
        "tabular query plan.json --output all.parquet",
    ],
    "ask": ['tabular ask "total amount by region in 2024" sales.csv'],
    "demo": ["tabular demo fixtures/demo.json"],
    "serve": ["tabular serve --port 8765"],
    "worker": ["tabular worker"],
    "mcp": ["tabular mcp"],
    "call": [
        'tabular call knowledge.list \'{"prefix": "sales/"}\'',
        'tabular call knowledge.get \'{"source_uri": "sales.csv"}\' --url http://127.0.0.1:8765',
    ],
    "export": ["tabular export /data/exports"],
    "link": ["tabular link exports/", "tabular link ~/Budgets --label budgets --pattern '*.xlsx' --watch"],
    "links": ["tabular links"],
    "dir-files": ["tabular dir-files l_0123456789abcdef --state failed"],
    "retry-dir": ["tabular retry-dir l_0123456789abcdef"],
    "unlink": ["tabular unlink l_0123456789abcdef", "tabular unlink l_0123456789abcdef --delete-sources"],
    "token": ["tabular token --org acme --namespaces finance --role writer --name analyst"],
}


# The ops a hand-written command serves (a person needs more than the op's JSON there); every
# other op is a command made from the registry: its name, its input's fields as arguments.
HAND_WRITTEN = {
    "knowledge.upload": "ingest",
    "knowledge.ingest": "ingest",
    "knowledge.dataset_get": "datasets",
    "knowledge.list": "list",
    "knowledge.delete": "delete",
    "knowledge.restore": "restore",
    "knowledge.dataset_approve": "approve",
    "knowledge.query": "query",
    "knowledge.synthesize": "ask",
    "knowledge.link_dir": "link",
    "knowledge.list_dirs": "links",
    "knowledge.dir_files": "dir-files",
    "knowledge.retry_dir": "retry-dir",
    "knowledge.unlink_dir": "unlink",
}
_OWN = {"org", "namespace"}


def _generated() -> dict[str, object]:
    """The ops no hand-written command serves, by command name (`knowledge.ingest_status` is `ingest-status`)."""
    return {
        op.name.removeprefix("knowledge.").replace("_", "-"): op
        for op in REGISTRY.values()
        if op.name not in HAND_WRITTEN
    }


def _field_kind(field) -> str:
    annotation = str(field.annotation)
    if field.annotation is bool:
        return "flag"
    if field.annotation is int or annotation in ("int | None", "typing.Optional[int]"):
        return "int"
    if field.annotation is str or annotation in ("str | None", "typing.Optional[str]"):
        return "str"
    return "json"


def _generated_example(name: str, op) -> str:
    required = [f for f, info in op.input.model_fields.items() if f not in _OWN and info.is_required()]
    return " ".join([f"tabular {name}", *(f.upper() for f in required)])


def cmd_generated(args, console: Console) -> int:
    """An op run with the arguments its input's fields became; its answer printed as JSON."""
    op = REGISTRY[args.op_name]
    body = {}
    for name, info in op.input.model_fields.items():
        value = getattr(args, name, None)
        if name in _OWN or value is None:
            continue
        body[name] = _json_object(value, f"--{name.replace('_', '-')} value") if _field_kind(info) == "json" else value
    engine, ns = _namespace(args)
    with engine:
        answer = ns.call(op.name, body)
    print(json.dumps(answer, ensure_ascii=False, indent=2))
    return 1 if answer.get("found") is False else 0  # it ran; the answer is no


EXAMPLES.update({name: [_generated_example(name, op)] for name, op in _generated().items()})


def _common() -> argparse.ArgumentParser:
    """--home, --org and --namespace, taken before or after the command."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--home", default=argparse.SUPPRESS, help="where the DuckDB file lives (TABULAR_HOME, default ./.tabular)"
    )
    common.add_argument("--org", default=argparse.SUPPRESS, help="the organisation (default: the default_org setting)")
    common.add_argument(
        "--namespace", default=argparse.SUPPRESS, help="the namespace (default: the default_namespace setting)"
    )
    return common


def parser() -> argparse.ArgumentParser:
    # Two copies: a parent's actions are shared, and the top's defaults must not become the commands'
    # (a command's --home would then undo one given before it).
    common = _common()
    top = argparse.ArgumentParser(
        prog="tabular", description="Typed datasets from spreadsheets and CSV.", parents=[_common()]
    )
    top.set_defaults(home=None, org="", namespace="")
    top.add_argument("--version", action="version", version=f"tabular {__version__}")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help_: str, run, parents: tuple = (common,)) -> argparse.ArgumentParser:
        epilog = "examples:\n" + "\n".join(f"  {line}" for line in EXAMPLES.get(name, []))
        p = sub.add_parser(
            name,
            help=help_,
            description=help_,
            parents=list(parents),
            epilog=epilog,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        p.set_defaults(run=run)
        return p

    # The arguments several commands take, each defined once.
    def source_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument("uri", metavar="SOURCE", help="the source's name (its source_uri)")

    def link_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument("link_id", metavar="LINK_ID", help="what `tabular links` shows")

    def json_flag(p: argparse.ArgumentParser, what: str) -> None:
        p.add_argument("--json", action="store_true", help=f"print {what} as JSON")

    p = command("ingest", "ingest files and show their datasets", cmd_ingest)
    p.add_argument("files", nargs="+", metavar="FILE", help="CSV, TSV, XLSX, ODS, XLS, JSON, NDJSON or Parquet files")
    p.add_argument(
        "--source-uri",
        help="the source's name for one file (default: the file name; the path given when two files share a name)",
    )
    p.add_argument("--options", help='ingest options as a JSON object, e.g. \'{"delimiter": ";"}\'')
    json_flag(p, "the ingest_status answers")
    p = command(
        "datasets",
        "show a source's datasets: columns, types, questions, rejected rows (knowledge.dataset_get)",
        cmd_datasets,
    )
    source_arg(p)
    p.add_argument("--dataset-id", default="", help="one dataset of a workbook (default: all)")
    p.add_argument("--sample-rows", type=int, default=0, help="show the first N rows of each dataset")
    json_flag(p, "the dataset_get answer")
    p = command("list", "list the sources of the namespace (knowledge.list)", cmd_list)
    p.add_argument("--prefix", default="", help="only sources whose name starts with this")
    p.add_argument("--limit", type=int, default=100, help="sources per page")
    p.add_argument("--cursor", default="", help="the page after the one that printed it")
    json_flag(p, "the list answer")
    p = command("delete", "take a source down; restore brings it back (knowledge.delete)", cmd_delete)
    source_arg(p)
    p.add_argument("--expected-revision", type=int, help="delete only if this revision is live")
    json_flag(p, "the delete answer")
    p = command("restore", "bring a deleted source back (knowledge.restore)", cmd_restore)
    source_arg(p)
    json_flag(p, "the restore answer")
    p = command(
        "approve",
        "settle a dataset's types (knowledge.dataset_approve): --set col=type, --format col=PATTERN",
        cmd_approve,
    )
    source_arg(p)
    p.add_argument("dataset", nargs="?", default="", help="the dataset_id (needed only when the source has several)")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="COL=TYPE",
        help="retype a column: string, number, bool, date, datetime, time, duration",
    )
    p.add_argument(
        "--format",
        action="append",
        default=[],
        metavar="COL=PATTERN",
        help="e.g. when=%%m/%%d/%%Y, when=MDY, weight=decimal_mark=,",
    )
    p.add_argument(
        "--snapshot-id",
        default="",
        help="the snapshot you reviewed (default: the one serving now); refused if it no longer serves",
    )
    json_flag(p, "the approval answer")
    p = command(
        "history", "a source's approvals: who, when, columns before and after, snapshots (knowledge.get)", cmd_history
    )
    source_arg(p)
    json_flag(p, "the approvals")
    p = command("query", "answer a plan (knowledge.query): a JSON file, inline JSON, or - for stdin", cmd_query)
    p.add_argument(
        "plan", metavar="PLAN", help="a JSON file holding the plan, the plan itself as JSON, or - to read it from stdin"
    )
    json_flag(p, "the whole answer, receipt included,")
    p.add_argument("--sql", action="store_true", help="print the compiled SQL and its parameters; run nothing")
    p.add_argument(
        "--output",
        help="write every row the plan matches (no limit), streamed, to this file: .parquet .csv .arrow .ndjson",
    )
    p.add_argument(
        "--format", choices=sorted(RESULT_FORMATS), help="the --output file's format when its extension does not say"
    )
    p = command("ask", "answer a task in words over ingested sources (knowledge.synthesize), or say why not", cmd_ask)
    p.add_argument("task", help="the task in words, quoted")
    p.add_argument("uris", nargs="+", metavar="SOURCE", help="the sources the task is about (at most 4)")
    json_flag(p, "the whole answer, calculation and receipt included,")
    p = command("demo", "ingest the files a demo manifest names and walk through them", cmd_demo)
    p.add_argument("manifest", metavar="MANIFEST", help="a demo manifest: fixtures/demo.json in the repository")
    for name, op in _generated().items():
        p = command(name, f"{op.description.rstrip('.')} ({op.name}; the answer as JSON)", cmd_generated)
        p.set_defaults(op_name=op.name)
        for field, info in op.input.model_fields.items():
            if field in _OWN:
                continue
            kind, said = _field_kind(info), info.description or field.replace("_", " ")
            if info.is_required():
                p.add_argument(field, metavar=field.upper(), help=said)
            elif kind == "flag":
                p.add_argument(f"--{field.replace('_', '-')}", dest=field, action="store_true", default=None, help=said)
            else:
                p.add_argument(
                    f"--{field.replace('_', '-')}",
                    dest=field,
                    type=int if kind == "int" else str,
                    help=said + (" (as JSON)" if kind == "json" else ""),
                )
    p = command(
        "serve", "serve every op over HTTP (POST /v1/knowledge.<op>, OpenAPI at /docs) and MCP at /mcp", cmd_serve
    )
    p.add_argument("--host", help="address to listen on (TABULAR_HOST, default 127.0.0.1)")
    p.add_argument("--port", type=int, help="port (TABULAR_PORT, default 8765)")
    p.add_argument("--access-log", action="store_true", help="log every request")
    command("worker", "finish the ingest jobs other processes left pending or interrupted, then exit", cmd_worker)
    command("mcp", "serve every op as MCP tools (loom_knowledge_<op>) on stdin/stdout", cmd_mcp)
    p = command("call", "run any op by name with a JSON body; print the answer as JSON", cmd_call)
    p.add_argument("op", choices=sorted(REGISTRY), metavar="OP", help="one of: " + ", ".join(sorted(REGISTRY)))
    p.add_argument("body", nargs="?", help="the body: inline JSON, a JSON file, or - for stdin (default {})")
    p.add_argument("--url", help="call a tabular service at this address instead of the local DuckDB file")
    p.add_argument("--token", help="bearer token for --url (default: TABULAR_TOKEN)")
    p = command("link", "link a folder: its files become sources and follow its changes (knowledge.link_dir)", cmd_link)
    p.add_argument(
        "folder",
        metavar="FOLDER",
        help="the folder (inside the allowed roots: the working directory unless TABULAR_LINK_ROOTS says)",
    )
    p.add_argument("--label", default="", help="a name for the link (default: the folder's name)")
    p.add_argument("--prefix", help="what each source's name starts with (default: '<label>/')")
    p.add_argument(
        "--pattern",
        action="append",
        default=[],
        metavar="GLOB",
        help="read only files matching this (repeatable; default: every readable format)",
    )
    p.add_argument("--no-recursive", action="store_true", help="leave the folders inside it out")
    p.add_argument("--watch", action="store_true", help="stay in the foreground and follow its changes, printing each")
    json_flag(p, "the link and its files")
    p = command("links", "list the linked folders of the namespace (knowledge.list_dirs)", cmd_links)
    json_flag(p, "the list_dirs answer")
    p = command(
        "dir-files",
        "a linked folder's files and their states: learned, pending, no_table, failed, skipped (knowledge.dir_files)",
        cmd_dir_files,
    )
    link_arg(p)
    p.add_argument(
        "--state", choices=["learned", "pending", "no_table", "failed", "skipped"], help="only files in this state"
    )
    json_flag(p, "the dir_files answer")
    p = command(
        "retry-dir", "look again at a linked folder; one that was missing resumes (knowledge.retry_dir)", cmd_retry_dir
    )
    link_arg(p)
    json_flag(p, "the link")
    p = command("unlink", "stop following a linked folder; the folder is untouched (knowledge.unlink_dir)", cmd_unlink)
    link_arg(p)
    p.add_argument("--delete-sources", action="store_true", help="also delete the sources its files made (restorable)")
    json_flag(p, "the unlink answer")
    p = command(
        "export",
        "write every live snapshot as Parquet (zstd, row id included) for ClickHouse; --org/--namespace narrow it",
        cmd_export,
    )
    p.add_argument(
        "destination",
        nargs="?",
        default="",
        help="a directory or object-store URL (default: TABULAR_SNAPSHOT_EXPORT, else <home>/exports)",
    )
    json_flag(p, "what was written")
    p = command("token", "make a bearer token and print its entry for the tokens file", cmd_token, parents=())
    p.add_argument("--org", dest="token_org", metavar="ORG", required=True, help="the organisation the token is for")
    p.add_argument("--namespaces", nargs="+", default=["*"], help="namespaces it may use (* = all of the org)")
    p.add_argument(
        "--role",
        choices=["viewer", "writer", "admin"],
        default="viewer",
        help="viewer reads, writer ingests and approves, admin deletes",
    )
    p.add_argument("--name", default="", help="who the audit log names")
    return top


def usage_markdown() -> str:
    """The README's CLI section: every command's help, usage and examples, from the parser."""
    top = parser()
    commands = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    out = ["Every command but `token` also takes `--home`, `--org`, `--namespace`, and `-h` for its help.", ""]
    for name, p in commands.choices.items():
        usage = re.sub(r"\s+", " ", p.format_usage().removeprefix("usage: ").strip())
        usage = usage.replace(" [-h]", "").replace(" [--home HOME] [--org ORG] [--namespace NAMESPACE]", "")
        out += [
            f"- **`tabular {name}`**: {p.description}",
            "  ```sh",
            f"  # {usage}",
            *(f"  {line}" for line in EXAMPLES[name]),
            "  ```",
        ]
    return "\n".join(out) + "\n"


README_MARKS = ("<!-- cli:start (generated from tabular/cli.py by `make readme`) -->\n", "<!-- cli:end -->")


def write_usage(readme: str = "README.md") -> None:
    text = Path(readme).read_text(encoding="utf-8")
    head, rest = text.split(README_MARKS[0])
    _, tail = rest.split(README_MARKS[1])
    Path(readme).write_text(head + README_MARKS[0] + usage_markdown() + README_MARKS[1] + tail, encoding="utf-8")


# What to do after each kind of refusal, said once after its message.
NEXT_STEP = {
    "VALIDATION_FAILED": "fix what is named and run it again",
    "RESOURCE_NOT_FOUND": "`tabular list` shows the sources of this namespace",
    "PRECONDITION_FAILED": "look again (`tabular datasets SOURCE`) and run it against what serves now",
    "TOO_LARGE": "the limits are settings (see the README's limits)",
    "RATE_LIMITED": "try again in a moment",
    "OVERLOADED": "try again in a moment",
    "BACKEND_TIMEOUT": "narrow the plan or raise the time limit setting",
    "AUTH_INVALID": "give a valid token (--token or TABULAR_TOKEN)",
    "AUTH_INSUFFICIENT": "use a token whose role and namespaces allow this",
}


def _one_line(err: TabularError) -> str:
    """A refusal as one line: the code, the message, each wrong path with what was expected and
    the close names, then what to do."""
    said = err.message
    if err.errors and " with the input" in said.split(":", 1)[0]:
        said = said.split(":", 1)[0]  # "1 problem(s) with the input: <the first>": the first follows, with its path
    parts = [f"{err.code}: {said}"]
    for item in err.errors[:5]:
        hint = f" (did you mean {', '.join(item.did_you_mean)}?)" if item.did_you_mean else ""
        parts.append(f"{item.path or '(input)'}: {item.message}{hint}")
    if len(err.errors) > 5:
        parts.append(f"and {len(err.errors) - 5} more")
    step = NEXT_STEP.get(err.code)
    return " ".join("; ".join(parts).split()) + (f" — {step}" if step else "")


def _quiet_stdout() -> None:
    """After a closed pipe, later writes (and the flush at exit) go nowhere instead of raising."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)  # a wrong option: argparse prints usage and one line, exits 2
    console, errors = _Console(), Console(stderr=True, soft_wrap=True)
    try:
        return args.run(args, console)
    except Refused as err:
        errors.print(f"[red]error[/red] {escape(str(err))}")
    except TabularError as err:
        errors.print(f"[red]error[/red] {escape(_one_line(err))}")
    except BrokenPipeError:
        _quiet_stdout()
        errors.print(
            "[red]error[/red] the output was closed before all of it was written (a pipe such as `| head` ended); "
            "nothing was changed by that — write to a file to keep it all"
        )
    except KeyboardInterrupt:
        errors.print(
            "interrupted; an ingest that was running stays pending and the next `tabular worker` or `serve` finishes it"
        )
        return 130
    except OSError as err:
        errors.print(
            f"[red]error[/red] {escape(err.filename or '')}: {escape(err.strerror or str(err))}; check the path and its permissions"
        )
    except Exception as err:  # a bug: said in one line; TABULAR_DEBUG=1 shows the traceback
        if os.environ.get("TABULAR_DEBUG"):
            raise
        errors.print(
            f"[red]INTERNAL[/red] {type(err).__name__}: {escape(str(err))} — this is a bug; run again with TABULAR_DEBUG=1 and report the traceback"
        )
    return 2


if __name__ == "__main__":
    sys.exit(main())
