"""Misspelled keys and values in an input (issue 19): the same cases over HTTP, MCP, Python and the
CLI, each answered with the SPEC §2 envelope in words (what was expected, what came, the close
names), never pydantic's; an unknown key unlike any field is still served and named in
`ignored_args`. And /docs, /redoc served with no CDN."""

from __future__ import annotations

import json
import re

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client

import tabular
from tabular.cli import main as cli_main
from tabular.errors import TabularError
from tabular.service.auth import Tokens
from tabular.service.calls import Service
from tabular.service.http import create_app
from tabular.service.mcp import server, tool_name

SALES = "region,amount,day\nnorth,10,2024-01-05\nsouth,5,2024-02-01\nnorth,7,2024-02-09\n"
D = [{"source_uri": "sales.csv"}]
JOIN = [{"source_uri": "sales.csv", "alias": "a"}, {"source_uri": "sales.csv", "alias": "b"}]

# (what is misspelled, op, body, path of the one problem, did_you_mean)
TYPOS = [
    (
        "a top-level key",
        "knowledge.query",
        {"datasets": D, "aggregate": [{"fn": "count"}]},
        "aggregate",
        ["aggregates"],
    ),
    ("a top-level key's case", "knowledge.query", {"datasets": D, "Limit": 1}, "Limit", ["limit"]),
    (
        "a top-level key of another op",
        "knowledge.dataset_get",
        {"source_uri": "sales.csv", "sample_row": 1},
        "sample_row",
        ["sample_rows"],
    ),
    (
        "a key in a dataset",
        "knowledge.query",
        {"datasets": [{"sourceuri": "sales.csv"}]},
        "datasets[0].sourceuri",
        ["source_uri"],
    ),
    (
        "another key in a dataset",
        "knowledge.query",
        {"datasets": [{"source_urii": "sales.csv"}]},
        "datasets[0].source_urii",
        ["source_uri"],
    ),
    (
        "an aggregate's fn",
        "knowledge.query",
        {"datasets": D, "aggregates": [{"fn": "summ", "column": "amount"}]},
        "aggregates[0].fn",
        ["sum"],
    ),
    (
        "a filter's op",
        "knowledge.query",
        {"datasets": D, "where": [{"column": "region", "op": "eqq", "value": "north"}]},
        "where[0].op",
        ["eq"],
    ),
    (
        "a nested filter's op",
        "knowledge.query",
        {"datasets": D, "where": [{"any": [{"column": "region", "op": "eqq", "value": "x"}]}]},
        "where[0].any[0].op",
        ["eq"],
    ),
    (
        "a group's bucket",
        "knowledge.query",
        {"datasets": D, "group_by": [{"column": "day", "bucket": "mnth"}]},
        "group_by[0].bucket",
        ["month"],
    ),
    (
        "a join's kind",
        "knowledge.query",
        {
            "datasets": JOIN,
            "joins": [{"alias": "b", "on": [{"left": "a.region", "right": "b.region"}], "kind": "innr"}],
        },
        "joins[0].kind",
        ["inner"],
    ),
    (
        "a window's fn",
        "knowledge.query",
        {"datasets": D, "group_by": [{"column": "region"}], "measures": [{"as": "r", "window": {"fn": "rnk"}}]},
        "measures[0].window.fn",
        ["rank"],
    ),
    (
        "an expression's operator",
        "knowledge.query",
        {"datasets": D, "compute": [{"as": "x", "expr": {"mull": ["amount", 2]}}]},
        "compute[0].expr.mull",
        ["mul"],
    ),
    (
        "an ingest option",
        "knowledge.ingest",
        {"upload_id": "u_x", "source_uri": "x.csv", "options": {"delimeter": ";"}},
        "options.delimeter",
        ["delimiter"],
    ),
]

PYDANTIC_WORDS = re.compile(
    r"Input should be|Field required|Extra inputs|literal_error|extra_forbidden|_type\b|_parsing\b"
)


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    folder = tmp_path_factory.mktemp("typos")
    (folder / "sales.csv").write_text(SALES)
    with tabular.connect(str(folder / "home")) as e:
        ns = e.namespace(e.settings.default_org, e.settings.default_namespace)
        assert ns.ingest_file(folder / "sales.csv", "sales.csv").state == "ready"
        yield e


@pytest.fixture(scope="module")
def http(engine):
    with TestClient(create_app(engine, mcp=False), base_url="http://127.0.0.1") as c:
        yield c


def over_python(engine, http, op: str, body: dict) -> tuple[str, dict]:
    """Engine.run for any op; ns.query (the notebook's way) for a plan."""
    try:
        if op == "knowledge.query":
            ns = engine.namespace(engine.settings.default_org, engine.settings.default_namespace)
            return "OK", ns.query(body).model_dump(mode="json", by_alias=True)
        return "OK", engine.run(op, body).model_dump(mode="json", by_alias=True)
    except TabularError as err:
        return err.code, err.to_detail()


