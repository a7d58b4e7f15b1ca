"""knowledge.synthesize (the calculation step): a task in words becomes one plan, checked as
knowledge.query checks it, run over every row and answered with a citation, or an abstention."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, field_validator

from planner.models import QueryDataset
from planner.receipt import QueryReceipt

from ..display import synthesize_html, synthesize_repr
from ..errors import PreconditionFailed, TooLarge, ValidationFailed
from ..models import DatasetGetIn, OpIn, OpOut
from ..synthesize import answer as say
from ..synthesize.proposal import Candidate
from ..synthesize.proposers import choose
from ..synthesize.schemas import DatasetSchema, Reads, gather
from ..synthesize.verify import refused
from ..validation import refused_keys, validation_items
from .context import Context
from .datasets import dataset_get
from .query import QueryIn, QueryOut, ResultColumn, query
from .synthesize_reading import Judged, SynthesizeConfidence, judged

CALCULATION = "knowledge.query#1"
AbstainReason = Literal["needs_clarification", "ambiguous", "invalid_plan", "low_confidence", "empty_answer"]


class SynthesizeIn(OpIn):
    task: str = Field(
        min_length=1, max_length=4000, description='The question, in words ("total amount by region in 2024").'
    )
    datasets: list[QueryDataset] = Field(
        min_length=1,
        max_length=4,
        description="The datasets the task is about (at most 4): a source_uri, or {source_uri, dataset_id}.",
    )
    window_chars: int = Field(
        default=24000, ge=200, le=1_000_000, description="The reader's window: the note is at most half of it."
    )
    max_answer_chars: int = Field(default=8000, ge=100, le=1_000_000, description="The answer's length at most.")

    @field_validator("datasets", mode="before")
    @classmethod
    def _uris(cls, value: Any) -> Any:
        """A bare string is a source_uri."""
        return [{"source_uri": v} if isinstance(v, str) else v for v in value] if isinstance(value, list) else value


class SynthesizeCalculation(BaseModel):
    id: str = Field(description="What the answer cites: knowledge.query#1.")
    task: str
    plan: dict[str, Any] = Field(description="The knowledge.query plan that ran.")
    reading: str = Field(
        default="", description="The plan said back in words, from the plan alone, for the user to check."
    )
    confidence: SynthesizeConfidence | None = Field(default=None, description="How likely the reading is to be right.")
    features: dict[str, float] = Field(default_factory=dict, exclude=True, repr=False)  # what the score was made of
    columns: list[ResultColumn]
    rows: list[list[Any]]
    answer_columns: list[str] = Field(
        description="The result columns that answer the task; the other columns are its evidence (a row's position, the two values of a difference)."
    )
    truncated: bool
    complete: bool
    incomplete: list[str]
    receipt: QueryReceipt
    note: str = Field(description="The result as a table for a reader, at most window_chars / 2 characters.")


class SynthesizeOut(OpOut):
    answer: str = Field(description="The result in words, citing [knowledge.query#1]; empty when abstaining.")
    citations: list[str] = Field(default_factory=list, description="The calculations the answer cites.")
    calculations: list[SynthesizeCalculation] = Field(default_factory=list)
    abstain: bool = False
    abstain_reason: AbstainReason | None = None
    clarification: str | None = Field(
        default=None, description="When abstaining: what to ask or approve, naming the dataset, question or candidates."
    )
    model: str = Field(description="Which proposer proposed the plan: builtin, or the chat model's name.")
    truncated: bool = Field(default=False, description="The answer or the note was cut to its limit.")
    unsupported_citations: list[str] = Field(
        default_factory=list, description="Citations of calculations not run, removed from the answer."
    )

    def _repr_html_(self) -> str:
        return synthesize_html(self)

    def __repr__(self) -> str:
        return synthesize_repr(self)


def synthesize(ctx: Context, body: SynthesizeIn) -> SynthesizeOut:
    """Answer a task in words over up to four datasets: one plan proposed, checked, run over every row, cited; each calculation's answer_columns say which result columns answer the task (the rest is evidence); or an abstention saying why."""
    reads = Reads(
        query=lambda **plan: query(ctx, QueryIn(org=body.org, namespace=body.namespace, **plan)),
        dataset_get=lambda source_uri, dataset_id: dataset_get(
            ctx, DatasetGetIn(org=body.org, namespace=body.namespace, source_uri=source_uri, dataset_id=dataset_id)
        ),
    )
    schemas = gather(reads, body.datasets)
    proposer = choose(ctx.settings)
    model = getattr(proposer, "model", "") or proposer.name

    def abstain(reason: AbstainReason, clarification: str) -> SynthesizeOut:
        return SynthesizeOut(answer="", abstain=True, abstain_reason=reason, clarification=clarification, model=model)

    proposal = proposer.propose(body.task, schemas)
    if proposal.abstain:
        return abstain(proposal.abstain, proposal.question or proposal.why)
    if not proposal.candidates:
        return abstain("invalid_plan", proposal.why or "no plan was proposed")
    checked: list[tuple[Candidate, QueryIn, QueryOut]] = []
    for candidate in proposal.candidates:
        got = _check(ctx, body, schemas, candidate.plan)
        if isinstance(got, list) and len(proposal.candidates) == 1:
            repaired = proposer.repair(body.task, schemas, proposal, candidate.plan, got)
            if repaired.abstain:
                return abstain(repaired.abstain, repaired.question or repaired.why)
            if repaired.candidates:
                candidate = repaired.candidates[0]
                got = _check(ctx, body, schemas, candidate.plan)
        if isinstance(got, list):
            listed = "; ".join(
                f"{p['path']}: {p['message']}"
                + (f" (did you mean {', '.join(p['did_you_mean'])}?)" if p.get("did_you_mean") else "")
                for p in got[:5]
            )
            return abstain("invalid_plan", f"the proposed plan does not fit the datasets: {listed}")
        checked.append((candidate, *got))
    asked = _open_questions(checked, schemas)
    if asked:
        return abstain("needs_clarification", asked)
    try:
        results = [query(ctx, body_.model_copy(update={"dry_run": False})) for _, body_, _ in checked]
    except ValidationFailed as err:  # checked, yet unanswerable: an exact result past 38 digits
        return abstain(
            "invalid_plan",
            f"the plan ran but has no exact answer: {err.errors[0].message if err.errors else err.message}",
        )
    if len({_fingerprint(r, run) for r, (_, run, _) in zip(results, checked)}) > 1:
        readings = "; ".join(", ".join(f"{w} = {c}" for w, c in cand.assumes) for cand, _, _ in checked)
        return abstain(
            "ambiguous", proposal.question or f"the task reads several ways with different answers: {readings}"
        )
    (candidate, body_, _), result = checked[0], results[0]
    tie = _tie_at_cut(ctx, body_, result)
    if tie:
        return abstain("ambiguous", tie)
    if proposal.one_row and len(result.rows) > 1:
        seen = ", ".join(say.cell(row[0]) for row in result.rows[:3])
        return abstain(
            "ambiguous",
            f"the task asks for one {proposal.one_row}, and {len(result.rows)}{'+' if result.truncated else ''} "
            f"different ones match ({seen}{', …' if len(result.rows) > 3 else ''}): say which",
        )
    if proposal.rows_are and result.rows == [[0]]:
        return abstain(
            "empty_answer",
            f"no row matched, and the rows were read as {proposal.rows_are}, which no column names: they may not be; "
            + say.describe(body_),
        )
    if proposal.rows_are and result.rows == [[1]]:
        # one row matched: it may hold several of them ("how many characters were played in D.C." over a row per role)
        return abstain(
            "ambiguous",
            f"one row matched, and the rows were read as {proposal.rows_are}, which no column names: "
            f"that row may hold several; " + say.describe(body_),
        )
    loose = (
        _held_in_part(ctx, body_)
        or _several_in_a_cell(ctx, body_)
        or _events_in_parts(ctx, body_, schemas)
        or _empty_below_a_bound(ctx, body_)
        or _empty_cells_counted(ctx, body_)
        or _added_over_rows_of_one_name(ctx, body_, body.task)
    )
    if loose:
        return abstain("ambiguous", loose)
    if not result.rows or all(v is None for row in result.rows for v in row):
        return abstain("empty_answer", "the plan ran over every row and no row matched, " + say.describe(body_))
    if all(row[0] is None for row in result.rows):  # "who was the first winning captain" where that cell is empty
        return abstain("empty_answer", f"the rows that match hold no {result.columns[0].name}, " + say.describe(body_))
    plan = _plan_of(body_)
    names = [c.name for c in result.columns]
    answer = say.answer_columns(plan, names, candidate.answer)
    why = refused(body.task, plan, names, result.rows, answer, schemas)
    if why:
        return abstain("invalid_plan", f"{why} ({say.describe(body_)})")
    sure = judged(body.task, proposal, candidate, plan, result, answer, schemas, ctx.settings.synthesize_max_wrong)
    return _answered(body, plan, answer, body_, result, model, sure)


