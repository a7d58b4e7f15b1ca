"""Dataset addresses: `source#dataset` names one dataset of a source wherever a source is named
(knowledge.query and query_export's datasets, knowledge.synthesize's, knowledge.dataset_get,
knowledge.get), so a workbook's table is named in one string (`report.xlsx#orders`) where a
command takes one. The one place a source's name is resolved to its live datasets, and the one
wording of "this source has several datasets: name one", which lists them.

A source_uri that is itself a live source is that source, `#` and all (a file may be named
`notes#2.csv`); else the text after its last `#` names a dataset of the source before it: by its
dataset_id, by its name (a sheet's, an Excel table's, a named range's), or by either without
regard to case when exactly one matches.
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.models import QueryPlanDataset
from planner.schema import DatasetInfo

from ..errors import ErrorItem, ValidationFailed, close_names
from ..store.catalog import live_datasets
from ..store.schemas import live_schemas
from .context import Context

MARK = "#"
# The datasets a "name one" error lists by name; the rest are counted.
LISTED = 20


@dataclass(frozen=True)
class Address:
    """A source_uri (and dataset_id) resolved: the source, the dataset it names ('' none; the
    dataset's id when it matched one, else as written), and the source's live datasets."""

    source_uri: str
    dataset_id: str
    ids: tuple[str, ...] = ()  # the source's live datasets, in the file's order; () when none is live
    addressed: bool = False  # the dataset was named after a '#'

    @property
    def live(self) -> bool:
        return bool(self.ids)

    @property
    def found(self) -> bool:
        """The source is live and the dataset it names (if any) is one of its datasets."""
        return self.live and (not self.dataset_id or self.dataset_id in self.ids)


def listed(ids: list[str] | tuple[str, ...]) -> str:
    """The datasets by name, at most LISTED, the rest counted."""
    shown = ", ".join(ids[:LISTED])
    return shown + (f" and {len(ids) - LISTED} more" if len(ids) > LISTED else "")


def name_one(source_uri: str, ids: list[str] | tuple[str, ...], path: str = "dataset_id") -> ValidationFailed:
    """The source has several datasets and none was named: 422 listing them, and how to name one."""
    ids = list(ids)
    return ValidationFailed(
        f"{source_uri!r} has {len(ids)} datasets: name one of {listed(ids)} "
        f"(as {source_uri}{MARK}{ids[0]}, or dataset_id)",
        [
            ErrorItem(
                path,
                f"the source has {len(ids)} datasets: {listed(ids)}",
                expected=" | ".join(ids),
                received="",
                did_you_mean=ids[:3],
            )
        ],
    )


def no_dataset(source_uri: str, named: str, ids: list[str] | tuple[str, ...], path: str) -> ValidationFailed:
    """The dataset named is none of the source's: 422 listing them, the close ones offered."""
    ids = list(ids)
    return ValidationFailed(
        f"{source_uri!r} has no dataset {named!r}; its datasets: {listed(ids)}",
        [
            ErrorItem(
                path,
                f"no dataset {named!r} in {source_uri!r}",
                expected=" | ".join(ids),
                received=named,
                did_you_mean=close_names(named, ids) or ids[:3],
            )
        ],
    )


def _match(named: str, rows: list) -> str:
    """The dataset_id `named` names among the source's datasets (rows: dataset_id, name): its id,
    else its name, else either without regard to case when one dataset alone matches; else
    `named` as it was written."""
    if any(r["dataset_id"] == named for r in rows):
        return named
    by_name = [r["dataset_id"] for r in rows if r["name"] == named]
    if len(by_name) == 1:
        return by_name[0]
    folded = named.casefold()
    loose = {r["dataset_id"] for r in rows if folded in (r["dataset_id"].casefold(), (r["name"] or "").casefold())}
    return loose.pop() if len(loose) == 1 else named


def resolve(ctx: Context, org: str, namespace: str, source_uri: str, dataset_id: str = "", path: str = "") -> Address:
    """`source_uri` (maybe `source#dataset`) and `dataset_id` as one address. A dataset named both
    ways, differently, is 422 at `{path}dataset_id`. An unknown source or dataset is answered, not
    raised: each op says it its own way (found: false, or 422)."""
    con = ctx.catalog.conn()
    rows = live_datasets(con, org, namespace, source_uri)
    if not rows and MARK in source_uri:
        head, _, tail = source_uri.rpartition(MARK)
        under = live_datasets(con, org, namespace, head) if head and tail else []
        if under:
            named = _match(tail, under)
            if dataset_id and _match(dataset_id, under) != named:
                raise ValidationFailed(
                    f"{source_uri!r} names dataset {tail!r} and dataset_id names {dataset_id!r}: name it once",
                    [
                        ErrorItem(
                            f"{path}dataset_id",
                            f"the source_uri's address names dataset {tail!r}",
                            expected=f"'' or {named!r}",
                            received=dataset_id,
                        )
                    ],
                )
            return Address(head, named, tuple(r["dataset_id"] for r in under), True)
    ids = tuple(r["dataset_id"] for r in rows)
    return Address(source_uri, _match(dataset_id, rows) if dataset_id and rows else dataset_id, ids)


def addressed(ctx: Context, body):
    """An op's input (org, namespace, source_uri, dataset_id) with its address resolved: the
    source apart, the dataset named by its id; unchanged where it names nothing there is, or
    has no mark (no catalog read then: the op reads the source itself)."""
    if MARK not in body.source_uri:
        return body
    found = resolve(ctx, body.org, body.namespace, body.source_uri, getattr(body, "dataset_id", ""))
    if not found.live:
        return body
    update = {"source_uri": found.source_uri}
    if "dataset_id" in type(body).model_fields:
        update["dataset_id"] = found.dataset_id
    return body.model_copy(update=update)


def schemas(ctx: Context, org: str, namespace: str, wanted, path: str) -> list[DatasetInfo]:
    """The live datasets a plan's dataset (`wanted`: source_uri, dataset_id) may read, as the
    planner sees them: the one its address names, or every one of its source ([] for no live
    source: the planner says so). A source of several datasets with none named, or an address
    naming none of them, is 422 at `path` listing them."""
    infos = live_schemas(ctx.catalog, org, namespace, wanted.source_uri)
    if not infos and MARK in wanted.source_uri:
        found = resolve(ctx, org, namespace, wanted.source_uri, wanted.dataset_id, f"{path}.")
        if found.live:
            if not found.found:
                raise no_dataset(found.source_uri, found.dataset_id, found.ids, f"{path}.source_uri")
            infos = live_schemas(ctx.catalog, org, namespace, found.source_uri)
            return [i for i in infos if i.dataset_id == found.dataset_id]
    if len(infos) > 1 and not wanted.dataset_id:
        raise name_one(wanted.source_uri, [i.dataset_id for i in infos], f"{path}.dataset_id")
    return infos


def found(ctx: Context, org: str, namespace: str, plan, within: str = "") -> list:
    """Per dataset of a plan, the live datasets it may read (schemas); for a plan as a dataset,
    the same of its plan, nested alike (knowledge.query's candidates for the planner)."""
    return [
        found(ctx, org, namespace, d.plan, f"{within}datasets[{k}].plan.")
        if isinstance(d, QueryPlanDataset)
        else schemas(ctx, org, namespace, d, f"{within}datasets[{k}]")
        for k, d in enumerate(plan.datasets)
    ]
