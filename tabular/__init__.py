"""tabular: spreadsheets and CSV become typed, immutable DuckDB snapshots, answered by typed plans.

The public names are imported when first used (module-level `__getattr__`): `import tabular`
costs nothing, and a command of the CLI imports only what it runs (`tabular list` needs no HTTP
client, no charts, no notebook views)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

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


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'tabular' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{home}", __name__), name)
    globals()[name] = value  # once: later lookups find it without this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
