"""The golden cases of the built-in proposer's reading kinds (<kind>.json in GOLDEN; how they are
cut, their source and license: tests/synthesize/golden/README.md): each a tune question the kind
answered right, its table's schema cut to the values the question's words can reach, and the
candidate plans the built-in proposer gave. They are cut on this machine from WikiTableQuestions,
never kept in the repository (its PROVENANCE.md: "never copy it into the project's repository"):
where none were cut, the golden tests are skipped, saying so. A module, not a conftest: the kinds'
tests import it by name."""

from __future__ import annotations

import datetime as dt
import json
import os
from decimal import Decimal
from pathlib import Path
from typing import Any

from tabular.synthesize.builtin import BuiltinProposer
from tabular.synthesize.schemas import ColumnSchema, DatasetSchema

# Where cut.py writes the cases: TABULAR_GOLDEN, else .golden/ at the project's root (ignored by git).
GOLDEN = Path(os.environ.get("TABULAR_GOLDEN") or Path(__file__).resolve().parents[2] / ".golden")
NOT_CUT = f"no golden cases at {GOLDEN}: cut them from a tune run (tests/synthesize/golden/README.md)"
# How a schema's min or max keeps its type in JSON: {"decimal": "1.5"}, {"date": "2001-02-03"} …
_TYPED = {
    "decimal": Decimal,
    "date": dt.date.fromisoformat,
    "datetime": dt.datetime.fromisoformat,
    "time": dt.time.fromisoformat,
    "seconds": lambda s: dt.timedelta(seconds=s),
}


def cases(kind: str) -> list[dict]:
    """The golden cases of one kind ([] where none were cut on this machine)."""
    path = GOLDEN / f"{kind}.json"
    return json.loads(path.read_text(encoding="utf-8"))["cases"] if path.is_file() else []


def case_id(case: dict) -> str:
    return case["id"]


def _value(value: Any) -> Any:
    if isinstance(value, dict):
        ((kind, text),) = value.items()
        return _TYPED[kind](text)
    return value


def schema(case: dict) -> DatasetSchema:
    """The case's table as the built-in proposer is shown it (a column's alias is its table's; no
    values or questions when it names none)."""
    s = case["schema"]
    columns = tuple(
        ColumnSchema(
            **{
                **c,
                "alias": s["alias"],
                "min": _value(c["min"]),
                "max": _value(c["max"]),
                "values": tuple(c.get("values", ())),
                "questions": tuple(c.get("questions", ())),
            }
        )
        for c in s["columns"]
    )
    return DatasetSchema(**{**s, "columns": columns, "totals": tuple(tuple(t) for t in s["totals"])})


def said(proposal) -> dict:
    """A proposal as a golden case holds it: its candidate plans and what it said beside them."""
    out = {
        "candidates": [
            {"plan": c.plan, "assumes": [list(a) for a in c.assumes], "answer": list(c.answer)}
            for c in proposal.candidates
        ],
        "question": proposal.question,
        "one_row": proposal.one_row,
        "rows_are": proposal.rows_are,
    }
    return json.loads(json.dumps(out, default=str))


def proposed(case: dict) -> dict:
    """What the built-in proposer gives for the case's question over its table, as JSON holds it."""
    return said(BuiltinProposer().propose(case["task"], [schema(case)]))


def expected(case: dict) -> dict:
    """What the built-in proposer gave when the case was written."""
    return {k: case[k] for k in ("candidates", "question", "one_row", "rows_are")}


def golden(kind: str) -> list:
    """The kind's cases as a test's parameters: one skipped parameter saying why where none were cut."""
    import pytest

    return cases(kind) or [pytest.param(None, marks=pytest.mark.skip(reason=NOT_CUT), id="not-cut")]
