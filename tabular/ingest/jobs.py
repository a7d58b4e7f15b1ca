"""The ingest jobs of a home: worker threads running them (ingest.pipeline), a bounded wait
list taken in turns by org, a watch that stops a job past its time, and recovery of the jobs a
process that stopped left behind."""

from __future__ import annotations

import json
import threading
import time
import traceback
from contextlib import suppress
from pathlib import Path

import duckdb
from pydantic import ValidationError

from ..errors import IngestFailed, Internal, Overloaded
from ..models import IngestCancelOut, IngestIn, IngestOptions
from ..settings import Settings
from ..store.catalog import (
    cancel_pending,
    cancel_requested,
    claim_job,
    job_owner,
    job_state,
    job_to_run,
    now,
    revision_datasets,
    revision_row,
    take_job,
    unfinished_jobs,
    update,
)
from ..store.faults import refused
from ..store.home import Catalog
from .fair import FairQueue
from .uploads import sweep_uploads


def _warm_arrow() -> None:
    """pyarrow imports pandas, when it is installed, the first time it converts a Python value
    (0.3 s): paid beside a reader that converts them (a workbook, JSON, the careful CSV reader),
    not inside its publish; the one pass over delimited text converts none and pays nothing."""
    try:
        import pyarrow as pa

        pa.scalar(0)
    except BaseException:  # only a warm-up: an interpreter exiting meanwhile is no error
        pass


def admitted(stored: dict) -> IngestIn:
    """A job's stored request read back as the IngestIn it was. One an earlier version admitted
    and today's checks refuse (a longer title, an option since gone) runs as it was admitted, its
    unknown options left out, rather than failing a job that was accepted."""
    try:
        return IngestIn.model_validate(stored)
    except ValidationError:
        fields = {k: v for k, v in stored.items() if k in IngestIn.model_fields and k != "options"}
        given = stored.get("options") or {}
        options = IngestOptions.model_construct(**{k: v for k, v in given.items() if k in IngestOptions.model_fields})
        return IngestIn.model_construct(**fields, options=options)


class JobRows:
    """The rows of catalog.jobs a pool writes, each under the pool's lock: a job's progress and
    state, its failure (kept to write later when the catalog refuses it), its warnings read back."""

    def __init__(self, catalog: Catalog, lock: threading.RLock, done: dict[str, threading.Event]):
        self.catalog, self.lock, self.done = catalog, lock, done
        # Failures the catalog refused to record (its disk still full): the watch writes them.
        self.unrecorded: dict[str, tuple[str, str]] = {}

    def update(self, ingestion_id: str, **fields) -> None:
        with self.lock:
            update(self.catalog.conn(), "jobs", {"ingestion_id": ingestion_id}, **fields, updated_at=now())

    def fail(self, ingestion_id: str, code: str, message: str) -> None:
        """The job ended failed, with a SPEC code and the reason in words. A catalog that refuses
        the record too (its disk still full, or read-only) has it written by the watch once it
        takes writes again; the worker goes on to the next job meanwhile."""
        try:
            self.update(ingestion_id, state="failed", stage="", error_code=code, error_message=message)
        except Exception:
            with self.lock:
                self.unrecorded[ingestion_id] = (code, message)

    def record_failures(self) -> None:
        """Write the failures the catalog refused before (see fail), and end their jobs."""
        with self.lock:
            waiting = dict(self.unrecorded)
        for ingestion_id, (code, message) in waiting.items():
            try:
                self.update(ingestion_id, state="failed", stage="", error_code=code, error_message=message)
            except Exception:  # refused again: next time
                continue
            with self.lock:
                self.unrecorded.pop(ingestion_id, None)
            if ingestion_id in self.done:  # (one recover() failed was never this pool's to run)
                self.done[ingestion_id].set()

    def warnings(self, org, namespace, source_uri, revision) -> list[str]:
        rows = revision_datasets(self.catalog.conn(), org, namespace, source_uri, revision)
        return [f"{d['dataset_id']}: {w}" for d in rows for w in json.loads(d["warnings"])]


