"""tabular/engine.py: connect, run any op by name (its input checked, org and namespace filled,
unknown keys named), stream a whole result, and close."""

import dataclasses

import pytest

import tabular
from tabular import ops
from tabular.engine import Engine, connect
from tabular.errors import NotFound, TooLarge, ValidationFailed


@pytest.fixture
def prices(engine, tmp_path):
    path = tmp_path / "prices.csv"
    path.write_text("item,amount\n" + "".join(f"i{k},{k}.50\n" for k in range(150)))
    assert engine.namespace("acme", "finance").ingest_file(path, source_uri="prices.csv").state == "ready"
    return engine


def test_an_unknown_op_is_not_found_with_the_closest_name(engine):
    with pytest.raises(NotFound) as err:
        engine.call("knowledge.qurey", {})
    [item] = err.value.errors
    assert (item.path, item.received, item.did_you_mean[0]) == ("op", "knowledge.qurey", "knowledge.query")


def test_a_misspelled_key_is_refused_at_the_key_with_the_field_it_meant(engine):
    with pytest.raises(ValidationFailed) as err:
        engine.call("knowledge.get", {"source_ur": "prices.csv"})
    assert [(e.path, e.did_you_mean) for e in err.value.errors] == [("source_ur", ["source_uri"])]


def test_a_key_no_op_reads_is_served_and_named(prices):
    got = prices.call(
        "knowledge.get", {"org": "acme", "namespace": "finance", "source_uri": "prices.csv", "colour": "red"}
    )
    assert got["found"] and got["ignored_args"] == ["colour"]


def test_org_and_namespace_default_to_the_installs(engine, tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("x\n1\n")
    ns = engine.namespace(engine.settings.default_org, engine.settings.default_namespace)
    assert ns.ingest_file(path, source_uri="a.csv").state == "ready"
    assert engine.call("knowledge.get", {"source_uri": "a.csv"})["found"]
    assert not engine.call("knowledge.get", {"namespace": "other", "source_uri": "a.csv"})["found"]


def test_run_answers_the_ops_typed_model(engine):
    out = engine.run("knowledge.formats")
    assert isinstance(out, ops.REGISTRY["knowledge.formats"].output)


def test_an_op_out_of_memory_is_too_large_and_the_engine_serves_on(engine, monkeypatch):
    def hungry(ctx, body):
        raise MemoryError

    op = ops.REGISTRY["knowledge.formats"]
    monkeypatch.setitem(ops.REGISTRY, "knowledge.formats", dataclasses.replace(op, fn=hungry))
    with pytest.raises(TooLarge) as err:
        engine.call("knowledge.formats", {})
    assert err.value.code == "TOO_LARGE" and "knowledge.formats" in err.value.message
    monkeypatch.undo()
    assert engine.call("knowledge.formats", {})["default_format"] == "csv"


def test_a_stream_reads_every_row_past_the_limit(prices):
    plan = {"org": "acme", "namespace": "finance", "datasets": [{"source_uri": "prices.csv"}], "limit": 10}
    table = prices.stream(plan).reader.read_all()
    assert table.num_rows == 150 and table.column_names == ["item", "amount"]
    assert table.column("item").to_pylist()[-1] == "i149"


def test_a_closed_engine_may_be_closed_again(tmp_path):
    engine = connect(str(tmp_path / "home"))
    assert isinstance(engine, Engine)
    engine.close()
    engine.close()


def test_a_memory_home_is_a_throwaway(tmp_path):
    with tabular.connect(":memory:") as engine:
        assert engine.call("knowledge.list", {})["rows"] == []


@pytest.mark.parametrize("given, env", [({"ingest_workers": 0}, {}), ({}, {"TABULAR_JOB_ATTEMPTS": "three"})])
def test_a_setting_the_engine_cannot_run_with_is_validation_failed_naming_it(tmp_path, monkeypatch, given, env):
    """It was a ValueError, which the CLI answered INTERNAL ('this is a bug')."""
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(tabular.errors.ValidationFailed) as caught:
        tabular.connect(str(tmp_path / "home"), **given)
    [item] = caught.value.errors
    assert item.path == f"settings.{next(iter(given), 'job_attempts')}"
    assert "TABULAR_" in item.message
