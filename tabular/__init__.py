"""tabular: spreadsheets and CSV become typed, immutable DuckDB snapshots, answered by typed plans."""

from .engine import Engine, Namespace, connect
from .errors import (
    BackendTimeout,
    NotFound,
    PreconditionFailed,
    TabularError,
    TooLarge,
    ValidationFailed,
)

__all__ = [
    "BackendTimeout",
    "Engine",
    "Namespace",
    "NotFound",
    "PreconditionFailed",
    "TabularError",
    "TooLarge",
    "ValidationFailed",
    "connect",
]
