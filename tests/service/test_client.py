"""tabular.Client: the embedded engine's methods over HTTP, typed errors, and retries."""

from __future__ import annotations

import json

import httpx
import pytest

import tabular
from tabular.models import DatasetGetOut

from .support import CSV


@pytest.fixture(scope="module")
def remote(server):
    with tabular.Client(server.url) as client:
        yield client.namespace("acme", "finance")


def test_the_namespace_methods_answer_typed_models(remote):
    status = remote.ingest_file(CSV / "currency.csv", source_uri="files/currency.csv")
    assert status.state == "ready" and status.revision == 1
    got = remote.dataset_get("files/currency.csv", sample_rows=1)
    assert isinstance(got, DatasetGetOut) and got.datasets[0].sample[0]["item"] == "Desk lamp"
    answer = remote.query({"datasets": [{"source_uri": "files/currency.csv"}], "aggregates": [{"fn": "count"}]})
    assert answer.rows == [[6]] and answer.to_polars().item() == 6
    assert remote.call("knowledge.formats")["default_format"] == "csv"


def test_whole_results_stream_over_http_as_they_do_in_process(remote, tmp_path):
    assert remote.ingest_file(CSV / "currency.csv", source_uri="files/whole.csv").state == "ready"
    plan = {"datasets": [{"source_uri": "files/whole.csv"}], "limit": 2}
    answer = remote.query(plan)
    assert len(answer.rows) == 2 and answer.to_polars(whole=True).height == 6
    assert remote.export(plan, tmp_path / "whole.parquet") == 6
    assert remote.read("files/whole.csv").height == 6
    with pytest.raises(tabular.ValidationFailed):
        remote.read("files/nothing.csv")


def test_the_remote_namespace_has_every_method_of_the_embedded_one(remote):
    embedded = {m for m in vars(tabular.Namespace) if not m.startswith("_")}
    assert embedded <= {m for m in vars(type(remote)) if not m.startswith("_")}
    got = remote.dataset_get("files/currency.csv").datasets[0]
    approved = remote.approve("files/currency.csv", got.snapshot_id, dataset_id=got.dataset_id)
    assert approved.found and approved.dataset.approved_by == "local"
    assert len(remote.history("files/currency.csv")) == 1
    assert remote.synthesize("how many rows are there", ["files/currency.csv"]).answer is not None


def test_errors_raise_the_engines_classes_with_code_status_and_request_id(remote):
    with pytest.raises(tabular.ValidationFailed) as caught:
        remote.query({"datasets": [{"source_uri": "files/currency.csv"}], "select": [{"column": "itme"}]})
    err = caught.value
    assert (err.code, err.status) == ("VALIDATION_FAILED", 422) and err.request_id.startswith("req_")
    assert err.errors[0].path == "select[0].column" and "item" in err.errors[0].did_you_mean
    with pytest.raises(tabular.NotFound):
        remote.call("knowledge.nothing")
    with pytest.raises(tabular.PreconditionFailed):
        remote.query({"datasets": [{"source_uri": "files/currency.csv", "snapshot_id": "s_old"}]})


def scripted(*answers):
    """A transport answering (status, body, headers) in turn; it records each request."""
    seen = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        code, body, headers = answers[min(len(seen), len(answers)) - 1]
        return httpx.Response(code, json=body, headers=headers)

    return httpx.MockTransport(handle), seen


def failure(code: str, request_id: str = "r1") -> dict:
    return {"detail": {"code": code, "message": code.lower(), "request_id": request_id}}


FORMATS = {"ignored_args": [], "formats": [], "max_upload_bytes": 1, "refused_extensions": [], "default_format": "csv"}


def test_idempotent_ops_are_retried_on_5xx():
    transport, seen = scripted(
        (500, failure("INTERNAL"), {}), (503, failure("OVERLOADED"), {"Retry-After": "0"}), (200, FORMATS, {})
    )
    client = tabular.Client("http://tabular.test", transport=transport, backoff=0.001)
    assert client.call("knowledge.formats")["default_format"] == "csv"
    assert len(seen) == 3


def test_a_write_is_not_sent_again_after_a_500_but_is_after_back_pressure():
    transport, seen = scripted((500, failure("INTERNAL", "r9"), {}))
    client = tabular.Client("http://tabular.test", transport=transport, backoff=0.001)
    with pytest.raises(tabular.TabularError) as caught:
        client.call("knowledge.upload", {"filename": "a.csv", "content_base64": ""})
    assert len(seen) == 1 and caught.value.code == "INTERNAL" and caught.value.request_id == "r9"
    transport, seen = scripted((503, failure("OVERLOADED"), {"Retry-After": "0"}), (200, {"upload_id": "u"}, {}))
    client = tabular.Client("http://tabular.test", transport=transport, backoff=0.001)
    assert client.call("knowledge.upload", {"filename": "a.csv", "content_base64": ""}) == {"upload_id": "u"}
    assert len(seen) == 2


def test_a_write_cut_off_in_flight_is_not_sent_again_but_a_refused_connection_is():
    """A read timeout may come after the server ran the write: sending it again could approve
    twice or store a file twice. A refused connection sent nothing: that is safe to retry."""
    for error, expected_sends in ((httpx.ReadTimeout, 1), (httpx.ConnectError, 2)):
        sends = []

        def handle(request: httpx.Request, error=error, sends=sends) -> httpx.Response:
            sends.append(request)
            if len(sends) == 1:
                raise error("cut off", request=request)
            return httpx.Response(200, json={"upload_id": "u"})

        client = tabular.Client("http://tabular.test", transport=httpx.MockTransport(handle), backoff=0.001)
        if expected_sends == 1:
            with pytest.raises(httpx.ReadTimeout):
                client.call("knowledge.upload", {"filename": "a.csv", "content_base64": ""})
        else:
            assert client.call("knowledge.upload", {"filename": "a.csv", "content_base64": ""}) == {"upload_id": "u"}
        assert len(sends) == expected_sends, error


def test_an_ingest_carries_an_idempotency_key_so_it_is_retried_as_the_same_job():
    transport, seen = scripted((502, failure("INTERNAL"), {}), (200, {"ingestion_id": "i_1"}, {}))
    client = tabular.Client("http://tabular.test", transport=transport, backoff=0.001)
    assert client.call("knowledge.ingest", {"upload_id": "u", "source_uri": "s"})["ingestion_id"] == "i_1"
    keys = [json.loads(r.content)["idempotency_key"] for r in seen]
    assert len(keys) == 2 and keys[0] == keys[1] and keys[0]


def test_timeouts_and_refusals_are_not_retried():
    for code, status in (("BACKEND_TIMEOUT", 504), ("AUTH_INVALID", 401), ("VALIDATION_FAILED", 422)):
        transport, seen = scripted((status, failure(code), {}))
        client = tabular.Client("http://tabular.test", transport=transport, backoff=0.001)
        with pytest.raises(tabular.TabularError) as caught:
            client.call("knowledge.query", {})
        assert len(seen) == 1 and (caught.value.code, caught.value.status) == (code, status)


def test_the_token_is_sent_as_a_bearer_token():
    transport, seen = scripted((200, FORMATS, {}))
    tabular.Client("http://tabular.test", token="s3cret", transport=transport).call("knowledge.formats")
    assert seen[0].headers["authorization"] == "Bearer s3cret"
