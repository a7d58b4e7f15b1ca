"""Cut the golden cases again from a tune run (README.md):

    .venv/bin/python bench/wtq.py --split tune --home HOME --json RUN.json
    .venv/bin/python tests/synthesize/golden/cut.py RUN.json HOME [FOLDER [FIRST_N]]

FOLDER is by default where the tests read them (TABULAR_GOLDEN, else .golden/ at the project's
root, which git ignores): the cases hold WikiTableQuestions' words and cells, which its
PROVENANCE.md forbids copying into the repository.

Each question the run answered right: its table's schema gathered from HOME as synthesize gathers
it, its values cut to those that share a word with the question, and the built-in proposer's
candidate plans; kept when the plans over the cut schema are those over the whole one and the
answered plan is among them. Written one file per kind, the kind read off the answered plan."""

from __future__ import annotations

import datetime as dt
import json
import sys
from dataclasses import asdict, replace
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from pydantic import BaseModel  # noqa: E402

import tabular  # noqa: E402
from planner.models import QueryDataset  # noqa: E402
from tabular.synthesize.builtin import BuiltinProposer  # noqa: E402
from tabular.synthesize.schemas import Reads, gather  # noqa: E402
from tabular.synthesize.spans import ALIASES  # noqa: E402
from tabular.synthesize.text_match import tokens as text_tokens  # noqa: E402
from tabular.synthesize.vocabulary import singular, words  # noqa: E402

sys.path.insert(0, str(ROOT / "tests" / "synthesize"))
from synth_golden import GOLDEN, said  # noqa: E402

KINDS = ("share", "same_as", "yes_no", "count", "row_order", "difference", "ranking", "aggregate", "lookup")
SOURCE = "WikiTableQuestions, training set, split tune (README.md)"


def cut(schema, task: str):
    """The schema with only the values that share a word with the task (or its singulars, or an
    alias the task says in full)."""
    tokens, _ = text_tokens(task)
    said = set(tokens) | {singular(t) for t in tokens}
    for short, longs in ALIASES.items():
        if any(set(words(long)) <= said for long in longs):
            said |= set(words(short))
    columns = tuple(
        replace(c, values=tuple(v for v in c.values if {*words(v), *(singular(w) for w in words(v))} & said))
        for c in schema.columns
    )
    return replace(schema, columns=columns)


def typed(value):
    """A schema's min or max as JSON, its type kept where JSON has none."""
    if isinstance(value, Decimal):
        return {"decimal": str(value)}
    if isinstance(value, dt.datetime):
        return {"datetime": value.isoformat()}
    if isinstance(value, dt.date):
        return {"date": value.isoformat()}
    if isinstance(value, dt.time):
        return {"time": value.isoformat()}
    if isinstance(value, dt.timedelta):
        return {"seconds": value.total_seconds()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"a min or max of type {type(value).__name__}")


def _loose(plan):
    """A plan without the parts that say a default ("desc": false), as the op's answer writes it."""
    if isinstance(plan, dict):
        return {k: _loose(v) for k, v in plan.items() if v is not False and v is not None}
    if isinstance(plan, list):
        return [_loose(v) for v in plan]
    return plan


def kind_of(plan: dict) -> str:
    """Which kind built a plan (tabular/synthesize/kinds/), from the plan alone."""
    made = {m.get("as") for m in plan.get("measures") or [] if isinstance(m, dict)}
    fns = {a.get("fn") for a in plan.get("aggregates") or [] if isinstance(a, dict)}
    if "answer" in made:
        return "yes_no"
    if "difference" in made:
        return "difference"
    if made & {"share", "percentage"}:
        return "share"
    if "anchor_value" in made or any(d.get("alias") == "compared" for d in plan["datasets"]):
        return "same_as"
    if made & {"position", "from_last", "anchor"} or (plan.get("order_by") and plan.get("select")):
        return "row_order"
    if plan.get("order_by") and plan.get("group_by"):
        return "ranking"
    if fns and fns <= {"count", "count_distinct"}:
        return "count"
    if fns & {"sum", "avg", "median", "min", "max"}:
        return "aggregate"
    return "lookup"


def case(o: dict, schemas: list) -> dict | None:
    """The golden case of one question answered right, or None when it cannot be cut."""
    whole = said(BuiltinProposer().propose(o["utterance"], schemas))
    small = [cut(s, o["utterance"]) for s in schemas]
    plans = [_loose(c["plan"]) for c in whole["candidates"]]
    if said(BuiltinProposer().propose(o["utterance"], small)) != whole or _loose(o["plan"]) not in plans:
        return None
    (schema,) = small
    columns = [
        {
            **{k: v for k, v in asdict(c).items() if k != "alias" and not (k in ("values", "questions") and not v)},
            "min": typed(c.min),
            "max": typed(c.max),
        }
        for c in schema.columns
    ]
    return {
        "id": o["id"],
        "table": o["context"],
        "task": o["utterance"],
        "target": o["targetValue"],
        "answered": plans.index(_loose(o["plan"])),
        "schema": {**asdict(schema), "columns": columns},
        **whole,
    }


def write(kind: str, cases: list[dict], folder: Path) -> None:
    """One kind's file: one case a line, so a change reads as the lines of its cases."""
    head = json.dumps({"kind": kind, "source": SOURCE}, ensure_ascii=False)[:-1]
    lines = ",\n".join(json.dumps(c, ensure_ascii=False) for c in cases)
    (folder / f"{kind}.json").write_text(head + ', "cases": [\n' + lines + ("\n" if cases else "") + "]}\n")


def main() -> None:
    run, home = Path(sys.argv[1]), sys.argv[2]
    folder = Path(sys.argv[3]) if len(sys.argv) > 3 else GOLDEN  # another folder: to compare with these
    folder.mkdir(parents=True, exist_ok=True)
    limit = int(sys.argv[4]) if len(sys.argv) > 4 else None
    right = [o for o in json.loads(run.read_text()) if o["outcome"] == "right"][:limit]
    by_kind: dict[str, list] = {kind: [] for kind in KINDS}
    dropped = []
    with tabular.connect(home, llm_base_url="") as engine:
        ns = engine.namespace("bench", "wtq")
        reads = Reads(query=lambda **plan: ns.query(_dumped(plan)), dataset_get=ns.dataset_get)
        for o in right:
            got = case(o, gather(reads, [QueryDataset(source_uri=o["context"])]))
            if got is None:
                dropped.append(o["id"])
            else:
                by_kind[kind_of(o["plan"])].append(got)
    for kind, cases in by_kind.items():
        write(kind, cases, folder)
    print(f"{len(right)} right: " + ", ".join(f"{k} {len(v)}" for k, v in by_kind.items()))
    print(f"{len(dropped)} not cut (other plans over the cut schema, or the answered plan not proposed): {dropped}")


def _dumped(plan: dict) -> dict:
    """A plan's pydantic parts (its datasets) as knowledge.query takes them."""
    return {
        k: [d.model_dump(by_alias=True, exclude_defaults=True) if isinstance(d, BaseModel) else d for d in v]
        if isinstance(v, list)
        else v
        for k, v in plan.items()
    }


if __name__ == "__main__":
    main()
