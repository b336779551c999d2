"""The reference's operation handlers.

Each module here registers handlers with :func:`handler`. A handler takes the
operation's validated input model and returns its output model (or a plain
JSON object). :func:`handlers` imports every module of this package, so an
area adds operations by adding a module.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar

_REGISTRY: dict[str, Callable[[Any], Any]] = {}

F = TypeVar("F", bound=Callable[..., Any])


def handler(operation: str) -> Callable[[F], F]:
    """Register the decorated function as the reference's handler for `operation`."""

    def register(func: F) -> F:
        if operation in _REGISTRY:
            raise RuntimeError(f"two reference handlers for {operation!r}")
        _REGISTRY[operation] = func
        return func

    return register


@cache
def handlers() -> dict[str, Callable[[Any], Any]]:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        importlib.import_module(f"{__name__}.{info.name}")
    return dict(sorted(_REGISTRY.items()))
