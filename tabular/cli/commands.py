"""The commands over a namespace's data: ingest, datasets, approve, history, query, ask, list, delete, restore, demo."""

from __future__ import annotations

import json
import shlex
import sys
from collections import Counter
from pathlib import Path

from pydantic import Field, ValidationError, model_validator
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..models import Model
from .show import cell_text, cli_words, counted, show_answer, show_datasets, show_reading, warn_ignored

# Each command imports what it runs when it runs (the engine, the charts, the result writers, the
# question vocabulary): `tabular list` does not wait for what `tabular query --chart` needs.


class Refused(Exception):
    """What the command was given cannot be done as given: one line, exit status 2."""


def namespace_of(args):
    from ..engine import connect  # heavy: the engine and its ops, only for a command that opens the home

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
    options = json_argument(args.options, "--options value") if args.options else {}
    sources = _sources(args.files, args.source_uri)
    renamed = [uri for path, uri in sources if uri != path.name and not args.source_uri]
    if renamed and not args.json:
        console.print(f"[dim]files with the same name keep their paths as sources: {escape(', '.join(renamed))}[/dim]")
    engine, ns = namespace_of(args)
    failed = 0
    with engine:
        for path, uri in sources:
            status = ns.ingest_file(path, source_uri=uri, options=options)
            if args.json:
                print(json.dumps(status.model_dump(mode="json"), ensure_ascii=False))
            elif status.state == "ready":
                console.print(f"[green]ready[/green] {escape(str(path))} → {escape(uri)} revision {status.revision}")
                show_datasets(console, ns.dataset_get(uri), uri)
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
        raise Refused(not_found(what, got.did_you_mean))


def not_found(what: str, meant: list[str]) -> str:
    """A source (or dataset) not there, with the close names the op answered."""
    if meant:
        return f"{what}; did you mean {', '.join(repr(m) for m in meant)}?"
    return f"{what}; `tabular list` shows the sources of this namespace"


def cmd_datasets(args, console: Console) -> int:
    engine, ns = namespace_of(args)
    with engine:
        got = ns.dataset_get(args.uri, args.dataset_id, args.sample_rows)
        if args.json:
            print(json.dumps(got.model_dump(mode="json"), ensure_ascii=False, indent=2))
            return 0 if got.found else 1
        _found(got, args.uri, args.dataset_id)
        show_datasets(console, got, args.uri, args.dataset_id)
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
    engine, ns = namespace_of(args)
    columns, formats = _pairs(args.set, "--set"), _pairs(args.format, "--format")
    with engine:
        snapshot = args.snapshot_id
        if not snapshot or args.answer:
            got = ns.dataset_get(args.uri, args.dataset)
            _found(got, args.uri, args.dataset)
            if len(got.datasets) > 1 and not args.dataset:
                raise Refused(name_one(args.uri, [d.dataset_id for d in got.datasets], "approve"))
            snapshot = snapshot or got.datasets[0].snapshot_id
            from ..display.questions import answer_kind  # heavy: the question vocabulary, only with --answer

            for kind, choice in _pairs(args.answer, "--answer").items():
                try:  # every question of the kind, answered alike; --set and --format name columns over it
                    more_columns, more_formats = answer_kind(got.datasets[0].questions, kind, choice)
                except ValueError as err:
                    raise Refused(f"--answer {kind}={choice}: {err}") from None
                columns, formats = {**more_columns, **columns}, {**more_formats, **formats}
        asked = dict(dataset_id=args.dataset, allow_rejects=args.allow_rejects, settle_rest=args.settle_rest)
        preview = ns.approve(args.uri, snapshot, columns, formats, dry_run=True, **asked)
        _found(preview, args.uri, args.dataset)
        rejecting = [c for c in preview.changes if c.rows_rejected]
        if rejecting and not args.yes and args.json:
            print(json.dumps(preview.model_dump(mode="json"), ensure_ascii=False, indent=2))
            print("rows would be rejected: nothing changed (--yes applies)", file=sys.stderr)
            return 1
        if rejecting and not args.yes:
            for c in rejecting:
                said = ", ".join(repr(v) for v in c.examples)
                console.print(
                    f"  {escape(c.column)}: {c.after.type} {escape(c.after.format)} would reject {c.rows_rejected:,} "
                    f"of {c.values:,} values (e.g. {escape(said)})"
                )
            if not confirmed(console, "Apply, leaving those rows out?"):
                console.print("nothing changed (--yes applies without asking)")
                return 1
        answer = ns.approve(args.uri, snapshot, columns, formats, **asked)
        if args.json:
            print(json.dumps(answer.model_dump(mode="json"), ensure_ascii=False, indent=2))
            return 0 if answer.found else 1
        _found(answer, args.uri, args.dataset)
        show_approval(console, answer, args.uri, snapshot)
        show_datasets(console, ns.dataset_get(args.uri, answer.dataset.dataset_id), args.uri, answer.dataset.dataset_id)
    return 0