def _check(
    ctx: Context, body: SynthesizeIn, schemas: list[DatasetSchema], plan: Any
) -> tuple[QueryIn, QueryOut] | list[dict[str, Any]]:
    """Validate a proposed plan exactly as knowledge.query does (a dry run), reading only the given
    datasets: the plan as knowledge.query takes it and its dry run, or the problems (as error dicts)."""
    if not isinstance(plan, dict):
        return [{"path": "", "message": "a plan is a JSON object", "received": type(plan).__name__}]
    given = {s.source_uri: s for s in schemas}
    pins = {d.source_uri: d.snapshot_id for d in body.datasets if d.snapshot_id}
    problems: list[dict[str, Any]] = []
    for path, d in _read_datasets(plan):
        uri = d.get("source_uri") if isinstance(d, dict) else None
        if uri not in given:
            problems.append(
                {
                    "path": f"{path}.source_uri",
                    "message": f"the task was given {', '.join(map(repr, given))}, not {uri!r}",
                    "received": uri,
                }
            )
        elif pins.get(uri) and isinstance(d, dict):
            d["snapshot_id"] = pins[uri]
    if problems:
        return problems
    try:
        misspelled = refused_keys(plan, QueryIn, "the plan")  # as knowledge.query refuses them
        if misspelled:
            return [e.to_dict() for e in misspelled]
        body_ = QueryIn.model_validate({**plan, "org": body.org, "namespace": body.namespace, "dry_run": True})
        return body_, query(ctx, body_)
    except ValidationError as err:
        return [e.to_dict() for e in validation_items(err.errors(), QueryIn)]
    except (ValidationFailed, PreconditionFailed, TooLarge) as err:
        return [e.to_dict() for e in err.errors] or [{"path": "", "message": err.message}]


