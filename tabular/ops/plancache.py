"""What a plan's calls share on the query side, per home: a plan's shape (the same plan but for
its filters' values, asked in the same org and namespace) resolved against the catalog as it
stands (its generation: any commit, a new revision or an answered question, is another key),
the statement compiled for it over the same snapshots, bound anew to each call's values
(planner/rebind.py), a plan's canonical hash by its text, and the very plan (its exact text)
with its statement as bound and what its answers share (their receipt but for counts and times,
ops/answer.Kept). A new revision is a new snapshot and a new generation, so it never meets an
entry of the old one; another org or namespace never meets one either (both are in every key).

Bounded: `entries` (the compiled_cache_entries setting) per kind, the least recently used out
first; 0 keeps nothing. One lock: any thread of the home may ask at once."""

from __future__ import annotations

import json
import threading
import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from planner.compile import compile_plan
from planner.models import QueryPlan
from planner.rebind import read_slots, rebind, slot_values
from planner.receipt import plan_hash
from planner.resolved import PlanInvalid, Resolved

from ..backends.base import backend_for
from ..errors import TooLarge
from .context import Context
from .plancheck import check_pinned, limits, refused, resolve_plan


class PlanCache:
    """Least recently used entries of each kind, at most `entries` of each (0: none kept)."""

    def __init__(self, entries: int = 512):
        self.entries = entries
        self._lock = threading.Lock()
        self._kinds: dict[str, OrderedDict] = {
            "resolved": OrderedDict(),
            "compiled": OrderedDict(),
            "hash": OrderedDict(),
            "exact": OrderedDict(),  # a plan's exact text: its resolution, statement and what its answers share
        }

    def get(self, kind: str, key: Any) -> Any:
        with self._lock:
            entries = self._kinds[kind]
            value = entries.get(key)
            if value is not None:
                entries.move_to_end(key)
            return value

    def put(self, kind: str, key: Any, value: Any) -> None:
        if self.entries <= 0:
            return
        with self._lock:
            entries = self._kinds[kind]
            entries[key] = value
            entries.move_to_end(key)
            while len(entries) > self.entries:
                entries.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return sum(len(e) for e in self._kinds.values())

    def clear(self) -> None:
        with self._lock:
            for entries in self._kinds.values():
                entries.clear()


_CACHES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_CACHES_LOCK = threading.Lock()


def cache_for(ctx: Context) -> PlanCache:
    """The home's plan cache (one per open catalog, let go with it), sized by compiled_cache_entries."""
    cache = _CACHES.get(ctx.catalog)
    if cache is None:
        with _CACHES_LOCK:
            cache = _CACHES.get(ctx.catalog)
            if cache is None:
                cache = _CACHES[ctx.catalog] = PlanCache(ctx.settings.compiled_cache_entries)
    return cache


@dataclass(frozen=True)
class PlanText:
    """A plan as canonical JSON text (org, namespace and unknown keys left out), `exact`: two
    plans have one where their canonical JSON is one; `shape`, the same with every filter's
    values replaced by '?' (one per value), made when first asked for (a plan asked again is
    found by its exact text)."""

    exact: str
    plan: dict[str, Any] = field(compare=False, repr=False)  # the JSON `exact` writes

    @cached_property
    def shape(self) -> str:
        return _text(_shape(self.plan))


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _shape(value: dict | list) -> dict | list:
    """A plan's JSON with every filter's values replaced by '?' (one per value): its shape.
    Walks lists and objects only."""
    if isinstance(value, list):
        return [_shape(v) if isinstance(v, (dict, list)) else v for v in value]
    # A filter's values are parameters. What the SQL takes from a value besides binding it (a
    # like pattern's backslash) the compiled statement records itself: rebind declines it there.
    filter_ = "column" in value and "op" in value
    out: dict[str, Any] = {}
    for key, v in value.items():
        if filter_ and key in ("value", "values"):
            out[key] = ["?"] * len(v) if isinstance(v, list) else "?"
        elif isinstance(v, (dict, list)):
            out[key] = _shape(v)
        else:
            out[key] = v
    return out


def plan_text(body: QueryPlan) -> PlanText:
    skip = {"org", "namespace", *(body.model_extra or {})}
    plan = body.model_dump(mode="json", by_alias=True, exclude=skip, exclude_unset=True)
    return PlanText(_text(plan), plan)


def _snapshots(resolved: Resolved) -> tuple:
    """What the compiled statement reads, by the plan's place of each dataset: a new snapshot
    (a new revision, an approval) is another key."""
    return tuple(
        (within, s.index, s.info.dataset_id, s.info.snapshot_id, s.info.revision, s.info.table)
        for within, s, _ in resolved.read_sources()
    )


