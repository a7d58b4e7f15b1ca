"""The code blocks of README.md and docs/*.md, found and run as a reader types them (issue 36).

A page's blocks run in order in one reader's session: `python` blocks in one interpreter (one
namespace for the page), `sh`/`bash` blocks in one bash (so a function, a variable or an activated
virtualenv carries to the next block, as in a terminal), `console` blocks as their `$ ` lines.
`text`, `json` and `csv` blocks show output or data and are not run (JSON must parse). A block
with no tag or another tag is an error, and so is a block marked `<!-- not run: … -->` without
a reason. The examples of the CLI's generated section (between `README_MARKS`) are parsed by the
CLI's own parser: they name files and link ids no page holds."""

from __future__ import annotations

import json
import os
import queue
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from tabular.cli import usage as cli_usage

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUN_TAGS = {"python", "sh", "bash", "console"}
SHOWN_TAGS = {"text", "json", "csv"}
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<tag>[^`]*?)[ \t]*$")
NOT_RUN = re.compile(r"^<!--\s*not run\b:?\s*(?P<reason>.*?)\s*-->$")
PORT = re.compile(r"(?<=localhost:|127\.0\.0\.1:)8765\b")
BLOCK_SECONDS = 180
DONE = "@@block-done@@"


@dataclass
class Block:
    page: str
    line: int  # the line of the opening fence, counted from 1
    tag: str
    body: str
    not_run: str | None  # the reason given in `<!-- not run: … -->` right before it
    generated: bool  # inside the CLI section made by `make readme`

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def blocks(path: Path) -> list[Block]:
    """Every fenced block of a page, with the marker before it and whether it is generated."""
    lines = path.read_text(encoding="utf-8").split("\n")
    start, end = (m.strip() for m in cli_usage.README_MARKS)
    found, generated, i = [], False, 0
    while i < len(lines):
        line = lines[i]
        if line.strip() == start:
            generated = True
        elif line.strip() == end:
            generated = False
        opened = FENCE.match(line)
        if not opened:
            i += 1
            continue
        indent, body, j = opened["indent"], [], i + 1
        while j < len(lines) and lines[j].strip() != "```":
            body.append(lines[j].removeprefix(indent))
            j += 1
        before = next((lines[k].strip() for k in range(i - 1, -1, -1) if lines[k].strip()), "")
        marker = NOT_RUN.match(before)
        reason = marker["reason"] if marker else None
        name = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name
        found.append(Block(name, i + 1, opened["tag"].strip(), "\n".join(body) + "\n", reason, generated))
        i = j + 1
    return found


def problems(found: list[Block]) -> list[str]:
    """What makes a page's blocks wrong before any runs: a missing or unknown tag, a marker with
    no reason, JSON that does not parse."""
    out = []
    for b in found:
        if not b.tag:
            out.append(f"{b.where}: a block with no tag (python, sh, bash, console; text, json, csv)")
        elif b.tag not in RUN_TAGS | SHOWN_TAGS:
            out.append(f"{b.where}: unknown tag {b.tag!r} (python, sh, bash, console; text, json, csv)")
        if b.not_run is not None and not b.not_run:
            out.append(f"{b.where}: `not run` needs a reason: <!-- not run: why; what runs it instead -->")
        if b.tag == "json":
            try:
                json.loads(b.body)
            except ValueError as e:
                out.append(f"{b.where}: the JSON does not parse: {e}")
    return out


def cli_examples(found: list[Block]) -> list[tuple[Block, list[str]]]:
    """The generated section's example commands, as argument lists after `tabular`."""
    out = []
    for b in found:
        if not b.generated:
            continue
        for line in b.body.splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            command = shlex.split(line.rsplit("| ", 1)[-1])
            assert command[0] == "tabular", f"{b.where}: {line!r} is not a tabular command"
            out.append((b, command[1:]))
    return out


def parse_example(argv: list[str]) -> str | None:
    """None when the CLI's parser takes the command, else what it said."""
    import contextlib
    import io

    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said), contextlib.redirect_stdout(said):
            cli_usage.parser().parse_args(argv)
    except SystemExit as e:
        return said.getvalue().strip() or f"exit {e.code}"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Session:
    """One reader at one folder: a bash, a python and, when a block needs it, `tabular serve`."""

    def __init__(
        self,
        cwd: Path,
        env: dict,
        python: str = sys.executable,
        serve: list[str] | None = None,
        block_seconds: float = BLOCK_SECONDS,
    ):
        self.cwd, self.env, self.python, self.block_seconds = cwd, env, python, block_seconds
        self.serve_command = serve or ["tabular", "serve"]
        self.shells: dict[str, _Driven] = {}
        self.server: subprocess.Popen | None = None
        self.port = 0
        self.transcript = ""  # what every block printed, in order

    def run(self, block: Block) -> None:
        """Type the block; an AssertionError says what it printed when it failed."""
        body = block.body
        if PORT.search(body):
            self.start_server()
            body = PORT.sub(str(self.port), body)
        if block.tag == "python":
            self.transcript += self._shell("python").run(block, json.dumps(body) + "\n")
        elif block.tag in ("sh", "bash"):
            self.transcript += self._shell("bash").run(block, _bash_step(body))
        elif block.tag == "console":
            commands = "\n".join(line[2:] for line in body.splitlines() if line.startswith("$ "))
            self.transcript += self._shell("bash").run(block, _bash_step(commands + "\n"))

    def _shell(self, kind: str) -> _Driven:
        if kind not in self.shells:
            command = [self.python, "-u", "-c", PY_DRIVER] if kind == "python" else ["bash", "--noprofile", "--norc"]
            self.shells[kind] = _Driven(command, self.cwd, self.env, self.block_seconds)
            if kind == "bash":
                self.shells[kind].send(
                    'set -E -o pipefail\ntrap \'printf "\\n@@failed@@ %s\\n" "$BASH_COMMAND"\' ERR\n'
                )
        return self.shells[kind]

    def start_server(self) -> None:
        if self.server:
            return
        self.port = free_port()
        self.server = subprocess.Popen(
            [*self.serve_command, "--port", str(self.port)],
            cwd=self.cwd,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        import httpx

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
            assert self.server.poll() is None, f"tabular serve stopped: {self.server.stderr.read().decode()}"
        raise AssertionError("tabular serve did not answer /healthz in 60 s")

    def close(self) -> None:
        for shell in self.shells.values():
            shell.close()
        if self.server:
            os.killpg(self.server.pid, signal.SIGTERM)
            try:
                self.server.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.server.pid, signal.SIGKILL)
                self.server.wait()


