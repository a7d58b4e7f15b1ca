"""tabular: spreadsheets and CSV become typed, immutable DuckDB snapshots, answered by typed plans."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("tabular")
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"

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
    "__version__",
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
