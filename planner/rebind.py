"""A statement compiled before, for a plan of the same shape (the same plan but for its filters'
values, over the same snapshots), bound to another plan's values instead of compiled again; or
None where the statement depends on what those values are."""

from __future__ import annotations

import functools
import re
from dataclasses import replace
from typing import Any

from pydantic import BaseModel

from .compile import FACTS, Check, Compiled, Slot
from .conditions import fitted, given_values, lone_backslash
from .models import QueryPlan
from .operators import FILTERS
from .resolved import Resolved
from .values import Beyond, Unreadable, read_value

_STEP = re.compile(r"([A-Za-z_]+)(?:\[(\d+)\])?")


def slot_values(r: Resolved) -> dict[Slot, Any] | None:
    """Every filter value of the plan and of the plans nested in it, by slot (see compile's parameters);
    None where one lies beyond its column's values (the SQL then depends on it)."""
    out: dict[Slot, Any] = {}
    for within, plan in [("", r), *r.nested()]:
        for leaf in plan.filters():
            for k, v in enumerate(leaf.values):
                if isinstance(v, Beyond):
                    return None
                out[(within, leaf.path, k)] = v
    return out


def _rebound(params: dict[str, Any], slots: dict[Slot, str], values: dict[Slot, Any]) -> dict[str, Any]:
    """`params` with each slot's parameter bound to its value in `values` (which holds every slot)."""
    return {**params, **{name: values[slot] for slot, name in slots.items()}}


@functools.lru_cache(maxsize=4096)
def _steps(path: str) -> tuple[tuple[str, int | None], ...]:
    """A path as the resolver writes it (where[1].any[0], compute[2].expr.case[0].when,
    datasets[1].plan) as (name, index or None) steps; LookupError if it is none."""
    steps = []
    for step in path.split(".") if path else ():
        match = _STEP.fullmatch(step)
        if match is None:
            raise LookupError(path)
        steps.append((match.group(1), None if match.group(2) is None else int(match.group(2))))
    return tuple(steps)


@functools.lru_cache(maxsize=1024)
def _field(model: type[BaseModel], name: str) -> str:
    """The field of a plan model a path names by its JSON name (alias) or its own."""
    fields = model.model_fields
    found = name if name in fields else next((k for k, f in fields.items() if f.alias == name), None)
    if found is None:
        raise LookupError(name)
    return found


def _at(node: Any, path: str) -> Any:
    """The part of a plan at a path as the resolver writes it."""
    for name, index in _steps(path):
        if not isinstance(node, BaseModel):
            raise LookupError(path)
        node = getattr(node, _field(type(node), name))
        if index is not None:
            node = node[index]
    return node


def read_slots(r: Resolved, plan: QueryPlan) -> dict[Slot, Any] | None:
    """The filter values of `plan`, a plan of `r`'s shape (the plan `r` was resolved from but for
    its filters' values, over the same schemas), read as resolving `plan` reads them, by slot
    (slot_values'): what `resolve(plan)` would hold, without resolving it again. None where one
    cannot be read so (the resolver then says why) or lies beyond its column's values."""
    out: dict[Slot, Any] = {}
    try:
        for within, nested in [("", r), *r.nested()]:
            part = _at(plan, within)
            for leaf in nested.filters():
                if leaf.other is not None or leaf.other_output is not None:
                    continue
                item = _at(part, leaf.path)
                if item.op != leaf.op:
                    return None
                given = given_values(item, FILTERS[leaf.op].arity)
                if len(given) != len(leaf.values) or any(lone_backslash(leaf.op, v) for v in given):
                    return None
                column = leaf.output if leaf.output is not None else leaf.ref.column if leaf.ref is not None else None
                if column is None:
                    return None
                read = fitted(leaf.op, [read_value(v, column.type) for v in given], column.type, column.physical)
                for k, v in enumerate(read):
                    if isinstance(v, Beyond):
                        return None
                    out[(within, leaf.path, k)] = v
    except (LookupError, IndexError, Unreadable):
        return None
    return out


def rebind(compiled: Compiled, r: Resolved, values: dict[Slot, Any] | None = None) -> Compiled | None:
    """`compiled` (a plan of the same shape: the same plan but for its filters' values, over
    the same snapshots) with `r`'s values bound instead (or `values`, by slot, read_slots'); None
    when it cannot be (a value beyond its column's, or a filter value the statement does not name)."""
    values = slot_values(r) if values is None else values
    if values is None:
        return None
    if any(FACTS[fact](values.get(slot)) != got for slot, (fact, got) in compiled.facts.items()):
        return None  # the statement was built from what this value is not (a pattern's backslash)
    named = set(compiled.slots)
    for c in (compiled.check, *compiled.nested_checks):
        if c is not None:
            named |= set(c.slots)
    if named != set(values):
        return None  # every value of the plan is one the statements bind, and no other
    params = _rebound(compiled.params, compiled.slots, values)

    def check(c: Check) -> Check:
        return replace(c, params=_rebound(c.params, c.slots, bound))

    bound = values
    return replace(
        compiled,
        params=params,
        columns=r.outputs,
        check=check(compiled.check) if compiled.check is not None else None,
        nested_checks=tuple(check(c) for c in compiled.nested_checks),
    )
