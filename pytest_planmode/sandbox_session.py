"""The sandbox side of a conformance run (`--planmode-sandbox`): one
sandbox per process, started on first use, results cached per command,
the target's verdict on a command asked once per process whichever level's
check asks it, counts for the terminal summary. Registered by the harness only when the
option is on."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import Any, Protocol

import pytest

from pytest_planmode.sandbox import Result, Sandbox, SandboxUnavailable
from pytest_planmode.sandbox.commands import programs_in
from pytest_planmode.strategies.sandbox_table import POWERSHELL, PROGRAMS, RUNNER_PROGRAMS, Program


class Asker(Protocol):
    """What the sandbox session asks a target through (the property checks'
    target client; named here so that this module imports no harness)."""

    name: str

    def call(self, operation: str, payload: Mapping[str, Any]) -> dict[str, Any]: ...


def sandbox_flag(value: Any) -> bool:
    """`--planmode-sandbox` (True) or the ini key `planmode_sandbox`."""
    if value is None or value is True or value is False:
        return bool(value)
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("", "0", "false", "no", "off"):
        return False
    raise pytest.UsageError(f"planmode_sandbox must be true or false, got {value!r}")


def sandbox_programs(value: Any) -> frozenset[str] | None:
    """`--planmode-sandbox-programs NAME[,NAME...]` (ini
    `planmode_sandbox_programs`): reviewed program names, checked against
    the program table; None when not given."""
    if value is None:
        return None
    names = [name.strip() for name in str(value).split(",")]
    known = {program.name for program in PROGRAMS + POWERSHELL + RUNNER_PROGRAMS}
    if not any(names) or not all(names):
        raise pytest.UsageError(
            f"--planmode-sandbox-programs {value!r}: give program names separated by commas, e.g. 'git,grep'"
        )
    unknown = sorted(set(names) - known)
    if unknown:
        raise pytest.UsageError(
            f"--planmode-sandbox-programs: {', '.join(map(repr, unknown))} "
            f"{'is not a reviewed program' if len(unknown) == 1 else 'are not reviewed programs'}; "
            f"the reviewed programs are: {', '.join(sorted(known))}"
        )
    return frozenset(names)


class SandboxSession:
    PLUGIN_NAME = "planmode-sandbox"

    def __init__(self, config: pytest.Config, programs: frozenset[str] | None = None) -> None:
        self.config = config
        #: The programs judged (`--planmode-sandbox-programs`); None for all.
        self.chosen = programs
        self.is_worker = hasattr(config, "workerinput")
        self._sandbox: Sandbox | None = None
        self._tried = False
        self.unavailable: str | None = None
        self.results: dict[tuple[str, str], Result] = {}
        self.verdicts: dict[tuple[str, str, str], dict[str, Any]] = {}
        self.exempt: set[str] = set()
        self.counts: Counter[str] = Counter()

    def sandbox(self) -> Sandbox:
        """The sandbox; skips the calling check when it cannot start."""
        if not self._tried:
            self._tried = True
            try:
                self._sandbox = Sandbox()
            except SandboxUnavailable as exc:
                self.unavailable = str(exc)
        if self._sandbox is None:
            pytest.skip(f"sandbox unavailable: {self.unavailable}")
        return self._sandbox

    def selects(self, command: str) -> bool:
        """Whether the checks judge `command`: always, unless programs were
        chosen; then when the line names one of them."""
        return self.chosen is None or not self.chosen.isdisjoint(programs_in(command))

    def programs(self, *, powershell: bool) -> list[Program] | None:
        """The table entries the sweep and the generator draw from; None for all."""
        if self.chosen is None:
            return None
        return [
            program for program in (POWERSHELL if powershell else PROGRAMS) if program.name in self.chosen
        ]

    def verdict(self, target: Asker, operation: str, payload: Mapping[str, Any]) -> dict[str, Any]:
        """The target's answer to `payload`, asked once per process: the
        `must` and the `reference` check of a kind judge the same commands
        on the same answer, so the second asks nothing (against a real Pi
        each question is a fresh start of Pi). Only an output is kept; a
        question that fails the check is asked again by the next one."""
        key = (target.name, operation, json.dumps(payload, sort_keys=True, ensure_ascii=False))
        if key not in self.verdicts:
            self.verdicts[key] = target.call(operation, payload)
        return self.verdicts[key]

    def run(self, shell: str, command: str) -> Result:
        key = (shell, command)
        if key not in self.results:
            try:
                result = self.sandbox().run(command, shell=shell)
            except SandboxUnavailable as exc:
                # It started and then broke: every later check skips too.
                self.unavailable = str(exc)
                self.close()
                pytest.skip(f"sandbox unavailable: {exc}")
            self.results[key] = result
            self.counts[result.status] += 1
            self.counts["with effects"] += bool(result.effects)
        return self.results[key]

    def note_exempt(self, command: str) -> None:
        if command not in self.exempt:
            self.exempt.add(command)
            self.counts["exempt"] += 1

    def close(self) -> None:
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None

    # -- hooks ------------------------------------------------------------------

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.close()
        if self.is_worker:
            self.config.workeroutput["planmode_sandbox"] = {  # type: ignore[attr-defined]
                "counts": dict(self.counts),
                "unavailable": self.unavailable,
            }

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        data = getattr(node, "workeroutput", {}).get("planmode_sandbox")
        if isinstance(data, dict):
            self.counts.update(data.get("counts", {}))
            self.unavailable = self.unavailable or data.get("unavailable")

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.is_worker:
            return
        tr = terminalreporter
        if self.unavailable:
            tr.write_line(
                f"planmode sandbox: unavailable ({self.unavailable}); the sandbox checks were skipped",
                yellow=True,
            )
            return
        counts = self.counts
        tr.write_line(
            f"planmode sandbox: {counts['observed'] + counts['inconclusive']} commands run: "
            f"{counts['observed']} observed ({counts['with effects']} with some effect; a check fails "
            "only on the effects its level forbids), "
            f"{counts['inconclusive']} inconclusive; {counts['exempt']} exempt (not run)"
            + (f"; programs judged: {', '.join(sorted(self.chosen))}" if self.chosen is not None else "")
        )
