"""tabular/service/stdio.py: `tabular mcp` as a client meets it, lines written to the real
process's stdin. The SDK's stdio transport dropped a line it could not parse (200 deep, a lone
surrogate, malformed JSON) without a word, and the client waited forever."""

from __future__ import annotations

import io
import json
import os
import queue
import subprocess
import sys
import threading

from tabular.service.stdio import Lines

from .test_mcp_replies import HANG_GUARD, LINES, detail


class Stdio:
    """`tabular mcp` as a subprocess: lines written to its stdin, its stdout read line by line."""

    def __init__(self, home, **settings):
        env = {**os.environ, **{f"TABULAR_{k.upper()}": str(v) for k, v in settings.items()}}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tabular.cli", "--home", str(home), "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.send(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": "init",
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "t", "version": "1"},
                    },
                }
            )
        )
        assert self.reply()["id"] == "init"
        self.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(json.loads(line))
        self.lines.put(None)

    def send(self, line: str) -> None:
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def reply(self) -> dict:
        try:
            got = self.lines.get(timeout=HANG_GUARD)
        except queue.Empty:
            raise AssertionError(f"no reply within {HANG_GUARD} s: the client would wait forever") from None
        assert got is not None, "the server closed its stdout"
        return got

    def rest(self) -> list[dict]:
        """Every line written after stdin is closed, to the process's end."""
        self.proc.stdin.close()
        self.proc.wait(HANG_GUARD)
        out = []
        while (got := self.lines.get(timeout=HANG_GUARD)) is not None:
            out.append(got)
        return out


def test_every_line_with_an_id_gets_exactly_one_reply_over_stdio(tmp_path):
    # max_body_bytes and max_upload_bytes small: a line past 20,000 bytes is too large.
    mcp = Stdio(tmp_path / "home", max_body_bytes=20_000, max_upload_bytes=1_000)
    for line, _ in LINES.values():
        mcp.send(line)
    mcp.send("this is no JSON")  # no id to recover: answered with a null id
    mcp.send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"\\ud800"}}')  # never answered
    mcp.send("")  # a blank line holds no message
    mcp.send('{"jsonrpc":"2.0","id":"after","method":"tools/call","params":{"name":"loom_knowledge_formats"}}')
    replies = [mcp.reply() for _ in range(len(LINES) + 2)]
    replies += mcp.rest()  # nothing more: no second reply, none to the notification
    by_id = {}
    for reply in replies:
        assert reply["id"] not in by_id, f"two replies to {reply['id']!r}"
        by_id[reply["id"]] = reply
    assert set(by_id) == {*LINES, None, "after"}
    for request_id, (_, answer) in LINES.items():
        reply = by_id[request_id]
        if isinstance(answer, int):  # a line that is no JSON-RPC request: a JSON-RPC error
            assert reply["error"]["code"] == answer, reply
        else:  # an input past a limit: the tool's error result, the SPEC's envelope in it
            got = detail(reply)
            assert got["code"] == answer and got["request_id"].startswith("req_"), got
    assert by_id[None]["error"]["code"] == -32700
    # Nested too deep is said at the same path however deep, as the engine says it at 70.
    paths = {d: detail(by_id[d])["errors"][0]["path"] for d in ("deep-70", "deep-200", "deep-5000")}
    assert set(paths.values()) == {"x" + "[0]" * 63}
    assert detail(by_id["surrogate"])["errors"][0]["path"] == "namespace"
    assert "max_body_bytes" in detail(by_id["too-large"])["message"]
    # The server went on serving after them all.
    assert not by_id["after"]["result"].get("isError") and by_id["after"]["result"]["structuredContent"]["formats"]


def test_a_line_past_the_limit_is_dropped_keeping_its_first_and_last_bytes():
    source = io.BytesIO(b'{"id":1,' + b"x" * 100_000 + b',"id":2}\n{"id":3}\n')
    lines = Lines(source, 1_000)
    cut = lines.next()
    assert not cut.complete and cut.size == 100_017
    assert cut.head.startswith(b'{"id":1,') and cut.tail.endswith(b'"id":2}')
    assert lines.next().head == b'{"id":3}'  # the next line is read whole
    assert lines.next() is None
