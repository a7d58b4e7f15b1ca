"""What an op runs with: the catalog, the settings, the job pool, and who is calling."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import close_names
from ..settings import Settings
from ..store.catalog import source_uris
from ..store.home import Catalog


@dataclass(frozen=True)
class Context:
    catalog: Catalog
    settings: Settings
    jobs: Any  # ingest.jobs.JobPool
    caller: str = "local"
    links: Any = None  # ingest.links.Linker


def close_sources(ctx: Context, org: str, namespace: str, source_uri: str, live: bool | None = None) -> list[str]:
    """The sources of the caller's own namespace named closest to one that is not there (never
    another namespace's): every op that answers `found: false` for a source says them."""
    return close_names(source_uri, source_uris(ctx.catalog.conn(), org, namespace, live))