def name_one(uri: str, ids: list[str], command: str) -> str:
    """A source of several datasets named where one is meant: the names, and how to name one."""
    return (
        f"{uri!r} has {len(ids)} datasets: name one of {', '.join(ids)} as SOURCE#DATASET "
        f"(`tabular {command} {shlex.quote(f'{uri}#{ids[0]}')} …`)"
    )


def show_approval(console: Console, answer, uri: str, snapshot: str) -> None:
    """What an approval did: the snapshot it made, each column retyped, each question it answered
    and each it settled as shown (--settle-rest), and those it left open with how to settle them."""
    d = answer.dataset
    if answer.left_open:
        console.print(
            f"[yellow]answered[/yellow] {escape(d.dataset_id)}: snapshot {snapshot} → {d.snapshot_id}; "
            f"not approved while {counted(len(answer.left_open), 'question')} {'is' if len(answer.left_open) == 1 else 'are'} open",
            soft_wrap=True,
        )
    else:
        console.print(
            f"[green]approved[/green] {escape(d.dataset_id)} by {escape(d.approved_by or '')}: snapshot {snapshot} → {d.snapshot_id}",
            soft_wrap=True,
        )
    for c in answer.changes:
        console.print(
            f"  {escape(c.column)}: {c.before.type} {escape(c.before.format)} → {c.after.type} {escape(c.after.format)} (rejects {c.rows_rejected} rows)"
        )
    for verb, settled in (("answers", answer.answered), ("settles as shown", answer.settled)):
        if settled:
            said = ", ".join(f"{s.column or '(table)'} {s.type}{f' {s.format}' if s.format else ''}" for s in settled)
            console.print(f"  {verb}: {escape(said)}", soft_wrap=True)
    if answer.left_open:
        columns = ", ".join(f"{q.column or '(table)'} [{q.kind}]" for q in answer.left_open)
        again = f"tabular approve {shlex.quote(uri)} {shlex.quote(d.dataset_id)} --settle-rest"
        console.print(f"  still open: {escape(columns)} (`{escape(again)}` accepts them as shown)", soft_wrap=True)


def confirmed(console: Console, question: str) -> bool:
    """A yes from the person at the terminal; no when nobody can answer (stdin is not a terminal)."""
    if not sys.stdin.isatty():
        console.print(f"{question} No one to ask (stdin is not a terminal).")
        return False
    return console.input(f"{question} [y/N] ").strip().lower() in ("y", "yes")


def cmd_history(args, console: Console) -> int:
    engine, ns = namespace_of(args)
    with engine:
        got = ns.call("knowledge.get", {"source_uri": args.uri})
    if not got["found"]:
        raise Refused(not_found(f"no source {args.uri!r}", got["did_you_mean"]))
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


def json_argument(text: str, what: str) -> dict:
    """The text as a JSON object, else refused."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        raise Refused(f"VALIDATION_FAILED: the {what} is not JSON: {err}; write it as a JSON object") from None
    if not isinstance(value, dict):
        raise Refused(f"VALIDATION_FAILED: the {what} must be a JSON object, not a {type(value).__name__}")
    return value


def text_argument(name: str, what: str) -> str:
    """A file's text, or stdin for -."""
    if name == "-":
        return sys.stdin.read()
    path = Path(name)
    if not path.is_file():
        raise Refused(f"{name}: no such {what} file; give the path of a JSON file, or - to read it from stdin")
    return path.read_text(encoding="utf-8", errors="replace")


