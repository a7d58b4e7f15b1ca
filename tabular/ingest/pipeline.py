"""An ingest job: read the upload into extractions, type them, publish the revision whole."""

from __future__ import annotations

import shutil
import sqlite3
import uuid
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import cast

import duckdb
import pyarrow as pa

from .. import pause
from ..errors import IngestFailed
from ..infer import columns as infer
from ..infer import retype, totals
from ..infer.questions import Typing, settle_by_evidence
from ..infer.tally import long_table, string_text
from ..models import Coverage, IngestIn, QuestionKind, QuestionOption, QuestionOut, TypeFormat
from ..read import formats
from ..read.extraction import Extraction, FastRead, Irregular, open_fast
from ..read.formats import file_format
from ..readings import STRING, format_of
from ..settings import Settings
from ..store import retention
from ..store.catalog import insert, insert_snapshot, now, snapshot_table, source_row, update
from ..store.home import Catalog
from ..store.snapshot import Built, build_snapshot, column_names, column_stats, parquet_relation, slug, write_rejected
from . import again, onepass


@dataclass(frozen=True)
class Job:
    """One stored ingest job: the request as its caller sent it, and where the upload's bytes are."""

    ingestion_id: str
    request: IngestIn
    upload_path: Path
    filename: str

    @property
    def org(self) -> str:
        return self.request.org

    @property
    def namespace(self) -> str:
        return self.request.namespace

    @property
    def source_uri(self) -> str:
        return self.request.source_uri

    @property
    def options(self) -> dict:
        """The options the caller set (what is unset is for the file to say)."""
        return self.request.options.model_dump(exclude_none=True)


class Cancelled(Exception):
    """The job was cancelled while it ran; nothing of it is published."""


def run(catalog: Catalog, settings: Settings, job: Job, report, cancelled: Callable[[], bool] = lambda: False) -> int:
    """Run the job to a published revision and return its number; raise IngestFailed otherwise,
    and again.Unchanged when the live revision holds the same bytes read the same way."""
    fmt = file_format(job.filename, job.options, job.upload_path)
    report(stage="parse", format=fmt)
    _check_revision(catalog.conn(), job)
    held = again.holding_revision(catalog, job, fmt, formats.with_defaults(fmt, job.options))
    if held is not None:
        again.describe(catalog, job)
        raise again.Unchanged(held)
    folder = catalog.extractions_dir / f"{uuid.uuid4().hex}.{catalog.owner}"  # the owner: see Catalog.sweep
    folder.mkdir()
    made: list[str] = []  # snapshot files written before the publish transaction
    try:
        options = formats.with_defaults(fmt, job.options)
        name = Path(job.filename).name.split(".")[0] or "table"
        delimited = formats.BY_NAME[fmt].delimited
        fast = open_fast(job.upload_path, name, options, settings) if delimited else None
        one = (
            _one_pass(catalog, settings, job, fast, folder / "0.parquet", options, report, cancelled, made)
            if fast
            else None
        )
        if one is not None:
            pause.at("ingest.extracted")
            report(stage="publish")
            rows = one.extraction.rows
            coverage = Coverage.of_rows(rows)
            return _publish(
                catalog, settings, job, fmt, folder, [(dataset_ids([one.extraction])[0], one)], options, coverage, made
            )
        report(converts=True)  # the readers ahead make Arrow of Python values: pandas's import warmed beside them
        if delimited:  # rows read are counted as they come; a workbook's sheets are not
            report(progress=_progress("read", "rows", 0, 0))
        extractions, covered = formats.read(
            job.upload_path,
            folder,
            name,
            fmt,
            options,
            settings,
            progress=lambda n: report(progress=_progress("read", "rows", 0, n)),
        )
        if covered is not None:  # a container of tables (a workbook's sheets)
            if covered["lost"] and not (job.request.allow_partial and extractions):
                raise IngestFailed(
                    "incomplete_extraction",
                    f"{covered['failed']} of {covered['total']} sheets could not be read ({'; '.join(covered['lost'])})"
                    + ("; allow_partial publishes the rest" if extractions else ""),
                )
            if not extractions:
                raise IngestFailed("no_text", "the workbook has no table on a visible sheet")
        rows = sum(e.rows for e in extractions)
        pause.at("ingest.extracted")
        report(stage="type", progress=_progress("type", "rows", rows, 0))
        ids = dataset_ids(extractions)
        typed = []
        for dataset_id, extraction in zip(ids, extractions):
            guessed = None if delimited else _guessed(catalog, settings, job, dataset_id, extraction, options, made)
            typed.append(
                guessed
                or again.carry_into(
                    catalog, settings, job, dataset_id, _type(catalog, settings, extraction, options), options
                )
            )
            report(progress=_progress("type", "rows", rows, sum(e.rows for e in extractions[: len(typed)])))
        report(stage="publish", progress=_progress("write", "rows", rows, 0))
        covered = covered or Coverage.of_rows(rows)
        revision = _publish(catalog, settings, job, fmt, folder, list(zip(ids, typed)), options, covered, made)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        _drop(catalog, made)
        raise
    # Published: nothing after this point may undo it (an interrupt or a failed progress update
    # once rolled back a committed revision's folder and tables).
    with suppress(Exception):
        report(progress=_progress("write", "rows", rows, rows))
    return revision


