"""Where a compiled plan runs: one `Backend` protocol, its implementations one module each
(duckdb.py, clickhouse.py), and the one place that chooses among them (`backend_for`, by the
query_engine setting; once per open home and engine). Writing the SQL is planner/'s (a backend
names the planner target it runs); choosing what to run is ops/'s, which names no engine.

An engine is a planner target (planner/targets.py: what its SQL is) and the module of its name
here, `tabular/backends/<name>.py`, whose BACKEND class meets `Backend`: a new engine is those
two files."""

from __future__ import annotations

import importlib
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

from planner.compile import Compiled
from planner.resolved import Resolved
from planner.targets import TARGETS, Target

from ..settings import Settings
from ..store.home import Catalog

# The engines, by the names the query_engine setting gives them: the planner's targets. Each
# one's module is imported on first use (an optional engine's libraries load only when asked for).
ENGINES = tuple(TARGETS)
# The home's own engine: it reads the snapshot files where they are, and streams whole results.
HOME_ENGINE = "duckdb"


@dataclass(frozen=True)
class Capabilities:
    """What a backend does beyond running a plan, which ops/ asks instead of its name."""

    reuses_resolutions: bool  # a plan's resolution can be kept and used again (its tables are the snapshots')
    counts_unread: bool  # it runs a plan's cast checks: the values a cast could not read, as warnings
    streams: bool  # it streams a whole result as Arrow batches (query_export, to_arrow(whole=True))


class Streamed(Protocol):
    """A statement's result being streamed: `reader` yields its Arrow record batches."""

    reader: Any  # pyarrow.RecordBatchReader

    def cancel(self) -> None:
        """Interrupt the statement from any thread: the reader's next batch raises."""

    def close(self) -> None:
        """Let the statement go (read to its end, it is let go by itself)."""

    @property
    def done(self) -> bool:
        """Whether the statement is let go (read to its end, closed, or cancelled and stopped)."""


class Backend(Protocol):
    """One engine a plan runs on."""

    name: str  # as the query_engine setting names it
    target: Target  # what the planner compiles for it (its dialect, its operators)
    capabilities: Capabilities

    @property
    def engine(self) -> str:
        """The engine and its version, as a receipt says it."""

    def place(self, resolved: Resolved, dry_run: bool) -> None:
        """Make the snapshots the plan reads readable here (attached, or loaded and renamed to
        the engine's tables); a dry run reads nothing and loads nothing."""

    def finish(self, compiled: Compiled) -> Compiled:
        """The compiled statement as this engine runs it (what its result format needs added)."""

    def deadline(self, left: float, settings: Settings) -> float:
        """The seconds the statement is given, when `left` of query_seconds remain after checking
        and compiling: the limit the engine enforces."""

    def run(
        self, compiled: Compiled, settings: Settings, seconds: float, dated: Sequence[tuple[str, str]] = ()
    ) -> list[list[Any]]:
        """The statement's rows as lists of JSON values (SPEC §3), every column it gives (the
        result's, then row ids and ordering columns), stopped past `seconds`."""

    def counts(self, check: Any, settings: Settings, seconds: float) -> tuple[Any, ...]:
        """The one row a plan's check statement answers (per cast, the values it could not
        read); only where `counts_unread`."""

    def stream(
        self,
        compiled: Compiled,
        settings: Settings,
        names: list[str],
        counted: Any = None,
        ended: Any = None,
        interval_text: bool = False,
        dated: Sequence[tuple[str, str]] = (),
    ) -> Streamed:
        """The statement's result streamed as Arrow record batches (only where `streams`)."""


def intervals(compiled: Compiled) -> list[int]:
    """The result columns (by place) that are durations (INTERVALs)."""
    return [k for k, o in enumerate(compiled.columns) if o.physical == "INTERVAL" or o.type == "duration"]


class HomeRef:
    """A backend's hold on its home: weak, so that the home's chosen backends (kept per home,
    below) never keep the home open."""

    def __init__(self, catalog: Catalog) -> None:
        self._home = weakref.ref(catalog)

    @property
    def catalog(self) -> Catalog:
        found = self._home()
        if found is None:
            raise ReferenceError("the home this backend ran on is closed")
        return found


# Per open home, its backends by engine name, let go with it.
_CHOSEN: weakref.WeakKeyDictionary[Catalog, dict[str, Backend]] = weakref.WeakKeyDictionary()
_CHOSEN_LOCK = threading.Lock()


def backend_for(catalog: Catalog, settings: Settings, engine: str = "", streams: bool = False) -> Backend:
    """The home's backend for `engine` (by default the query_engine setting), made once per open
    home (an engine is connected on first use); with `streams`, the home's own engine when that
    one cannot stream."""
    name = engine or settings.query_engine
    if name not in ENGINES:
        raise ValueError(f"query_engine {name!r} is none of {', '.join(ENGINES)}")
    with _CHOSEN_LOCK:
        made = _CHOSEN.setdefault(catalog, {})
        found = made.get(name)
        if found is None:
            module = importlib.import_module(f"{__package__}.{name}")
            found = made[name] = module.BACKEND(catalog, settings)
    if streams and not found.capabilities.streams:
        return home_backend(catalog, settings)
    return found


class HomeBackend(Backend, Protocol):
    """The home's own engine: a backend that also reads a snapshot's rows where they lie."""

    def first_rows(self, cursor: Any, table: Any, names: list[str], n: int) -> tuple[list[dict], list[int]]:
        """A snapshot's first `n` rows (`table`, its `__row_id` first) as a query's rows are
        written, and their row ids."""


def home_backend(catalog: Catalog, settings: Settings) -> HomeBackend:
    """The home's own engine, whatever query_engine says: it reads the snapshot files where they
    are, streams whole results and counts the values a plan's casts could not read."""
    return cast(HomeBackend, backend_for(catalog, settings, HOME_ENGINE))
