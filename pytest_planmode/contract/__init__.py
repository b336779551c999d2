"""The operation contract: stable names with JSON input and output shapes.

Each module in this package declares ``OPERATIONS``, a list of
:class:`Operation`. :func:`operations` discovers them all, so an area adds an
operation by adding a module, without editing a central list.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from functools import cache

from pydantic import BaseModel


@dataclass(frozen=True)
class Operation:
    """One testable behaviour: a stable name, its input and output models."""

    name: str
    input: type[BaseModel]
    output: type[BaseModel]
    #: What the operation decides, in one sentence: the description of its
    #: published schemas and the first line `planmode explain` shows.
    summary: str
    #: "pure" decides from the input alone; "script" runs an event script
    #: on a virtual clock and answers with an observation trace.
    kind: str = "pure"
    #: Its inputs name files (under the roots of `contract.virtual_paths`):
    #: the harness gives each case a fresh sandbox and passes its roots.
    sandbox: bool = False

    def describe(self) -> str:
        """The summary and what the kind means, as the schemas publish it."""
        return f"{self.summary} {KINDS[self.kind]}"


#: What each operation kind means for a port.
KINDS = {
    "pure": "A pure operation: the output depends on the input alone.",
    "script": (
        "A script operation: the input is an event script on a virtual clock, the output what was observed."
    ),
}


@cache
def operations() -> dict[str, Operation]:
    """All operations of the contract, keyed by name, in name order."""
    found: dict[str, Operation] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for op in getattr(module, "OPERATIONS", ()):
            if op.name in found:
                raise RuntimeError(
                    f"operation {op.name!r} is declared twice (second time in {module.__name__})"
                )
            found[op.name] = op
    return dict(sorted(found.items()))


__all__ = ["KINDS", "Operation", "operations"]
