"""What an op runs with: the catalog, the settings, the job pool, and who is calling."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..catalog import Catalog
from ..settings import Settings


@dataclass(frozen=True)
class Context:
    catalog: Catalog
    settings: Settings
    jobs: Any  # ingest.JobPool
    caller: str = "local"
    links: Any = None  # links.Linker
