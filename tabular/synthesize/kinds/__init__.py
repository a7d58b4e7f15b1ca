"""The built-in proposer's reading kinds, one module each: what a task asks (a share, a comparison
with a named row, a yes or no, a count, a row by its place, a difference, a ranking, a total,
average, least or most, a lookup) with everything the built-in proposer knows of it. Each module
holds, for its kind:

- `RULES`: its grammar, the reading's rules by pass ("products", "shapes", "narrowing",
  "calculations"); reading.py runs each pass's rules in the order of KINDS, with the rules every
  kind shares (dates, values named, comparisons with a number, groups, the columns left);
- `STEPS`: its rules over the whole task, run in the order of KINDS once the passes are done;
- `propose(reading, schemas)`: its plans, when the kind builds them alone and the task is of it
  (the first kind of KINDS to answer builds them); None for the kinds the one calculation builds
  (calculation.py, measures.py, plans.py), which call the kind's own parts;
- `made(plan)`: the features hook, the kind of plan (features.KINDS) a plan is, from the plan
  alone, whichever proposer wrote it; tried in the order of TOLD_APART.

Their golden cases (tune questions each kind answers right) are tests/synthesize/golden/<kind>.json.
"""

from __future__ import annotations

from ..proposal import Proposal
from ..schemas import DatasetSchema
from ..spans import TaskReading
from . import aggregate, count, difference, lookup, ranking, row_order, same_as, share, yes_no

# The order a task is read and built in: each pass's rules and the steps in this order, and the
# first kind whose `propose` answers builds the plans (else the one calculation does).
KINDS = (share, same_as, yes_no, count, row_order, difference, ranking, aggregate, lookup)
# The order a plan's kind is told apart in: the first kind whose `made` claims it.
TOLD_APART = (yes_no, difference, share, same_as, row_order, ranking, count, aggregate, lookup)


def rules(stage: str) -> tuple:
    """Every kind's rules of one pass of the reading, in the order of KINDS."""
    return tuple(rule for kind in KINDS for rule in kind.RULES.get(stage, ()))


def steps() -> tuple:
    """Every kind's rules over the whole task, in the order of KINDS."""
    return tuple(step for kind in KINDS for step in kind.STEPS)


def propose(r: TaskReading, schemas: list[DatasetSchema]) -> Proposal | None:
    """The plans of the first kind that builds them alone, or None (the one calculation's)."""
    for kind in KINDS:
        proposal = kind.propose(r, schemas)
        if proposal is not None:
            return proposal
    return None


def plan_kind(plan: dict) -> str:
    """What kind of reading a plan is, from the plan alone (one of features.KINDS)."""
    return next(said for kind in TOLD_APART if (said := kind.made(plan)) is not None)
