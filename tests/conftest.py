from __future__ import annotations

import json
import os
import shlex
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

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
    def __init__(self, result: pytest.RunResult, report: dict[str, Any] | None) -> None:
        self.result = result
        self.report = report

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


def pytest_configure(config: pytest.Config) -> None:
    # The project's own tests draw the same examples on every run (the
    # derandomized profile), so a newcomer's first run is the CI run.
    hypothesis_profiles.register()
    if not config.getoption("hypothesis_profile", None):
        hypothesis_profiles.load(hypothesis_profiles.CI)