def over_http(engine, http, op: str, body: dict) -> tuple[str, dict]:
    r = http.post(f"/v1/{op}", json=body)
    return ("OK", r.json()) if r.status_code == 200 else (r.json()["detail"]["code"], r.json()["detail"])


def over_mcp(engine, http, op: str, body: dict) -> tuple[str, dict]:
    async def call():
        async with Client(server(Service(engine, Tokens(engine.settings)))) as client:
            return await client.call_tool(tool_name(op), body)

    result = anyio.run(call)
    return (
        (result.structured_content["detail"]["code"], result.structured_content["detail"])
        if result.is_error
        else ("OK", result.structured_content)
    )


TRANSPORTS = {"python": over_python, "http": over_http, "mcp": over_mcp}


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(("what", "op", "body", "path", "meant"), TYPOS, ids=[t[0] for t in TYPOS])
def test_a_misspelling_is_a_422_that_names_it_and_what_was_meant(engine, http, transport, what, op, body, path, meant):
    code, detail = TRANSPORTS[transport](engine, http, op, json.loads(json.dumps(body)))
    assert code == "VALIDATION_FAILED", detail
    (problem,) = detail["errors"]  # one problem, said once (a misspelled key leaves no "missing" beside it)
    assert problem["path"] == path and problem["did_you_mean"] == meant, problem
    assert problem["expected"].startswith("one of: ") and meant[0] in problem["expected"].removeprefix(
        "one of: "
    ).split(", ")
    assert json.dumps(problem["received"]) in json.dumps(body)  # the misspelled key or value, as it came
    assert not PYDANTIC_WORDS.search(json.dumps(detail)), detail
    if transport == "http":
        assert http.post(f"/v1/{op}", json=body).status_code == 422


def test_the_words_of_a_misspelled_choice(engine, http):
    code, detail = over_http(
        engine, http, "knowledge.query", {"datasets": D, "aggregates": [{"fn": "summ", "column": "amount"}]}
    )
    (problem,) = detail["errors"]
    choices = "count, count_distinct, sum, avg, min, max, median, stddev, var, quantile"
    assert problem == {
        "path": "aggregates[0].fn",
        "message": f"'summ' is not a fn; expected one of: {choices}",
        "expected": f"one of: {choices}",
        "received": "summ",
        "did_you_mean": ["sum"],
    }
    assert detail["message"] == f"1 problem(s) with the input: 'summ' is not a fn; expected one of: {choices}"


def test_the_words_of_a_misspelled_top_level_key(engine, http):
    code, detail = over_http(engine, http, "knowledge.query", {"datasets": D, "aggregate": [{"fn": "count"}]})
    (problem,) = detail["errors"]
    assert problem["message"] == "'aggregate' is not a field of knowledge.query" and problem["received"] == "aggregate"
    assert "aggregates" in problem["expected"] and "datasets" in problem["expected"]


