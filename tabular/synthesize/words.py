"""A plan said back in words, from the plan alone (never from the task): what an answer's reader
checks against what they meant. "count the rows of races.csv where Winner is C. Lorenzo, any
case"; "the total of amount in sales.csv where sold_on is from 2024-01-01 to 2024-12-31, by
region, ordered highest first". Every clause of the plan language (planner/models.py) has its
words: datasets and joins, computed columns, filters (ranges, `in` lists, text tests, columns
compared with columns, empties kept or left out, case ignored), groups and buckets, aggregates
and their own filters, measures and windows, having, order, limit and offset. A part this module
has no words for raises Unsayable: a reading never leaves a clause out."""

from __future__ import annotations

import re
from typing import Any

from planner.operators import AGGREGATES, FILTERS, WINDOWS

from .phrases import Unsayable, bare, conditions, expression, joined, known, value


def reading_of(plan: dict, names: dict | None = None) -> str:
    """The plan in words. `names`: what to call a dataset, by its alias or source_uri
    ({"races.csv": "Races"}); by default its source_uri as written."""
    return _Reading(names or {}).plan(plan)


# --- the plan ----------------------------------------------------------------------------------

PLAN_KEYS = {
    "datasets",
    "where",
    "joins",
    "compute",
    "group_by",
    "aggregates",
    "measures",
    "having",
    "select",
    "order_by",
    "limit",
    "offset",
    "dry_run",
    "whole_order",
}
# The words of each aggregate and window come from the operator table (planner/operators.py), where
# each is defined once; a quantile says its q in its own branch below.
_AGGREGATE_WORDS = {fn: a.words for fn, a in AGGREGATES.items() if fn != "quantile"}
_WINDOW_OF = {fn: w.words for fn, w in WINDOWS.items() if w.reads}


