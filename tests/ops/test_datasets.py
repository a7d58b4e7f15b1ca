"""tabular/ops/datasets.py: knowledge.dataset_get, the live datasets of a source with their
columns, rejected rows and a sample."""

import pytest

import tabular
from tabular.models import DatasetGetIn
from tabular.ops.datasets import dataset_get, live_revision


@pytest.fixture(scope="module")
def prices(tmp_path_factory):
    """One home for the module: the tests only read it."""
    folder = tmp_path_factory.mktemp("prices")
    path = folder / "prices.csv"
    path.write_text("id,amount,day\n1,2.50,2024-01-01\n2,3.25,2024-01-02,extra\n3,4.00,2024-01-03\n")
    with tabular.connect(str(folder / "home")) as engine:
        ns = engine.namespace("acme", "finance")
        assert ns.ingest_file(path, source_uri="prices.csv").state == "ready"
        yield ns


def get(ns, **fields):
    return dataset_get(ns.engine.context, DatasetGetIn(org=ns.org, namespace=ns.name, **fields))


def test_a_source_answers_its_typed_columns_and_counts(prices):
    out = get(prices, source_uri="prices.csv")
    assert (out.found, out.revision) == (True, 1)
    [dataset] = out.datasets
    assert dataset.dataset_id == "prices" and dataset.revision == 1
    assert [(c.name, c.type) for c in dataset.columns] == [
        ("id", "number"),
        ("amount", "number"),
        ("day", "date"),
    ]
    assert (dataset.rows, dataset.rows_rejected, dataset.complete) == (2, 1, False)


def test_a_rejected_row_is_shown_with_its_line(prices):
    [dataset] = get(prices, source_uri="prices.csv").datasets
    [rejected] = dataset.rejected
    assert rejected.line == 3 and rejected.reason


def test_a_sample_is_the_first_rows_in_file_order_as_json(prices):
    [dataset] = get(prices, source_uri="prices.csv", sample_rows=1).datasets
    assert dataset.sample == [{"id": 1, "amount": "2.50", "day": "2024-01-01"}]
    assert len(dataset.sample_row_ids) == 1
    [unsampled] = get(prices, source_uri="prices.csv").datasets
    assert unsampled.sample is None


def test_a_samples_values_are_the_ones_stored_whatever_their_size(ns, tmp_path):
    """A duration of 2,562,047,788 hours (DuckDB's longest) is typed and stored whole;
    the sample read it through Arrow's interval, whose nanoseconds wrapped: -PT0.000001S."""
    path = tmp_path / "long.csv"
    path.write_text("id,took,big\n1,2562047788:00:54.775807,7\n2,01:30:00,8\n")
    assert ns.ingest_file(path, source_uri="long.csv").state == "ready"
    [dataset] = get(ns, source_uri="long.csv", sample_rows=2).datasets
    assert [c.type for c in dataset.columns] == ["number", "duration", "number"]
    assert [row["took"] for row in dataset.sample] == ["P106751991DT4H54.775807S", "PT1H30M"]
    assert [row["big"] for row in dataset.sample] == [7, 8] and dataset.sample_row_ids == [1, 2]


def test_an_unknown_source_or_dataset_is_not_found(prices):
    assert get(prices, source_uri="other.csv").model_dump(include={"found", "revision", "datasets"}) == {
        "found": False,
        "revision": None,
        "datasets": [],
    }
    missing = get(prices, source_uri="prices.csv", dataset_id="nope")
    assert (missing.found, missing.revision) == (False, 1)


def test_another_namespace_does_not_see_the_source(prices):
    ctx = prices.engine.context
    assert live_revision(ctx, "acme", "finance", "prices.csv") == 1
    assert live_revision(ctx, "acme", "sales", "prices.csv") is None
    other = prices.engine.namespace("acme", "sales")
    assert get(other, source_uri="prices.csv").found is False
