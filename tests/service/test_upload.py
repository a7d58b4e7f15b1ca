"""tabular/service/upload.py: knowledge.upload over HTTP as a raw body, a multipart `file` or the
op's JSON, each refusal with its code and path."""

import base64
import hashlib

import pytest
from fastapi.testclient import TestClient

import tabular
from tabular.service.http import create_app

CSV = b"a,b\n1,2\n"


@pytest.fixture
def app(tmp_path):
    with tabular.connect(str(tmp_path / "home"), max_upload_bytes=1000) as engine:
        with TestClient(create_app(engine, mcp=False), base_url="http://127.0.0.1") as client:
            yield engine, client


def post(client, body: bytes, content_type: str, query: str = ""):
    return client.post(f"/v1/knowledge.upload{query}", content=body, headers={"content-type": content_type})


def refusal(response, status: int) -> tuple[str, list]:
    assert response.status_code == status, response.text
    detail = response.json()["detail"]
    return detail["code"], [(e["path"], e["message"]) for e in detail.get("errors", [])]


def multipart(*parts: tuple[str, str, bytes], end: bool = True) -> bytes:
    body = b"".join(
        b'--B\r\nContent-Disposition: form-data; name="%s"; filename="%s"\r\n\r\n%s\r\n'
        % (name.encode(), filename.encode(), data)
        for name, filename, data in parts
    )
    return body + (b"--B--\r\n" if end else b"")


def test_a_raw_body_is_stored_under_its_filename(app):
    engine, client = app
    got = post(client, CSV, "application/octet-stream", "?filename=ab.csv&namespace=fin")
    assert got.status_code == 200
    out = got.json()
    assert (out["filename"], out["bytes"], out["sha256"]) == ("ab.csv", len(CSV), hashlib.sha256(CSV).hexdigest())
    assert out["content_type"] == "text/csv"  # no type said: the name tells
    started = engine.call(
        "knowledge.ingest", {"namespace": "fin", "upload_id": out["upload_id"], "source_uri": "ab.csv"}
    )
    assert started["namespace"] == "fin"


def test_a_raw_body_without_a_filename_is_refused(app):
    _, client = app
    assert refusal(post(client, CSV, "text/csv"), 422) == ("VALIDATION_FAILED", [("filename", "missing")])


def test_a_multipart_file_part_is_the_upload(app):
    _, client = app
    got = client.post("/v1/knowledge.upload", files={"file": ("m.csv", CSV, "text/csv")})
    assert got.status_code == 200
    assert (got.json()["filename"], got.json()["bytes"]) == ("m.csv", len(CSV))


@pytest.mark.parametrize(
    ("body", "content_type", "error"),
    [
        (
            multipart(("file", "a.csv", CSV), ("file", "b.csv", CSV)),
            "multipart/form-data; boundary=B",
            ("file", "2 parts named file"),
        ),
        (multipart(("file", "a.csv", CSV), end=False), "multipart/form-data; boundary=B", ("file", "cut short")),
        (multipart(("other", "a.csv", CSV)), "multipart/form-data; boundary=B", ("file", "missing")),
        (b"x", "multipart/form-data", ("content-type", "no boundary")),
    ],
    ids=["two files", "cut short", "no file part", "no boundary"],
)
def test_a_multipart_body_that_is_not_one_whole_file_is_refused(app, body, content_type, error):
    _, client = app
    assert refusal(post(client, body, content_type), 422) == ("VALIDATION_FAILED", [error])


def test_an_upload_past_max_upload_bytes_is_413(app):
    _, client = app
    code, _ = refusal(post(client, b"x" * 1500, "text/csv", "?filename=big.csv"), 413)
    assert code == "TOO_LARGE"


def test_the_ops_own_json_is_taken_too(app):
    _, client = app
    got = client.post(
        "/v1/knowledge.upload", json={"filename": "j.csv", "content_base64": base64.b64encode(CSV).decode()}
    )
    assert got.status_code == 200 and got.json()["sha256"] == hashlib.sha256(CSV).hexdigest()
    bad = client.post("/v1/knowledge.upload", json={"filename": "j.csv", "content_base64": "!!"})
    assert refusal(bad, 422) == ("VALIDATION_FAILED", [("content_base64", "not base64")])