def _read_datasets(plan: dict, within: str = "", depth: int = 0):
    """(path, entry) for each dataset a proposed plan reads, in the plans nested in it too (as
    deep as knowledge.query would look before refusing the nesting)."""
    datasets = plan.get("datasets")
    for i, d in enumerate(datasets if isinstance(datasets, list) else []):
        path = f"{within}datasets[{i}]"
        nested = d.get("plan") if isinstance(d, dict) else None
        if isinstance(nested, dict) and depth < 8:
            yield from _read_datasets(nested, f"{path}.plan.", depth + 1)
        elif nested is None:
            yield path, d


def _open_questions(checked, schemas: list[DatasetSchema]) -> str:
    """The open questions on columns a plan reads, naming the dataset to approve."""
    by_uri = {(s.source_uri, s.dataset_id): s for s in schemas}
    said = []
    for _, _, dry in checked:
        for d in dry.receipt.datasets:
            schema = by_uri.get((d.source_uri, d.dataset_id))
            for name in d.columns_read:
                column = next((c for c in schema.columns if c.name == name), None) if schema else None
                for q in column.questions if column else ():
                    text = (
                        f"dataset {d.dataset_id!r} of {d.source_uri!r} (snapshot {d.snapshot_id}) has an open question on column {name!r}: {q}"
                        " Answer it with knowledge.dataset_approve, then ask again."
                    )
                    if text not in said:
                        said.append(text)
    return " ".join(said)


def _tie_at_cut(ctx: Context, run: QueryIn, result: QueryOut) -> str:
    """A ranking cut by its limit between two rows that tie on the ranking has no single answer."""
    if not (run.order_by and result.truncated and result.rows) or run.limit >= ctx.settings.result_limit_max:
        return ""
    more = query(ctx, run.model_copy(update={"dry_run": False, "limit": run.limit + 1}))
    names = [c.name for c in more.columns]
    ranked = [names.index(o.column) for o in run.order_by[:1]]
    if len(more.rows) <= run.limit:  # a publish between the two runs took rows away: no cut to judge
        return ""
    last, next_ = more.rows[run.limit - 1], more.rows[run.limit]
    if all(last[k] == next_[k] for k in ranked):
        column = run.order_by[0].column
        return f"rows {run.limit} and {run.limit + 1} tie on {column} ({last[ranked[0]]}), so the first {run.limit} are not one answer: ask for {run.limit + 1}, or rank by something else as well"
    return ""


