"""Proposer (b): an OpenAI-compatible chat endpoint, played by a stub HTTP server on loopback that
speaks the chat-completions wire format and answers from a script."""

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from synth_oracle import INVOICES, SALES, SYNTH, total, where

import tabular


class Stub:
    """Replies with the scripted contents in turn; keeps every request it was sent."""

    def __init__(self):
        self.replies: list[str] = []
        self.requests: list[dict] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
                content = stub.replies.pop(0) if stub.replies else "{}"
                answer = {
                    "id": "chatcmpl-1",
                    "object": "chat.completion",
                    "model": body["model"],
                    "choices": [
                        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
                    ],
                }
                data = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture(scope="module")
def stub():
    s = Stub()
    yield s
    s.server.shutdown()
    s.server.server_close()


@pytest.fixture(scope="module")
def chat(stub, tmp_path_factory):
    home = tmp_path_factory.mktemp("chat") / "home"
    with tabular.connect(
        str(home), llm_base_url=stub.url, llm_api_key="test-key", llm_model="stub-model", llm_seconds=10.0
    ) as engine:
        ns = engine.namespace("acme", "chat")
        for name in ("sales", "invoices"):
            assert ns.ingest_file(SYNTH / f"{name}.csv", source_uri=f"{name}.csv").state == "ready"
        yield ns


@pytest.fixture(autouse=True)
def fresh(stub):
    stub.replies.clear()
    stub.requests.clear()


def plan(**fields):
    return {"datasets": [{"source_uri": "sales.csv", "alias": "s"}], **fields}


def test_an_invalid_proposal_is_repaired_with_the_validation_errors(chat, stub):
    stub.replies = [
        json.dumps(
            {
                "plan": plan(
                    aggregates=[{"fn": "sum", "column": "s.amout"}],
                    where=[{"column": "s.region", "op": "eq", "value": "North"}],
                )
            }
        ),
        "```json\n"
        + json.dumps(
            {
                "plan": plan(
                    aggregates=[{"fn": "sum", "column": "s.amount"}],
                    where=[{"column": "s.region", "op": "eq", "value": "North"}],
                )
            }
        )
        + "\n```",
    ]
    out = chat.synthesize("Total amount in the North", ["sales.csv"])
    assert not out.abstain and out.model == "stub-model"
    (calc,) = out.calculations
    assert calc.rows == [[str(total(where(SALES, region="North"), "amount"))]]
    assert "[knowledge.query#1]" in out.answer and out.citations == ["knowledge.query#1"]
    first, second = stub.requests
    assert (
        first["path"] == "/v1/chat/completions"
        and first["auth"] == "Bearer test-key"
        and first["body"]["model"] == "stub-model"
    )
    system, user = first["body"]["messages"]
    assert '"aggregates"' in system["content"] and "Total amount in the North" in user["content"]
    assert (
        '"amount"' in user["content"] and '"North"' in user["content"]
    )  # columns and a low-cardinality string column's values
    repair = second["body"]["messages"]
    assert len(repair) == 4 and repair[2]["role"] == "assistant"
    said = repair[3]["content"]
    assert "aggregates[0].column" in said and "s.amount" in said  # the path and the did_you_mean


def test_a_second_invalid_proposal_is_invalid_plan_with_why(chat, stub):
    stub.replies = [json.dumps(plan(aggregates=[{"fn": "sum", "column": "s.region"}])), "not json at all"]
    out = chat.synthesize("Total of regions", ["sales.csv"])
    assert out.abstain and out.abstain_reason == "invalid_plan" and out.calculations == []
    assert "a plan is a JSON object" in out.clarification
    assert len(stub.requests) == 2


def test_a_plan_reading_a_dataset_not_given_is_refused(chat, stub):
    stub.replies = [
        json.dumps({"plan": {"datasets": [{"source_uri": "invoices.csv"}], "aggregates": [{"fn": "count"}]}})
    ] * 2
    out = chat.synthesize("How many sales?", ["sales.csv"])
    assert out.abstain_reason == "invalid_plan" and "invoices.csv" in out.clarification