def _bash_step(body: str) -> str:
    """A block typed into the shell, then a line that says it ended (the ERR trap says what failed)."""
    return body + f"\nprintf '\\n{DONE} 0\\n'\n"


PY_DRIVER = f"""
import json, sys, traceback
namespace = {{"__name__": "__main__"}}
for line in sys.stdin:
    code = json.loads(line)
    failed = 0
    try:
        exec(compile(code, "<block>", "exec"), namespace)
    except BaseException:
        traceback.print_exc(file=sys.stdout)
        failed = 1
    sys.stdout.flush()
    print("\\n{DONE}", failed, flush=True)
"""


class _Driven:
    """A process fed blocks on stdin, whose output is read until each block says it ended."""

    def __init__(self, command: list[str], cwd: Path, env: dict, seconds: float):
        self.seconds = seconds
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, text: str) -> None:
        self.process.stdin.write(text)
        self.process.stdin.flush()

    def run(self, block: Block, text: str) -> str:
        self.send(text)
        said, deadline = [], time.monotonic() + self.seconds
        while True:
            try:
                line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"{block.where}: no end in {self.seconds} s\n{''.join(said)}") from None
            if line is None:
                raise AssertionError(f"{block.where}: the {block.tag} session ended\n{''.join(said)}")
            if line.startswith(DONE):
                break
            said.append(line)
        failed = line.split()[1] != "0" or any(s.startswith("@@failed@@") for s in said)
        assert not failed, f"{block.where}: the {block.tag} block failed\n{block.body}\n--- it said:\n{''.join(said)}"
        return "".join(said)

    def close(self) -> None:
        try:
            self.process.stdin.close()
            self.process.wait(30)
        except (OSError, subprocess.TimeoutExpired):
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


# The width of the terminal the tests were started from: a command's table is squeezed into
# COLUMNS when it is set, where the pages show it as wide as its values (as piped).
TERMINAL_SIZE = {"COLUMNS", "LINES"}


def reader_env(bin_dir: Path, **extra: str) -> dict:
    """The environment of a reader at a terminal: the venv's commands first, no TABULAR_ setting,
    and no width of the terminal the tests run in (the pages show output as it is piped)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("TABULAR_") and k != "VIRTUAL_ENV" and k not in TERMINAL_SIZE
    }
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env
