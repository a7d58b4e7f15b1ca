"""The command line: a thin layer over the Python API (SPEC §6)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from . import connect
from .errors import TabularError
from .ops import REGISTRY
from .results import FORMATS as RESULT_FORMATS
from .results import format_of

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "csv"
DEMO_FILES = ("european_numbers.csv", "dates_ambiguous.csv", "currency.csv", "ragged.csv", "leading_zeros.csv", "times_durations.csv")


def _ingest_one(ns, path: Path, source_uri: str, console: Console, options: dict):
    """Ingest with a progress line when the file takes more than a moment."""
    result = {}
    worker = threading.Thread(target=lambda: result.setdefault("status", ns.ingest_file(path, source_uri=source_uri, options=options)))
    worker.start()
    worker.join(1.0)
    if worker.is_alive():
        with console.status(f"ingesting {path.name} …"):
            worker.join()
    else:
        worker.join()
    return result["status"]


def _show_datasets(console: Console, got) -> None:
    for d in got.datasets:
        console.print(
            f"[bold]{d.dataset_id}[/bold]  revision {d.revision}  rows {d.rows}  rejected {d.rows_rejected}"
            f"  delimiter {d.origin.delimiter!r}  encoding {d.origin.encoding}"
        )
        table = Table(show_header=True, header_style="bold")
        for head in ("column", "type", "physical", "format", "nulls", "distinct", "min", "max"):
            table.add_column(head)
        for c in d.columns:
            table.add_row(c.name, c.type, c.physical, c.format, str(c.nulls), str(c.distinct), str(c.min), str(c.max))
        console.print(table)
        for q in d.questions:
            options = "; ".join(f"{o.type} {o.format} (rejects {o.rows_rejected})" for o in q.options)
            console.print(f"  [yellow]question[/yellow] {escape(q.column or '(table)')} \\[{q.kind}] {escape(q.question)}  options: {escape(options)}")
        for r in d.rejected:
            console.print(f"  [red]rejected[/red] row {r.row_id} (line {r.line}) {escape(r.column or '')}: {escape(repr(r.value))} — {escape(r.reason)}")
        for w in d.warnings:
            console.print(f"  [dim]warning[/dim] {w}")


def _namespace(args):
    engine = connect(args.home)
    return engine, engine.namespace(args.org or engine.settings.default_org, args.namespace or engine.settings.default_namespace)


def cmd_ingest(args, console: Console) -> int:
    engine, ns = _namespace(args)
    options = json.loads(args.options) if args.options else {}
    failed = 0
    with engine:
        for name in args.files:
            path = Path(name)
            status = _ingest_one(ns, path, args.source_uri or path.name, console, options)
            if args.json:
                print(json.dumps(status.model_dump(mode="json"), ensure_ascii=False))
            elif status.state == "ready":
                console.print(f"[green]ready[/green] {path.name} → {args.source_uri or path.name} revision {status.revision}")
                _show_datasets(console, ns.dataset_get(args.source_uri or path.name))
            else:
                failed += 1
                console.print(f"[red]{status.state}[/red] {path.name}: {status.error_code}: {status.error_message}")
    return 1 if failed else 0


def cmd_datasets(args, console: Console) -> int:
    engine, ns = _namespace(args)
    with engine:
        got = ns.dataset_get(args.uri, args.dataset_id, args.sample_rows)
        if args.json:
            print(json.dumps(got.model_dump(mode="json"), ensure_ascii=False, indent=2))
        elif not got.found:
            console.print(f"no live source {args.uri!r}")
            return 1
        else:
            _show_datasets(console, got)
    return 0


def _pairs(given: list[str], flag: str) -> dict[str, str]:
    """`col=value` arguments as a dict (split at the first `=`: formats may hold one)."""
    out = {}
    for item in given:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise SystemExit(f"{flag} takes COLUMN=VALUE, got {item!r}")
        out[name] = value
    return out


def cmd_approve(args, console: Console) -> int:
    engine, ns = _namespace(args)
    columns, formats = _pairs(args.set, "--set"), _pairs(args.format, "--format")
    with engine:
        snapshot = args.snapshot_id
        if not snapshot:
            got = ns.dataset_get(args.uri, args.dataset)
            if not got.found:
                console.print(f"no live dataset {args.dataset!r} in {args.uri!r}")
                return 1
            snapshot = got.datasets[0].snapshot_id
        answer = ns.approve(args.uri, snapshot, columns, formats, args.dataset)
        if args.json:
            print(json.dumps(answer.model_dump(mode="json"), ensure_ascii=False, indent=2))
            return 0 if answer.found else 1
        if not answer.found:
            console.print(f"no live dataset {args.dataset!r} in {args.uri!r}")
            return 1
        d = answer.dataset
        console.print(f"[green]approved[/green] {d.dataset_id} by {d.approved_by}: snapshot {snapshot} → {d.snapshot_id}")
        for c in answer.changes:
            console.print(f"  {escape(c.column)}: {c.before.type} {escape(c.before.format)} → {c.after.type} {escape(c.after.format)} (rejects {c.rows_rejected} rows)")
        _show_datasets(console, ns.dataset_get(args.uri, d.dataset_id))
    return 0


def cmd_history(args, console: Console) -> int:
    engine, ns = _namespace(args)
    with engine:
        got = ns.call("knowledge.get", {"source_uri": args.uri})
    if args.json:
        print(json.dumps(got["history"], ensure_ascii=False, indent=2))
    if not got["found"]:
        console.print(f"no source {args.uri!r}")
        return 1
    if args.json:
        return 0
    if not got["history"]:
        console.print(f"{args.uri}: no approvals yet")
    for h in got["history"]:
        console.print(f"{h['approved_at']}  [bold]{escape(h['approved_by'] or '')}[/bold] approved {h['dataset_id']} (revision {h['revision']}): {h['old_snapshot_id']} → {h['new_snapshot_id']}")
        for c in h["changes"]:
            b, a = c["before"], c["after"]
            console.print(f"  {escape(c['column'])}: {b['type']} {escape(b['format'])} → {a['type']} {escape(a['format'])} (rejects {c['rows_rejected']} rows)")
        if h["settled"]:
            console.print(f"  settled as held: {escape(', '.join(h['settled']))}")
    return 0


def _json_object(text: str, what: str, console: Console) -> dict | None:
    """The text as a JSON object, or None once the refusal is printed (the command exits 2)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        console.print(f"[red]VALIDATION_FAILED[/red] the {what} is not JSON: {escape(str(err))}")
        return None
    if not isinstance(value, dict):
        console.print(f"[red]VALIDATION_FAILED[/red] the {what} must be a JSON object, not a {type(value).__name__}")
        return None
    return value