def _held_in_part(ctx: Context, run: QueryIn) -> str:
    """A text value the plan matches whole that other cells of its column hold as a part ("Warren
    Beatty" beside "Warren Beatty and Robert Towne"): those rows may mean the same, so the count or
    total of the whole matches is not the answer for sure. Says which values were seen."""
    for f in _equalities(run.where):
        for value in [f.value] if f.op == "eq" else f.values or []:
            if not isinstance(value, str) or not value.strip():
                continue
            probe = QueryIn.model_validate(
                {
                    "org": run.org,
                    "namespace": run.namespace,
                    "datasets": [d.model_dump(by_alias=True) for d in run.datasets],
                    "joins": [j.model_dump(by_alias=True) for j in run.joins],
                    "where": [
                        {"column": f.column, "op": "contains", "value": value, "ignore_case": True},
                        {"column": f.column, "op": "ne", "value": value, "ignore_case": True},
                    ],
                    "group_by": [{"column": f.column}],
                    "aggregates": [{"fn": "count"}],
                    "limit": 4,
                }
            )
            try:
                seen = query(ctx, probe).rows
            except (ValidationFailed, PreconditionFailed, TooLarge):
                continue
            if seen:
                examples = ", ".join(repr(r[0]) for r in seen[:3])
                return (
                    f"{value!r} is the whole of some cells of {f.column} and part of others ({examples}{', …' if len(seen) > 3 else ''}): "
                    "say whether those count too"
                )
    return ""


# Between the names a cell holds when it holds several ("A, B", "A & B", "A and B", "A / B").
_SEPARATORS = (", ", " & ", " and ", " / ", "; ")


def _several_in_a_cell(ctx: Context, run: QueryIn) -> str:
    """A count of the cells of a text column where a counted cell holds several of the column's own
    values ("Bo Ray & Cy Dunn" beside a cell "Bo Ray"): that cell is several of what is counted,
    so the count of cells is not the count of them for sure. A name that only has a comma or an
    "and" in it ("Miami, Ohio", "Shadows and Light") is one value. Says which cell."""
    if run.group_by or len(run.aggregates) != 1 or run.aggregates[0].fn not in ("count", "count_distinct"):
        return ""
    column = run.aggregates[0].column
    if not column:
        return ""
    base = {
        "org": run.org,
        "namespace": run.namespace,
        "datasets": [d.model_dump(by_alias=True) for d in run.datasets],
        "joins": [j.model_dump(by_alias=True) for j in run.joins],
    }
    where = [f.model_dump(by_alias=True, exclude_defaults=True) for f in run.where]
    joined = {"any": [{"column": column, "op": "contains", "value": sep} for sep in _SEPARATORS]}
    try:
        cells = query(
            ctx,
            QueryIn.model_validate({**base, "where": where + [joined], "select": [{"column": column}], "limit": 20}),
        ).rows
        parts = sorted({p.strip() for (cell,) in cells if isinstance(cell, str) for p in _split(cell) if p.strip()})[
            :1000
        ]
        if not parts:
            return ""
        held = query(
            ctx,
            QueryIn.model_validate(
                {
                    **base,
                    "where": [{"column": column, "op": "in", "values": parts, "ignore_case": True}],
                    "group_by": [{"column": column}],
                    "limit": 3,
                }
            ),
        ).rows
    except (ValidationFailed, PreconditionFailed, TooLarge):
        return ""
    if not held:
        return ""
    cell = next((c for (c,) in cells if isinstance(c, str) and str(held[0][0]).lower() in c.lower()), cells[0][0])
    return (
        f"the {column} cell {cell!r} holds several values, {held[0][0]!r} among them, which is a cell of its own: "
        "count the cells, or the names in them?"
    )


def _split(cell: str) -> list[str]:
    """A cell's parts between the separators of several names."""
    for sep in _SEPARATORS:
        cell = cell.replace(sep, "\x00")
    return cell.split("\x00")


