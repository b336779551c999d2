"""Resolve a `--planmode-target` string to a target."""

from __future__ import annotations

from pytest_planmode.targets.base import Target, TargetError

KINDS = "reference, python:package.module:attribute, or exec:<command line>"


def resolve_target(spec: str, *, timeout: float, max_line: int | None = None) -> Target:
    """`reference`, `python:pkg.mod:attr` or `exec:<command line>`."""
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

        return ExecTarget(spec[len("exec:") :], timeout=timeout, max_line=max_line)
    raise TargetError(f"unknown target {spec!r}: expected {KINDS}")
