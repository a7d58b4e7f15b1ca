"""An ingest job: read the upload into extractions, type them, publish the revision whole."""

from __future__ import annotations

import datetime as dt
import shutil
import uuid
from dataclasses import dataclass, replace
from pathlib import Path

from . import infer, pause, records, retention, retype, sheets
from .candidates import format_of
from .cast import build_snapshot, column_names, parquet_relation, slug
from .catalog import Catalog, dumps
from .errors import IngestFailed
from .extract import Extraction, read_delimited
from .settings import Settings

DELIMITED = {".csv", ".tsv", ".tab", ".txt", ".prn", ".psv", ".dat", ".gz"}
REFUSED = {".xls": "old binary Excel (.xls) is not read: save it as .xlsx", ".doc": "Word documents are not tables", ".ppt": "PowerPoint files are not tables"}


@dataclass(frozen=True)
class Job:
    ingestion_id: str
    org: str
    namespace: str
    source_uri: str
    upload_path: Path
    filename: str
    upload_id: str
    options: dict
    expected_revision: int | None
    allow_partial: bool
    title: str
    description: str
    tags: list
    metadata: dict


def now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def file_format(filename: str, options: dict) -> str:
    forced = options.get("format")
    if forced:
        return forced
    suffixes = [s.lower() for s in Path(filename).suffixes]
    last = suffixes[-1] if suffixes else ""
    if last in REFUSED:
        raise IngestFailed("format_unavailable", REFUSED[last])
    if last == ".tsv" or suffixes[-2:] == [".tsv", ".gz"]:
        return "tsv"
    if last in (".xlsx", ".xlsm", ".ods", ".json", ".ndjson", ".parquet"):
        return last[1:]
    if last == ".jsonl":
        return "ndjson"
    if last in DELIMITED or not last:
        return "csv"
    raise IngestFailed("format_unavailable", f"files ending {last} are not read yet (read: csv, tsv and other delimited text)")


def run(catalog: Catalog, settings: Settings, job: Job, report) -> int:
    """Run the job to a published revision and return its number; raise IngestFailed otherwise."""
    fmt = file_format(job.filename, job.options)
    report(stage="parse", format=fmt)
    folder = catalog.extractions_dir / uuid.uuid4().hex
    folder.mkdir()
    try:
        options = dict(job.options)
        if fmt == "tsv" and not options.get("delimiter"):
            options["delimiter"] = "\t"
        name = Path(job.filename).name.split(".")[0] or "table"
        covered = None
        if fmt in ("xlsx", "xlsm", "ods"):
            if fmt == "ods":
                extractions, covered = sheets.read_calamine(job.upload_path, folder, fmt, options, settings)
            else:
                extractions, covered = sheets.read_workbook(job.upload_path, folder, fmt, options, settings)
            if covered["lost"] and not (job.allow_partial and extractions):
                raise IngestFailed(
                    "incomplete_extraction",
                    f"{covered['failed']} of {covered['total']} sheets could not be read ({'; '.join(covered['lost'])})"
                    + ("; allow_partial publishes the rest" if extractions else ""),
                )
            if not extractions:
                raise IngestFailed("no_text", "the workbook has no table on a visible sheet")
        elif fmt in ("json", "ndjson"):
            extractions = [records.read_json(job.upload_path, folder / "0.parquet", name, fmt, settings)]
        elif fmt == "parquet":
            extractions = [records.read_parquet(job.upload_path, folder / "0.parquet", name, settings)]
        else:
            extractions = [read_delimited(job.upload_path, folder / "0.parquet", name, options, settings, progress=lambda n: report(progress={"total": 0, "done": n}))]
        rows = sum(e.rows for e in extractions)
        pause.at("ingest.extracted")
        report(stage="type", progress={"total": rows, "done": rows})
        ids = dataset_ids(extractions)
        typed = [_carry(catalog, settings, job, dataset_id, _type(catalog, settings, extraction, options), options) for dataset_id, extraction in zip(ids, extractions)]
        report(stage="publish")
        rows = sum(e.rows for e in extractions)
        covered = covered or {"unit": "rows", "total": rows, "extracted": rows, "failed": 0, "lost": []}
        return _publish(catalog, settings, job, fmt, folder, list(zip(ids, typed)), options, covered)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


@dataclass
class _Typed:
    extraction: Extraction
    names: list[str]
    typings: dict[str, infer.Typing]


def _type(catalog: Catalog, settings: Settings, extraction: Extraction, options: dict) -> _Typed:
    cur = catalog.cursor()
    relation = parquet_relation(str(extraction.path))
    typings = infer.infer_columns(cur, relation, extraction.cell_columns, extraction.rows, settings, options, forced=extraction.forced)
    # What the file itself settled (a column of Excel text cells) is not a person's approval.
    typings = {c: replace(t, forced=False) if c in extraction.forced else t for c, t in typings.items()}
    return _Typed(extraction, column_names(extraction.headers), infer.settle_by_evidence(typings))


def dataset_ids(extractions: list[Extraction]) -> list[str]:
    """SPEC §1: a slug of each table's name, unique in the source (`_2` for a repeat)."""
    used: list[str] = []
    for ex in extractions:
        dataset_id = slug(ex.name)
        while dataset_id in used:
            dataset_id += "_2"
        used.append(dataset_id)
    return used


def _carry(catalog: Catalog, settings: Settings, job: Job, dataset_id: str, item: _Typed, options: dict) -> _Typed:
    """The live revision's person-set column types, carried where they still read (retype.carry)."""
    cur = catalog.cursor()
    before = retype.person_set(cur, job.org, job.namespace, job.source_uri, dataset_id)
    if before:
        markers = settings.nulls(options)
        item.typings = retype.carry(cur, parquet_relation(str(item.extraction.path)), item.names, item.typings, before, markers)
    return item


