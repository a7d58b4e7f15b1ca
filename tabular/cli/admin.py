"""The commands that run or manage the engine: serve, worker, mcp, call, token, export, and linked folders."""

from __future__ import annotations

import json
import os

from rich.console import Console
from rich.markup import escape

from .commands import call_op, json_argument, text_argument
from .show import counted, show_files, show_link


def cmd_serve(args, console: Console) -> int:
    from ..engine import connect  # heavy: the engine and its ops
    from ..service import serve  # heavy: FastAPI and uvicorn, only for this command

    # The server takes up what other processes left pending or interrupted, and follows the
    # linked folders; it may link only inside TABULAR_LINK_ROOTS (none unless set).
    engine = connect(
        args.home, take_up_jobs=True, watch_links=True, link_roots=os.environ.get("TABULAR_LINK_ROOTS", "")
    )
    with engine:
        host, port = args.host or engine.settings.host, args.port or engine.settings.port
        shown = f"[{host}]" if ":" in host else host
        console.print(
            f"the web page: http://{shown}:{port}/ui  (the API: /v1/knowledge.<op>, /docs)",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        serve(engine, args.host, args.port, access_log=args.access_log)
    return 0


def cmd_worker(args, console: Console) -> int:
    """Finish the ingest jobs other processes left pending or interrupted, then exit."""
    from ..engine import connect  # heavy: the engine and its ops

    with connect(args.home, take_up_jobs=True) as engine:
        taken = engine.jobs.taken_up
        for ingestion_id in taken:
            engine.jobs.wait(ingestion_id)
        console.print(f"{len(taken)} job{'' if len(taken) == 1 else 's'} taken up")
    return 0


def cmd_mcp(args, console: Console) -> int:
    from ..engine import connect  # heavy: the engine and its ops
    from ..service.mcp import run_stdio  # heavy: the MCP SDK, only for this command

    token = args.token or os.environ.get("TABULAR_TOKEN")
    with connect(args.home) as engine:
        run_stdio(engine, token, args.org, args.namespace)
    return 0


def cmd_call(args, console: Console) -> int:
    """Any op by name, the body as JSON (a file, - for stdin, or inline); the answer as JSON."""
    text = args.body or "{}"
    if text == "-" or not text.lstrip().startswith(("{", "[")):
        text = text_argument(text, "body")
    body = json_argument(text, "body")
    for key in ("org", "namespace"):
        if getattr(args, key) and not body.get(key):
            body[key] = getattr(args, key)
    if args.url:
        from ..client import Client  # heavy: httpx, only with --url

        with Client(args.url, args.token or os.environ.get("TABULAR_TOKEN")) as client:
            answer = client.call(args.op, body)
    else:
        from ..engine import connect  # heavy: the engine and its ops

        with connect(args.home) as engine:
            answer = engine.call(args.op, body)
    print(json.dumps(answer, ensure_ascii=False, indent=2))
    return 0


def cmd_link(args, console: Console) -> int:
    import time

    from ..engine import connect  # heavy: the engine and its ops

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
            show_link(console, link)
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
    show_link(console, link)
    show_files(console, [f for f in files if f["state"] != "learned"] if len(files) > 50 else files)
    return 1 if any(f["state"] == "failed" for f in files) else 0


def cmd_links(args, console: Console) -> int:
    got = call_op(args, "knowledge.list_dirs")
    if got is None:
        return 0
    if not got["links"]:
        console.print("no linked folders in this namespace; `tabular link FOLDER` makes one")
    for link in got["links"]:
        show_link(console, link)
    return 0


def cmd_dir_files(args, console: Console) -> int:
    got = call_op(
        args, "knowledge.dir_files", {"link_id": args.link_id, **({"state": args.state} if args.state else {})}
    )
    if got is None:
        return 0
    show_files(console, got["files"])
    return 0


def cmd_retry_dir(args, console: Console) -> int:
    link = call_op(args, "knowledge.retry_dir", {"link_id": args.link_id})
    if link is None:
        return 0
    show_link(console, link)
    return 0


def cmd_unlink(args, console: Console) -> int:
    got = call_op(args, "knowledge.unlink_dir", {"link_id": args.link_id, "delete_sources": args.delete_sources})
    if got is None:
        return 0
    deleted = (
        f"; {counted(got['sources_deleted'], 'source')} deleted (restorable)"
        if args.delete_sources
        else "; its sources stay"
    )
    console.print(f"unlinked {escape(args.link_id)}: the folder is untouched{deleted}")
    return 0


def cmd_export(args, console: Console) -> int:
    from ..engine import connect  # heavy: the engine and its ops
    from ..store.export import destination, export_live  # heavy: pyarrow's file systems, only for this command

    engine = connect(args.home)
    with engine:
        where = destination(engine.catalog, args.destination or engine.settings.snapshot_export)
        done = export_live(engine.catalog, where, args.org or None, args.namespace or None)
    if args.json:
        print(json.dumps([e.__dict__ for e in done], indent=2))
        return 0
    for e in done:
        console.print(
            f"{escape(e.source_uri)} {escape(e.dataset_id)} (revision {e.revision}): {counted(e.rows, 'row')}, {e.bytes:,} bytes → {escape(e.file)}"
        )
    console.print(
        f"{counted(len(done), 'live snapshot')} exported to {escape(where)}; manifest.json there says which file is which"
        if done
        else "no live snapshot to export"
    )
    return 0


def cmd_token(args, console: Console) -> int:
    from ..service.auth import new_token, token_hash  # heavy: the service package, only for this command

    token = new_token()
    entry = {"name": args.name, "org": args.token_org, "namespaces": args.namespaces, "role": args.role}
    console.print("[bold]token[/bold] (give it to the caller; it is not stored):")
    print(token)
    console.print("[bold]entry[/bold] for the tokens file (TABULAR_TOKENS):")
    print(json.dumps({token_hash(token): {k: v for k, v in entry.items() if v}}, indent=2))
    return 0
