"""tabular: spreadsheets and CSV become typed, immutable DuckDB snapshots, answered by typed plans.

The public names are imported when first used (module-level `__getattr__`): `import tabular`
costs nothing, and a command of the CLI imports only what it runs (`tabular list` needs no HTTP
client, no charts, no notebook views)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

from .lazy_names import lazy

try:
    __version__ = version("tabular")
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"

if TYPE_CHECKING:  # what a type checker and an editor see; at run time, __getattr__ below
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

# Each public name and the module that defines it.
_HOMES = {
    "Client": "client",
    "Engine": "engine",
    "Namespace": "engine",
    "connect": "engine",
    **dict.fromkeys(
        (
            "AuthInsufficient",
            "AuthInvalid",
            "BackendTimeout",
            "NotFound",
            "Overloaded",
            "PreconditionFailed",
            "RateLimited",
            "TabularError",
            "TooLarge",
            "ValidationFailed",
        ),
        "errors",
    ),
}

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


__getattr__, __dir__ = lazy(__name__, _HOMES, __all__)