def _questions(typed: _Typed) -> list[dict]:
    out = []
    for cell, name in zip(typed.extraction.cell_columns, typed.names):
        t = typed.typings[cell]
        if t.question is None:
            continue
        out.append(
            {
                "id": f"{name}:{t.question.kind}",
                "column": name,
                "kind": t.question.kind,
                "question": t.question.text,
                "current": {"type": t.reading.type, "format": format_of(t.reading, t.physical)},
                "options": [
                    {"type": o.reading.type, "format": format_of(o.reading, o.physical), "rows_rejected": o.rows_rejected, "example": o.example}
                    for o in t.question.options
                ],
            }
        )
    ex = typed.extraction
    if not ex.header_clear:
        first = ex.headers[0] if ex.origin["header_rows"] else None
        out.insert(
            0,
            {
                "id": "header_row",
                "column": "",
                "kind": "header_row",
                "question": "Is the first row a header, or data?",
                "current": {"type": "string", "format": f"header_rows={ex.origin['header_rows']}"},
                "options": [
                    {"type": "string", "format": "header_rows=1", "rows_rejected": 0, "example": first},
                    {"type": "string", "format": "header_rows=0", "rows_rejected": 0, "example": None},
                ],
            },
        )
    return out


def _warnings(ex: Extraction) -> list[str]:
    out = []
    if ex.padded_rows:
        out.append(f"{ex.padded_rows} rows had too few cells and were padded with nulls")
    ragged = sum(1 for e in ex.excluded if e.reason.startswith("too many cells"))
    if ragged:
        out.append(f"{ragged} rows had too many cells and were rejected")
    totals = sum(1 for e in ex.excluded if e.reason == "total_row")
    if totals:
        out.append(f"{totals} total rows were left out so sums are not doubled")
    out += ex.notes
    if ex.blank_rows:
        out.append(f"{ex.blank_rows} blank rows were skipped")
    if ex.comment_lines:
        out.append(f"{ex.comment_lines} comment lines were skipped")
    return out


def _publish(catalog: Catalog, settings: Settings, job: Job, fmt: str, folder: Path, typed: list[tuple[str, _Typed]], options: dict, coverage: dict) -> int:
    """One transaction: snapshot tables, catalog rows, the source's live revision. All or nothing."""
    markers = settings.nulls(options)
    with catalog.change() as cur:
        key = [job.org, job.namespace, job.source_uri]
        source = cur.execute(
            "SELECT live_revision, last_revision FROM catalog.sources WHERE org = ? AND namespace = ? AND source_uri = ?", key
        ).fetchone()
        live = source[0] if source and source[0] is not None else 0
        if job.expected_revision is not None and job.expected_revision != live:
            raise IngestFailed("revision_conflict", f"expected revision {job.expected_revision} to be live, but {live or 'none'} is")
        revision = (source[1] if source else 0) + 1
        stamp = now()
        for index, (dataset_id, item) in enumerate(typed):
            ex = item.extraction
            snapshot_id = f"s_{uuid.uuid4().hex[:16]}"
            built = build_snapshot(cur, parquet_relation(str(ex.path)), snapshot_id, ex.cell_columns, item.names, item.typings, markers, ex.excluded)
            for column, header in zip(built.columns, ex.headers):
                column["header"] = header
            origin = dict(ex.origin)
            origin["decimal_mark"] = _common(item, "decimal_mark")
            origin["date_order"] = _common(item, "order")
            cur.execute(
                "INSERT INTO catalog.datasets VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [*key, revision, dataset_id, ex.name, index, str(ex.path), dumps(ex.headers), dumps(item.names), ex.rows,
                 dumps(origin), dumps(_warnings(ex)), dumps(options), snapshot_id],
            )
            cur.execute(
                "INSERT INTO catalog.snapshots VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, false, NULL, NULL, ?)",
                [snapshot_id, *key, revision, dataset_id, built.rows, built.rows_rejected, dumps(built.columns), dumps(_questions(item)), stamp],
            )
            cur.execute("INSERT INTO catalog.typings VALUES (?, ?)", [snapshot_id, retype.dump(item.typings)])
        cur.execute(
            "INSERT INTO catalog.revisions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [*key, revision, job.upload_id, job.filename, fmt, {"xlsx": "openpyxl", "xlsm": "openpyxl", "ods": "calamine", "parquet": "duckdb"}.get(fmt, "tabular." + fmt), dumps(coverage), dumps([]), folder.name, stamp, "partial" if coverage["lost"] else "ready"],
        )
        if source:
            cur.execute(
                "UPDATE catalog.sources SET live_revision = ?, last_revision = ?, title = ?, description = ?, tags = ?, metadata = ?, updated_at = ?"
                " WHERE org = ? AND namespace = ? AND source_uri = ?",
                [revision, revision, job.title, job.description, dumps(job.tags), dumps(job.metadata), stamp, *key],
            )
        else:
            cur.execute(
                "INSERT INTO catalog.sources VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [*key, revision, revision, job.title, job.description, dumps(job.tags), dumps(job.metadata), stamp, stamp],
            )
        retention.prune(cur, *key, settings.snapshots_kept)
        pause.at("ingest.commit")
    return revision


def _common(item: _Typed, attr: str) -> str | None:
    """The decimal mark (or date order) the table's typed columns share, if they share one."""
    values = set()
    for t in item.typings.values():
        if attr == "decimal_mark" and t.reading.type == "number" and (t.physical.startswith("DECIMAL") or t.reading.group_mark):
            values.add(t.reading.decimal_mark)
        if attr == "order" and t.reading.order:
            values.add(t.reading.order)
    return values.pop() if len(values) == 1 else None