def cmd_query(args, console: Console) -> int:
    text = sys.stdin.read() if args.plan == "-" else Path(args.plan).read_text(encoding="utf-8")
    plan = _json_object(text, "plan", console)
    if plan is None:
        return 2
    engine, ns = _namespace(args)
    with engine:
        if args.output:
            fmt = args.format or format_of(args.output)
            if fmt is None:
                console.print(f"[red]error[/red] say the format of {escape(args.output)} with --format ({', '.join(RESULT_FORMATS)}) or its extension")
                return 2
            written = ns.export(plan, args.output, fmt)
            console.print(f"{written} row{'' if written == 1 else 's'} written to {escape(args.output)} ({fmt})")
            return 0
        answer = ns.query({**plan, "dry_run": plan.get("dry_run", False) or args.sql})
        if args.sql:
            print(answer.receipt.sql)
            print(json.dumps(answer.receipt.params, ensure_ascii=False))
        elif args.json:
            print(json.dumps(answer.model_dump(mode="json", by_alias=True), ensure_ascii=False, indent=2))
        else:
            _show_answer(console, answer)
    return 0


def _show_answer(console: Console, answer) -> None:
    table = Table(show_header=True, header_style="bold")
    for c in answer.columns:
        table.add_column(f"{c.name}\n[dim]{c.type}[/dim]")
    for row in answer.rows:
        table.add_row(*[escape("" if v is None else str(v)) for v in row])
    console.print(table)
    more = " (more rows matched: raise limit or use offset)" if answer.truncated else ""
    console.print(f"{len(answer.rows)} rows{more}")
    for reason in answer.incomplete:
        console.print(f"[yellow]incomplete[/yellow] {escape(reason)}")
    for warning in answer.receipt.warnings:
        console.print(f"[yellow]warning[/yellow] {escape(warning)}")


DEMO_PLANS = (
    (
        "The total of a column written 1.234,56: an exact decimal sum",
        {"datasets": [{"source_uri": "demo/european_numbers.csv"}], "aggregates": [{"fn": "sum", "column": "Summe"}, {"fn": "count"}]},
    ),
    (
        "Top prices in dollars, with a filter on text",
        {
            "datasets": [{"source_uri": "demo/currency.csv"}],
            "where": [{"column": "item", "op": "not_contains", "value": "refund", "ignore_case": True}],
            "select": [{"column": "item"}, {"column": "price_usd"}],
            "order_by": [{"column": "price_usd", "desc": True}],
            "limit": 3,
        },
    ),
    (
        "A date column with an open question: the answer says it is incomplete",
        {"datasets": [{"source_uri": "demo/dates_ambiguous.csv"}], "group_by": [{"column": "when", "bucket": "month"}], "aggregates": [{"fn": "sum", "column": "qty"}]},
    ),
)


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


