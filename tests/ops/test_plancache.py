"""What a plan's calls share (ops/plancache.py): a plan asked again, or with other filter values,
answers what a home that keeps nothing answers; a new revision, another org or another
namespace never meets an entry made for another; the cache keeps at most its setting's entries."""

import threading
import uuid

import pytest
from conftest import CSV

import tabular
from tabular.ops.plancache import PlanCache, cache_for, plan_text
from tabular.ops.query import QueryIn, query

SALES = "region,amount,sold_on\nNorth,10.50,2024-01-03\nSouth,20.25,2024-02-10\nNorth,5.00,2024-03-15\nEast,7.75,2024-03-20\n"


def plan(region: str, after: str = "2024-01-01") -> dict:
    """One shape: the same plan but for its filters' values."""
    return {
        "datasets": [{"source_uri": "sales.csv"}],
        "where": [
            {"column": "region", "op": "in", "values": [region, "East"]},
            {"column": "sold_on", "op": "ge", "value": after},
        ],
        "group_by": [{"column": "region"}],
        "aggregates": [{"fn": "sum", "column": "amount", "as": "total"}, {"fn": "count"}],
        "order_by": [{"column": "region"}],
    }


def _ingest(ns, tmp_path, text: str, name: str = "sales.csv") -> None:
    path = tmp_path / f"{uuid.uuid4().hex}-{name}"
    path.write_text(text, encoding="utf-8")
    assert ns.ingest_file(path, source_uri=name).state == "ready"


@pytest.fixture
def homes(tmp_path):
    """A home that keeps compiled plans and one that keeps none, with the same data."""
    with (
        tabular.connect(str(tmp_path / "kept")) as kept,
        tabular.connect(str(tmp_path / "none"), compiled_cache_entries=0) as none,
    ):
        for engine in (kept, none):
            _ingest(engine.namespace("acme", "sales"), tmp_path, SALES)
        yield kept, none


def answer(engine, body: dict, org: str = "acme", namespace: str = "sales"):
    return engine.namespace(org, namespace).query(body)


def statement(receipt) -> tuple[str, dict]:
    """The SQL and its parameters with each dataset's ids named by its place (two homes' differ)."""
    sql = receipt.sql
    for k, d in enumerate(receipt.datasets):
        sql = sql.replace(d.snapshot_id, f"snapshot{k}").replace(d.dataset_id, f"dataset{k}")
    return sql, receipt.params


def test_a_plan_asked_again_answers_as_a_home_that_keeps_nothing(homes):
    kept, none = homes
    first, again, fresh = answer(kept, plan("North")), answer(kept, plan("North")), answer(none, plan("North"))
    assert first.rows == again.rows == fresh.rows == [["East", "7.75", 1], ["North", "15.50", 2]]
    assert statement(again.receipt) == statement(fresh.receipt)
    assert again.receipt.plan_hash == first.receipt.plan_hash == fresh.receipt.plan_hash
    assert len(cache_for(none.context)) == 0


def test_other_values_of_one_shape_are_bound_anew_and_give_their_own_rows(homes):
    kept, none = homes
    # One pair of homes for every set of values: each is asked after the shape was compiled with others.
    for values in [("North", "2024-01-01"), ("South", "2024-01-01"), ("North", "2024-03-01"), ("West", "2030-01-01")]:
        answer(kept, plan("East", "2020-01-01"))  # the shape compiled first, with other values
        compiled = len(cache_for(kept.context)._kinds["compiled"])
        got, want = answer(kept, plan(*values)), answer(none, plan(*values))
        assert got.rows == want.rows, values
        assert statement(got.receipt) == statement(want.receipt)
        assert got.receipt.plan_hash == want.receipt.plan_hash
        kinds = cache_for(kept.context)._kinds
        assert len(kinds["compiled"]) == compiled and len(kinds["resolved"]) == 1  # one of each for the shape


def test_a_new_revision_never_meets_the_old_revisions_statement(homes, tmp_path):
    kept, _ = homes
    ns = kept.namespace("acme", "sales")
    before = ns.query(plan("North"))
    _ingest(ns, tmp_path, SALES + "North,100.00,2024-04-01\n")
    after = ns.query(plan("North"))
    assert after.receipt.datasets[0].revision == before.receipt.datasets[0].revision + 1
    assert after.receipt.datasets[0].snapshot_id != before.receipt.datasets[0].snapshot_id
    assert after.receipt.datasets[0].snapshot_id in after.receipt.sql
    assert after.rows == [["East", "7.75", 1], ["North", "115.50", 3]]