def cmd_query(args, console: Console) -> int:
    text = args.plan if args.plan.lstrip().startswith("{") else text_argument(args.plan, "plan")
    plan = json_argument(text, "plan")
    chart = args.chart
    if chart and (args.output or args.sql):
        raise Refused(
            f"--chart draws the answer; {'--output writes every row' if args.output else '--sql runs nothing'}: "
            "run them as two commands"
        )
    if chart:
        from ..charts import SAVED_AS as CHART_FILES  # heavy: the charts' module, for --chart only

        if Path(chart).suffix.lower() not in CHART_FILES:
            raise Refused(f"--chart {chart}: a chart is written as {', '.join(CHART_FILES)}; name the file so")
    engine, ns = namespace_of(args)
    with engine:
        if args.output:
            return _write_rows(args, engine, ns, plan, console)
        answer = ns.query({**plan, "dry_run": plan.get("dry_run", False) or args.sql})
        warn_ignored(answer, "plan")
        if args.sql:
            print(answer.receipt.sql)
            print(json.dumps(answer.receipt.params, ensure_ascii=False))
        elif args.json:
            print(json.dumps(answer.model_dump(mode="json", by_alias=True), ensure_ascii=False, indent=2))
        else:
            show_answer(console, answer)
        if chart:  # after the answer: one that cannot be drawn says why, having shown it
            figure = answer.plot(path=chart)
            if not args.json:
                console.print(f"chart written to {escape(chart)} ({escape(figure.get_suptitle())})")
    return 0


def _write_rows(args, engine, ns, plan: dict, console: Console) -> int:
    """`query --output`: every row the plan matches, streamed to the file, and one line saying so."""
    from ..results import FORMATS as RESULT_FORMATS  # heavy: the result writers (Arrow's CSV and Parquet)
    from ..results import format_of  # heavy: as above
    from ..results import write as write_result  # heavy: as above

    fmt = args.format or format_of(args.output)
    if fmt is None:
        raise Refused(f"say the format of {args.output} with --format ({', '.join(RESULT_FORMATS)}) or its extension")
    # Streamed here, not by ns.export: the whole result's receipt id is told with the rows.
    # Told the format: every one but Arrow takes durations as ISO text of any length.
    whole = engine.stream({"org": ns.org, "namespace": ns.name, **plan, "format": fmt})
    written = write_result(whole.reader, args.output, fmt)
    kept = (
        f"; receipt {whole.receipt_id} (`tabular receipt {whole.receipt_id}` shows what was read)"
        if whole.receipt_kept
        else "; no receipt was kept (the home refused to write it)"
    )
    # One line however narrow the terminal: the receipt id in it is copied or parsed.
    console.print(f"{counted(written, 'row')} written to {escape(args.output)} ({fmt}){escape(kept)}", soft_wrap=True)
    return 0


def cmd_ask(args, console: Console) -> int:
    engine, ns = namespace_of(args)
    with engine:
        out = ns.synthesize(args.task, args.uris)
    if args.json:
        print(json.dumps(out.model_dump(mode="json", by_alias=True), ensure_ascii=False, indent=2))
    elif out.abstain:
        console.print(f"[yellow]{out.abstain_reason}[/yellow] {escape(cli_words(out.clarification or ''))}")
        for calc in out.calculations:  # low_confidence: the calculation whose reading it asks to confirm
            show_reading(console, calc)
            if calc.note:
                console.print(escape(calc.note))
    else:
        console.print(escape(out.answer))
        show_reading(console, out.calculations[0])
        console.print(escape(out.calculations[0].note))
        console.print(f"[dim]proposed by {escape(out.model)}[/dim]")
    return 1 if out.abstain else 0


class _Shown(Model):
    title: str
    plan: dict


class _Approval(Model):
    title: str
    source_uri: str
    formats: dict[str, str]
    then_plan: int


class _Task(Model):
    title: str
    text: str
    source_uris: list[str]