class JobPool:
    """Worker threads running ingest jobs recorded in the catalog, with a bounded wait list.

    A job is a row of catalog.jobs, owned by the open home (Catalog.owner) that queued it or
    took it up; this pool only holds ids. Any number of processes run pools on one home: a
    worker claims a job by one conditional UPDATE (pending → processing), so no job runs twice.
    A pool that takes up jobs (`take_up_jobs`) looks, at start and every `take_up_seconds`, for
    the jobs whose owner is gone (closed, crashed, killed): a job that was running is started
    again with `attempts` + 1, or failed `retries_exhausted` once it has had `job_attempts`
    starts, so a file that kills the process cannot do so forever.
    """

    def __init__(self, catalog: Catalog, settings: Settings, workers: int | None = None):
        self.catalog, self.settings = catalog, settings
        with suppress(Exception):  # upkeep: a busy catalog leaves it to the next start
            sweep_uploads(catalog)
        self.done: dict[str, threading.Event] = {}
        # Held to admit a job (idempotency lookup, room, insert) and for every write to a job row.
        self.lock = threading.RLock()
        self.ready = threading.Condition(self.lock)
        # Waiting jobs (ingestion ids) by org, taken in turns, at most ingest_workers_per_org of one org at once.
        self.waiting: FairQueue[str] = FairQueue(settings.ingest_workers_per_org)
        # Running jobs: id -> (the worker thread, when it started); `stopping` says why one is stopped.
        self.active: dict[str, tuple[int, float]] = {}
        self.stopping: dict[str, str] = {}
        self.closing = False
        self.published: set[str] = set()  # running jobs past their publish (close() leaves them be)
        self.stopped = threading.Event()
        self.rows = JobRows(catalog, self.lock, self.done)
        self.recovery = Recovery(self)
        # Started with the first job and joined by close(): a daemon thread still inside pyarrow's
        # C++ when the interpreter finalises aborts the process (a closed pipe ends a command early).
        self.warm: threading.Thread | None = None
        if settings.take_up_jobs:
            self.recovery.recover()
        self.threads = [
            threading.Thread(target=self._work, name=f"ingest-{k}", daemon=True)
            for k in range(workers or settings.ingest_workers)
        ]
        if settings.take_up_jobs:
            self.threads.append(threading.Thread(target=self.recovery.loop, name="ingest-take-up", daemon=True))
        self.threads.append(threading.Thread(target=self._watch, name="ingest-watch", daemon=True))
        for thread in self.threads:
            thread.start()

    def check_room(self, org: str) -> None:
        """Raise OVERLOADED when the org already has `job_queue_per_org` jobs waiting, or all
        orgs together `job_queue`."""
        with self.lock:
            mine = self.waiting.waiting(org)
            if mine >= self.settings.job_queue_per_org:
                raise Overloaded(
                    f"{mine} ingest jobs of this org are waiting for a worker (job_queue_per_org); try again shortly",
                    retry_after=self.settings.retry_after_seconds,
                )
            if len(self.waiting) >= self.settings.job_queue:
                raise Overloaded(
                    f"{len(self.waiting)} ingest jobs are waiting for a worker; try again shortly",
                    retry_after=self.settings.retry_after_seconds,
                )

    def warm_up(self) -> None:
        """Start pandas's import on its own thread, once (_warm_arrow)."""
        with self.lock:
            if self.warm is None and not self.closing:
                self.warm = threading.Thread(target=_warm_arrow, name="arrow-warm", daemon=True)
                self.warm.start()

    def submit(self, ingestion_id: str, org: str) -> None:
        with self.lock:
            self.done.setdefault(ingestion_id, threading.Event())
            self.waiting.push(org, ingestion_id)
            self.ready.notify()

    def cancel(self, ingestion_id: str, org: str, namespace: str) -> IngestCancelOut:
        """Cancel a job: a pending one at once; a running one is stopped (inside DuckDB too) and
        `cancelled` is said only once it has stopped, waiting up to `cancel_wait_seconds`."""
        with self.lock:
            state = job_state(self.catalog.conn(), ingestion_id, org, namespace)
            if state is None:
                return IngestCancelOut(found=False)
            if state == "pending" and cancel_pending(self.catalog.conn(), ingestion_id):
                if self.waiting.remove(ingestion_id):
                    self.done[ingestion_id].set()
                return IngestCancelOut(found=True, state="cancelled", cancelled=True)
            state = job_state(self.catalog.conn(), ingestion_id, org, namespace)  # claimed meanwhile, perhaps
            assert state is not None  # found above, and a job's row is never deleted
            if state != "processing":
                return IngestCancelOut(found=True, state=state, cancelled=False)
            self.update(ingestion_id, cancel_requested=True)
        # Whichever process runs it sees the request at its next look (job_watch_seconds).
        deadline = time.monotonic() + self.settings.cancel_wait_seconds
        while True:
            state = job_state(self.catalog.conn(), ingestion_id, org, namespace)
            assert state is not None  # found above, and a job's row is never deleted
            if state != "processing" or time.monotonic() >= deadline:
                return IngestCancelOut(found=True, state=state, cancelled=state == "cancelled")
            time.sleep(0.02)

    def take(self, ingestion_id: str) -> bool:
        """Make a job whose owner is gone this pool's (Recovery.take)."""
        return self.recovery.take(ingestion_id)

    @property
    def taken_up(self) -> list[str]:
        return self.recovery.taken_up

    def update(self, ingestion_id: str, **fields) -> None:
        self.rows.update(ingestion_id, **fields)

    def fail(self, ingestion_id: str, code: str, message: str) -> None:
        """The job ended failed, with a SPEC code and the reason in words (JobRows.fail)."""
        self.rows.fail(ingestion_id, code, message)

    def wait(self, ingestion_id: str, timeout: float | None = None) -> None:
        event = self.done.get(ingestion_id)
        if event:
            event.wait(timeout)

    def _work(self) -> None:
        while True:
            with self.lock:
                picked = None
                while not self.closing and (picked := self.waiting.pop()) is None:
                    self.ready.wait()
                if self.closing:
                    if picked is not None:
                        self.waiting.finished(picked[0])
                    return
                assert picked is not None  # the wait ends closing or with a job
                org, ingestion_id = picked
                self.active[ingestion_id] = (threading.get_ident(), time.monotonic())
            try:
                self._run(ingestion_id)
            finally:
                with self.lock:
                    self.active.pop(ingestion_id, None)
                    self.stopping.pop(ingestion_id, None)
                    self.waiting.finished(org)
                    self.ready.notify_all()  # a share came free: another org's job may start

    def _watch(self) -> None:
        """Stop the running jobs that were cancelled (by any process) or ran past job_seconds:
        their DuckDB statements are interrupted and their next progress report raises. Now and
        then, delete the uploads no ingest named within upload_keep_seconds."""
        expired_at = 0.0
        while not self.stopped.wait(self.settings.job_watch_seconds):
            if self.settings.upload_keep_seconds and time.monotonic() - expired_at > min(
                60.0, self.settings.upload_keep_seconds
            ):
                expired_at = time.monotonic()
                with suppress(Exception):  # upkeep: a busy catalog is tried again next time
                    self.catalog.expire_uploads(self.settings.upload_keep_seconds)
            self.rows.record_failures()
            with self.lock:
                running = dict(self.active)
            for ingestion_id, (thread, started) in running.items():
                if ingestion_id in self.stopping:
                    continue
                try:
                    why = "cancelled" if cancel_requested(self.catalog.conn(), ingestion_id) else None
                except Exception:  # a busy catalog: look again next time
                    continue
                if why is None and time.monotonic() - started > self.settings.job_seconds:
                    why = "too_long"
                if why is not None:
                    with self.lock:
                        if ingestion_id in self.published or ingestion_id not in self.active:
                            continue  # past its publish: it finishes
                        self.stopping[ingestion_id] = why
                        self.catalog.interrupt(thread)

    def _run(self, ingestion_id: str) -> None:
        try:
            self._attempt(ingestion_id)
        except BaseException as err:
            if self.closing:
                # Interrupted by close(): not this file's fault. The next process that takes up
                # jobs starts it again (the attempt is counted: see recover()).
                self.update(ingestion_id, state="pending", stage="")
            else:
                traceback.print_exc()
                # A bug the ingest caught itself (a line count that does not add up) says what it found.
                said = err.message if isinstance(err, Internal) else "an internal error stopped the ingest"
                self.fail(ingestion_id, "internal", said)
        finally:
            with self.lock:
                self.published.discard(ingestion_id)
                ended = ingestion_id not in self.rows.unrecorded  # else ended once the watch records it
            if ended:
                self.done[ingestion_id].set()

    def _attempt(self, ingestion_id: str) -> None:
        Attempt(self, ingestion_id).run()

    def stop_asked(self, ingestion_id: str) -> bool:
        """Cancelled by a caller, stopped by the watch, or the engine is closing (see close())."""
        if self.closing or ingestion_id in self.stopping:
            return True
        return cancel_requested(self.catalog.conn(), ingestion_id)

    def close(self) -> None:
        """Stop the workers within `close_seconds`: a running job is interrupted and put back to
        `pending` (its attempt counted), to be finished by the next process that takes up jobs;
        jobs still waiting stay `pending`."""
        with self.lock:
            self.closing = True
            self.stopped.set()
            self.ready.notify_all()
        deadline = time.monotonic() + self.settings.close_seconds
        for thread in self.threads:
            while thread.is_alive() and time.monotonic() < deadline:
                with self.lock:
                    # A job that has published is let finish its bookkeeping: interrupted there,
                    # it would be put back to pending and publish its file a second time.
                    if not self.published:
                        self.catalog.interrupt()
                thread.join(0.05)
        if self.warm is not None:
            self.warm.join(max(0.0, deadline - time.monotonic()))


