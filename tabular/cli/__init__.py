"""The command line: a thin layer over the Python API (SPEC §6). `main` parses, runs the command, and says a refusal in one line with what to do next."""

from __future__ import annotations

import atexit
import gc
import os
import sys

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
    "STORAGE_UNWRITABLE": (
        "the home is read-only or not writable by this user: remount it read-write or give this user write "
        "permission on it, or use another home (--home or TABULAR_HOME)"
    ),
}


def _one_line(err) -> str:
    """A refusal as one line: the code, the message, each wrong path with what was expected and
    the close names, then what to do. Each thing is said once: a message that ends with what its
    first path says ("the plan does not fit the datasets: no column 'amout'") leaves it to the
    path, which says it with the close names. Ops are named as the commands that run them."""
    said = err.message
    if err.errors:
        first = err.errors[0].message
        if said == first:
            said = ""
        elif said.endswith(f": {first}"):
            said = said[: -len(first) - 2]
    parts = [f"{err.code}: {said}" if said else err.code]
    for item in err.errors[:5]:
        hint = f" (did you mean {', '.join(item.did_you_mean)}?)" if item.did_you_mean else ""
        parts.append(f"{item.path or '(input)'}: {item.message}{hint}")
    if len(err.errors) > 5:
        parts.append(f"and {len(err.errors) - 5} more")
    step = NEXT_STEP.get(err.code)
    if "TABULAR_" in said:  # the refusal names the variable that changes its limit already
        step = None
    from .show import cli_words  # heavy: rich; imported by main first, with the collector off

    return cli_words(" ".join("; ".join(parts).split())) + (f" — {step}" if step else "")


def coded() -> type[Exception]:
    """The errors that carry a SPEC code (TabularError): imported when a command failed, so a
    command that succeeds pays nothing for the error types it never raised."""
    from ..errors import TabularError  # heavy: the error types load the planner and Arrow; only on failure

    return TabularError


def _quiet_stdout() -> None:
    """After a closed pipe, later writes (and the flush at exit) go nowhere instead of raising."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def one_command_process() -> None:
    """The `tabular` command's own process runs one command and ends: Python's cyclic garbage
    collector would walk, again and again while the command's modules import, hundreds of
    thousands of objects none of which is garbage, and walk them all once more as the interpreter
    ends (issue 56: a tenth of a query's time, more than the collector ever frees there). So it
    collects nothing automatically, and what is left when the command ends is frozen (gc.freeze,
    after the engine's own exit handlers, registered later, have closed it), so the exit's pass
    finds nothing to walk. Only main() with no argv does this: the console script and
    `python -m tabular.cli` call it so; a caller that passes argv (a test, a notebook) keeps its
    collector as it was. A command not in QUICK (one that serves, watches, ingests or re-types
    for as long as it takes) gets the collector back once its arguments are read (collecting)."""
    gc.disable()
    atexit.register(gc.freeze)  # registered first, run last among the exit handlers


# The commands that read (or change a row of) stored data and end: their process keeps the
# collector off (one_command_process). Every other command collects as Python does.
QUICK = frozenset(
    {"list", "get", "datasets", "query", "history", "jobs", "receipt", "formats", "ingest-status", "ingest-cancel"}
    | {"links", "dir-files", "delete", "restore"}
)


def collecting() -> None:
    """The collector back on, and nothing frozen at exit: a command that runs as long as it takes."""
    atexit.unregister(gc.freeze)
    gc.enable()


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        one_command_process()
    argv = sys.argv[1:] if argv is None else argv
    # Imported here, after the collector is off (one_command_process): rich, pydantic, the commands.
    from rich.console import Console
    from rich.markup import escape

    from .commands import Refused  # heavy: pydantic and rich, with the collector off
    from .show import PlainConsole  # heavy: rich, with the collector off
    from .usage import command_word, parser  # heavy: every command's module, with the collector off

    args = parser(argv).parse_args(argv)  # a wrong option: argparse prints usage and one line, exits 2
    if not gc.isenabled() and command_word(argv) not in QUICK:
        collecting()
    console, errors = PlainConsole(), Console(stderr=True, soft_wrap=True)
    try:
        return args.run(args, console)
    except Refused as err:
        errors.print(f"[red]error[/red] {escape(str(err))}")
    except coded() as err:
        errors.print(f"[red]error[/red] {escape(_one_line(err))}")
    except BrokenPipeError:
        _quiet_stdout()
        errors.print(
            "[red]error[/red] the output was closed before all of it was written (a pipe such as `| head` ended); "
            "nothing was changed by that — write to a file to keep it all"
        )
    except KeyboardInterrupt as err:
        # What the interrupted call undid says itself (Namespace.ingest_file cancels its job).
        errors.print(escape(str(err)) if str(err) else "interrupted")
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