def _progress(phase: str, unit: str, total: int, done: int) -> dict:
    return {"phase": phase, "unit": unit, "total": total, "done": done, "completed": done}


def _drop(catalog: Catalog, made: list[str]) -> None:
    for snapshot_id in made:
        catalog.discard(snapshot_id)


@dataclass
class _Typed:
    extraction: Extraction
    names: list[str]
    typings: dict[str, Typing]
    rows: pa.Table | None = None  # every row in memory (a delimited file the fast reader read whole)
    built: tuple[str, Built] | None = None  # the snapshot the one pass already wrote

    def relation(self, cur) -> str:
        """A FROM clause of the extraction's rows for this cursor."""
        if self.rows is not None:
            return onepass.registered(cur, self.rows, f"__rows_{id(self.rows)}")
        return parquet_relation(str(self.extraction.path))


def _one_pass(
    catalog: Catalog,
    settings: Settings,
    job: Job,
    fast: FastRead,
    out: Path,
    options: dict,
    report,
    cancelled,
    made: list[str],
) -> _Typed | None:
    """The file typed and stored in one pass (onepass.py), or None when the careful way must
    take it (an irregular row, a typing the sample cannot settle, a person's types to carry)."""
    try:
        try:
            report(progress=_progress("read", "bytes", fast.size, 0))
            head = onepass.read_head(fast, onepass.sample_rows(fast.extraction.width, settings))
        except Irregular:
            return None
        extraction = fast.extraction
        extraction.path = out  # written only if a re-typing ever needs it (stored.py)
        names = column_names(extraction.headers)
        cells = extraction.cell_columns
        cur = catalog.cursor()
        report(stage="type")
        typings, tallies = onepass.sample_typings(
            cur, onepass.registered(cur, head.sample, "__sample"), cells, settings, options
        )
        cur.unregister("__sample")
        if head.whole:
            if not fast.regular:
                return None  # a stray quote or a NUL somewhere: the careful reader reads the file
            # The sample is every row: its typing is the careful one, built from the rows in memory.
            onepass.accounted(fast, head.table.num_rows)
            extraction.origin.one_pass = True
            return again.carry_into(
                catalog,
                settings,
                job,
                dataset_ids([extraction])[0],
                _Typed(extraction, names, typings, rows=head.table),
                options,
            )
        if again.person_set(catalog, job, dataset_ids([extraction])[0]):
            return None  # carrying a person's types checks them on every row: the careful way
        guarded = onepass.guards(cur, typings, tallies, settings, options)
        if guarded is None:
            return None
        tick = lambda: report(progress=_progress("read", "bytes", fast.size, _read(cur, fast)))

        def write(snapshot_id: str) -> int:
            rows = None
            if settings.parallel_csv and len(cells) <= settings.parallel_csv_max_columns:
                rows = onepass.write_parallel(cur, fast, snapshot_id, cells, names, guarded)
            if rows is None:
                if not fast.regular:
                    raise Irregular()
                rows = onepass.write(cur, head, fast.schema, snapshot_id, cells, names, guarded)
            onepass.accounted(fast, rows)
            return rows

        try:
            with onepass.Ticker(lambda: _tick(cur, tick, cancelled), settings.progress_seconds):
                built = _built(
                    catalog,
                    settings,
                    None,
                    cur,
                    extraction,
                    names,
                    typings,
                    made,
                    write,
                )
        except duckdb.InterruptException:
            raise Cancelled() from None
        if built is not None:
            report(progress=_progress("read", "bytes", fast.size, fast.size))
        return built
    finally:
        fast.close()