class Recovery:
    """Taking up the jobs a process that is gone left behind (see JobPool's docstring): at start
    and every `take_up_seconds` in a pool that takes up jobs."""

    def __init__(self, pool: JobPool):
        self.pool, self.catalog, self.settings = pool, pool.catalog, pool.settings
        self.taken_up: list[str] = []  # the jobs other processes left, which this pool runs

    def take(self, ingestion_id: str) -> bool:
        """Make a job whose owner is gone this pool's (one conditional UPDATE: of two processes
        taking it at once, one does). False when its owner lives or another took it first."""
        con = self.catalog.conn()
        found, owner = job_owner(con, ingestion_id)
        if not found or self.catalog.alive(owner):
            return False
        return take_job(con, ingestion_id, self.catalog.owner, owner)

    def loop(self) -> None:
        """Take up, every take_up_seconds until the pool stops, what processes that are gone left."""
        while not self.pool.stopped.wait(self.settings.take_up_seconds):
            try:
                self.recover()
            except Exception:  # a busy catalog, a closing engine: the next round tries again
                if self.pool.closing:
                    return

    def recover(self) -> None:
        """Take up what processes that are gone left unfinished (see the class docstring)."""
        for ingestion_id, state, attempts, cancelled, org in unfinished_jobs(self.catalog.conn()):
            if ingestion_id in self.pool.done or not self.take(ingestion_id):
                continue
            if cancelled:
                self.pool.rows.update(ingestion_id, state="cancelled", stage="")
                continue
            if state == "processing" or attempts:  # running, or put back by a closing engine
                if attempts >= self.settings.job_attempts:
                    self.pool.rows.fail(
                        ingestion_id,
                        "retries_exhausted",
                        f"the ingest was interrupted {attempts} times (the process stopped while it ran); not started again",
                    )
                    continue
                self.pool.rows.update(ingestion_id, state="pending", stage="")
            self.taken_up.append(ingestion_id)
            self.pool.submit(ingestion_id, org)


