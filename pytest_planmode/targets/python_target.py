"""`python:package.module:attribute` and `reference` targets."""

from __future__ import annotations

import importlib
import inspect
import json
import traceback
from collections.abc import Mapping
from typing import Any

from pytest_planmode import SUITE_VERSION
from pytest_planmode.targets.base import (
    Handshake,
    Outcome,
    TargetError,
    parse_handshake,
    parse_response,
)


def load_object(path: str) -> Any:
    """Import `package.module:attribute` (the attribute may be dotted)."""
    module_name, sep, attr = path.partition(":")
    if not sep or not module_name or not attr:
        raise TargetError(
            f"python:{path}: expected python:package.module:attribute, "
            "for example python:myport.adapter:ADAPTER"
        )
    try:
        obj: Any = importlib.import_module(module_name)
    except Exception as exc:
        raise TargetError(f"python:{path}: cannot import {module_name!r}: {exc}") from exc
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise TargetError(f"python:{path}: {module_name!r} has no attribute {attr!r}") from None
    if isinstance(obj, type):
        obj = obj()
    for method in ("hello", "call"):
        if not callable(getattr(obj, method, None)):
            raise TargetError(
                f"python:{path}: the adapter has no {method}() method "
                "(an adapter needs hello(suite) and call(op, input))"
            )
    return obj


def _takes_roots(call: Any) -> bool:
    """An adapter's `call` receives the sandbox roots when it has a `roots`
    parameter (adapters written before roots existed keep working)."""
    try:
        return "roots" in inspect.signature(call).parameters
    except (TypeError, ValueError):
        return False


class PythonTarget:
    """An in-process adapter object. Its answers pass the same checks as
    answers read from a process, and inputs/outputs round-trip through JSON
    so both kinds of target see exactly the same data."""

    def __init__(self, adapter: Any, description: str) -> None:
        self.adapter = adapter
        self.description = description
        #: Whether the adapter takes the sandbox's roots; one that does not
        #: needs no sandbox (`Targets.request` creates none for it).
        self.uses_roots = _takes_roots(adapter.call)

    def handshake(self) -> Handshake:
        try:
            answer = self.adapter.hello(SUITE_VERSION)
        except Exception as exc:
            raise TargetError(f"{self.description}: hello() raised {exc!r}") from exc
        return parse_handshake(answer, self.description)

    def request(
        self, operation: str, payload: Mapping[str, Any], roots: Mapping[str, str] | None = None
    ) -> Outcome:
        copied = json.loads(json.dumps(payload))
        try:
            if roots is not None and self.uses_roots:
                answer = self.adapter.call(operation, copied, roots=dict(roots))
            else:
                answer = self.adapter.call(operation, copied)
        except Exception:
            return Outcome(
                "failure",
                message=f"{self.description}: call({operation!r}) raised:\n{traceback.format_exc()}",
            )
        try:
            answer = json.loads(json.dumps(answer))
        except RecursionError:
            # The kit's own copy gives up, not the adapter: no traceback of ours.
            return Outcome(
                "failure",
                message=f"{self.description}: the answer to call({operation!r}) is nested too deeply "
                "for the kit to read (answer too deep: the kit's JSON copy of it ran out of recursion); "
                "answers must stay far below Python's recursion limit",
            )
        except (TypeError, ValueError) as exc:
            return Outcome(
                "failure",
                message=f"{self.description}: the answer to call({operation!r}) is not JSON data: {exc}",
            )
        return parse_response(answer, self.description)

    def close(self) -> int | None:
        close = getattr(self.adapter, "close", None)
        if callable(close):
            close()
        return 0