def _guessed(
    catalog: Catalog,
    settings: Settings,
    job: Job,
    dataset_id: str,
    extraction: Extraction,
    options: dict,
    made: list[str],
) -> _Typed | None:
    """A long stored extraction (a workbook's sheet, JSON, Parquet) typed on its sample and
    built in one guarded pass over its rows, as the one pass does for delimited text; None
    when the careful way must count every row first (see onepass.py)."""
    if extraction.rows <= infer.SAMPLE_HEAD + infer.SAMPLE_SPREAD:
        return None
    if again.person_set(catalog, job, dataset_id):
        return None
    cur = catalog.cursor()
    relation = parquet_relation(str(extraction.path))
    cells, names = extraction.cell_columns, column_names(extraction.headers)
    free = [c for c in cells if c not in extraction.forced]
    # Readings a typed source settled (a workbook column its reader read as dates): counted on
    # the sample with that one reading, guarded on every row as any other.
    known = {c: r for c, r in extraction.forced.items() if r.type != "string"}
    markers = settings.nulls(options)
    with long_table(cur, infer.sampled(relation, extraction.rows), free + list(known), markers) as sample:
        typings, tallies = infer.infer_from(cur, sample, sample, free + list(known), free, known, settings, options)
    typings = {c: replace(t, forced=False) if c in known else t for c, t in typings.items()}  # no person's approval
    typings = settle_by_evidence(typings)
    guarded = onepass.guards(cur, typings, tallies, settings, options)
    if guarded is None:
        return None
    for cell in (c for c, r in extraction.forced.items() if r.type == "string"):  # Excel text stays text
        typings[cell] = Typing(STRING, "VARCHAR")
        guarded.values[cell] = string_text(cell)
    # Typed on the careful way's own sample already (infer.sampled): its text columns need no second look.
    guarded.texts = set()
    return _built(
        catalog,
        settings,
        extraction.rows * len(cells),
        cur,
        extraction,
        names,
        {c: typings[c] for c in cells},
        made,
        lambda snapshot_id: onepass.create(cur, relation, snapshot_id, cells, names, guarded),
    )


def _built(
    catalog: Catalog,
    settings: Settings,
    cells_known: int | None,
    cur,
    extraction: Extraction,
    names: list[str],
    typings: dict,
    made: list[str],
    write: Callable[[str], int],
) -> _Typed | None:
    """The snapshot written in one guarded pass by `write` (onepass.py), with its statistics;
    None, with nothing left behind, when a guard or an irregular row stopped it."""
    snapshot_id = f"s_{uuid.uuid4().hex[:16]}"
    catalog.new_snapshot(snapshot_id, cells_known)
    made.append(snapshot_id)
    try:
        rows = write(snapshot_id)
    except (onepass.Misled, Irregular):
        made.remove(snapshot_id)
        catalog.discard(snapshot_id)
        return None
    cells = extraction.cell_columns
    typings = onepass.unclean(typings)
    table = snapshot_table(snapshot_id)
    stats = column_stats(cur, table, names, [typings[c] for c in cells], rows, settings.exact_distinct_values)
    extraction.origin.one_pass = True
    return _Typed(extraction, names, typings, built=(snapshot_id, Built(rows, len(extraction.excluded), stats)))


def _read(cur, fast: FastRead) -> int:
    """Bytes of the file the one pass has read: as far as Arrow's stream has handed out rows,
    or DuckDB's own reader's share of the statement it runs."""
    share = cur.query_progress()
    return max(fast.bytes_read, int(fast.size * share / 100) if share > 0 else 0)


def _tick(cur, report_progress, cancelled) -> None:
    """Report how far the one pass has read; interrupt it once the job is cancelled."""
    if cancelled():
        cur.interrupt()
        return
    report_progress()


