"""ClickHouse parity of expressions, measures and windows (issue 17): every operator ClickHouse
computes is answered there exactly as DuckDB answers it, value for value with its JSON type, and
every one it cannot compute exactly is refused up front with a 422 naming the operator and why,
while DuckDB answers."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

pytest.importorskip("chdb", reason="the ClickHouse parity tests need chdb (pip install -e '.[clickhouse]')")

from conftest import ROOT
from test_expression_properties import ROWS, expressions
from test_parity import answer, compare, engines

import tabular

QUERY = ROOT / "fixtures" / "query"


def rows_of(source: str, key: str, expr) -> dict:
    return {
        "datasets": [{"source_uri": source}],
        "compute": [{"as": "e", "expr": expr}],
        "select": [{"column": key}, {"column": "e"}],
        "limit": 400,
    }


def orders(expr) -> dict:
    return rows_of("orders.csv", "order_id", expr)


def extremes(expr) -> dict:
    return rows_of("extremes.csv", "id", expr)


def windows(window: dict) -> dict:
    return {
        "datasets": [{"source_uri": "orders.csv"}],
        "group_by": [{"column": "region"}, {"column": "qty"}],
        "aggregates": [{"fn": "sum", "column": "amount", "as": "s"}],
        "measures": [{"as": "m", "window": window}],
        "limit": 1000,
    }


ANSWERED = {
    "add": orders({"add": ["amount", "qty", 0.005]}),
    "sub": orders({"sub": [1, "amount"]}),
    "mul": orders({"mul": ["amount", "qty", {"sub": [1, 0.05]}]}),
    "add at the edge of BIGINT": extremes({"add": ["big", "big"]}),
    "div": orders({"div": ["amount", {"sub": ["qty", 5]}]}),
    "neg of -2^63 + 1": extremes({"neg": "big"}),
    "abs": extremes({"abs": "mid"}),
    "round": orders({"round": [{"mul": ["amount", 0.5]}, 1]}),
    "round of tiny decimals": extremes({"round": ["tiny", 2]}),
    # A double's halves: ClickHouse takes them to even, DuckDB (and the SPEC) away from zero.
    "round of a double's halves": orders({"round": [{"div": [{"sub": [5, "qty"]}, 2]}, 0]}),
    "round of a double near zero": orders({"round": [{"div": [{"sub": [5, "qty"]}, 10]}, 0]}),
    "floor": extremes({"floor": "tiny"}),
    "ceil of 30 digits": extremes({"ceil": "mid"}),
    "coalesce": orders({"coalesce": ["amount", 0.125]}),
    "nullif": orders({"nullif": ["qty", 5]}),
    "case": orders(
        {
            "case": [{"when": {"column": "amount", "op": "gt", "value": 500}, "then": "amount"}],
            "else": {"neg": "amount"},
        }
    ),
    "case of strings": orders(
        {
            "case": [{"when": {"column": "region", "op": "eq", "value": "West"}, "then": {"value": "w"}}],
            "else": {"value": "x"},
        }
    ),
    "year": orders({"year": "ordered_on"}),
    "quarter": orders({"quarter": "ordered_on"}),
    "month": orders({"month": "ordered_on"}),
    "day": orders({"day": "ordered_on"}),
    "weekday": orders({"weekday": "ordered_on"}),
    "date_diff in months": orders({"date_diff": ["month", "ordered_on", {"value": "2024-02-29", "type": "date"}]}),
    "date_diff in days": orders({"date_diff": ["day", "ordered_on", {"value": "2024-02-29", "type": "date"}]}),
    "concat with a decimal and a date": orders(
        {"concat": ["region", {"value": "-"}, "amount", {"value": "/"}, "ordered_on", {"value": "/"}, "qty"]}
    ),
    "length": orders({"length": "note"}),
    "substring": orders({"substring": ["note", 2, 3]}),
    "aggregate over an expr": {
        "datasets": [{"source_uri": "orders.csv"}],
        "group_by": [{"column": "region"}],
        "aggregates": [{"fn": "sum", "expr": {"mul": ["amount", "qty"]}, "as": "g"}],
    },
    "a measure over a window, filtered": {
        **windows({"fn": "sum", "of": "s"}),
        "measures": [{"as": "m", "window": {"fn": "sum", "of": "s"}}, {"as": "d", "expr": {"sub": ["m", "s"]}}],
        "having": [{"column": "d", "op": "gt", "value": 1000}],
    },
    **{
        f"window {fn}": windows(
            {
                "fn": fn,
                **({"of": "s"} if fn == "running_sum" else {}),
                "partition_by": ["region"],
                "order_by": [{"column": "s", "desc": True}],
            }
        )
        for fn in ("rank", "dense_rank", "row_number", "running_sum")
    },
    **{
        f"window {fn}": windows({"fn": fn, "of": "s", "partition_by": ["region"]})
        for fn in ("sum", "avg", "min", "max", "count", "share")
    },
}
REFUSED = {
    "lower": orders({"lower": "note"}),
    "upper": orders({"upper": "note"}),
    "cast": orders({"cast": ["note", "integer"]}),
    "date_add": orders({"date_add": ["ordered_on", {"value": "P30D", "type": "duration"}]}),
    "date_diff": orders({"date_diff": ["week", "ordered_on", {"value": "2024-02-29", "type": "date"}]}),
    "round": orders({"round": [{"div": ["amount", 3]}, 1]}),
}


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    with tabular.connect(str(tmp_path_factory.mktemp("chexpr") / "home")) as engine:
        ns = engine.namespace("acme", "chexpr")
        for name in ("orders.csv", "extremes.csv"):
            assert ns.ingest_file(QUERY / name, source_uri=name).state == "ready"
        folder = tmp_path_factory.mktemp("chexpr-t")
        (folder / "t.csv").write_text("id,g,h,x,y,z\n" + "\n".join(",".join(r) for r in ROWS) + "\n", encoding="utf-8")
        assert ns.ingest_file(folder / "t.csv", source_uri="t.csv").state == "ready"
        yield ns


@pytest.mark.parametrize("name", list(ANSWERED))
def test_clickhouse_answers_as_duckdb(shop, name):
    duck, ch, scope = engines(shop)
    plan = ANSWERED[name]
    got = answer(ch, scope, plan)
    assert not isinstance(got, tuple), got
    compare(answer(duck, scope, plan), got, plan)


@pytest.mark.parametrize("operator", list(REFUSED))
def test_clickhouse_refuses_what_it_cannot_compute_exactly_and_says_which(shop, operator):
    duck, ch, scope = engines(shop)
    plan = REFUSED[operator]
    assert not isinstance(answer(duck, scope, plan), tuple)
    with pytest.raises(tabular.ValidationFailed) as err:
        from tabular.ops.query import QueryIn, query

        query(ch, QueryIn.model_validate({"org": scope[0], "namespace": scope[1], **plan}))
    (problem,) = err.value.errors
    assert (
        problem.path == f"compute[0].expr.{operator}"
        and f"cannot compute {operator}" in problem.message
        and problem.received == operator
    )


GENERATED = dict(
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)


def check_generated(shop, data) -> None:
    duck, ch, scope = engines(shop)
    (d,) = shop.dataset_get("t.csv").datasets
    expr, _, _, _ = data.draw(expressions({c.name: c.physical for c in d.columns}))
    plan = rows_of("t.csv", "id", expr)
    got, want = answer(ch, scope, plan), answer(duck, scope, plan)
    if isinstance(got, tuple) and not isinstance(want, tuple):
        # Refused up front, never answered otherwise: a double rounded at a decimal place.
        code, paths = got
        assert code == "VALIDATION_FAILED" and paths and all(p.endswith(".round") for p in paths), (got, plan)
        return
    compare(want, got, plan)


# 20 expressions in the default run (issue 57: the suite's time), PARITY_EXPRESSIONS (400) in the _long twin.
@settings(max_examples=20, **GENERATED)
@given(data=st.data())
def test_generated_expressions_agree(shop, data):
    check_generated(shop, data)


@pytest.mark.slow
@settings(max_examples=int(__import__("os").environ.get("PARITY_EXPRESSIONS", 400)), **GENERATED)
@given(data=st.data())
def test_generated_expressions_agree_long(shop, data):
    check_generated(shop, data)