def test_the_model_may_abstain_itself(chat, stub):
    stub.replies = [json.dumps({"abstain": "ambiguous", "clarification": "revenue: the column net or gross?"})]
    out = chat.synthesize("Total revenue", ["invoices.csv"])
    assert (out.abstain_reason, out.clarification, out.model) == (
        "ambiguous",
        "revenue: the column net or gross?",
        "stub-model",
    )


def test_a_valid_first_proposal_runs_over_every_row(chat, stub):
    stub.replies = [
        json.dumps(
            {
                "plan": {
                    "datasets": [{"source_uri": "invoices.csv", "alias": "i"}],
                    "group_by": [{"column": "i.status"}],
                    "aggregates": [{"fn": "sum", "column": "i.gross"}],
                }
            }
        )
    ]
    out = chat.synthesize("Gross by status", ["invoices.csv"])
    want = {s: str(total(where(INVOICES, status=s), "gross")) for s in ("open", "overdue", "paid")}
    assert {r[0]: r[1] for r in out.calculations[0].rows} == want and len(stub.requests) == 1


def test_an_unreachable_endpoint_is_an_abstention_not_an_error(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    with tabular.connect(str(tmp_path / "home"), llm_base_url=f"http://127.0.0.1:{port}/v1", llm_seconds=2.0) as engine:
        ns = engine.namespace("acme", "down")
        ns.ingest_file(SYNTH / "sales.csv", source_uri="sales.csv")
        out = ns.synthesize("Total amount", ["sales.csv"])
    assert out.abstain_reason == "invalid_plan" and "gave no plan" in out.clarification


def test_the_chat_proposer_says_which_columns_answer_and_the_answer_says_them_first(chat, stub):
    # The model names the region as the answer; the total beside it is evidence.
    stub.replies = [
        json.dumps(
            {
                "plan": plan(
                    group_by=[{"column": "s.region"}],
                    aggregates=[{"fn": "sum", "column": "s.amount"}],
                    order_by=[{"column": "sum_amount", "desc": True}],
                    limit=1,
                ),
                "answer_columns": ["region"],
            }
        )
    ]
    out = chat.synthesize("Which region sold the most?", ["sales.csv"])
    (calc,) = out.calculations
    best = max({r["region"] for r in SALES}, key=lambda g: total(where(SALES, region=g), "amount"))
    assert calc.answer_columns == ["region"] and calc.rows[0][0] == best
    assert f"region is {best} (sum_amount " in out.answer


def test_a_chat_plan_that_names_no_answer_columns_has_them_read_off_the_plan(chat, stub):
    stub.replies = [json.dumps({"plan": plan(aggregates=[{"fn": "sum", "column": "s.amount", "as": "total"}])})]
    out = chat.synthesize("Total amount", ["sales.csv"])
    assert out.calculations[0].answer_columns == ["total"]


def test_a_chat_plan_with_a_plan_as_a_dataset_answers_and_says_what_it_read(chat, stub):
    """A model may write "sales above the average amount" as a one-row plan joined on [] and a
    column comparison: it runs like any plan, and the answer says both plans' scope."""
    mean = {"datasets": [{"source_uri": "sales.csv"}], "aggregates": [{"fn": "avg", "column": "amount", "as": "mean"}]}
    stub.replies = [
        json.dumps(
            {
                "plan": {
                    "datasets": [{"source_uri": "sales.csv", "alias": "s"}, {"plan": mean, "alias": "m"}],
                    "joins": [{"alias": "m", "on": []}],
                    "where": [{"column": "s.amount", "op": "gt", "other": "m.mean"}],
                    "aggregates": [{"fn": "count", "as": "above"}],
                },
                "answer_columns": ["above"],
            }
        )
    ]
    out = chat.synthesize("How many sales were above the average amount?", ["sales.csv"])
    want = sum(1 for r in SALES if r["amount"] > total(SALES, "amount") / len(SALES))
    assert not out.abstain and out.calculations[0].rows == [[want]]
    assert "above is " + str(want) in out.answer and "m (over sales.csv)" in out.answer
