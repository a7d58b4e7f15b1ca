"""planner/receipt.py: the plan's canonical hash and the receipt's models."""

from planner.models import QueryPlan
from planner.receipt import Elapsed, QueryReceipt, ReceiptDataset, plan_hash

PLAN = {"datasets": [{"source_uri": "orders.csv"}], "where": [{"column": "region", "op": "eq", "value": "North"}]}


def hashed(plan_json) -> str:
    return plan_hash(QueryPlan.model_validate(plan_json))


def test_the_hash_is_a_sha256_in_hex():
    h = hashed(PLAN)
    assert len(h) == 64 and int(h, 16) >= 0


def test_key_order_defaults_and_dry_run_do_not_change_the_hash():
    reordered = {"where": [{"value": "North", "op": "eq", "column": "region"}], "datasets": PLAN["datasets"]}
    assert hashed(reordered) == hashed(PLAN)
    assert hashed({**PLAN, "limit": 100, "offset": 0, "joins": []}) == hashed(PLAN)
    assert hashed({**PLAN, "dry_run": True}) == hashed(PLAN)


def test_what_changes_the_answer_changes_the_hash():
    assert hashed({**PLAN, "limit": 5}) != hashed(PLAN)
    other = {**PLAN, "where": [{"column": "region", "op": "eq", "value": "South"}]}
    assert hashed(other) != hashed(PLAN)


def test_an_alias_field_and_its_python_name_hash_alike():
    one = {"datasets": PLAN["datasets"], "aggregates": [{"fn": "count", "as": "n"}]}
    plan = QueryPlan.model_validate(one)
    assert plan.aggregates[0].as_ == "n"
    assert plan_hash(plan) == hashed(one)
    assert hashed({**one, "aggregates": [{"fn": "count", "as": "m"}]}) != hashed(one)


def test_elapsed_is_written_with_validate_as_its_key():
    elapsed = Elapsed(validate=1.5, compile=2.0, execute=3.0, total=6.5)
    assert elapsed.model_dump() == {"validate": 1.5, "compile": 2.0, "execute": 3.0, "total": 6.5}
    assert Elapsed(validate_=1.0, compile=0, execute=0, total=1).validate_ == 1.0


def test_a_receipt_round_trips_through_json():
    dataset = ReceiptDataset(
        alias="o",
        source_uri="orders.csv",
        dataset_id="orders",
        snapshot_id="s1",
        revision=1,
        rows=3,
        rows_rejected=0,
        open_questions=[],
        columns_read=["region"],
    )
    assert dataset.within == ""
    receipt = QueryReceipt(
        plan_hash=hashed(PLAN),
        sql="SELECT 1",
        params={"p0": "North"},
        engine="duckdb",
        datasets=[dataset],
        resolved=[{"input": "region", "column": "o.region", "how": "exact"}],
        warnings=[],
        rows_returned=1,
        elapsed_ms=Elapsed(validate=0, compile=0, execute=0, total=0),
        computed_at="2024-01-01T00:00:00Z",
    )
    again = QueryReceipt.model_validate_json(receipt.model_dump_json())
    assert again == receipt and again.computed == []
    assert '"validate":' in receipt.model_dump_json()


def test_a_receipt_says_its_conditions_in_words_and_an_older_one_reads_as_saying_none():
    fields = {
        "plan_hash": hashed(PLAN),
        "sql": "SELECT 1",
        "params": {},
        "engine": "duckdb",
        "datasets": [],
        "resolved": [],
        "warnings": [],
        "rows_returned": 0,
        "elapsed_ms": Elapsed(validate=0, compile=0, execute=0, total=0),
        "computed_at": "2024-01-01T00:00:00Z",
    }
    said = QueryReceipt(**fields, conditions=["where status is paid, any case"])
    assert QueryReceipt.model_validate_json(said.model_dump_json()).conditions == ["where status is paid, any case"]
    assert QueryReceipt(**fields).conditions == []  # a receipt kept for an hour before this field


def test_a_nested_limit_given_at_its_default_hashes_apart_from_none():
    """Given, a nested plan's limit cuts its rows (the top 100); left out, every row is read: two
    questions. At the top, limit 100 given or left out is one question."""
    from planner.models import QueryPlan
    from planner.receipt import plan_hash

    inner = {"datasets": [{"source_uri": "s.csv"}], "order_by": [{"column": "a"}]}

    def nested(**limit):
        return QueryPlan.model_validate({"datasets": [{"alias": "t", "plan": {**inner, **limit}}]})

    assert plan_hash(nested(limit=100)) != plan_hash(nested())
    assert plan_hash(nested(limit=100)) == plan_hash(nested(limit=100))
    assert plan_hash(QueryPlan.model_validate({**inner, "limit": 100})) == plan_hash(QueryPlan.model_validate(inner))