class Attempt:
    """One start of one job: claimed (only a pending job of this pool's), run through the
    pipeline with its progress reported and its stops obeyed, and its end said in its row."""

    def __init__(self, pool: JobPool, ingestion_id: str):
        self.pool, self.ingestion_id = pool, ingestion_id

    def run(self) -> None:
        from . import again  # heavy: the re-typing of a source known before, for a job that runs
        from . import pipeline as publish  # heavy: every reader (Polars, openpyxl), for a job that runs

        pool, ingestion_id = self.pool, self.ingestion_id
        con = pool.catalog.conn()
        org, namespace, source_uri, request, state, path, filename, upload_id, attempts = job_to_run(con, ingestion_id)
        with pool.lock:
            # The claim: only a pending job of this pool's (a cancel may have come between the
            # queue and here, or a process that took it up when this one looked gone).
            if not claim_job(con, ingestion_id, pool.catalog.owner):
                return
        # The request as the caller sent it; the row's own columns say whose it is.
        stored = {**json.loads(request), "org": org, "namespace": namespace, "source_uri": source_uri}
        stored["upload_id"] = upload_id
        job = publish.Job(ingestion_id, admitted(stored), Path(path), filename)

        worker = threading.get_ident()

        def report(**fields) -> None:
            if fields.pop("converts", False):  # the reader ahead converts Python values to Arrow
                pool.warm_up()
            # On the job's own thread (not the one pass's progress ticker), a stop takes effect here.
            if threading.get_ident() == worker and (
                ingestion_id in pool.stopping or (fields.get("stage") and pool.stop_asked(ingestion_id))
            ):
                raise publish.Cancelled()
            if fields:
                pool.update(ingestion_id, **fields)

        said: list[str] = []
        try:
            revision = publish.run(pool.catalog, pool.settings, job, report, lambda: pool.stop_asked(ingestion_id))
        except again.Unchanged as held:  # the same bytes are live: their revision is the answer
            revision, said = held.revision, [str(held)]
        except (publish.Cancelled, duckdb.InterruptException):
            why = pool.stopping.get(ingestion_id) or ("cancelled" if pool.stop_asked(ingestion_id) else None)
            if pool.closing:
                # Closing the engine stops a job the same way; it is put back, not cancelled.
                pool.update(ingestion_id, state="pending", stage="")
            elif why == "too_long":
                pool.fail(
                    ingestion_id,
                    "too_large",
                    f"the ingest ran past job_seconds ({pool.settings.job_seconds:g} s) and was stopped; the previous revision still serves",
                )
            elif why == "cancelled":
                pool.update(ingestion_id, state="cancelled", stage="")
            else:
                raise
            return
        except IngestFailed as failure:
            pool.fail(ingestion_id, failure.error_code, failure.message)
            return
        except duckdb.OutOfMemoryException:
            # DuckDB spills what it can; what it cannot hold under its limit fails the file, not the engine.
            pool.fail(
                ingestion_id,
                "too_large",
                f"the file needs more memory than duckdb_memory ({pool.settings.duckdb_memory}) allows; the previous revision still serves",
            )
            return
        except (OSError, duckdb.Error) as err:
            # A full disk (or a file size limit) is the file being too large for the room left;
            # a home that cannot be written is said so (store/faults.py). Either way nothing was
            # published (its files discarded, the catalog rolled back): the previous revision serves.
            kind, why = refused(err) or (None, "")
            if kind is None:
                raise
            pool.fail(
                ingestion_id,
                "too_large" if kind == "full" else "storage_unwritable",
                f"no room left to store what the file holds ({why}); the previous revision still serves"
                if kind == "full"
                else f"the server's home could not be written ({why}); the previous revision still serves",
            )
            return
        with pool.lock:  # close() and the watch interrupt under this lock: none lands past here
            pool.published.add(ingestion_id)
        warnings = said + pool.rows.warnings(org, namespace, source_uri, revision)
        covered = json.loads(revision_row(con, org, namespace, source_uri, revision)["coverage"])
        state = "partial" if covered.get("lost") else "ready"
        pool.update(ingestion_id, state=state, stage="", revision=revision, coverage=covered, warnings=warnings)
