"""The property checks of `conformance/` seen as cases: each has an id, the
operations it needs, a level, the spec section it cites and its rule in one
sentence, for the run's messages and for `planmode explain`.

A check is a test function of a conformance module carrying a
``@pytest.mark.planmode(...)`` marker, directly or on one parameter of a
``parametrize``. Its section is the marker's ``spec=`` or the module's
``SPEC``; its rule is the first sentence of the function's docstring, else
its name. A check that reads explanation fields names them
(``explains=(...)``); only a `reference` check may (:func:`must_checks_reading_explanations`).
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from pytest_planmode.suite import CONFORMANCE_DIR


@dataclass(frozen=True)
class PropertyCheck:
    id: str
    operations: tuple[str, ...]
    level: str
    spec: str
    rule: str
    module: str
    function: str
    #: The explanation fields it reads: a target that observes effects only skips it.
    explains: tuple[str, ...] = ()


def spec_of(function: Callable[..., Any], marker: Mapping[str, Any]) -> str:
    module = sys.modules.get(function.__module__)
    return str(marker.get("spec") or getattr(module, "SPEC", "") or "(no section cited)")


def rule_of(function: Callable[..., Any]) -> str:
    doc = inspect.getdoc(function)
    if doc:
        text = " ".join(doc.split("\n\n")[0].split())
        match = re.match(r"(.+?[.!?])(\s|$)", text)
        return match.group(1) if match else text
    name = function.__name__.removeprefix("test_").replace("_", " ")
    return name[:1].upper() + name[1:] + "."


def operations_of(marker: Mapping[str, Any]) -> tuple[str, ...]:
    ops = tuple(marker.get("operations", ()))
    return ops or (str(marker.get("operation")),)


def _markers(function: Callable[..., Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for mark in getattr(function, "pytestmark", []):
        if mark.name == "planmode":
            found.append(dict(mark.kwargs))
        elif mark.name == "parametrize" and len(mark.args) > 1:
            for param in mark.args[1]:
                for inner in getattr(param, "marks", ()):
                    if inner.name == "planmode":
                        found.append(dict(inner.kwargs))
    return found


def checks_in(module: ModuleType) -> dict[str, PropertyCheck]:
    """The property checks one conformance module defines, by id."""
    checks: dict[str, PropertyCheck] = {}
    for attr, function in sorted(vars(module).items()):
        if not attr.startswith("test_") or not callable(function):
            continue
        for marker in _markers(function):
            if not marker.get("id"):
                continue
            checks[marker["id"]] = PropertyCheck(
                id=marker["id"],
                operations=operations_of(marker),
                level=str(marker.get("level", "must")),
                spec=spec_of(function, marker),
                rule=rule_of(function),
                module=module.__name__,
                function=attr,
                explains=tuple(marker.get("explains", ())),
            )
    return checks


def property_checks() -> dict[str, PropertyCheck]:
    """Every property check of the shipped suite, by id."""
    checks: dict[str, PropertyCheck] = {}
    for path in sorted(CONFORMANCE_DIR.glob("test_*.py")):
        checks.update(checks_in(importlib.import_module(f"pytest_planmode.conformance.{path.stem}")))
    return checks


def must_checks_reading_explanations(checks: Iterable[PropertyCheck]) -> list[str]:
    """The `must` checks that read an explanation field, one line each.

    A `must` check states what an implementation visibly does, so it reads
    effects only; a rule that needs an explanation is a `reference` check
    (which a target observing effects only never meets, but never fails)."""
    return [
        f"{check.id} ({check.module}.{check.function}) reads {', '.join(check.explains)}"
        for check in checks
        if check.level == "must" and check.explains
    ]
