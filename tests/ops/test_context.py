"""tabular/ops/context.py: what an op runs with, one frozen value per call."""

import dataclasses

import pytest

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
