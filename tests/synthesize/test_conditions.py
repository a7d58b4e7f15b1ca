"""The reading's rules for what the rows hold (synthesize/conditions.py): a value kept or
excluded, a column empty, a dataset with no match, the only one."""

from __future__ import annotations

from synth_schemas import col, reading, table


def test_a_value_kept_or_excluded():
    r, _ = reading("gold of Norway")
    assert [(s.text, negated) for s, negated in r.values] == [("norway", False)]
    r, left = reading("gold of nations other than Norway")
    assert left == [] and [(s.text, negated) for s, negated in r.values] == [("norway", True)]
    r, _ = reading("total gold not Norway")
    assert [negated for _, negated in r.values] == [True]


def test_from_a_value_is_an_origin():
    r, _ = reading("gold of the nation from Peru")
    assert [s.text for s in r.origins] == ["peru"]
    assert reading("gold of Peru")[0].origins == []


def test_a_column_asked_empty():
    r, left = reading("how many nations have no bronze")
    assert left == [] and [[c.name for c in s.targets] for s in r.empty] == [["Bronze"]]
    r, _ = reading("how many nations did not have a bronze at all")
    assert [s.text for s in r.empty] == ["bronze"]


def test_rows_with_no_match_in_another_dataset():
    customers = table(col("customer_id", "number", unique=True), col("name", unique=True), alias="customers")
    orders = table(col("order_id", "number", unique=True), col("customer_id", "number"), alias="orders")
    r, left = reading("customers without any orders", customers, orders)
    assert left == [] and [s.targets[0].alias for s in r.lacking] == ["orders"]


def test_the_only_one():
    assert reading("the only nation with 9 gold")[0].only
    assert not reading("the nation with 9 gold")[0].only
