"""The Python API of SPEC §6: connect, call any op by name, bind a namespace."""

from __future__ import annotations

import errno
import os
import sqlite3
import weakref
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

import duckdb
from pydantic import BaseModel, ValidationError

from .errors import (
    ErrorItem,
    NotFound,
    Overloaded,
    StorageUnwritable,
    TooLarge,
    ValidationFailed,
    close_names,
    json_path,
    setting_refused,
)
from .ingest.jobs import JobPool
from .ingest.links import Linker
from .ingest.uploads import discard_upload, no_room, store_file
from .jsonval import unusable
from .namespace import NamespaceOps, local_file
from .ops import REGISTRY, refuse_stream
from .ops.context import Context
from .ops.links import linker
from .settings import SettingInvalid, Settings
from .store.faults import catalog_refused, refused, unwritable
from .store.home import Catalog
from .validation import MISSING, refused_keys, validation_failed, validation_items

if TYPE_CHECKING:  # named in annotations only: the planner loads when a query runs
    from .ops.query import Whole


def connect(home: str | None = None, **settings: Any) -> Engine:
    """An engine over the home at `home` (TABULAR_HOME, else ./.tabular); ':memory:' for a throwaway.
    Linked folders may lie in the working directory unless TABULAR_LINK_ROOTS (or `link_roots`) says
    otherwise: the CLI and Python act for the person at the keyboard."""
    if "link_roots" not in settings and "TABULAR_LINK_ROOTS" not in os.environ:
        settings["link_roots"] = os.getcwd()
    try:
        config = Settings.from_env(**settings)
    except SettingInvalid as err:
        raise setting_refused(err) from None
    return Engine(home or os.environ.get("TABULAR_HOME") or config.home, config)


def _shut(links: Linker, jobs: JobPool, catalog: Catalog) -> None:
    """Stop following linked folders and the workers (interrupted jobs go back to pending), then
    close the database, unless a worker or the folder watcher would not stop: closing DuckDB
    under a running query would crash the process."""
    links.stop()
    jobs.close()
    if not links.running() and not any(thread.is_alive() for thread in jobs.threads):
        catalog.close()


def out_of_memory(op: str) -> TooLarge:
    """Python's own allocations past what the process may hold (a huge plan, a result held
    whole): the call is refused, and the thread lives on to serve the next one."""
    return TooLarge(
        f"{op} needed more memory than the server could give it; nothing was changed "
        "(a smaller plan, a lower limit, or query_export streams a large result)"
    )


# A home path that can be no folder: a file stands at it or above it, or it is no path the system takes.
NO_FOLDER = (errno.ENOTDIR, errno.EEXIST, errno.ENAMETOOLONG, errno.ELOOP)


def unopened(home: str, err: OSError | sqlite3.Error) -> Exception:
    """Why a home could not be opened, coded: one on a read-only file system or that this user
    may not write (EROFS, EACCES, EPERM) is STORAGE_UNWRITABLE; a path that can be no folder is
    VALIDATION_FAILED at `home` (the path given is what to fix); any other error as it was."""
    if isinstance(err, sqlite3.Error):
        err = catalog_refused(err) or err
    found = refused(err)
    if found is not None and found[0] == "unwritable":
        return StorageUnwritable(
            f"the home {home} cannot be written ({found[1]}): its file system is read-only or this user may not "
            "write there; nothing was opened"
        )
    if isinstance(err, OSError) and err.errno in NO_FOLDER:
        why = "a file stands there" if err.errno == errno.EEXIST else os.strerror(err.errno)
        return ValidationFailed(
            f"the home {home} is no folder and none can be made there: {why}",
            [
                ErrorItem(
                    "home",
                    f"no folder can be made there ({why})",
                    expected="a folder, or where one can be made",
                    received=home,
                )
            ],
        )
    return err


