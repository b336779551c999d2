"""One real-Pi host per Pi version for the whole test run.

Starting a real Pi host costs seconds (it imports Pi; about 15 s on a
loaded machine), so the tests that only need a host to run scripts share
one process per version: a `pi:` target on the example extension, whose
host also runs any other extension's script. Tests of starting and
stopping a host make their own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_planmode.hosts.pi import install
from pytest_planmode.hosts.pi.client import PiHost, Sandbox
from pytest_planmode.matching import mismatches
from pytest_planmode.targets.pi import TRANSLATIONS, HostRun
from pytest_planmode.targets.pi_target import PiTarget
from tests.pi_examples import PLAN_EXAMPLE, case, shared_host

VERSIONS = install.VERSIONS


def installed(version: str) -> install.Installation:
    try:
        return install.find(version)
    except install.InstallError as exc:
        pytest.fail(f"{exc} (the real-Pi tests need `{install.install_command(list(VERSIONS))}`)")


class SharedPi:
    """The `pi:` target on the example for one Pi version (`target`), and
    its host process (`host`), which runs a script of any extension."""

    def __init__(self, version: str, parent: Path) -> None:
        installed(version)
        self.version = version
        self.parent = parent
        self.target = PiTarget(str(PLAN_EXAMPLE), pi=version, timeout=120, host=shared_host(version))
        self.target.handshake()

    @property
    def host(self) -> PiHost:
        return self.target.host

    def run(self, extension: Path, script: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
        sandbox = Sandbox.create(self.parent)
        try:
            return self.host.run(extension, sandbox, script, options)
        finally:
            sandbox.remove()

    def results(self, extension: Path, script: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return list(self.run(extension, script)["results"])

    def judge(self, entry: Path, case_id: str) -> list[str]:
        """What the extension at `entry` gets wrong in the case through this
        host, as the `pi:` target reads it (its translation, one run)."""
        c = case(case_id)
        translation = TRANSLATIONS[c.operation]
        sandbox = Sandbox.create(self.parent)
        try:
            script = translation.script(c.input, sandbox)
            run = HostRun.from_answer(self.host.run(entry, sandbox, script, dict(translation.options)))
        finally:
            sandbox.remove()
        refused = [r["refused"] for r in run.results if r.get("refused")]
        assert not refused, f"{case_id}: refused: {refused[0]}"
        return mismatches(c.expect, translation.effects(c.input, run))

    def close(self) -> None:
        self.target.close()


class SharedHosts:
    """The run's shared hosts, started on first use, closed at its end."""

    def __init__(self, factory: pytest.TempPathFactory) -> None:
        self._factory = factory
        self._hosts: dict[str, SharedPi] = {}

    def __call__(self, version: str) -> SharedPi:
        if version not in self._hosts:
            self._hosts[version] = SharedPi(version, self._factory.mktemp(f"pi-{version}"))
        return self._hosts[version]

    def close(self) -> None:
        for host in self._hosts.values():
            host.close()
        self._hosts.clear()
