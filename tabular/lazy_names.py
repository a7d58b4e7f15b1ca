"""A package's public names imported when first used (PEP 562's module `__getattr__`): `import
tabular` costs nothing, and a CLI command imports only the modules whose names it touches. One
definition for the packages that export so (tabular, tabular.display, tabular.service)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from importlib import import_module


def lazy(package: str, homes: dict[str, str], public: list[str]) -> tuple[Callable, Callable]:
    """The `__getattr__` and `__dir__` of `package`, whose public names each live in the module
    `homes` names (relative to it)."""

    def __getattr__(name: str):
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f".{home}", package), name)
        setattr(sys.modules[package], name, value)  # once: later lookups find it without this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(public))

    return __getattr__, __dir__