def cmd_demo(args, console: Console) -> int:
    engine, ns = _namespace(args)
    with engine:
        for name in DEMO_FILES:
            status = ns.ingest_file(FIXTURES / name, source_uri=f"demo/{name}")
            console.rule(f"{name}: {status.state}")
            _show_datasets(console, ns.dataset_get(f"demo/{name}", sample_rows=0))
        for title, plan in DEMO_PLANS:
            console.rule(title)
            console.print(escape(json.dumps(plan)))
            answer = ns.query(plan)
            _show_answer(console, answer)
            console.print(f"[dim]{escape(answer.receipt.sql)}[/dim]")
        uri, plan = "demo/dates_ambiguous.csv", DEMO_PLANS[-1][1]
        console.rule("A person answers the question (day first): the same plan is now complete")
        snapshot = ns.dataset_get(uri).datasets[0].snapshot_id
        approved = ns.approve(uri, snapshot, formats={"when": "DMY"})
        console.print(f"approved by {escape(approved.dataset.approved_by or '')}: snapshot {snapshot} -> {approved.dataset.snapshot_id}")
        _show_answer(console, ns.query(plan))
        task = "What is the total qty per month?"
        console.rule(f"A task in words: {task!r} becomes one checked plan, cited")
        out = ns.synthesize(task, [uri])
        console.print(escape(out.answer or f"{out.abstain_reason}: {out.clarification}"))
    return 0


def cmd_serve(args, console: Console) -> int:
    from .service import serve

    # The server takes up what other processes left pending or interrupted.
    engine = connect(args.home, take_up_jobs=True)
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
    from .service.mcp import run_stdio

    with connect(args.home) as engine:
        run_stdio(engine)
    return 0


def cmd_call(args, console: Console) -> int:
    """Any op by name, the body as JSON (a file, - for stdin, or inline); the answer as JSON."""
    text = args.body or "{}"
    if text == "-":
        text = sys.stdin.read()
    elif not text.lstrip().startswith("{") and Path(text).is_file():
        text = Path(text).read_text(encoding="utf-8")
    body = _json_object(text, "body", console)
    if body is None:
        return 2
    for key in ("org", "namespace"):
        if getattr(args, key) and not body.get(key):
            body[key] = getattr(args, key)
    if args.url:
        from .client import Client

        with Client(args.url, args.token or os.environ.get("TABULAR_TOKEN")) as client:
            answer = client.call(args.op, body)
    else:
        with connect(args.home) as engine:
            answer = engine.call(args.op, body)
    print(json.dumps(answer, ensure_ascii=False, indent=2))
    return 0


def cmd_export(args, console: Console) -> int:
    from .export import destination, export_live

    engine = connect(args.home)
    with engine:
        where = destination(engine.catalog, args.destination or engine.settings.snapshot_export)
        done = export_live(engine.catalog, where, args.org or None, args.namespace or None)
    if args.json:
        print(json.dumps([e.__dict__ for e in done], indent=2))
        return 0
    for e in done:
        console.print(f"{e.snapshot_id}: {e.rows:,} rows, {e.bytes:,} bytes → {escape(e.location)}")
    console.print(f"{len(done)} live snapshots exported to {escape(where)}" if done else "no live snapshot to export")
    return 0


