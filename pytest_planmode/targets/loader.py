"""Resolve a `--planmode-target` string to a target."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_planmode.targets.base import Target, TargetError

KINDS = "reference, python:package.module:attribute, exec:<command line> or pi:<extension module>"


def resolve_target(
    spec: str,
    *,
    timeout: float,
    startup_timeout: float | None = None,
    max_line: int | None = None,
    option: Callable[[str], Any] | None = None,
) -> Target:
    """`reference`, `python:pkg.mod:attr`, `exec:<command line>` or `pi:<extension
    module>`; `option(name)` reads a planmode option (`pi-node` for pi:)."""
    spec = spec.strip()
    if spec == "reference":
        from pytest_planmode.targets.python_target import PythonTarget
        from pytest_planmode.targets.reference.adapter import REFERENCE

        return PythonTarget(REFERENCE, "reference")
    if spec.startswith("python:"):
        from pytest_planmode.targets.python_target import PythonTarget, load_object

        return PythonTarget(load_object(spec[len("python:") :]), spec)
    if spec.startswith("exec:"):
        from pytest_planmode.targets.exec_target import ExecTarget

        return ExecTarget(
            spec[len("exec:") :], timeout=timeout, startup_timeout=startup_timeout, max_line=max_line
        )
    if spec.startswith("pi:"):
        from pytest_planmode.targets.pi_target import PiTarget

        node = option("pi-node") if option else None
        pi = option("pi") if option else None
        return PiTarget(spec[len("pi:") :].strip(), node=str(node) if node else None, timeout=timeout, pi=pi)
    raise TargetError(f"unknown target {spec!r}: expected {KINDS}")