class Engine:
    """An open home. Close it (or use it as a context manager); one left open is closed when it
    is garbage-collected or when the interpreter exits, its workers stopped first, so no DuckDB
    query is running when Python finalises (that aborted the process)."""

    def __init__(self, home: str, settings: Settings):
        self.settings = settings
        try:
            self.catalog = Catalog(
                home,
                settings.duckdb_memory,
                settings.catalog_wait_seconds,
                settings.dropped_grace_seconds,
                settings.query_memory_share,
            )
        except (OSError, sqlite3.Error) as err:
            raise unopened(home, err) from None
        self.jobs = JobPool(self.catalog, settings)
        base = Context(self.catalog, settings, self.jobs)
        self.context = replace(base, links=linker(base))
        self._finalizer = weakref.finalize(self, _shut, self.context.links, self.jobs, self.catalog)
        if settings.watch_links:
            self.context.links.start()  # a full scan first: what changed while nothing ran

    def call(self, op: str, body: dict | BaseModel | None = None) -> dict:
        """Run an op by name: a dict in (the HTTP body), a dict out (the HTTP answer). An op that
        streams its rows is no dict: Engine.stream reads it."""
        refuse_stream(op)
        out = cast(BaseModel, self.run(op, body))  # refuse_stream: only an op that streams answers a Whole
        return out.model_dump(mode="json", by_alias=True)

    def run(self, op: str, body: dict | BaseModel | None = None, caller: str | None = None) -> BaseModel | Whole:
        """Run an op by name and answer its typed output model (an op that streams: its Whole);
        `caller` is who asks (audits, approvals)."""
        spec = REGISTRY.get(op)
        if spec is None:
            raise NotFound(
                f"no op {op!r}",
                [ErrorItem("op", "unknown op", received=op, did_you_mean=close_names(op, list(REGISTRY)))],
            )
        model, ignored = self._input(spec.input, body, op)
        try:
            out = spec.fn(self.context if caller is None else replace(self.context, caller=caller), model)
        except MemoryError:
            raise out_of_memory(op) from None
        except (OSError, duckdb.Error) as err:
            why = no_room(err)
            if why is None and (cannot := unwritable(err)) is not None:
                raise cannot from None  # a read-only home: STORAGE_UNWRITABLE (store/faults.py)
            if why is None:
                # A snapshot file cut short or overwritten: STORAGE_DAMAGED naming it (store/catalog.py).
                damage = self.catalog.damaged(err, model.org, model.namespace)
                if damage is None:
                    raise
                raise damage from None
            # A full disk is no defect and no bad input: the write was rolled back, and the same
            # call succeeds once there is room (the SPEC has no code of its own; back-pressure's).
            raise Overloaded(
                f"no room left on the server's disk ({why}); nothing was changed",
                retry_after=self.settings.retry_after_seconds,
            ) from None
        if ignored and hasattr(out, "ignored_args"):
            out.ignored_args = ignored
        return out

    def _input(
        self, model_type: type[BaseModel], body: dict | BaseModel | None, what: str = ""
    ) -> tuple[Any, list[str]]:
        """An op's input checked (what no op takes, keys misspelled, then the model) with org and
        namespace filled, and the names of the fields it ignores. `what` names the op in messages.
        Typed Any: every op's input has `org` and `namespace` (tests/service/test_registry.py), yet
        not by one base class (a query's input is the plan language's own model, extended)."""
        if isinstance(body, BaseModel):
            body = body.model_dump()
        problems = unusable(body, self.settings.max_input_depth)
        if problems:
            items = [ErrorItem(json_path(loc), message, expected=expected) for loc, message, expected in problems]
            raise validation_failed(items)
        misspelled = refused_keys(body, model_type, what) if isinstance(body, dict) else []
        try:
            model: Any = model_type.model_validate(body or {})  # with org and namespace (see above)
        except ValidationError as err:
            # A key misspelled and the field it leaves missing are one problem, said at the key.
            meant = {item.did_you_mean[0] for item in misspelled if item.did_you_mean}
            items = [
                i
                for i in validation_items(err.errors(), model_type, what)
                if not (i.message == MISSING and i.path in meant)
            ]
            raise validation_failed(misspelled + items) from None
        if misspelled:
            raise validation_failed(misspelled)
        ignored = sorted((model.model_extra or {}).keys())
        model = model.model_copy(
            update={
                "org": model.org or self.settings.default_org,
                "namespace": model.namespace or self.settings.default_namespace,
            }
        )
        return model, ignored

    def stream(self, plan: dict | BaseModel) -> Whole:
        """A plan's whole result (every row, no limit), streamed in Arrow record batches:
        `.reader`, `.columns`, `.receipt` (SPEC §4 "Whole results"), and `.ignored_args`, the
        keys of the plan that were not read (as a call's answer names them): knowledge.query_export."""
        return cast("Whole", self.run("knowledge.query_export", plan))  # the op that streams

    def namespace(self, org: str, namespace: str) -> Namespace:
        return Namespace(self, org, namespace)

    def close(self) -> None:
        self._finalizer()  # runs _shut once, whoever calls first

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Namespace(NamespaceOps):
    """An engine bound to one (org, namespace): the ops with typed answers."""

    def __init__(self, engine: Engine, org: str, namespace: str):
        self.engine, self.org, self.name = engine, org, namespace

    def upload_file(self, path: str | os.PathLike) -> dict:
        path, content_type = local_file(path)
        return store_file(
            self.engine.catalog, self.engine.settings, self.org, self.name, path, path.name, content_type
        ).model_dump()

    def _pause(self, ingestion_id: str) -> Callable[[float], bool]:
        jobs = self.engine.jobs

        def pause(seconds: float) -> bool:
            # The job's end sets its event; a job this process does not run has none to wait on.
            ended = jobs.done.get(ingestion_id)
            return ended is not None and not ended.wait(seconds)

        return pause

    def _run(self, op: str, body: dict) -> BaseModel:
        return cast(BaseModel, self.engine.run(op, body))  # NamespaceOps runs no op that streams

    def _discard_upload(self, upload_id: str) -> bool:
        discard_upload(self.engine.catalog, upload_id)
        return True

    def _stream(self, body: dict):
        return self.engine.stream(body).reader

    def _call(self, op: str, body: dict) -> dict:
        return self.engine.call(op, body)