class _Reading:
    def __init__(self, names: dict) -> None:
        self.names = names

    # datasets ---------------------------------------------------------------------------------

    def dataset(self, d: Any) -> str:
        if isinstance(d, dict) and "plan" in d:
            d = known(d, {"plan", "alias"}, "a plan's dataset")
            return f"{d.get('alias')} ({self.plan(d['plan'], nested=True)})"
        d = known(d, {"source_uri", "dataset_id", "alias", "snapshot_id"}, "a dataset")
        uri, dataset_id, alias = d.get("source_uri", ""), d.get("dataset_id") or "", d.get("alias") or ""
        stem = re.sub(r"\.[^./]*$", "", uri.rsplit("/", 1)[-1])
        said = next((self.names[k] for k in (alias, dataset_id, uri) if k and k in self.names), uri)
        if dataset_id and dataset_id != stem and said == uri:
            said = f"{dataset_id} of {said}"
        if alias and alias not in (dataset_id or stem, stem):
            said += f" (as {alias})"
        if d.get("snapshot_id"):
            said += f" at snapshot {d['snapshot_id']}"
        return said

    def read(self, plan: dict) -> str:
        """The datasets and how they meet: "orders.csv joined with customers.csv on customer_id"."""
        datasets = plan.get("datasets") or []
        if not isinstance(datasets, list) or not datasets:
            raise Unsayable("a plan reads at least one dataset")
        by_alias: dict[object, int] = {}  # by the alias as the plan wrote it
        for k, d in enumerate(datasets):
            alias = (d.get("alias") or d.get("dataset_id") or "") if isinstance(d, dict) else ""
            by_alias.setdefault(alias, k)
        text = self.dataset(datasets[0])
        said: set[int | None] = {0}  # the datasets named (None: a join's alias no dataset has)
        for j in plan.get("joins") or []:
            j = known(j, {"alias", "on", "kind"}, "a join")
            at = by_alias.get(j.get("alias"))
            other = self.dataset(datasets[at]) if at is not None else str(j.get("alias"))
            said.add(at)
            on = [self.on(o) for o in j.get("on") or []]
            kind = j.get("kind", "inner")
            where = f" on {' and '.join(on)}" if on else ""
            if kind == "inner":
                text += f" joined with {other}{where}" if on else f", with {other} beside every row"
            elif kind == "left":
                text += f" joined with {other}{where}, keeping the rows with no match (its columns empty there)"
            elif kind == "semi":
                text += f" that have a match in {other}{where}"
            elif kind == "anti":
                text += f" that have no match in {other}{where}"
            else:
                raise Unsayable(f"a join: no words for the kind {kind!r}")
        for k, d in enumerate(datasets):  # a dataset no join brings in (a plan the query refuses)
            if k not in said:
                text += f" and {self.dataset(d)}"
        return text

    def on(self, o: Any) -> str:
        o = known(o, {"left", "right", "op"}, "a join condition")
        left, right, op = o.get("left", ""), o.get("right", ""), o.get("op", "eq")
        if op == "eq":
            return bare(left) if bare(left) == bare(right) else f"{left} matching {right}"
        relation = FILTERS[op].relation if op in FILTERS else ""
        if not relation:
            raise Unsayable(f"a join condition: no words for {op!r}")
        return f"{left} {relation} {right}"

    # result columns ---------------------------------------------------------------------------

    def aggregate(self, a: Any, named) -> str:
        a = known(a, {"fn", "column", "expr", "q", "where", "as"}, "an aggregate")
        fn, column, expr = a.get("fn"), a.get("column"), a.get("expr")
        what = expression(expr) if expr is not None else column
        if fn == "count" and what is None:
            text = "the number of rows" + (f" where {conditions(a['where'])}" if a.get("where") else "")
        elif fn == "quantile":
            text = f"the {value(a.get('q'))} quantile of {what}"
        elif fn in _AGGREGATE_WORDS:
            text = _AGGREGATE_WORDS[fn].format(what)
        else:
            raise Unsayable(f"an aggregate: no words for {fn!r}")
        if a.get("q") is not None and fn != "quantile":
            text += f" (q {value(a['q'])})"
        if a.get("where") and what is not None:
            text += f" for the rows where {conditions(a['where'])}"
        if a.get("as"):
            text += f" (as {a['as']})"
        return text

    def window(self, w: Any, named) -> str:
        w = known(w, {"fn", "of", "partition_by", "order_by"}, "a window")
        fn = w.get("fn")
        order = [known(o, {"column", "desc"}, "an order") for o in w.get("order_by") or []]
        by = ", then ".join(
            f"{named(o['column'])}{', highest first' if o.get('desc') else ', lowest first'}" for o in order
        )
        within = joined([named(p) for p in w.get("partition_by") or []])
        over = f"each {within}" if within else "all rows"
        if fn in ("rank", "dense_rank"):
            text = f"the rank by {by or 'nothing'} (ties share a rank{', with no gaps' if fn == 'dense_rank' else ''})"
            return text + (f", within each {within}" if within else "")
        if fn == "row_number":
            text = "the row's number " + (f"by {by}" if by else "in the order listed")
            return text + (f" within each {within}" if within else "")
        if fn in _WINDOW_OF:
            text = _WINDOW_OF[fn].format(named(w.get("of") or "rows"))
            if fn == "running_sum":
                return (
                    text
                    + (f" by {by}" if by else " in the order listed")
                    + (f" within each {within}" if within else "")
                )
            return f"{text} {over}" + (f" ordered by {by}" if by else "")
        raise Unsayable(f"a window: no words for {fn!r}")

    # the whole --------------------------------------------------------------------------------

    def plan(self, plan: Any, nested: bool = False) -> str:
        plan = known(plan, PLAN_KEYS, "a plan")
        groups = [known(g, {"column", "bucket", "as"}, "a group") for g in plan.get("group_by") or []]
        aggregates = plan.get("aggregates") or []
        selects = [known(s, {"column", "as"}, "a selected column") for s in plan.get("select") or []]
        measures = [known(m, {"as", "expr", "window"}, "a measure") for m in plan.get("measures") or []]
        # Result columns by name, as order, having and windows name them: a group by its words,
        # an aggregate named by default by its words, one named by `as` (and a measure) by name.
        phrases: dict[str, str] = {}
        for g in groups:
            said = f"the {g['bucket']} of {g['column']}" if g.get("bucket") else g.get("column", "")
            for n in (
                g.get("as"),
                g.get("column"),
                bare(g.get("column", "")) + (f"_{g['bucket']}" if g.get("bucket") else ""),
            ):
                if n and not (g.get("as") and n != g.get("as")):
                    phrases.setdefault(n, g["as"] if g.get("as") else said)
        for a in aggregates:
            a = known(a, {"fn", "column", "expr", "q", "where", "as"}, "an aggregate")
            if not a.get("as"):
                default = (
                    "count"
                    if a.get("fn") == "count" and not a.get("column") and a.get("expr") is None
                    else (f"{a.get('fn')}_{bare(a['column']) if a.get('column') else 'expr'}")
                )
                phrases.setdefault(default, self.aggregate({**a}, None))
        named = lambda n: phrases.get(n, n)  # the one way result columns are said

        head_words = [self.aggregate(a, named) for a in aggregates]
        source = self.read(plan)
        only_rows = aggregates == [{"fn": "count"}]
        grouped = joined([f"the {g['bucket']} of {g['column']}" if g.get("bucket") else g["column"] for g in groups])
        grouped += "".join(f" (as {g['as']})" for g in groups if g.get("as"))
        # Several aggregates, or one with its own filter, are said after what they read ("in
        # medals.csv where …: the total of Gold for the rows where …; and …"), else before it.
        listed_after = len(aggregates) > 2 or any("," in w or ";" in w for w in head_words)
        if aggregates:
            text = (
                f"count the rows of {source}"
                if only_rows
                else "in " + source
                if listed_after
                else f"{joined(head_words)} in {source}"
            )
        elif groups:
            text = f"each different {grouped} of {source}"
        elif selects:
            cols = joined([s["column"] + (f" (as {s['as']})" if s.get("as") else "") for s in selects])
            text = f"{cols} of each row of {source}"
        else:
            text = f"every column of each row of {source}"
        computed = [
            f"{known(c, {'as', 'expr'}, 'a computed column').get('as')}: {expression(c.get('expr'))}"
            for c in plan.get("compute") or []
        ]
        if computed:
            text += f", with {joined(computed)}"
        if plan.get("where"):
            after_a_clause = computed or plan.get("joins") or len(plan.get("datasets") or []) > 1
            text += f"{',' if after_a_clause else ''} where {conditions(plan['where'])}"
        if aggregates and groups:
            text += f", by {grouped}"
        if aggregates and listed_after and not only_rows:
            text += f": {joined(head_words)}"
        if aggregates and selects:  # a select beside aggregates (the query refuses it): said all the same
            text += f", selecting {joined([s['column'] for s in selects])}"
        said = []
        for m in measures:
            if m.get("window") is not None:
                said.append(f"{m.get('as')}: {self.window(m['window'], named)}")
            elif m.get("expr") is not None:
                said.append(f"{m.get('as')}: {expression(m['expr'], named)}")
            else:
                raise Unsayable(f"a measure is an expr or a window: {m!r}")
        if said:
            text += (";" if aggregates and listed_after else ",") + " then " + "; ".join(said)
        if plan.get("having"):
            text += f", keeping those where {conditions(plan['having'], named)}"
        text += self.order(plan, aggregates, named)
        if plan.get("whole_order") not in (None, "engine"):
            text += f", its whole result in the {plan['whole_order']} order"
        if plan.get("dry_run"):
            text += " (a dry run: checked, not run)"
        return text

    def order(self, plan: dict, aggregates: list, named) -> str:
        order = [known(o, {"column", "desc"}, "an order") for o in plan.get("order_by") or []]
        text = ""
        if order:
            parts = []
            for k, o in enumerate(order):
                way = "highest first" if o.get("desc") else "lowest first"
                alone = k == 0 and len(aggregates) == 1 and named(o["column"]) == self.aggregate(aggregates[0], named)
                if alone:  # the one aggregate: "ordered highest first"
                    parts.append(way)
                elif k == 0:
                    parts.append(f"by {named(o['column'])}, {way}")
                else:
                    parts.append(f"then by {named(o['column'])}" + (", highest first" if o.get("desc") else ""))
            text += ", ordered " + ", ".join(parts)
        limit, offset = plan.get("limit"), plan.get("offset") or 0
        if offset:
            text += f", after the first {offset}"
        if limit is not None or (order and not (aggregates and not plan.get("group_by"))):
            n = 100 if limit is None else limit
            if n == 0:
                text += ", no rows"
            elif order:
                text += ", the first row only" if n == 1 else f", the first {n}"
            else:
                text += f", at most {n} rows"
        return text