def hash_of(ctx: Context, body: Any, text: PlanText) -> str:
    """planner.receipt.plan_hash of the plan alone (not who asks, nor how its rows are sent),
    computed once per plan text."""
    key = (body.org, body.namespace, text.exact)  # a pure function of the plan, yet kept per tenant as all is
    cache = cache_for(ctx)
    found = cache.get("hash", key)
    if found is None:
        # The body itself: validated again as a QueryPlan it would build the plan language's whole
        # validator a second time, the larger part of a CLI query's first call.
        found = plan_hash(body)
        cache.put("hash", key, found)
    return found


def prepared(
    ctx: Context, body, target, text: PlanText, whole: bool = False
) -> tuple[Resolved, Any, float, dict[str, Any]]:
    """The plan resolved and compiled, with the time resolving ended (perf_counter), and what
    every call of this very plan (its exact text) over the catalog as it stands shares: a dict
    the caller keeps what it builds from the two in (the answer's receipt, ops/answer.Kept), its
    own when nothing is kept.

    The same plan asked again in this org and namespace, the catalog unchanged since, takes
    both as they were. A plan of a shape asked before takes that resolution and its statement
    with its own values read (rebind.read_slots: as resolving it reads them) and bound: neither
    is done again. The resolution it then answers is the shape's: its filters hold the values
    of the plan first resolved, and this plan's are the statement's parameters (nothing after
    compiling reads a filter's values). Else both are done, and kept."""
    cache = cache_for(ctx)
    generation = ctx.catalog.rows.generation
    settings = ctx.settings
    head = (body.org, body.namespace, target.name, limits(settings))
    exact = (*head, whole, settings.expression_nodes_max, settings.max_sql_bytes, text.exact, generation)
    found = cache.get("exact", exact)
    if found is not None:
        return found[0], found[1], time.perf_counter(), found[2]
    key = (*head, text.shape, generation)
    kept = cache.get("resolved", key)
    if kept is not None:
        values = read_slots(kept, body)
        if values is not None:
            check_pinned(kept)
            validated = time.perf_counter()
            statement = cache.get("compiled", _compiled_key(ctx, body, kept, target, text, whole))
            again = rebind(statement, kept, values) if statement is not None else None
            if again is not None:
                shared: dict[str, Any] = {}
                cache.put("exact", exact, (kept, again, shared))
                return kept, again, validated, shared
    resolved = resolve_plan(ctx, body, target)
    validated = time.perf_counter()
    out = compiled(ctx, body, resolved, target, text, whole)
    shared = {}
    # A backend that renames the sources after resolving (its own tables) keeps no resolution.
    if _backend(ctx, target).capabilities.reuses_resolutions and slot_values(resolved) is not None:
        cache.put("resolved", key, resolved)
        cache.put("exact", exact, (resolved, out, shared))
    return resolved, out, validated, shared


def _compiled_key(ctx: Context, body, resolved: Resolved, target, text: PlanText, whole: bool) -> tuple:
    shape = (target.name, whole, text.shape, _snapshots(resolved), ctx.settings.expression_nodes_max)
    return (body.org, body.namespace, *shape)


def compiled(ctx: Context, body, resolved: Resolved, target, text: PlanText, whole: bool = False):
    """The plan compiled, for an answer or a whole result alike: one that writes out too much
    as it compiles (planner/compile.py), or whose SQL is past `max_sql_bytes`, is 413. A plan
    of a shape compiled before (the same plan over the same snapshots but for its filters'
    values) takes that statement with its own values bound (rebind.rebind)."""
    settings = ctx.settings
    cache = cache_for(ctx)
    key = _compiled_key(ctx, body, resolved, target, text, whole)
    kept = cache.get("compiled", key)
    if kept is not None:
        again = rebind(kept, resolved)
        if again is not None:
            return again
    try:
        out = compile_plan(resolved, target, whole=whole, stable=body.whole_order == "stable")
    except PlanInvalid as invalid:
        raise refused(invalid) from None
    if len(out.sql) > settings.max_sql_bytes:
        raise TooLarge(
            f"the plan compiles to {len(out.sql)} bytes of SQL, over {settings.max_sql_bytes} (max_sql_bytes): fewer computed columns or filters"
        )
    out = _backend(ctx, target).finish(out)  # what the engine's result format needs added
    if slot_values(resolved) is not None:
        cache.put("compiled", key, out)
    return out


def _backend(ctx: Context, target):
    """The home's backend that runs what is compiled for `target`."""
    return backend_for(ctx.catalog, ctx.settings, target.name)
