"""What the built-in proposer settles a task into (synthesize/choices.py): the options a word may
be read as, and one option taken of each choice."""

from __future__ import annotations

from synth_schemas import SALES

from tabular.synthesize.choices import Choice, Compare, Match, Picked, Product, Way

DATE, REGION, AMOUNT, UNITS, PRICE = SALES.columns


def test_picked_sorts_the_options_taken_by_what_each_choice_decides():
    choices = [
        Choice("north", [Match(REGION, "North", False)], "value"),
        Choice("amount", [AMOUNT], "measure"),
        Choice("when", [DATE], "date"),
        Choice("region", [REGION], "group"),
        Choice("5", [Compare(UNITS, "gt", 5)], "compare"),
    ]
    picked = Picked.of(choices, tuple(ch.options[0] for ch in choices))
    assert picked.date is DATE and picked.measure is AMOUNT and picked.groups == [REGION]
    assert picked.values == [Match(REGION, "North", False)] and picked.compares == [Compare(UNITS, "gt", 5)]


def test_picked_with_no_measure_or_date_taken():
    picked = Picked.of([], ())
    assert picked.date is None and picked.measure is None and picked.groups == picked.values == []


def test_a_product_and_a_way_are_named_as_columns_are():
    product = Product(UNITS, PRICE)
    assert (product.alias, product.name) == ("sales", "units_times_price")
    way = Way(AMOUNT, "max")
    assert (way.alias, way.name) == ("sales", "amount")
