"""A column's change by an approval reads the same in the approval's answer and in the source's
history (knowledge.get), field by field: the history is read back from what was stored."""

from conftest import CSV, ingest

from tabular.ops.change import Change


def test_the_history_says_each_change_as_the_approval_answered_it(ns, engine):
    _, dataset = ingest(ns, CSV / "mixed_values.csv", source_uri="m")
    source = {"org": "acme", "namespace": "finance", "source_uri": "m"}
    approval = {**source, "snapshot_id": dataset.snapshot_id, "columns": {"amount": "number"}}
    answered = engine.run("knowledge.dataset_approve", approval)
    assert answered.changes and answered.changes[0].column == "amount"
    (entry,) = engine.run("knowledge.get", source).history
    assert [Change.model_validate(c.model_dump()) for c in entry.changes] == [
        Change.model_validate(c.model_dump()) for c in answered.changes
    ]
    assert entry.changes[0].rows_rejected == answered.changes[0].rows_rejected > 0
    assert entry.changes[0].examples == answered.changes[0].examples != []


def test_a_change_stored_before_values_and_examples_were_kept_reads_with_none_of_them():
    stored = {"column": "amount", "before": {"type": "string", "format": ""}, "after": {"type": "number", "format": ""}}
    change = Change.model_validate({**stored, "rows_rejected": 2})
    assert (change.values, change.examples, change.after.type) == (0, [], "number")