class DemoManifest(Model):
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
    engine, ns = namespace_of(args)
    with engine:
        for name in demo.files:
            uri = demo.prefix + Path(name).name
            status = ns.ingest_file(manifest.parent / name, source_uri=uri)
            console.rule(f"{Path(name).name}: {status.state}")
            show_datasets(console, ns.dataset_get(uri, sample_rows=0), uri)
        for shown in demo.plans:
            console.rule(shown.title)
            console.print(escape(json.dumps(shown.plan)))
            answer = ns.query(shown.plan)
            show_answer(console, answer)
            console.print(f"[dim]{escape(answer.receipt.sql)}[/dim]")
        approve = demo.approve
        console.rule(approve.title)
        snapshot = ns.dataset_get(approve.source_uri).datasets[0].snapshot_id
        approved = ns.approve(approve.source_uri, snapshot, formats=approve.formats)
        console.print(
            f"approved by {escape(approved.dataset.approved_by or '')}: snapshot {snapshot} -> {approved.dataset.snapshot_id}"
        )
        show_answer(console, ns.query(demo.plans[approve.then_plan].plan))
        task = demo.task
        console.rule(f"{task.title}: {task.text!r}")
        out = ns.synthesize(task.text, task.source_uris)
        console.print(escape(out.answer or f"{out.abstain_reason}: {cli_words(out.clarification or '')}"))
        for calc in out.calculations:
            show_reading(console, calc)
    return 0


def call_op(args, op: str, body: dict | None = None) -> dict | None:
    """Run one op in the command's namespace; with --json print its answer and answer None (the
    command is done), else answer it for the command to show."""
    engine, ns = namespace_of(args)
    with engine:
        got = ns.call(op, body or {})
    if args.json:
        print(json.dumps(got, ensure_ascii=False, indent=2))
        return None
    return got


def cmd_list(args, console: Console) -> int:
    got = call_op(args, "knowledge.list", {"prefix": args.prefix, "limit": args.limit, "cursor": args.cursor})
    if got is None:
        return 0
    if not got["rows"]:
        console.print(f"no sources{f' starting with {args.prefix!r}' if args.prefix else ''} in this namespace")
        return 0
    table = Table(show_header=True, header_style="bold")
    for head in ("source", "revision", "ingested", "title"):
        table.add_column(head)
    for row in got["rows"]:
        revision = "deleted" if row["deleted"] else cell_text(row["revision"])
        table.add_row(
            escape(row["source_uri"]),
            revision,
            cell_text(row["ingested_at"])[:19].replace("T", " "),
            escape(row["title"]),
        )
    console.print(table)
    if got["next_cursor"]:
        console.print(f"more: tabular list --cursor {got['next_cursor']}")
    return 0


def cmd_jobs(args, console: Console) -> int:
    from ..display.html import when  # heavy: the views, only for the command that shows jobs
    from ..display.jobs import phase_words  # heavy: as above

    engine, ns = namespace_of(args)
    with engine:
        got = ns.jobs()
    if args.json:
        print(json.dumps(got.model_dump(mode="json")["jobs"], ensure_ascii=False, indent=2))
        return 0
    if not got.jobs:
        console.print("no ingest job is pending or running in this namespace")
        return 0
    table = Table(show_header=True, header_style="bold")
    for head in ("ingestion id", "source", "state", "stage", "progress", "since"):
        table.add_column(head)
    for job in got.jobs:
        table.add_row(
            job.ingestion_id,
            escape(job.source_uri),
            job.state + (" (cancel asked)" if job.cancel_requested else ""),
            job.stage,
            phase_words(job.progress) if job.progress.phase else "",
            when(job.created_at),
        )
    console.print(table)
    console.print("[dim]tabular ingest-cancel ID cancels one; tabular worker finishes the pending ones[/dim]")
    return 0


def cmd_delete(args, console: Console) -> int:
    body = {
        "source_uri": args.uri,
        **({"expected_revision": args.expected_revision} if args.expected_revision is not None else {}),
    }
    got = call_op(args, "knowledge.delete", body)
    if got is None:
        return 0
    if not got["found"]:
        raise Refused(not_found(f"no live source {args.uri!r}", got["did_you_mean"]))
    console.print(
        f"deleted {escape(args.uri)} (revision {got['revision']}); `tabular restore {escape(args.uri)}` brings it back"
        if got["deleted"]
        else f"{escape(args.uri)} was already deleted"
    )
    return 0


def cmd_restore(args, console: Console) -> int:
    got = call_op(args, "knowledge.restore", {"source_uri": args.uri})
    if got is None:
        return 0
    if not got["found"]:
        raise Refused(not_found(f"no deleted source {args.uri!r}", got["did_you_mean"]))
    if not got["restored"]:
        raise Refused(f"{args.uri} was not restored: {got['reason']}")
    console.print(f"restored {escape(args.uri)} (revision {got['revision']})")
    return 0