@pytest.mark.parametrize(
    ("body", "path", "message", "expected", "received"),
    [
        ({"datasets": D, "select": [{"as": "x"}]}, "select[0].column", "required field missing", "a string", None),
        ({"datasets": D, "limit": "ten"}, "limit", "'ten' is not an integer", "an integer", "ten"),
        ({"datasets": D, "dry_run": "maybe"}, "dry_run", "'maybe' is not true or false", "true or false", "maybe"),
        ({"datasets": "sales.csv"}, "datasets", "'sales.csv' is not a list", "a list", "sales.csv"),
        ({"datasets": [], "limit": -1}, "datasets", "an empty list", "at least 1 item", []),
        (
            {"datasets": D, "where": [{"column": 3, "op": "eq", "value": 1}]},
            "where[0].column",
            "3 is not a string",
            "a string",
            3,
        ),
        (
            {"datasets": D, "order_by": [{"column": "region", "desc": "sure"}]},
            "order_by[0].desc",
            "'sure' is not true or false",
            "true or false",
            "sure",
        ),
        ({"datasets": D, "select": ["region"]}, "select[0]", "'region' is not an object", "an object", "region"),
    ],
)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_other_problems_say_what_was_expected_in_words(
    engine, http, transport, body, path, message, expected, received
):
    code, detail = TRANSPORTS[transport](engine, http, "knowledge.query", body)
    assert code == "VALIDATION_FAILED"
    problem = next(p for p in detail["errors"] if p["path"] == path)
    assert (problem["message"], problem.get("expected"), problem.get("received")) == (message, expected, received)
    assert not PYDANTIC_WORDS.search(json.dumps(detail)), detail


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_plan_is_closed_a_key_that_is_no_clause_is_refused_at_its_path(engine, http, transport):
    # SPEC §2: an unread `filters` would answer every row as complete; `comment` is no clause either
    code, answer = TRANSPORTS[transport](
        engine,
        http,
        "knowledge.query",
        {
            "datasets": D,
            "aggregates": [{"fn": "count"}],
            "filters": [{"column": "amount", "op": "gt", "value": 10}],
            "comment": "rows",
        },
    )
    assert code == "VALIDATION_FAILED", answer
    got = {e["path"]: e for e in answer["errors"]}
    assert set(got) == {"filters", "comment"}
    assert "where" in got["filters"]["expected"] and "group_by" in got["filters"]["expected"]
    # identity and transport fields are no plan keys: served, and named in ignored_args
    code, answer = TRANSPORTS[transport](
        engine,
        http,
        "knowledge.query",
        {"datasets": D, "aggregates": [{"fn": "count"}], "agent": "a1", "request_id": "r"},
    )
    assert code == "OK" and answer["rows"] == [[3]] and answer["ignored_args"] == ["agent", "request_id"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_key_unlike_any_field_of_an_op_that_takes_no_plan_is_served_and_named(engine, http, transport):
    code, answer = TRANSPORTS[transport](engine, http, "knowledge.formats", {"comment": "x", "colour": 1})
    assert code == "OK", answer
    assert answer["ignored_args"] == ["colour", "comment"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_the_same_envelope_on_every_transport(engine, http, transport):
    body = {
        "datasets": [{"sourceuri": "sales.csv"}],
        "aggregate": [{"fn": "summ"}],
        "where": [{"column": "region", "op": "eqq"}],
    }
    _, expected = over_python(engine, http, "knowledge.query", body)
    _, got = TRANSPORTS[transport](engine, http, "knowledge.query", body)
    assert got["errors"] == expected["errors"] and got["message"] == expected["message"]
    assert {e["path"] for e in got["errors"]} == {"aggregate", "datasets[0].sourceuri", "where[0].op"}


def test_the_cli_says_the_misspelling_and_what_was_meant(tmp_path, capsys):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"datasets": D, "aggregate": [{"fn": "count"}]}))
    assert cli_main(["--home", str(tmp_path / "home"), "query", str(plan)]) == 2
    said = capsys.readouterr()
    assert "VALIDATION_FAILED" in said.out + said.err and "aggregates" in said.out + said.err


def test_the_docs_pages_load_nothing_from_outside(http):
    for page in ("/docs", "/redoc"):
        html = http.get(page)
        assert html.status_code == 200 and "text/html" in html.headers["content-type"]
        urls = re.findall(r"""(?:src|href)=["']([^"']+)["']""", html.text) + re.findall(
            r"""(?:url:|spec-url=)\s*["']([^"']+)["']""", html.text
        )
        assert urls and not [u for u in urls if re.match(r"(https?:)?//", u)], urls
        assert not re.search(r"https?://", html.text), "a page names an outside address"
        for url in urls:
            got = http.get(url)
            assert got.status_code == 200 and got.content, url
    swagger = http.get("/docs").text
    js = re.search(r'src="([^"]+\.js)"', swagger).group(1)
    assert "javascript" in http.get(js).headers["content-type"] and len(http.get(js).content) > 100_000


def test_a_misspelled_tag_of_a_discriminated_union_or_enum_gets_close_names():
    """No plan model is such a union today (their choices are Literals); an input model that is
    one gets the same words (errors.validation_items reads the location against the model)."""
    import enum
    from typing import Annotated, Literal

    from pydantic import BaseModel, ConfigDict, Field, ValidationError

    from tabular.validation import validation_items

    class Colour(enum.Enum):
        red, green = "red", "green"

    class Circle(BaseModel):
        model_config = ConfigDict(extra="forbid")
        kind: Literal["circle"]
        radius: float

    class Square(BaseModel):
        model_config = ConfigDict(extra="forbid")
        kind: Literal["square"]
        side: float

    class Drawing(BaseModel):
        shapes: list[Annotated[Circle | Square, Field(discriminator="kind")]]
        colour: Colour = Colour.red

    with pytest.raises(ValidationError) as err:
        Drawing.model_validate(
            {"shapes": [{"kind": "circel"}, {"side": 1}, {"kind": "square", "sid": 2}], "colour": "gren"}
        )
    got = {item.path: item for item in validation_items(err.value.errors(), Drawing)}
    assert set(got) == {"shapes[0].kind", "shapes[1].kind", "shapes[2].sid", "colour"}
    assert (got["shapes[0].kind"].did_you_mean, got["shapes[0].kind"].expected) == (
        ["circle"],
        "one of: circle, square",
    )
    assert (got["shapes[1].kind"].message, got["shapes[1].kind"].expected) == (
        "required field missing",
        "one of: circle, square",
    )
    assert (got["shapes[2].sid"].did_you_mean, got["shapes[2].sid"].expected) == (["side"], "one of: kind, side")
    assert (got["colour"].message, got["colour"].did_you_mean) == (
        "'gren' is not a colour; expected one of: red, green",
        ["green"],
    )
