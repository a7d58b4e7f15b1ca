"""tabular/service/jsonrpc.py: what answers a message the SDK is not given, decided from the
message alone (the transports are tested in test_mcp_replies.py)."""

from __future__ import annotations

import json

import anyio
import pytest

from tabular.service.jsonrpc import Message, Passed, Refused, read_message, screen
from tabular.settings import Settings

SETTINGS = Settings(max_body_bytes=1_000, max_upload_bytes=100)  # a message may hold 4,229 bytes


def screened(text: str) -> Passed | Refused:
    return screen(Message(text.encode(), len(text.encode())), SETTINGS)


def test_a_well_formed_request_within_the_limits_is_passed_on():
    got = screened('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":[1]}}}')
    assert isinstance(got, Passed) and got.message.id == 1


@pytest.mark.parametrize(
    "text",
    [
        '{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"\\ud800"}}',
        '{"jsonrpc":"2.0","method":7}',
    ],
    ids=["surrogate", "not a method"],
)
def test_a_notification_is_never_answered(text):
    got = screened(text)
    assert isinstance(got, Refused) and got.reply is None and got.error.code == "VALIDATION_FAILED"


def test_a_message_that_is_not_one_object_is_an_invalid_request_with_a_null_id():
    got = screened('[{"jsonrpc":"2.0","id":1,"method":"ping"}]')
    assert got.reply["id"] is None and got.reply["error"]["code"] == -32600


def test_a_request_of_another_method_past_a_limit_is_an_invalid_request_carrying_the_envelope():
    got = screened('{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"clientInfo":{"name":"\\ud800"}}}')
    error = got.reply["error"]
    assert got.reply["id"] == "i" and error["code"] == -32600
    assert error["data"]["detail"]["errors"][0]["path"] == "params.clientInfo.name"


def test_an_id_holding_a_lone_surrogate_is_echoed_escaped():
    got = screened(
        '{"jsonrpc":"2.0","id":"\\ud800","method":"tools/call","params":{"name":"t","arguments":{"a":"\\udc00"}}}'
    )
    assert got.reply["id"] == "\ud800" and got.reply["result"]["isError"] is True


def test_a_message_too_large_to_read_is_refused_with_the_id_it_ends_with():
    # Only the first and last bytes of a message past the limit are kept: the id written last is found at its end.
    text = (
        '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t","arguments":{"a":"' + "x" * 9_000 + '"}},"id":42}'
    )
    message = anyio.run(read_message, _chunks(text.encode(), 1_000), 6_000)
    assert not message.complete and message.size == len(text) and message.tail.endswith(b'"id":42}')
    got = screen(message, SETTINGS)
    assert got.reply["id"] == 42 and got.reply["result"]["structuredContent"]["detail"]["code"] == "TOO_LARGE"
    assert got.tool == "t"


def test_a_message_within_the_limit_is_read_whole():
    text = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    assert anyio.run(read_message, _chunks(text, 5), 4_229) == Message(text, len(text))


async def _chunks(data: bytes, size: int):
    for start in range(0, len(data), size):
        yield data[start : start + size]


def test_nan_in_arguments_is_refused_at_its_path_like_the_engine_refuses_it():
    got = screened('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":[NaN]}}}')
    detail = got.reply["result"]["structuredContent"]["detail"]
    assert detail["code"] == "VALIDATION_FAILED" and detail["errors"][0]["path"] == "a[0]"
