"""MCP over stdin and stdout (`tabular mcp`): one JSON-RPC message a line, each screened
(jsonrpc.screen) before the SDK's server sees it, so every line with an id is answered once,
whatever it holds. The SDK's own stdio transport dropped a line it could not parse (nested 200
deep, a lone surrogate, malformed JSON) without a word, and the client waited forever."""

from __future__ import annotations

import fcntl
import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import BinaryIO

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.shared.message import SessionMessage

from ..settings import Settings
from .jsonrpc import HEAD_BYTES, TAIL_BYTES, Message, Passed, Refused, message_limit, reply_line, screen


class Lines:
    """The lines of `source`, each up to `limit` bytes whole; a longer one is read to its end
    and dropped, its first and last bytes kept (to recover its id), so no line past the limit
    is ever held."""

    def __init__(self, source: BinaryIO, limit: int):
        self.source, self.limit = source, limit

    def next(self) -> Message | None:
        line = self.source.readline(self.limit + 1)
        if not line:
            return None
        if line.endswith(b"\n") or len(line) <= self.limit:
            return Message(line.rstrip(b"\r\n"), len(line))
        size, head, tail = len(line), line[:HEAD_BYTES], line[-TAIL_BYTES:]
        del line
        while more := self.source.readline(1 << 20):
            size += len(more)
            tail = (tail + more)[-TAIL_BYTES:]
            if more.endswith(b"\n"):
                break
        return Message(head, size, complete=False, tail=tail.rstrip(b"\r\n"))


@contextmanager
def wire() -> Iterator[tuple[BinaryIO, BinaryIO]]:
    """stdin and stdout as the protocol's, served from private duplicates while fd 0 reads
    /dev/null and fd 1 writes to stderr: a stray print, or a child process reading its stdin,
    never touches the protocol. Both are restored after."""
    sys.stdout.flush()
    wire_in = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    wire_out = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    # closefd=False: a thread may still be blocked reading when the server stops.
    source = os.fdopen(wire_in, "rb", closefd=False)
    sink = os.fdopen(wire_out, "wb", closefd=False)
    try:
        yield source, sink
    finally:
        with suppress(OSError):
            sink.flush()
        os.dup2(wire_out, 1)
        os.dup2(wire_in, 0)
        os.close(wire_out)


def dumped(message: types.JSONRPCMessage) -> str:
    """A message of the SDK as one line; one holding a lone surrogate (an id echoed) is escaped,
    never a failure to answer."""
    try:
        return message.model_dump_json(by_alias=True, exclude_unset=True)
    except ValueError:  # pydantic's serialization error is one: UTF-8 has no lone surrogate
        return json.dumps(message.model_dump(mode="json", by_alias=True, exclude_unset=True), ensure_ascii=True)


def _write_line(sink: BinaryIO, line: str) -> None:
    sink.write(line.encode() + b"\n")
    sink.flush()


async def serve(app: Server, settings: Settings, refused: Callable[[Refused], None]) -> None:
    """Serve `app` on stdin and stdout until stdin ends; `refused` hears of each message the
    screen answered instead of the server (the transport audits refused writes with it)."""
    with wire() as (source, sink):
        lines = Lines(source, message_limit(settings))
        to_app, incoming = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        outgoing, to_wire = anyio.create_memory_object_stream[SessionMessage | str](0)
        replies = outgoing.clone()

        def next_screened() -> Passed | Refused | None:
            while (message := lines.next()) is not None:
                if message.complete and not message.head.strip():
                    continue  # a blank line holds no message
                return screen(message, settings)
            return None

        async def read() -> None:
            async with to_app, replies:
                while (got := await anyio.to_thread.run_sync(next_screened, abandon_on_cancel=True)) is not None:
                    if isinstance(got, Passed):
                        await to_app.send(SessionMessage(got.message))
                        continue
                    refused(got)
                    if got.reply is not None:
                        await replies.send(reply_line(got.reply))

        async def write() -> None:
            async with to_wire:
                async for item in to_wire:
                    line = item if isinstance(item, str) else dumped(item.message)
                    await anyio.to_thread.run_sync(_write_line, sink, line)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(read)
            tasks.start_soon(write)
            await app.run(incoming, outgoing, app.create_initialization_options())