def _type(catalog: Catalog, settings: Settings, extraction: Extraction, options: dict) -> _Typed:
    cur = catalog.cursor()
    relation = parquet_relation(str(extraction.path))
    typings = infer.infer_columns(
        cur, relation, extraction.cell_columns, extraction.rows, settings, options, forced=extraction.forced
    )
    # What the file itself settled (a column of Excel text cells) is not a person's approval.
    typings = {c: replace(t, forced=False) if c in extraction.forced else t for c, t in typings.items()}
    # A text column where whitespace was quoted (`" "`) keeps such cells as values, not blanks.
    typings = {
        c: replace(t, spaces=True) if c in extraction.quoted_blanks and t.reading.type == "string" else t
        for c, t in typings.items()
    }
    return _Typed(extraction, column_names(extraction.headers), settle_by_evidence(typings))


def dataset_ids(extractions: list[Extraction]) -> list[str]:
    """SPEC §1: a slug of each table's name, unique in the source (`_2` for a repeat)."""
    used: list[str] = []
    for ex in extractions:
        dataset_id = slug(ex.name)
        while dataset_id in used:
            dataset_id += "_2"
        used.append(dataset_id)
    return used


def _questions(typed: _Typed) -> list[QuestionOut]:
    out = []
    for cell, name in zip(typed.extraction.cell_columns, typed.names):
        t = typed.typings[cell]
        if t.question is None:
            continue
        out.append(
            QuestionOut(
                id=f"{name}:{t.question.kind}",
                column=name,
                kind=cast(QuestionKind, t.question.kind),  # a key of infer/kinds.KINDS: the API's names
                question=t.question.text,
                current=TypeFormat(type=t.reading.type, format=format_of(t.reading, t.physical)),
                options=[
                    QuestionOption(
                        type=o.reading.type,
                        format=format_of(o.reading, o.physical),
                        rows_rejected=o.rows_rejected,
                        example=o.example,
                    )
                    for o in t.question.options
                ],
            )
        )
    ex = typed.extraction
    if not ex.header_clear:
        first = ex.headers[0] if ex.origin.header_rows else None
        out.insert(
            0,
            QuestionOut(
                id="header_row",
                column="",
                kind="header_row",
                question="Is the first row a header, or data?",
                current=TypeFormat(type="string", format=f"header_rows={ex.origin.header_rows}"),
                options=[
                    QuestionOption(type="string", format="header_rows=1", rows_rejected=0, example=first),
                    QuestionOption(type="string", format="header_rows=0", rows_rejected=0, example=None),
                ],
            ),
        )
    return out


def _warnings(ex: Extraction) -> list[str]:
    out = []
    if ex.padded_rows:
        out.append(f"{ex.padded_rows} rows had too few cells and were padded with nulls")
    ragged = sum(1 for e in ex.excluded if e.reason.startswith("too many cells"))
    if ragged:
        out.append(f"{ragged} rows had too many cells and were rejected")
    for e in ex.left_out:  # no data: neither counted nor rejected, said here
        where = f"row {e.line} of sheet {ex.origin.sheet!r}" if ex.origin.sheet else f"line {e.line}"
        shown = e.text if len(e.text) <= 120 else e.text[:117] + "..."
        if e.reason == "note":
            out.append(f"{where} (a note after the table: {shown}) was left out, not read as a row")
        elif e.reason.startswith(totals.DIFFERS):
            out.append(
                f"{where} (a Total row: {shown}) was kept aside, not read as a row, but its numbers are not "
                f"the sums of the rows above ({e.reason[len(totals.DIFFERS) :]}): check it; the dataset holds the rows without it"
            )
        else:  # its numbers are the sums of the rows above, or there is nothing to compare
            out.append(f"{where} (a Total row: {shown}) was left out so sums are not doubled")
    out += ex.notes
    if ex.blank_rows:
        out.append(f"{ex.blank_rows} blank rows were skipped")
    if ex.comment_lines:
        out.append(f"{ex.comment_lines} comment lines were skipped")
    return out


