"""The reference's operation handlers.

Each module here registers handlers with :func:`handler`, given the
contract's :class:`~pytest_planmode.contract.Operation` object, so an
operation's name is written once, in the contract. A handler takes the
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

from pytest_planmode.contract import Operation

_REGISTRY: dict[str, tuple[Operation, Callable[[Any], Any]]] = {}
_FAST: dict[str, Callable[[Any], Any]] = {}

#: Where the reference puts each root of `contract.virtual_paths`: its file
#: system is a model in memory, so its sandbox is a fixed set of directories
#: of that model, each as long as its token (a path's length, and so an
#: export preview cut to a width, reads the same in either spelling).
MODEL_ROOTS = {"$CWD": "/cwd", "$HOME": "/home", "$AGENT": "/agent", "$TMP": "/tmp"}

F = TypeVar("F", bound=Callable[..., Any])


def handler(operation: Operation) -> Callable[[F], F]:
    """Register the decorated function as the reference's handler for `operation`."""

    def register(func: F) -> F:
        if operation.name in _REGISTRY:
            raise RuntimeError(f"two reference handlers for {operation.name!r}")
        _REGISTRY[operation.name] = (operation, func)
        return func

    return register


def fast_path(operation: Operation) -> Callable[[F], F]:
    """Register the decorated function as the hot path of `operation`: given
    the raw request payload, it returns the output in wire form (a plain
    JSON object) when the payload has the one common shape it recognises,
    exactly the same object the handler's output dumps to, and None for
    anything else, which then takes the validated path (so malformed input
    gets the same message either way)."""

    def register(func: F) -> F:
        if operation.name in _FAST:
            raise RuntimeError(f"two reference fast paths for {operation.name!r}")
        _FAST[operation.name] = func
        return func

    return register


@cache
def fast_paths() -> dict[str, Callable[[Any], Any]]:
    """The registered hot paths by operation name (after :func:`handlers`)."""
    handlers()
    return dict(_FAST)


@cache
def handlers() -> dict[str, tuple[Operation, Callable[[Any], Any]]]:
    """Every handled operation by name: its contract and its handler."""
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        importlib.import_module(f"{__name__}.{info.name}")
    return dict(sorted(_REGISTRY.items()))
