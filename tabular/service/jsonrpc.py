"""The JSON-RPC messages MCP receives, screened before the SDK reads them, so every request is
answered: an input past a limit (nested too deep, a lone surrogate, too large) with the SPEC §2
envelope, as a tool's error result for `tools/call`; a line that is no JSON-RPC request with
-32700 or -32600, carrying the id when one can be recovered. A notification is never answered.

One screen for both transports: `tabular mcp` (stdio.serve) and `/mcp` (http.py)."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from pydantic import ValidationError

from ..errors import ErrorItem, TabularError, TooLarge, ValidationFailed, json_path
from ..jsonval import printable, unusable
from ..settings import Settings
from ..validation import validation_failed

# Bytes of a message kept to recover its id, method and tool when the whole is not read or
# cannot be parsed (the SDK's clients write `id` and `method` before `params`).
HEAD_BYTES = 64 * 1024
TAIL_BYTES = 4 * 1024


def message_limit(settings: Settings) -> int:
    """The bytes one JSON message may hold: an op's input, or knowledge.upload's base64 (3 bytes as 4)."""
    return max(settings.max_body_bytes, settings.max_upload_bytes * 4 // 3 + 4096)


@dataclass(frozen=True)
class Message:
    """One message as received: `head` is all of it when `complete`; else its first bytes,
    `tail` its last and `size` how many there were."""

    head: bytes
    size: int
    complete: bool = True
    tail: bytes = b""


@dataclass(frozen=True)
class Passed:
    """A well-formed JSON-RPC message within the limits, for the SDK."""

    message: types.JSONRPCMessage


@dataclass(frozen=True)
class Refused:
    """What answers a message the SDK is not given: `reply`, None for a notification (over
    HTTP, which answers every request, `error` in the SPEC's envelope then)."""

    reply: dict | None
    error: TabularError
    tool: str | None = None  # the tool a refused tools/call named (its refusal is audited)
    request_id: str = ""  # the envelope's


@dataclass
class _Head:
    """What a scan of a message's first bytes found: its id, method, tool, and the first place
    nested past the limit (a path from the top)."""

    id: Any = None
    method: Any = None
    tool: Any = None
    deep_at: tuple | None = None


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[{}\[\]:,]|[^\s{}\[\]:,"]+')
# `"id": <value>}` at the very end: the last member of the outermost object.
_LAST_ID = re.compile(r'"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)\s*\}\s*$')
_ARGUMENTS = ("params", "arguments")


def _scalar(token: str) -> Any:
    try:
        return json.loads(token)
    except ValueError:
        return None


def _scan(text: str, limit: int) -> _Head:
    """The id, method and tool of a message that is not whole JSON (cut short, too deep to
    parse, malformed), from its tokens; and where lists and objects first nest past `limit`
    (counted inside `params.arguments`, or past `limit` + 3 elsewhere). Bounded by the text."""
    head = _Head()
    stack: list[list] = []  # frames: [kind, key or index, whether a key comes next]
    for match in _TOKEN.finditer(text):
        token = match.group()
        frame = stack[-1] if stack else None
        if token in "{[":
            path = tuple(f[1] for f in stack)
            if head.deep_at is None and len(path) - (2 if path[:2] == _ARGUMENTS else 3) >= limit:
                head.deep_at = path
            stack.append([token, 0 if token == "[" else None, token == "{"])
        elif token in "}]":
            if stack:
                stack.pop()
        elif token == ":":
            if frame is not None:
                frame[2] = False
        elif token == ",":
            if frame is not None:
                if frame[0] == "[":
                    frame[1] += 1
                else:
                    frame[2] = True
        elif frame is not None and frame[0] == "{" and frame[2]:
            frame[1] = _scalar(token)
        else:
            path = tuple(f[1] for f in stack)
            if path == ("id",):
                head.id = _scalar(token)
            elif path == ("method",):
                head.method = _scalar(token)
            elif path == ("params", "name"):
                head.tool = _scalar(token)
    return head


def _recover(message: Message, limit: int) -> _Head:
    head = _scan(message.head[:HEAD_BYTES].decode("utf-8", "replace"), limit)
    if not _is_id(head.id):
        head.id = None
        end = (message.tail if not message.complete else message.head[-TAIL_BYTES:]).decode("utf-8", "replace")
        found = _LAST_ID.search(end)
        if found and _is_id(_scalar(found.group(1))):
            head.id = _scalar(found.group(1))
    return head


def _is_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def tool_result(payload: dict, error: bool = False) -> types.CallToolResult:
    """A tool's answer: the JSON as text and as structured content."""
    text = json.dumps(payload, ensure_ascii=False)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=payload, is_error=error
    )


def reply_line(reply: dict) -> str:
    """A reply as one line of JSON (ASCII: an id holding a lone surrogate is echoed escaped)."""
    return json.dumps(reply, ensure_ascii=True, separators=(",", ":"))


def _error(request_id: Any, code: int, message: str, data: Any = None) -> dict:
    error: dict[str, Any] = {"code": code, "message": printable(message)}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def _refuse_input(head: _Head, err: TabularError) -> Refused:
    """An input past a limit: a tools/call gets its tool's error result with the SPEC envelope,
    any other request a -32600 error carrying it; a notification nothing (over HTTP: `err`)."""
    if head.id is None:
        return Refused(None, err)
    request_id = "req_" + uuid.uuid4().hex[:16]
    detail = {"detail": err.to_detail(request_id)}
    tool = head.tool if isinstance(head.tool, str) else None
    if head.method == "tools/call":
        result = tool_result(detail, error=True).model_dump(mode="json", by_alias=True, exclude_none=True)
        return Refused({"jsonrpc": "2.0", "id": head.id, "result": result}, err, tool, request_id)
    return Refused(_error(head.id, types.INVALID_REQUEST, err.message, detail), err, request_id=request_id)


def _malformed(head: _Head, code: int, message: str) -> Refused:
    failure = ValidationFailed(message)
    failure.status = 400  # SPEC §2: 400 for a body that is not JSON
    return Refused(_error(head.id, code, message), failure)


def _too_deep(path: tuple | None, limit: int) -> TabularError:
    where = json_path(path[2:]) if path is not None and path[:2] == _ARGUMENTS else ""
    return validation_failed(
        [
            ErrorItem(
                where, f"nested deeper than {limit} levels", expected=f"at most {limit} levels of lists and objects"
            )
        ]
    )


def screen(message: Message, settings: Settings) -> Passed | Refused:
    """A message the SDK may be given, or what answers it instead (see the module's docstring)."""
    depth = settings.max_input_depth
    if not message.complete:
        limit = message_limit(settings)
        head = _recover(message, depth)
        said = f"the message is {message.size:,} bytes, over {limit:,} (max_body_bytes; knowledge.upload's base64 of max_upload_bytes)"
        return _refuse_input(head, TooLarge(said))
    text = message.head.decode("utf-8", "replace")
    try:
        decoded = json.loads(text)  # NaN and 1e999 too: unusable says where they are, as the engine does
    except RecursionError:
        head = _recover(message, depth)
        return _refuse_input(head, _too_deep(head.deep_at, depth))
    except ValueError as err:
        return _malformed(_recover(message, depth), types.PARSE_ERROR, f"Parse error: {err}")
    if not isinstance(decoded, dict):
        return _malformed(_Head(), types.INVALID_REQUEST, "Invalid request: a message is one JSON object")
    head = _Head(decoded.get("id") if _is_id(decoded.get("id")) else None, decoded.get("method"))
    notification = "method" in decoded and "id" not in decoded
    params = decoded.get("params")
    rest = decoded
    if head.method == "tools/call" and isinstance(params, dict):
        head.tool = params.get("name")
        problems = unusable(params.get("arguments"), depth)
        if problems:
            items = [ErrorItem(json_path(loc), said, expected=expected) for loc, said, expected in problems]
            return _refuse_input(head, validation_failed(items))
        rest = {**decoded, "params": {k: v for k, v in params.items() if k != "arguments"}}
    # The rest of a message (its id, method, other params) as no parser downstream can take it.
    problems = unusable(rest, depth + 3)
    if problems:
        items = [ErrorItem(json_path(loc), said, expected=expected) for loc, said, expected in problems]
        refused = _refuse_input(head, validation_failed(items))
        return refused if not notification else Refused(None, refused.error)
    try:
        return Passed(types.jsonrpc_message_adapter.validate_python(decoded, by_name=False))
    except ValidationError as err:
        first = err.errors()[0]
        said = f"Invalid request: {json_path(tuple(first['loc'])) or 'the message'}: {first['msg']}"
        refused = _malformed(head, types.INVALID_REQUEST, said)
        return refused if not notification else Refused(None, refused.error)


async def read_message(chunks: AsyncIterator[bytes], limit: int) -> Message:
    """A message sent as an HTTP body: whole up to `limit` bytes; past it, its first and last
    bytes (the rest read and dropped, up to another `limit`, so a client that sends before it
    reads still gets its answer)."""
    head, tail, size, past = bytearray(), b"", 0, False
    async for chunk in chunks:
        size += len(chunk)
        if past:
            tail = (tail + chunk)[-TAIL_BYTES:]
        else:
            head += chunk
            if size <= limit:
                continue
            past = True  # only the first and the last bytes are kept from here
            tail = bytes(head[-TAIL_BYTES:])
            del head[HEAD_BYTES:]
        if size > 2 * limit:
            break
    return Message(bytes(head), size, complete=not past, tail=tail)
