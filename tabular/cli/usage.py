"""The command line's parser, each command's examples, the commands generated from the op registry, and the README's CLI section made from them."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from .. import __version__
from .admin import (
    cmd_call,
    cmd_dir_files,
    cmd_export,
    cmd_link,
    cmd_links,
    cmd_mcp,
    cmd_retry_dir,
    cmd_serve,
    cmd_token,
    cmd_unlink,
    cmd_worker,
)
from .commands import (
    cmd_approve,
    cmd_ask,
    cmd_datasets,
    cmd_delete,
    cmd_demo,
    cmd_history,
    cmd_ingest,
    cmd_jobs,
    cmd_list,
    cmd_query,
    cmd_restore,
    json_argument,
    namespace_of,
)
from .show import HAND_WRITTEN, VIEWS

if TYPE_CHECKING:  # named in annotations only: the registry loads when a generated command is built
    from ..ops import Op

# Each hand-written command's examples: shown under its --help and in the README's CLI section (a
# test keeps the two the same, and fails on a command with no help or no example). `examples()`
# adds the commands made from the op registry.
EXAMPLES = {
    "ingest": [
        "tabular ingest sales.csv budget.xlsx",
        'tabular ingest export.csv --source-uri sales/2024.csv --options \'{"delimiter": ";"}\'',
    ],
    "datasets": ["tabular datasets sales.csv --sample-rows 5", "tabular datasets budget.xlsx --dataset-id Q1 --json"],
    "list": ["tabular list", "tabular list --prefix sales/"],
    "jobs": ["tabular jobs", "tabular jobs --json"],
    "delete": ["tabular delete sales.csv"],
    "restore": ["tabular restore sales.csv"],
    "approve": [
        "tabular approve sales.csv --format booked=%m/%d/%Y",
        "tabular approve budget.xlsx Q1 --set code=string",
        "tabular approve flags.csv --answer bool_or_number=bool",
    ],
    "history": ["tabular history sales.csv"],
    "query": [
        "tabular query plan.json",
        'echo \'{"datasets": [{"source_uri": "sales.csv"}], "limit": 5}\' | tabular query -',
        "tabular query plan.json --output all.parquet",
        "tabular query plan.json --chart by_region.png",
    ],
    "ask": [
        'tabular ask "total amount by region in 2024" sales.csv',
        'tabular ask "how many orders" report.xlsx#orders',
    ],
    "demo": ["tabular demo fixtures/demo.json"],
    "serve": ["tabular serve --port 8765"],
    "worker": ["tabular worker"],
    "mcp": ["tabular mcp", "tabular mcp --token $TABULAR_TOKEN", "tabular mcp --org acme --namespace finance"],
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


_OWN = {"org", "namespace"}


# What a result file may be written as (results.FORMATS, which a test keeps the same), for
# `query --format` without importing the writers.
RESULT_FORMATS = ("arrow", "csv", "ndjson", "parquet")


def generated() -> dict[str, Op]:
    """The ops no hand-written command serves, by command name (`knowledge.ingest_status` is `ingest-status`)."""
    from ..ops import REGISTRY  # heavy: the registry's errors load Arrow; only for the commands made from ops

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
    """An op run with the arguments its input's fields became; its answer shown (show.VIEWS), or
    printed as JSON with --json or where the op has no view."""
    from ..ops import REGISTRY  # heavy: the op's module (and Arrow), only for the commands made from ops

    op = REGISTRY[args.op_name]
    body = {}
    for name, info in op.input.model_fields.items():
        value = getattr(args, name, None)
        if name in _OWN or value is None:
            continue
        body[name] = json_argument(value, f"--{name.replace('_', '-')} value") if _field_kind(info) == "json" else value
    engine, ns = namespace_of(args)
    with engine:
        answer = ns.run(op.name, body)
    if op.name in VIEWS and not getattr(args, "json", False):
        VIEWS[op.name](console, answer)
    else:
        print(json.dumps(answer.model_dump(mode="json", by_alias=True), ensure_ascii=False, indent=2))
    return 1 if getattr(answer, "found", True) is False else 0  # it ran; the answer is no


def examples() -> dict[str, list[str]]:
    """Every command's examples: the hand-written ones' and one made for each op's command."""
    return {**EXAMPLES, **{name: [_generated_example(name, op)] for name, op in generated().items()}}


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


class Unbuilt(argparse.ArgumentParser):
    """A command the parser leaves out because the arguments name another: what is added to it goes nowhere."""

    def add_argument(self, *args, **kwargs):  # type: ignore[override]  # a no-op stands in for the action
        return None

    def set_defaults(self, **kwargs) -> None:
        pass


