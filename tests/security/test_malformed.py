"""Malformed bodies and inputs get a 400 or 422 in the SPEC §2 envelope, with the path of what was
wrong; never 500, and the connection stays usable (issue 16)."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service.support import CSV, envelope, ingest, start_ingest, upload, wait_for

from tabular.ops import REGISTRY


def post(c, op: str, raw: bytes):
    return c.post(f"/v1/{op}", content=raw, headers={"content-type": "application/json"})


@pytest.mark.parametrize(
    "raw, path",
    [
        (b'{"source_uri": "x\\ud800"}', "source_uri"),
        (b'{"source_uri": "books", "sample_rows": 1, "colour": ["ok", "\\udfff"]}', "colour[1]"),
        (b'{"source_uri": "x", "\\ud800": 1}', ""),
    ],
)
def test_a_lone_surrogate_is_refused_with_its_path_and_the_connection_lives(acme, raw, path):
    detail = envelope(post(acme, "knowledge.dataset_get", raw), 422, "VALIDATION_FAILED")
    assert detail["errors"][0]["path"] == path and "surrogate" in detail["errors"][0]["message"]
    # The same kept-alive connection answers the next call.
    assert acme.post("/v1/knowledge.list", json={}).status_code == 200


@pytest.mark.parametrize("word", [b"NaN", b"Infinity", b"-Infinity"])
def test_non_numbers_are_not_json(acme, word):
    detail = envelope(
        post(acme, "knowledge.query", b'{"datasets": [{"source_uri": "x"}], "limit": ' + word + b"}"),
        400,
        "VALIDATION_FAILED",
    )
    assert "not JSON" in detail["message"]


def test_a_number_past_a_double_is_refused_with_its_path(acme):
    raw = b'{"datasets": [{"source_uri": "x"}], "where": [{"column": "a", "op": "eq", "value": 1e999}]}'
    detail = envelope(post(acme, "knowledge.query", raw), 422, "VALIDATION_FAILED")
    assert detail["errors"][0]["path"] == "where[0].value" and detail["errors"][0]["expected"] == "a finite number"


@pytest.mark.parametrize("depth", [70, 100_000])
def test_a_body_nested_deep_is_refused(acme, depth):
    raw = b'{"source_uri": "x", "deep": ' + b"[" * depth + b"]" * depth + b"}"
    detail = envelope(post(acme, "knowledge.dataset_get", raw), 422, "VALIDATION_FAILED")
    assert "nest" in detail["message"]


def _strict(text: str):
    return json.loads(text, parse_constant=lambda word: pytest.fail(f"{word} in an answer: not JSON"))


def test_mcp_refuses_the_same_inputs_without_a_500(two_orgs):
    from security.conftest import TOKENS

    with two_orgs.client(TOKENS["acme-writer"][0], headers={"accept": "application/json, text/event-stream"}) as c:

        def call(arguments: str) -> dict:
            raw = (
                '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "loom_knowledge_query", "arguments": '
                + arguments
                + "}}"
            ).encode()
            r = c.post("/mcp", content=raw, headers={"content-type": "application/json"})
            assert r.status_code < 500, r.text
            return _strict(r.text)

        # A lone surrogate: refused at its path with the envelope, as the op route does (the MCP
        # layer's own JSON parser answered a bare JSON-RPC -32700).
        surrogate = call('{"datasets": [{"source_uri": "x\\ud800"}]}')["result"]
        assert surrogate["isError"] is True
        detail = _strict(surrogate["content"][0]["text"])["detail"]
        assert detail["code"] == "VALIDATION_FAILED" and detail["errors"][0]["path"] == "datasets[0].source_uri"
        # NaN, which that parser takes: the op refuses it with its path, and the answer is strict JSON.
        result = call('{"datasets": [{"source_uri": "x"}], "where": [{"column": "a", "op": "eq", "value": NaN}]}')[
            "result"
        ]
        assert result["isError"] is True
        detail = _strict(result["content"][0]["text"])["detail"]
        assert detail["code"] == "VALIDATION_FAILED" and detail["errors"][0]["path"] == "where[0].value"


def test_a_method_other_than_post_has_its_own_code(acme):
    detail = envelope(acme.get("/v1/knowledge.query"), 405, "METHOD_NOT_ALLOWED")
    assert "POST" in detail["message"]


@pytest.mark.parametrize("codec", ["zlib_codec", "rot13", "hex", "base64", "uu", "bz2_codec", "no-such-codec"])
def test_an_encoding_that_is_not_a_text_codec_is_refused_up_front(acme, tmp_path, codec):
    up = upload(acme, CSV / "crlf.csv")
    r = acme.post(
        "/v1/knowledge.ingest", json={"upload_id": up["upload_id"], "source_uri": "enc", "options": {"encoding": codec}}
    )
    detail = envelope(r, 422, "VALIDATION_FAILED")
    assert detail["errors"][0]["path"] == "options.encoding" and codec in detail["errors"][0]["message"]


@pytest.mark.parametrize("codec", ["utf_16", "punycode", "utf-32"])
def test_a_text_codec_the_bytes_do_not_fit_fails_the_job_by_name(acme, codec):
    got = wait_for(acme, start_ingest(acme, CSV / "crlf.csv", f"enc-{codec}", options={"encoding": codec}))
    assert (got["state"], got["error_code"]) == ("failed", "encoding") and codec in got["error_message"]


@pytest.mark.parametrize(
    "name, text",
    [
        ("deep.json", "[" * 100_000 + "]" * 100_000),
        ("deep.ndjson", '{"a":' * 5_000 + "1" + "}" * 5_000 + "\n"),
        ("nested.json", "[" + '{"a":' * 80 + "1" + "}" * 80 + "]"),
    ],
)
def test_a_json_file_nested_deep_fails_too_large(acme, tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    got = ingest(acme, path, "deep/" + name)
    assert (got["state"], got["error_code"]) == ("failed", "too_large") and "max_json_depth" in got["error_message"]


def test_repeated_parquet_column_names_keep_each_columns_values(acme, tmp_path):
    path = tmp_path / "dup.parquet"
    pq.write_table(
        pa.Table.from_arrays([pa.array([1, 2]), pa.array([3, 4]), pa.array(["a", "b"])], names=["x", "x", "X"]), path
    )
    assert ingest(acme, path, "dup.parquet")["state"] == "ready"
    got = acme.post("/v1/knowledge.dataset_get", json={"source_uri": "dup.parquet", "sample_rows": 5}).json()[
        "datasets"
    ][0]
    assert [c["name"] for c in got["columns"]] == ["x", "x_2", "X_3"]
    assert got["sample"] == [{"x": 1, "x_2": 3, "X_3": "a"}, {"x": 2, "x_2": 4, "X_3": "b"}]


# Raw bodies no JSON library would write: lone surrogates, NaN and Infinity, numbers past a
# double, nesting past any limit, bytes that are not UTF-8, sent to every op route.
_ATOMS = [
    b'"x\\ud800"',
    b'"\\udfff"',
    b"NaN",
    b"-Infinity",
    b"1e999",
    b"-1e999",
    b'"ok"',
    b"1",
    b"null",
    b"true",
    b"\xff\xfe",
    b'"\\u0000"',
]


@st.composite
def _raw_json(draw, depth: int = 0):
    if depth > 3 or draw(st.booleans()):
        atom = draw(st.sampled_from(_ATOMS))
        deep = draw(st.sampled_from([0, 0, 0, 80, 5000]))
        return b"[" * deep + atom + b"]" * deep
    if draw(st.booleans()):
        items = draw(st.lists(_raw_json(depth + 1), max_size=3))
        return b"[" + b",".join(items) + b"]"
    keys = draw(
        st.lists(
            st.sampled_from([b"source_uri", b"datasets", b"where", b"limit", b"options", b"\\ud800", b"org"]),
            max_size=3,
            unique=True,
        )
    )
    return b"{" + b",".join(b'"' + k + b'":' + draw(_raw_json(depth + 1)) for k in keys) + b"}"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(op=st.sampled_from(sorted(REGISTRY)), body=_raw_json())
def test_no_malformed_body_is_answered_500(acme, op, body):
    r = acme.post(f"/v1/{op}", content=body, headers={"content-type": "application/json"})
    assert r.status_code < 500, (op, body[:200], r.text[:500])
    json.loads(r.text, parse_constant=lambda word: pytest.fail(f"{word} in an answer"))  # strict JSON back
