from __future__ import annotations

import json
import os
import shlex
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import runlog

# Imported here so that pytester's inline runs, which restore sys.modules after
# each run, keep using one copy of the harness and its exception classes.
import pytest_planmode.harness
import pytest_planmode.targets.exec_target
import pytest_planmode.targets.python_target  # noqa: F401
from pytest_planmode import hypothesis_profiles
from pytest_planmode.suite import CONFORMANCE_DIR, FIXTURES_DIR

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
PLANS = FIXTURES_DIR / "oplmodes" / "plans.toml"
PLANS_PROPERTIES = CONFORMANCE_DIR / "test_oplmodes_plans.py"
BROKEN = TESTS / "targets" / "broken.py"
SERVE = f"exec:{shlex.join([sys.executable, '-m', 'pytest_planmode.serve'])}"


#: A valid fixture file with one case; written twice it makes a duplicate id.
ONE_CASE_TOML = """\
[[group]]
description = "d"
operation = "oplmodes.plans.resolve"
spec = "opl-modes.md § Commands, flags, and shortcuts"
level = "must"
  [[group.case]]
  id = "same.id"
  input = { source = "command", value = "a" }
  expect = { accepted = true }
"""


def broken(mode: str, nth: int = 3) -> str:
    return f"exec:{shlex.join([sys.executable, str(BROKEN), mode, str(nth)])}"


def python_adapter(
    pytester: pytest.Pytester,
    name: str,
    call_body: str,
    operations: tuple[str, ...] = ("oplmodes.plans.resolve",),
) -> str:
    """Write an adapter module `name` whose `call(op, input)` runs `call_body`
    and whose handshake lists `operations`; return its `python:` target."""
    body = textwrap.indent(textwrap.dedent(call_body).strip(), " " * 8)
    pytester.makepyfile(
        **{
            name: (
                "class Adapter:\n"
                "    def hello(self, suite):\n"
                f"        return {{'protocol': 1, 'implementation': {{'name': {name!r}}}, "
                f"'operations': {list(operations)!r}}}\n"
                "    def call(self, op, input):\n"
                f"{body}\n"
            )
        }
    )
    pytester.syspathinsert()
    return f"python:{name}:Adapter"


class SuiteRun:
    def __init__(self, result: pytest.RunResult, document: dict[str, Any] | None) -> None:
        self.result = result
        #: The whole JSON report; `report` is its one target's part.
        self.document = document
        self.report = self.target(None) if document and len(document["targets"]) == 1 else None

    def target(self, name: str | None) -> dict[str, Any]:
        """One target's part of the report (the only one when `name` is None)."""
        assert self.document is not None, self.result.stdout.str()
        targets = self.document["targets"]
        if name is None:
            assert len(targets) == 1, [t["name"] for t in targets]
            return dict(targets[0])
        return dict(next(t for t in targets if t["name"] == name))

    @property
    def outcomes(self) -> dict[str, str]:
        assert self.report is not None, self.result.stdout.str()
        out = {f["id"]: f["outcome"] for f in self.report["failures"]}
        return out

    @property
    def text(self) -> str:
        return self.result.stdout.str() + self.result.stderr.str()


def run_suite(pytester: pytest.Pytester, target: str, *args: str, subprocess: bool = False) -> SuiteRun:
    report = pytester.path / "planmode-report.json"
    if report.exists():
        report.unlink()
    argv = [f"--planmode-target={target}", f"--planmode-report={report}", "-p", "no:cacheprovider", *args]
    # Derandomized draws: a test proving that a property catches a planted
    # bug passes on every run, not on a lucky one.
    if subprocess:
        saved = os.environ.get("CI")
        os.environ["CI"] = "1"
        try:
            result = pytester.runpytest_subprocess(*argv)
        finally:
            if saved is None:
                del os.environ["CI"]
            else:
                os.environ["CI"] = saved
    else:
        result = pytester.runpytest(f"--hypothesis-profile={hypothesis_profiles.CI}", *argv)
    data = json.loads(report.read_text()) if report.exists() else None
    return SuiteRun(result, data)


@pytest.fixture
def suite(pytester: pytest.Pytester):  # type: ignore[no-untyped-def]
    def run(target: str, *args: str, subprocess: bool = False) -> SuiteRun:
        return run_suite(pytester, target, *args, subprocess=subprocess)

    return run


@pytest.fixture(scope="session")
def real_pi(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """`real_pi(version)`: the run's one real-Pi host for that Pi version
    (tests/pi_real_hosts.py), started on first use."""
    from tests.pi_real_hosts import SharedHosts

    hosts = SharedHosts(tmp_path_factory)
    yield hosts
    hosts.close()


def pytest_configure(config: pytest.Config) -> None:
    # The project's own tests draw the same examples on every run (the
    # derandomized profile), so a newcomer's first run is the CI run.
    hypothesis_profiles.register()
    config.addinivalue_line("markers", "whole_suite: runs a whole example through a target (slow)")
    if not config.getoption("hypothesis_profile", None):
        hypothesis_profiles.load(hypothesis_profiles.CI)
    # The fast gate, the slowest tests listed under CI, and a line while a
    # long test runs (tests/runlog.py).
    runlog.configure(config)


#: A python: adapter module that gets one rule wrong: it accepts plan names
#: without a letter or digit (opl-modes.md § Commands, flags, and shortcuts).
WRONG_PLANS_ADAPTER = """
from pytest_planmode.targets.reference.adapter import REFERENCE


class Adapter:
    def hello(self, suite):
        return {"protocol": 1, "implementation": {"name": "wrong plans", "version": "9.9", "language": "python"},
                "operations": ["oplmodes.plans.resolve"]}

    def call(self, op, input):
        answer = REFERENCE.call(op, input)
        if input["source"] == "command" and not any(ch.isalnum() for ch in input["value"]):
            answer["output"] = {"accepted": True, "path": ".pi/plans/plan-.md", "reason": None}
        return answer
"""


def side_by_side_report(directory: Path) -> Path:
    """Run the plans fixtures against the reference and the wrong adapter in
    one pytest process; return the JSON report's path."""
    import os
    import subprocess

    (directory / "wrongplans.py").write_text(WRONG_PLANS_ADAPTER)
    report = directory / "report.json"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")}
    env["PYTHONPATH"] = str(directory)
    done = subprocess.run(
        [
            sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
            "--planmode-target=reference", "--planmode-target=wrong=python:wrongplans:Adapter",
            f"--planmode-report={report}", str(PLANS), str(PLANS_PROPERTIES),
        ],
        cwd=directory, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    assert report.is_file(), done.stdout[-3000:]
    return report