@pytest.mark.parametrize("other", [("globex", "sales"), ("acme", "hr")])
def test_another_org_or_namespace_never_meets_an_entry_made_for_one(homes, tmp_path, other):
    kept, _ = homes
    org, namespace = other
    _ingest(kept.namespace(org, namespace), tmp_path, SALES.replace("10.50", "99.00"))
    mine = answer(kept, plan("North"))
    theirs = answer(kept, plan("North"), org, namespace)
    assert mine.rows == [["East", "7.75", 1], ["North", "15.50", 2]]
    assert theirs.rows == [["East", "7.75", 1], ["North", "104.00", 2]]
    assert mine.receipt.datasets[0].snapshot_id != theirs.receipt.datasets[0].snapshot_id
    kinds = cache_for(kept.context)._kinds
    assert len(kinds["resolved"]) == len(kinds["compiled"]) == len(kinds["hash"]) == 2
    assert all(key[:2] in {("acme", "sales"), other} for entries in kinds.values() for key in entries)


def test_answers_from_threads_at_once_are_each_their_own(homes):
    kept, none = homes
    regions = ["North", "South", "East", "West"] * 4
    want = {r: answer(none, plan(r)).rows for r in set(regions)}
    got: dict[int, list] = {}

    def ask(k: int, region: str) -> None:
        got[k] = answer(kept, plan(region)).rows

    threads = [threading.Thread(target=ask, args=(k, r)) for k, r in enumerate(regions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert {k: got.get(k) for k in range(len(regions))} == {k: want[r] for k, r in enumerate(regions)}


def test_the_cache_keeps_at_most_its_entries_the_least_recently_used_out_first():
    cache = PlanCache(entries=2)
    cache.put("compiled", "a", 1)
    cache.put("compiled", "b", 2)
    assert cache.get("compiled", "a") == 1  # a is now the most recent
    cache.put("compiled", "c", 3)
    assert [cache.get("compiled", k) for k in "abc"] == [1, None, 3]
    nothing = PlanCache(entries=0)
    nothing.put("hash", "a", "x")
    assert nothing.get("hash", "a") is None and len(nothing) == 0


def test_a_small_setting_bounds_a_home_and_its_answers_stay_right(tmp_path):
    with tabular.connect(str(tmp_path / "home"), compiled_cache_entries=1) as engine:
        _ingest(engine.namespace("acme", "sales"), tmp_path, SALES)
        shapes = [plan("North"), {**plan("North"), "order_by": [{"column": "total", "desc": True}]}]
        rows = [answer(engine, p).rows for p in shapes + shapes]
        assert rows[0] == rows[2] and rows[1] == rows[3] and rows[0] == list(reversed(rows[1]))
        assert all(len(entries) <= 1 for entries in cache_for(engine.context)._kinds.values())


def test_the_shape_is_the_plan_without_its_filters_values():
    from tabular.ops.query import QueryIn

    def text(body: dict):
        return plan_text(QueryIn.model_validate({"org": "o", "namespace": "n", **body}))

    north, south = text(plan("North")), text(plan("South", "2020-02-02"))
    assert north.shape == south.shape and north.exact != south.exact
    assert text({**plan("North"), "limit": 5}).shape != north.shape
    two = plan("North")
    two["where"][0]["values"] = ["North", "East", "South"]
    assert text(two).shape != north.shape  # how many values is the shape's
    other_org = QueryIn.model_validate({"org": "x", "namespace": "y", **plan("North")})
    assert plan_text(other_org) == north  # who asks is in the cache's keys, not in the plan's text


def test_a_question_answered_is_what_the_next_answer_says_not_the_kept_one(engine):
    ns = engine.namespace("acme", "finance")
    assert ns.ingest_file(CSV / "dates_ambiguous.csv", source_uri="d").state == "ready"
    body = {"datasets": [{"source_uri": "d"}], "aggregates": [{"fn": "max", "column": "when"}]}
    before = ns.query(body)
    assert not before.complete and before.receipt.datasets[0].open_questions == ["when: date_order"]
    snapshot = before.receipt.datasets[0].snapshot_id
    request = {"org": "acme", "namespace": "finance", "source_uri": "d", "snapshot_id": snapshot}
    engine.call("knowledge.dataset_approve", {**request, "columns": {}, "formats": {"when": "MDY"}})
    after = ns.query(body)
    assert after.complete and after.receipt.datasets[0].open_questions == []
    assert after.receipt.datasets[0].snapshot_id != snapshot


@pytest.mark.parametrize("first_limited", [True, False])
def test_a_nested_plan_with_a_limit_and_one_without_are_two_shapes(homes, tmp_path, first_limited):
    """A nested plan's `limit` given and left out read differently (given, it cuts the rows; left
    out, every row), even given at its default (100): keyed alike, whichever came first answered
    both (a count of 100 for the plan with no limit, over 150 rows)."""
    kept, none = homes
    rows = "".join(f"West,{k}.00,2024-04-01\n" for k in range(146))
    for engine in (kept, none):
        _ingest(engine.namespace("acme", "sales"), tmp_path, SALES + rows)

    def counted(limit: bool) -> dict:
        inner = {"datasets": [{"source_uri": "sales.csv"}], "order_by": [{"column": "amount"}]}
        nested = {**inner, **({"limit": 100} if limit else {})}
        return {"datasets": [{"alias": "t", "plan": nested}], "aggregates": [{"fn": "count"}]}

    order = [True, False] if first_limited else [False, True]
    got = [answer(kept, counted(limited)).rows for limited in order]
    assert got == [answer(none, counted(limited)).rows for limited in order]
    assert got[order.index(True)] == [[100]] and got[order.index(False)] == [[150]]
    # Two questions, two plan hashes (SPEC §4: the same question hashes the same).
    hashes = {answer(kept, counted(limited)).receipt.plan_hash for limited in (True, False)}
    assert len(hashes) == 2


def test_a_backend_whose_tables_are_its_own_keeps_no_resolution_and_answers_alike(homes):
    """A backend that renames the plan's sources to tables of its own (its capability says so)
    keeps no resolution; a plan asked twice there answers as on the home's engine."""
    pytest.importorskip("chdb", reason="the ClickHouse backend needs chdb")
    from dataclasses import replace

    kept, _ = homes
    ctx = kept.context
    elsewhere = replace(ctx, settings=replace(ctx.settings, query_engine="clickhouse"))
    body = QueryIn.model_validate({**plan("North"), "org": "acme", "namespace": "sales"})
    on_home = [query(ctx, body).rows for _ in range(2)]
    kinds = cache_for(ctx)._kinds
    resolved_before = len(kinds["resolved"])
    on_clickhouse = [query(elsewhere, body).rows for _ in range(2)]
    assert len(kinds["resolved"]) == resolved_before == 1  # the home's engine's only
    assert on_clickhouse == on_home


def test_the_same_plan_asked_again_takes_its_statement_and_receipt_as_kept(homes):
    """The exact plan asked again (the catalog unchanged) is neither read for its values nor
    bound again: one entry per plan text; its answer is the first one's but for the times, its
    receipt's lists and models its own."""
    kept, none = homes
    first, again = answer(kept, plan("North")), answer(kept, plan("North"))
    answer(kept, plan("South"))
    kinds = cache_for(kept.context)._kinds
    assert len(kinds["exact"]) == 2 and len(kinds["resolved"]) == 1
    times = {"computed_at", "elapsed_ms"}
    assert again.receipt.model_dump(exclude=times) == first.receipt.model_dump(exclude=times)
    assert again.model_dump(exclude={"receipt"}) == first.model_dump(exclude={"receipt"})
    fresh = answer(none, plan("North"))
    assert statement(again.receipt) == statement(fresh.receipt) and again.rows == fresh.rows
    first.receipt.datasets[0].columns_read.append("changed")
    first.receipt.datasets[0].rows = -1
    first.receipt.params.clear()
    first.receipt.conditions.append("changed")
    first.columns[0].name = "changed"
    third = answer(kept, plan("North"))
    assert third.receipt.model_dump(exclude=times) == again.receipt.model_dump(exclude=times)
    assert third.columns[0].name == again.columns[0].name != "changed"


def test_a_new_revision_is_another_entry_for_the_same_plan(homes, tmp_path):
    kept, _ = homes
    ns = kept.namespace("acme", "sales")
    before = ns.query(plan("North"))
    _ingest(ns, tmp_path, SALES + "North,1.00,2024-04-01\n")
    after = ns.query(plan("North"))
    assert after.rows == [["East", "7.75", 1], ["North", "16.50", 3]] and before.rows != after.rows
    assert len(cache_for(kept.context)._kinds["exact"]) == 2
