"""What an op runs with: the catalog, the settings, the job pool, and who is calling."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..settings import Settings
from ..store.home import Catalog


@dataclass(frozen=True)
class Context:
    catalog: Catalog
    settings: Settings
    jobs: Any  # ingest.jobs.JobPool
    caller: str = "local"
    links: Any = None  # ingest.links.Linker