def cmd_token(args, console: Console) -> int:
    from .service.auth import new_token, token_hash

    token = new_token()
    entry = {"name": args.name, "org": args.token_org, "namespaces": args.namespaces, "role": args.role}
    console.print("[bold]token[/bold] (give it to the caller; it is not stored):")
    print(token)
    console.print("[bold]entry[/bold] for the tokens file (TABULAR_TOKENS):")
    print(json.dumps({token_hash(token): {k: v for k, v in entry.items() if v}}, indent=2))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tabular", description="Typed datasets from spreadsheets and CSV.")
    parser.add_argument("--home", help="where the DuckDB file lives (TABULAR_HOME, default ./.tabular)")
    parser.add_argument("--org", default="")
    parser.add_argument("--namespace", default="")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("ingest", help="ingest files and show their datasets")
    p.add_argument("files", nargs="+")
    p.add_argument("--source-uri", help="the source's name (default: the file name)")
    p.add_argument("--options", help='ingest options as JSON, e.g. \'{"delimiter": ";"}\'')
    p.add_argument("--json", action="store_true", help="print the ingest_status answers as JSON")
    p.set_defaults(run=cmd_ingest)
    p = sub.add_parser("datasets", help="show a source's datasets (knowledge.dataset_get)")
    p.add_argument("uri")
    p.add_argument("--dataset-id", default="")
    p.add_argument("--sample-rows", type=int, default=0)
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_datasets)
    p = sub.add_parser("approve", help="settle a dataset's types (knowledge.dataset_approve): --set col=type, --format col=PATTERN")
    p.add_argument("uri")
    p.add_argument("dataset", help="the dataset_id ('' when the source has one)")
    p.add_argument("--set", action="append", default=[], metavar="COL=TYPE", help="retype a column: string, number, bool, date, datetime, time, duration")
    p.add_argument("--format", action="append", default=[], metavar="COL=PATTERN", help="e.g. when=%%m/%%d/%%Y, when=MDY, weight=decimal_mark=,")
    p.add_argument("--snapshot-id", default="", help="the snapshot you reviewed (default: the one serving now); 409 if it no longer serves")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_approve)
    p = sub.add_parser("history", help="a source's approvals: who, when, columns before and after, snapshots")
    p.add_argument("uri")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_history)
    p = sub.add_parser("query", help="answer a plan (knowledge.query) from a JSON file, or - for stdin")
    p.add_argument("plan")
    p.add_argument("--json", action="store_true", help="print the whole answer, receipt included, as JSON")
    p.add_argument("--sql", action="store_true", help="print the compiled SQL and its parameters; run nothing")
    p.add_argument("--output", help="write every row the plan matches (no limit), streamed, to this file: .parquet .csv .arrow .ndjson")
    p.add_argument("--format", choices=sorted(RESULT_FORMATS), help="the --output file's format when its extension does not say")
    p.set_defaults(run=cmd_query)
    p = sub.add_parser("ask", help="answer a task in words over ingested sources (knowledge.synthesize), or say why not")
    p.add_argument("task")
    p.add_argument("uris", nargs="+", metavar="URI", help="the sources the task is about (at most 4)")
    p.add_argument("--json", action="store_true", help="print the whole answer, calculation and receipt included, as JSON")
    p.set_defaults(run=cmd_ask)
    p = sub.add_parser("demo", help="ingest the bundled fixtures and show what came out")
    p.set_defaults(run=cmd_demo)
    p = sub.add_parser("serve", help="serve every op over HTTP (POST /v1/knowledge.<op>, OpenAPI at /docs) and MCP at /mcp")
    p.add_argument("--host", help="address to listen on (TABULAR_HOST, default 127.0.0.1)")
    p.add_argument("--port", type=int, help="port (TABULAR_PORT, default 8765)")
    p.add_argument("--access-log", action="store_true", help="log every request")
    p.set_defaults(run=cmd_serve)
    p = sub.add_parser("worker", help="finish the ingest jobs other processes left pending or interrupted, then exit")
    p.set_defaults(run=cmd_worker)
    p = sub.add_parser("mcp", help="serve every op as MCP tools (loom_knowledge_<op>) on stdin/stdout")
    p.set_defaults(run=cmd_mcp)
    p = sub.add_parser("call", help="run any op by name with a JSON body; print the answer as JSON")
    p.add_argument("op", choices=sorted(REGISTRY), metavar="OP", help="one of: " + ", ".join(sorted(REGISTRY)))
    p.add_argument("body", nargs="?", help="the body: inline JSON, a JSON file, or - for stdin (default {})")
    p.add_argument("--url", help="call a tabular service at this address instead of the local DuckDB file")
    p.add_argument("--token", help="bearer token for --url (default: TABULAR_TOKEN)")
    p.set_defaults(run=cmd_call)
    p = sub.add_parser("export", help="write every live snapshot as Parquet (zstd, row id included) for ClickHouse; --org/--namespace narrow it")
    p.add_argument("destination", nargs="?", default="", help="a directory or object-store URL (default: TABULAR_SNAPSHOT_EXPORT, else <home>/exports)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=cmd_export)
    p = sub.add_parser("token", help="make a bearer token and print its entry for the tokens file")
    p.add_argument("--org", dest="token_org", required=True)
    p.add_argument("--namespaces", nargs="+", default=["*"], help="namespaces it may use (* = all of the org)")
    p.add_argument("--role", choices=["viewer", "writer", "admin"], default="viewer")
    p.add_argument("--name", default="", help="who the audit log names")
    p.set_defaults(run=cmd_token)
    args = parser.parse_args(argv)
    console = Console()
    try:
        return args.run(args, console)
    except TabularError as err:
        console.print(f"[red]{err.code}[/red] {escape(err.message)}")
        for item in err.errors:
            hint = f" (did you mean {', '.join(item.did_you_mean)}?)" if item.did_you_mean else ""
            console.print(f"  {escape(item.path)}: {escape(item.message)}{escape(hint)}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