def _events_in_parts(ctx: Context, run: QueryIn, schemas: list[DatasetSchema]) -> str:
    """A count of rows where rows of one day agree on most of their other columns (a goal per row:
    two goals of one match share its date, venue, opponent and result): the rows are parts of fewer
    events, so "how many were friendlies" is not surely the number of rows. Rows that only share a
    day (two records set on one date in different places) are no such parts. Says both numbers."""
    d = run.datasets[0] if len(run.datasets) == 1 else None
    if (
        run.group_by
        or run.joins
        or not isinstance(d, QueryDataset)  # a plan's result (or several datasets): not rows of one table
        or len(run.aggregates) != 1
        or run.aggregates[0].fn != "count"
    ):
        return ""
    schema = next((s for s in schemas if s.source_uri == d.source_uri and s.dataset_id in (d.dataset_id, None)), None)
    if schema is None:
        return ""
    dates = [c.name for c in schema.columns if c.type == "date"]
    if len(dates) != 1:
        return ""
    others = [c.name for c in schema.columns if c.name != dates[0]]
    # per other column: the different (day, value) pairs; a column constant within each day has as many as there are days
    pairs = [{"fn": "count_distinct", "column": f"pair{k}", "as": f"pairs{k}"} for k in range(len(others))]
    probe = QueryIn.model_validate(
        {
            "org": run.org,
            "namespace": run.namespace,
            "datasets": [d.model_dump(by_alias=True)],
            "compute": [
                {
                    "as": f"pair{k}",
                    "expr": {
                        "concat": [dates[0], {"value": "|"}, {"coalesce": [{"cast": [name, "string"]}, {"value": ""}]}]
                    },
                }
                for k, name in enumerate(others)
            ],
            "where": [f.model_dump(by_alias=True, exclude_defaults=True) for f in run.where],
            "aggregates": [
                {"fn": "count", "as": "rows"},
                {"fn": "count_distinct", "column": dates[0], "as": "days"},
                *pairs,
            ],
        }
    )
    try:
        rows, days, *per_column = query(ctx, probe).rows[0]
    except (ValidationFailed, PreconditionFailed, TooLarge):
        return ""
    if not days or int(rows) <= int(days) or 2 * sum(int(p) == int(days) for p in per_column) < len(others):
        return ""
    return (
        f"{rows} rows match, on {days} different days of {dates[0]}, and rows of one day agree on most other columns: "
        "they may be parts of one event (the goals of one match); count the rows or the days?"
    )


def _empty_below_a_bound(ctx: Context, run: QueryIn) -> str:
    """A count of rows under a bound ("at most 2600 points", "fewer than 3 wins", "no silver
    medals") where some of the other rows have no value in that column: an empty cell may be a
    0 or a value not known, and the count differs between them. Says how many are empty."""
    if run.group_by or len(run.aggregates) != 1 or run.aggregates[0].fn not in ("count", "count_distinct"):
        return ""
    for k, f in enumerate(run.where):
        below = f.op in ("lt", "le") or (f.op == "eq" and f.value == 0)
        if f.any is not None or f.all is not None or not below or isinstance(f.value, str | bool):
            continue
        rest = [g.model_dump(by_alias=True, exclude_defaults=True) for j, g in enumerate(run.where) if j != k]
        empty = _rows_passing(ctx, run, rest + [{"column": f.column, "op": "is_null"}])
        if empty:
            return (
                f"{empty} of the rows have no {f.column}: under a bound an empty cell may count as 0 or not, "
                "and the count differs; fill them, or count only the rows that have one"
            )
    return ""


def _empty_cells_counted(ctx: Context, run: QueryIn) -> str:
    """A count of a column's filled cells ("how many ranks", a Rank written once for a tie; "how
    many seasons", a Season written once for its rows) where some rows the plan keeps have none:
    the rows, or the cells filled? Says how many are empty."""
    if run.group_by or len(run.aggregates) != 1 or run.aggregates[0].fn != "count" or not run.aggregates[0].column:
        return ""
    column = run.aggregates[0].column
    # the rows the count reads: the plan's filters and the count's own (a chat model's {"fn": "count", "where": …})
    where = [f.model_dump(by_alias=True, exclude_defaults=True) for f in [*run.where, *run.aggregates[0].where]]
    empty = _rows_passing(ctx, run, where + [{"column": column, "op": "is_null"}])
    return (
        f"{empty} of the rows the plan reads have no {column}: count the rows, or only those with one?" if empty else ""
    )


# Words that say several rows' numbers are added ("the total points of X", "in all").
_ADDING_WORDS = {"total", "totals", "sum", "combined", "altogether", "all", "overall", "together", "cumulative"}