class Commands:
    """Adds the commands to the parser, each with its examples as its epilog, and the arguments
    several commands take, each defined once. Given `only`, it builds that command alone."""

    def __init__(self, sub, common: argparse.ArgumentParser, only: str | None = None):
        self.sub, self.common, self.only = sub, common, only

    def wants(self, name: str) -> bool:
        """Whether the parser builds this command (a command that imports to build asks first)."""
        return self.only is None or self.only == name

    def command(
        self, name: str, help_: str, run, parents: tuple | None = None, shown: list[str] | None = None
    ) -> argparse.ArgumentParser:
        if not self.wants(name):
            return Unbuilt(add_help=False)
        epilog = "examples:\n" + "\n".join(f"  {line}" for line in (shown or EXAMPLES.get(name, [])))
        p = self.sub.add_parser(
            name,
            help=help_,
            description=help_,
            parents=list((self.common,) if parents is None else parents),
            epilog=epilog,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        p.set_defaults(run=run)
        return p

    @staticmethod
    def source_arg(p: argparse.ArgumentParser, datasets: bool = False) -> None:
        said = "the source's name (its source_uri)"
        if datasets:
            said += "; SOURCE#DATASET names one dataset of it (a workbook's sheet or table)"
        p.add_argument("uri", metavar="SOURCE", help=said)

    @staticmethod
    def link_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument("link_id", metavar="LINK_ID", help="what `tabular links` shows")

    @staticmethod
    def json_flag(p: argparse.ArgumentParser, what: str) -> None:
        p.add_argument("--json", action="store_true", help=f"print {what} as JSON")


def parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command; given the arguments, of the one command they name: building a
    command may import what it runs (a command made from an op reads that op's input model), so
    `tabular get` imports no other op and `tabular list` none at all. Where the arguments name no
    command (none yet, --help, a word that is none), every command is built: the help lists them
    all, and argparse's "invalid choice" names them."""
    word = None if argv is None else command_word(argv)
    if word is not None and word not in EXAMPLES and word not in generated():
        word = None
    # Two copies: a parent's actions are shared, and the top's defaults must not become the commands'
    # (a command's --home would then undo one given before it).
    common = _common()
    top = argparse.ArgumentParser(
        prog="tabular", description="Typed datasets from spreadsheets and CSV.", parents=[_common()]
    )
    top.set_defaults(home=None, org="", namespace="")
    top.add_argument("--version", action="version", version=f"tabular {__version__}")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    c = Commands(sub, common, word)
    _data_commands(c)
    _generated_commands(c)
    _engine_commands(c)
    _link_commands(c)
    _token_command(c)
    return top


# The options every command takes that take a value (a command word never follows them directly),
# and those that print and exit before any command runs.
_VALUED = ("--home", "--org", "--namespace")
_ENDING = ("--help", "--version")


def command_word(argv: list[str]) -> str | None:
    """The command the arguments name (the first word that is no option nor an option's value),
    or None where there is none yet (`tabular`, `tabular --help`). An option may be shortened as
    argparse takes it (`--ho h` is `--home h`)."""
    words = iter(argv)
    for word in words:
        if word == "-h" or (len(word) > 2 and any(name.startswith(word) for name in _ENDING)):
            return None
        if len(word) > 2 and any(name.startswith(word) for name in _VALUED):
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def _data_commands(c: Commands) -> None:
    """The commands over a namespace's data (cli/commands.py)."""
    p = c.command("ingest", "ingest files and show their datasets", cmd_ingest)
    p.add_argument("files", nargs="+", metavar="FILE", help="CSV, TSV, XLSX, ODS, XLS, JSON, NDJSON or Parquet files")
    p.add_argument(
        "--source-uri",
        help="the source's name for one file (default: the file name; the path given when two files share a name)",
    )
    p.add_argument("--options", help='ingest options as a JSON object, e.g. \'{"delimiter": ";"}\'')
    c.json_flag(p, "the ingest_status answers")
    p = c.command(
        "datasets",
        "show a source's datasets: columns, types, questions, rejected rows (knowledge.dataset_get)",
        cmd_datasets,
    )
    c.source_arg(p, datasets=True)
    p.add_argument("--dataset-id", default="", help="one dataset of a workbook (default: all)")
    p.add_argument("--sample-rows", type=int, default=0, help="show the first N rows of each dataset")
    c.json_flag(p, "the dataset_get answer")
    p = c.command("list", "list the sources of the namespace (knowledge.list)", cmd_list)
    p.add_argument("--prefix", default="", help="only sources whose name starts with this")
    p.add_argument("--limit", type=int, default=100, help="sources per page")
    p.add_argument("--cursor", default="", help="the page after the one that printed it")
    c.json_flag(p, "the list answer")
    p = c.command("jobs", "list the namespace's ingest jobs that have not ended (pending or processing)", cmd_jobs)
    c.json_flag(p, "the jobs, each as ingest_status answers it")
    p = c.command("delete", "take a source down; restore brings it back (knowledge.delete)", cmd_delete)
    c.source_arg(p)
    p.add_argument("--expected-revision", type=int, help="delete only if this revision is live")
    c.json_flag(p, "the delete answer")
    p = c.command("restore", "bring a deleted source back (knowledge.restore)", cmd_restore)
    c.source_arg(p)
    c.json_flag(p, "the restore answer")
    p = c.command(
        "approve",
        "settle a dataset's types (knowledge.dataset_approve): --set col=type, --format col=PATTERN, --answer kind=choice",
        cmd_approve,
    )
    c.source_arg(p, datasets=True)
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
        "--answer",
        action="append",
        default=[],
        metavar="KIND=CHOICE",
        help="answer every open question of a kind with its option of that type or format (bool_or_number=bool: "
        "every 0/1 column a yes/no flag; date_order=%%m/%%d/%%Y); --set and --format name columns over it",
    )
    p.add_argument(
        "--snapshot-id",
        default="",
        help="the snapshot you reviewed (default: the one serving now); refused if it no longer serves",
    )
    p.add_argument(
        "--settle-rest",
        action="store_true",
        help="accept the rest as shown: settle every open question this approval does not answer as its column is "
        "held now (without it they stay open; an approval naming nothing settles them all)",
    )
    p.add_argument("--yes", action="store_true", help="apply without asking, even where rows would be rejected")
    p.add_argument(
        "--allow-rejects",
        action="store_true",
        help="apply a retyping that rejects more than half of a column's values (refused otherwise)",
    )
    c.json_flag(p, "the approval answer")
    p = c.command(
        "history", "a source's approvals: who, when, columns before and after, snapshots (knowledge.get)", cmd_history
    )
    c.source_arg(p)
    c.json_flag(p, "the approvals")
    p = c.command("query", "answer a plan (knowledge.query): a JSON file, inline JSON, or - for stdin", cmd_query)
    p.add_argument(
        "plan", metavar="PLAN", help="a JSON file holding the plan, the plan itself as JSON, or - to read it from stdin"
    )
    c.json_flag(p, "the whole answer, receipt included,")
    p.add_argument("--sql", action="store_true", help="print the compiled SQL and its parameters; run nothing")
    p.add_argument(
        "--output",
        help="write every row the plan matches (no limit), streamed, to this file: .parquet .csv .arrow .ndjson",
    )
    p.add_argument(
        "--format", choices=sorted(RESULT_FORMATS), help="the --output file's format when its extension does not say"
    )
    p.add_argument(
        "--chart",
        metavar="FILE",
        help="also draw the answer (.png .svg .pdf): a line over dates, bars by text, a scatter of numbers",
    )
    p = c.command("ask", "answer a task in words over ingested sources (knowledge.synthesize), or say why not", cmd_ask)
    p.add_argument("task", help="the task in words, quoted")
    p.add_argument(
        "uris",
        nargs="+",
        metavar="SOURCE",
        help="the sources the task is about (at most 4); SOURCE#DATASET names one dataset of a workbook",
    )
    c.json_flag(p, "the whole answer, calculation and receipt included,")
    p = c.command("demo", "ingest the files a demo manifest names and walk through them", cmd_demo)
    p.add_argument("manifest", metavar="MANIFEST", help="a demo manifest: fixtures/demo.json in the repository")


def _generated_commands(c: Commands) -> None:
    """One command per op no hand-written command covers, its arguments from the op's input model."""
    if c.only in EXAMPLES:
        return  # a hand-written command runs: the registry is not read
    for name, op in generated().items():
        if not c.wants(name):
            continue  # its description and its input's fields import its op's module
        shown = "--json for the answer as JSON" if op.name in VIEWS else "the answer as JSON"
        p = c.command(
            name,
            f"{op.description.rstrip('.')} ({op.name}; {shown})",
            cmd_generated,
            shown=[_generated_example(name, op)],
        )
        p.set_defaults(op_name=op.name)
        if op.name in VIEWS:
            c.json_flag(p, "the answer")
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


def _engine_commands(c: Commands) -> None:
    """Serving, working, and calling any op (cli/admin.py)."""
    p = c.command(
        "serve", "serve every op over HTTP (POST /v1/knowledge.<op>, OpenAPI at /docs) and MCP at /mcp", cmd_serve
    )
    p.add_argument("--host", help="address to listen on (TABULAR_HOST, default 127.0.0.1)")
    p.add_argument("--port", type=int, help="port (TABULAR_PORT, default 8765)")
    p.add_argument("--access-log", action="store_true", help="log every request")
    c.command("worker", "finish the ingest jobs other processes left pending or interrupted, then exit", cmd_worker)
    p = c.command("mcp", "serve every op as MCP tools (loom_knowledge_<op>) on stdin/stdout", cmd_mcp)
    p.add_argument(
        "--token",
        help="call as this token of the tokens file (default: TABULAR_TOKEN): its org and namespaces, as over HTTP",
    )
    if not c.wants("call"):
        return
    from ..ops import REGISTRY  # heavy: the registry's errors load Arrow; only for `call` and --help

    p = c.command("call", "run any op by name with a JSON body; print the answer as JSON", cmd_call)
    p.add_argument("op", choices=sorted(REGISTRY), metavar="OP", help="one of: " + ", ".join(sorted(REGISTRY)))
    p.add_argument("body", nargs="?", help="the body: inline JSON, a JSON file, or - for stdin (default {})")
    p.add_argument("--url", help="call a tabular service at this address instead of the local DuckDB file")
    p.add_argument("--token", help="bearer token for --url (default: TABULAR_TOKEN)")


def _link_commands(c: Commands) -> None:
    """Linked folders (cli/admin.py)."""
    p = c.command(
        "link", "link a folder: its files become sources and follow its changes (knowledge.link_dir)", cmd_link
    )
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
    c.json_flag(p, "the link and its files")
    p = c.command("links", "list the linked folders of the namespace (knowledge.list_dirs)", cmd_links)
    c.json_flag(p, "the list_dirs answer")
    p = c.command(
        "dir-files",
        "a linked folder's files and their states: learned, pending, no_table, failed, skipped (knowledge.dir_files)",
        cmd_dir_files,
    )
    c.link_arg(p)
    p.add_argument(
        "--state", choices=["learned", "pending", "no_table", "failed", "skipped"], help="only files in this state"
    )
    c.json_flag(p, "the dir_files answer")
    p = c.command(
        "retry-dir", "look again at a linked folder; one that was missing resumes (knowledge.retry_dir)", cmd_retry_dir
    )
    c.link_arg(p)
    c.json_flag(p, "the link")
    p = c.command(
        "unlink", "stop following a linked folder; the folder is untouched (knowledge.unlink_dir)", cmd_unlink
    )
    c.link_arg(p)
    p.add_argument("--delete-sources", action="store_true", help="also delete the sources its files made (restorable)")
    c.json_flag(p, "the unlink answer")
    p = c.command(
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
    c.json_flag(p, "what was written")


def usage_markdown() -> str:
    """The README's CLI section: every command's help, usage and examples, from the parser."""
    top, shown = parser(), examples()
    commands = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    out = ["Every command but `token` also takes `--home`, `--org`, `--namespace`, and `-h` for its help.", ""]
    for name, p in commands.choices.items():
        usage = re.sub(r"\s+", " ", p.format_usage().removeprefix("usage: ").strip())
        usage = usage.replace(" [-h]", "").replace(" [--home HOME] [--org ORG] [--namespace NAMESPACE]", "")
        out += [
            f"- **`tabular {name}`**: {p.description}",
            "  ```sh",
            f"  # {usage}",
            *(f"  {line}" for line in shown[name]),
            "  ```",
        ]
    return "\n".join(out) + "\n"


README_MARKS = ("<!-- cli:start (generated from tabular/cli/usage.py by `make readme`) -->\n", "<!-- cli:end -->")


def write_usage(readme: str = "docs/cli.md") -> None:
    text = Path(readme).read_text(encoding="utf-8")
    head, rest = text.split(README_MARKS[0])
    _, tail = rest.split(README_MARKS[1])
    Path(readme).write_text(head + README_MARKS[0] + usage_markdown() + README_MARKS[1] + tail, encoding="utf-8")


def _token_command(c: Commands) -> None:
    """A bearer token and its entry for the tokens file (no home: it touches none)."""
    p = c.command("token", "make a bearer token and print its entry for the tokens file", cmd_token, parents=())
    p.add_argument("--org", dest="token_org", metavar="ORG", required=True, help="the organisation the token is for")
    p.add_argument("--namespaces", nargs="+", default=["*"], help="namespaces it may use (* = all of the org)")
    p.add_argument(
        "--role",
        choices=["viewer", "writer", "admin"],
        default="viewer",
        help="viewer reads, writer ingests and approves, admin deletes",
    )
    p.add_argument("--name", default="", help="who the audit log names")
