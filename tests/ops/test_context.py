"""tabular/ops/context.py: what an op runs with, one frozen value per call."""

import dataclasses

import pytest
from conftest import CSV

import tabular
from tabular.ops.context import Context
from tabular.settings import Settings


def test_a_context_is_the_local_caller_unless_told():
    ctx = Context(catalog=None, settings=Settings(), jobs=None)
    assert ctx.caller == "local" and ctx.links is None


def test_a_context_cannot_be_changed_only_replaced():
    ctx = Context(catalog=None, settings=Settings(), jobs=None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ctx.caller = "alice"
    other = dataclasses.replace(ctx, caller="alice")
    assert (other.caller, ctx.caller) == ("alice", "local")


def test_an_engines_context_holds_its_catalog_settings_jobs_and_links(engine):
    ctx = engine.context
    assert ctx.catalog is engine.catalog and ctx.settings is engine.settings and ctx.jobs is engine.jobs
    assert ctx.links is not None and ctx.caller == "local"


def test_the_caller_an_engine_is_told_reaches_the_op(engine, monkeypatch):
    seen = []
    from tabular import ops

    op = ops.REGISTRY["knowledge.formats"]
    monkeypatch.setitem(
        ops.REGISTRY,
        "knowledge.formats",
        dataclasses.replace(op, fn=lambda ctx, body: seen.append(ctx.caller) or op.fn(ctx, body)),
    )
    engine.run("knowledge.formats", {}, caller="alice")
    engine.run("knowledge.formats", {})
    assert seen == ["alice", "local"]


@pytest.fixture(scope="module")
def named(tmp_path_factory):
    """acme/finance holds three sources, one of them deleted; acme/other one with a close name.
    One home for the module: the tests only ask for sources it does not hold, which changes nothing."""
    sales = CSV / "sales.csv"
    with tabular.connect(str(tmp_path_factory.mktemp("named") / "home")) as engine:
        ns = engine.namespace("acme", "finance")
        for uri in ("files/sales.csv", "files/Airdale Sales 2024.csv", "files/old_sales.csv"):
            assert ns.ingest_file(sales, source_uri=uri).state == "ready"
        ns.call("knowledge.delete", {"source_uri": "files/old_sales.csv"})
        engine.namespace("acme", "other").ingest_file(sales, source_uri="files/salez.csv")
        yield ns


@pytest.mark.parametrize(
    "op, body, meant",
    [
        ("knowledge.dataset_get", {"source_uri": "files/sale.csv"}, "files/sales.csv"),
        ("knowledge.dataset_get", {"source_uri": "sales.csv"}, "files/sales.csv"),  # the folder left out
        ("knowledge.dataset_get", {"source_uri": "files/airdale sales 2024.csv"}, "files/Airdale Sales 2024.csv"),
        ("knowledge.get", {"source_uri": "files/sales.cvs"}, "files/sales.csv"),
        ("knowledge.delete", {"source_uri": "files/Sales.csv"}, "files/sales.csv"),
        ("knowledge.restore", {"source_uri": "files/old_sale.csv"}, "files/old_sales.csv"),  # a deleted one
        ("knowledge.dataset_approve", {"source_uri": "file/sales.csv", "snapshot_id": "s_1"}, "files/sales.csv"),
    ],
    ids=["typo", "no-folder", "case", "get", "delete", "restore-deleted", "approve"],
)
def test_every_op_that_finds_no_source_names_the_closest_of_the_namespace(named, op, body, meant):
    got = named.call(op, body)
    assert got["found"] is False
    assert got["did_you_mean"][0] == meant
    # Never a name of another namespace, however close.
    assert "files/salez.csv" not in got["did_you_mean"]


def test_a_live_source_is_no_suggestion_to_restore_nor_a_deleted_one_to_read(named):
    assert "files/sales.csv" not in named.call("knowledge.restore", {"source_uri": "files/sales.csvv"})["did_you_mean"]
    assert (
        "files/old_sales.csv"
        not in named.call("knowledge.dataset_get", {"source_uri": "files/old_sales.cs"})["did_you_mean"]
    )


def test_a_name_close_to_nothing_suggests_nothing(named):
    assert named.call("knowledge.dataset_get", {"source_uri": "inventory/warehouse.xlsx"})["did_you_mean"] == []


def test_a_dataset_id_not_of_the_source_names_the_sources_datasets(named):
    got = named.dataset_get("files/sales.csv", "d_nothing")
    live = named.dataset_get("files/sales.csv")
    assert got.found is False and got.did_you_mean == [d.dataset_id for d in live.datasets]