def _added_over_rows_of_one_name(ctx: Context, run: QueryIn, task: str) -> str:
    """A total of one column over the rows a name matches, where it matches several ("how many
    points did Ada score" beside two rows of Ada), and the task does not say to add them: the
    rows may be parts to add (seasons), or one of them the answer (a career row beside its
    seasons, the same name in two tables laid out as one). Says how many rows matched."""
    if run.group_by or len(run.aggregates) != 1 or run.aggregates[0].fn != "sum" or run.aggregates[0].where:
        return ""
    if set(re.findall(r"[a-z]+", task.lower())) & _ADDING_WORDS:
        return ""
    named = [f for f in _equalities(run.where) if f.op == "eq" and isinstance(f.value, str)]
    if not named:
        return ""
    matched = _rows_passing(ctx, run, [f.model_dump(by_alias=True, exclude_defaults=True) for f in run.where])
    if matched and matched > 1:
        said = " and ".join(f"{f.column} {f.value!r}" for f in named)
        return (
            f"{matched} rows have {said}, and the task does not say to add them: the total of their "
            f"{run.aggregates[0].column}, or one of them?"
        )
    return ""


def _rows_passing(ctx: Context, run: QueryIn, where: list[dict]) -> int | None:
    """How many rows of the plan's datasets (joined as it joins them) pass `where`; None when that
    count cannot be run (a filter on what the plan computes)."""
    try:
        probe = QueryIn.model_validate(
            {
                "org": run.org,
                "namespace": run.namespace,
                "datasets": [d.model_dump(by_alias=True) for d in run.datasets],
                "joins": [j.model_dump(by_alias=True) for j in run.joins],
                "where": where,
                "aggregates": [{"fn": "count"}],
            }
        )
        return int(query(ctx, probe).rows[0][0])
    except (ValidationError, ValidationFailed, PreconditionFailed, TooLarge):
        return None


def _equalities(filters) -> list:
    """The eq / in filters of a plan's where that every row must pass (not inside an any)."""
    out = []
    for f in filters:
        if f.all is not None:
            out += _equalities(f.all)
        elif f.any is None and f.op in ("eq", "in"):
            out.append(f)
    return out


def _fingerprint(result: QueryOut, run: QueryIn) -> str:
    """What two readings must agree on: the rows; for a ranking ("which team did the most laps",
    "top 3 products"), the groups it names in their order, which is its answer."""
    if run.order_by and run.group_by and run.limit <= 10:
        names = [c.name for c in result.columns]
        keys = [names.index(g.as_ or g.column) for g in run.group_by if (g.as_ or g.column) in names]
        if keys and len(keys) == len(run.group_by):
            return repr([[row[k] for k in keys] for row in result.rows])
    return repr(result.rows)


def _plan_of(run: QueryIn) -> dict[str, Any]:
    """The plan that ran, as the calculation shows it."""
    return run.model_dump(
        mode="json",
        by_alias=True,
        exclude_defaults=True,
        exclude={"org", "namespace", "dry_run", *(run.model_extra or {})},
    )


def _answered(
    body: SynthesizeIn, plan: dict, answer: list[str], run: QueryIn, result: QueryOut, model: str, sure: Judged
) -> SynthesizeOut:
    """The answer, its calculation carrying its reading and confidence; under the threshold, the
    calculation alone with the question that asks to confirm the reading (low_confidence)."""
    names = [c.name for c in result.columns]
    note, note_cut = say.note(names, result.rows, result.truncated, body.window_chars // 2, scope=say.describe(run))
    types = [c.type for c in result.columns]
    text = say.words(
        say.describe(run), names, result.rows, result.truncated, CALCULATION, result.incomplete, types, answer
    )
    text, unsupported = say.scrub(text, {CALCULATION})
    text, cut = say.clip(text, body.max_answer_chars)
    calculation = SynthesizeCalculation(
        id=CALCULATION,
        task=body.task,
        plan=plan,
        reading=sure.reading,
        confidence=sure.confidence,
        features=sure.features,
        columns=result.columns,
        rows=result.rows,
        answer_columns=answer,
        truncated=result.truncated,
        complete=result.complete,
        incomplete=result.incomplete,
        receipt=result.receipt,
        note=note,
    )
    if sure.question:
        return SynthesizeOut(
            answer="",
            calculations=[calculation],
            abstain=True,
            abstain_reason="low_confidence",
            clarification=sure.question,
            model=model,
            truncated=note_cut,
        )
    cited = list(dict.fromkeys(m.group(1) for m in say.CITATION.finditer(text)))
    return SynthesizeOut(
        answer=text,
        citations=cited,
        calculations=[calculation],
        model=model,
        truncated=cut or note_cut,
        unsupported_citations=unsupported,
    )
