"""What a proposer is shown of the datasets (synthesize/schemas.py): a dataset's reference, its
columns for a prompt, and the filters that leave its Total rows out."""

from __future__ import annotations

from synth_schemas import MEDALS, col, table

from tabular.synthesize.schemas import VALUES_SHOWN


def test_ref_is_the_plans_datasets_entry():
    assert MEDALS.ref() == {"source_uri": "t.csv", "dataset_id": "t", "alias": "t"}


def test_for_prompt_shows_the_values_of_a_column_of_few_values_only():
    few = col("Nation", values=("Peru", "Chile"))
    many = col("Club", values=tuple(f"c{k}" for k in range(VALUES_SHOWN + 1)))
    shown = table(few, many).for_prompt()
    nation, club = shown["columns"]
    assert nation["values"] == ["Peru", "Chile"] and "values" not in club
    assert shown["rows"] == 10 and shown["alias"] == "t"


def test_without_totals_keeps_empty_cells_and_drops_the_total_rows():
    totals = table(col("Nation"), col("Gold", "number"), totals=(("Nation", "Total"),))
    assert totals.without_totals(lambda name: f"t.{name}") == [
        {"any": [{"column": "t.Nation", "op": "is_null"}, {"column": "t.Nation", "op": "not_in", "values": ["Total"]}]}
    ]
    assert MEDALS.without_totals(lambda name: name) == []
