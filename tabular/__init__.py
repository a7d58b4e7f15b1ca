"""tabular: spreadsheets and CSV become typed, immutable DuckDB snapshots, answered by typed plans."""

from .client import Client
from .engine import Engine, Namespace, connect
from .errors import (
    AuthInsufficient,
    AuthInvalid,
    BackendTimeout,
    NotFound,
    Overloaded,
    PreconditionFailed,
    RateLimited,
    TabularError,
    TooLarge,
    ValidationFailed,
)

__all__ = [
    "AuthInsufficient",
    "AuthInvalid",
    "BackendTimeout",
    "Client",
    "Engine",
    "Namespace",
    "NotFound",
    "Overloaded",
    "PreconditionFailed",
    "RateLimited",
    "TabularError",
    "TooLarge",
    "ValidationFailed",
    "connect",
]