def _publish(
    catalog: Catalog,
    settings: Settings,
    job: Job,
    fmt: str,
    folder: Path,
    typed: list[tuple[str, _Typed]],
    options: dict,
    coverage: dict,
    made: list[str],
) -> int:
    """Every snapshot written to its own file and sealed, then one catalog transaction: the
    catalog rows and the source's live revision. All or nothing (a failure discards the files)."""
    markers = settings.nulls(options)
    _check_revision(catalog.conn(), job)  # before the writing, as well as in the transaction
    built_ids = []
    cur = catalog.cursor()
    for _dataset_id, item in typed:
        ex = item.extraction
        if any(e.cells for e in ex.left_out):
            totals.weigh(cur, item.relation(cur), ex, item.names, item.typings, markers)
        if item.built is not None:
            snapshot_id, built = item.built
            write_rejected(cur, snapshot_id, ex.excluded)  # rows extraction itself left out (a total row)
        else:
            snapshot_id = f"s_{uuid.uuid4().hex[:16]}"
            catalog.new_snapshot(snapshot_id, ex.rows * len(ex.cell_columns))
            made.append(snapshot_id)
            built = build_snapshot(
                cur,
                item.relation(cur),
                snapshot_id,
                ex.cell_columns,
                item.names,
                item.typings,
                markers,
                ex.excluded,
                settings.exact_distinct_values,
            )
        catalog.seal(snapshot_id)
        built_ids.append((snapshot_id, built))
    with catalog.change() as con:
        source = _check_revision(con, job)
        revision = (source[1] if source else 0) + 1
        stamp = now()
        for index, ((dataset_id, item), (snapshot_id, built)) in enumerate(zip(typed, built_ids)):
            ex = item.extraction
            for column, header in zip(built.columns, ex.headers):
                column["header"] = header
            origin = ex.origin.model_copy(
                update={"decimal_mark": _common(item, "decimal_mark"), "date_order": _common(item, "order")}
            )
            ident = dict(
                org=job.org,
                namespace=job.namespace,
                source_uri=job.source_uri,
                revision=revision,
                dataset_id=dataset_id,
            )
            insert(
                con,
                "datasets",
                **ident,
                name=ex.name,
                idx=index,
                extraction=str(ex.path),
                headers=ex.headers,
                names=item.names,
                rows=ex.rows,
                origin=origin.model_dump(mode="json"),
                warnings=_warnings(ex),
                options=options,
                live_snapshot=snapshot_id,
            )
            questions = [q.model_dump(mode="json") for q in _questions(item)]
            insert_snapshot(con, snapshot_id, ident, built, questions, retype.dump(item.typings), stamp)
        # The parsers that read it, as its datasets' origins say (a workbook openpyxl refused
        # and calamine read says calamine).
        parser = ", ".join(dict.fromkeys(item.extraction.origin.parser or fmt for _, item in typed))
        where = dict(org=job.org, namespace=job.namespace, source_uri=job.source_uri)
        insert(
            con,
            "revisions",
            **where,
            revision=revision,
            upload_id=job.request.upload_id,
            filename=job.filename,
            format=fmt,
            parser=parser,
            coverage=coverage,
            warnings=[],
            extraction_dir=folder.name,
            ingested_at=stamp,
            state="partial" if coverage["lost"] else "ready",
        )
        described = dict(
            live_revision=revision,
            last_revision=revision,
            title=job.request.title,
            description=job.request.description,
            tags=job.request.tags,
            metadata=job.request.metadata,
            updated_at=stamp,
        )
        if source:
            update(con, "sources", where, **described)
        else:
            insert(con, "sources", **where, **described, created_at=stamp)
        retention.prune(con, job.org, job.namespace, job.source_uri, settings.snapshots_kept)
        pause.at("ingest.commit")
    catalog.settled(made)
    made.clear()  # committed: the files are the revision's now
    with suppress(sqlite3.Error, OSError):  # upkeep only: the next sweep does it otherwise
        catalog.collect()
    return revision


def _check_revision(con, job: Job) -> tuple | None:
    """The source's (live_revision, last_revision), or None; revision_conflict when the job
    expected another revision to be live."""
    source = source_row(con, job.org, job.namespace, job.source_uri)
    live = source[0] if source and source[0] is not None else 0
    if job.request.expected_revision is not None and job.request.expected_revision != live:
        raise IngestFailed(
            "revision_conflict",
            f"expected revision {job.request.expected_revision} to be live, but {live or 'none'} is",
        )
    return source


def _common(item: _Typed, attr: str) -> str | None:
    """The decimal mark (or date order) the table's typed columns share, if they share one."""
    values = set()
    for t in item.typings.values():
        if (
            attr == "decimal_mark"
            and t.reading.type == "number"
            and (t.physical.startswith("DECIMAL") or t.reading.group_mark)
        ):
            values.add(t.reading.decimal_mark)
        if attr == "order" and t.reading.order:
            values.add(t.reading.order)
    return values.pop() if len(values) == 1 else None
