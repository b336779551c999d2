"""The run's targets: each started and its handshake checked before
collection, asked one request at a time, and closed at the end (an `exec:`
target must then exit with status 0)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from pytest_planmode import lineup
from pytest_planmode.contract import operations
from pytest_planmode.contract.virtual_paths import sandbox
from pytest_planmode.harness.options import Options, TargetFiles, expectations_files, target_option
from pytest_planmode.targets import Handshake, Outcome, Target, TargetError, resolve_target


@dataclass
class Judged:
    """One target of the run: its process or object, its handshake, its
    expectations and, at the end, its exit status."""

    name: str
    spec: str
    target: Target | None
    handshake: Handshake
    files: TargetFiles = field(default_factory=TargetFiles)
    exit_status: int | None = 0

    @property
    def expectations(self) -> dict[str, str]:
        return self.files.expectations

    def stop(self) -> None:
        """End of input: close the target; an exec: target must exit with status 0."""
        if self.target is not None:
            status = self.target.close()
            self.target = None
            if self.exit_status == 0:
                self.exit_status = status


class Targets:
    """Target name -> its target, in the order given."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.judged: dict[str, Judged] = {}

    def start(self) -> None:
        """Start every target; one that cannot be used is a usage error and
        the ones already started are closed."""
        options = self.options
        started: list[tuple[Target, Handshake]] = []
        try:
            for given in options.targets:
                target = resolve_target(
                    given.spec,
                    timeout=options.timeout,
                    startup_timeout=options.startup_timeout,
                    max_line=options.max_line,
                    option=lambda name: target_option(options, name),
                )
                started.append((target, target.handshake()))
        except TargetError as exc:
            for target, _ in started:
                target.close()
            where = f" {given.spec}" if len(options.targets) > 1 else ""
            raise pytest.UsageError(f"--planmode-target{where}: {exc}") from None
        announced = [str(h.implementation.get("name", "")) for _, h in started]
        names = lineup.assign_names(options.targets, announced)
        for name, given, (target, handshake) in zip(names, options.targets, started, strict=True):
            self.judged[name] = Judged(name, given.spec, target, handshake)
        try:
            files = expectations_files(options, names)
        except pytest.UsageError:
            self.stop()
            raise
        for name, judged in self.judged.items():
            judged.files = files[name]

    def release(self) -> None:
        """Under xdist each worker starts its own targets; the controller's
        processes were only needed to check the handshakes."""
        for judged in self.judged.values():
            if judged.target is not None:
                judged.target.close()
                judged.target = None

    def stop(self) -> None:
        for judged in self.judged.values():
            judged.stop()

    def request(self, name: str, operation: str, payload: Mapping[str, Any]) -> Outcome:
        """One request to target `name`; an operation whose inputs name files
        gets a fresh sandbox (one directory per root), removed after the
        answer, unless the target takes no roots (a Python adapter whose
        `call` has no `roots` parameter, such as the reference's)."""
        target = self.judged[name].target
        assert target is not None
        spec = operations().get(operation)
        if spec is None or not spec.sandbox or not getattr(target, "uses_roots", True):
            return target.request(operation, payload)
        with sandbox() as roots:
            return target.request(operation, payload, roots)

    def observes_effects_only(self, name: str) -> bool:
        return self.judged[name].handshake.observes == "effects"

    def first(self) -> str:
        return next(iter(self.judged))
