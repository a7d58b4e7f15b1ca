"""A statement compiled before, for a plan of the same shape (the same plan but for its filters'
values, over the same snapshots), bound to another plan's values instead of compiled again; or
None where the statement depends on what those values are."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .compile import FACTS, Check, Compiled
from .resolved import Resolved
from .values import Beyond


def slot_values(r: Resolved) -> dict[tuple, Any] | None:
    """Every filter value of the plan and of the plans nested in it, by slot (see compile's parameters);
    None where one lies beyond its column's values (the SQL then depends on it)."""
    out: dict[tuple, Any] = {}
    for within, plan in [("", r), *r.nested()]:
        for leaf in plan.filters():
            for k, v in enumerate(leaf.values):
                if isinstance(v, Beyond):
                    return None
                out[(within, leaf.path, k)] = v
    return out


def _rebound(params: dict, slots: dict[tuple, str], values: dict[tuple, Any]):
    if not set(slots) <= set(values):
        return None
    return {**params, **{name: values[slot] for slot, name in slots.items()}}


def rebind(compiled: Compiled, r: Resolved) -> Compiled | None:
    """`compiled` (a plan of the same shape: the same plan but for its filters' values, over
    the same snapshots) with `r`'s values bound instead; None when it cannot be (a value beyond
    its column's, or a filter value the compiled statement does not name)."""
    values = slot_values(r)
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

    def check(c: Check | None) -> Check | None:
        return c if c is None else replace(c, params=_rebound(c.params, c.slots, values))

    return replace(
        compiled,
        params=params,
        columns=r.outputs,
        check=check(compiled.check),
        nested_checks=tuple(check(c) for c in compiled.nested_checks),
    )
