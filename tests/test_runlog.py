"""How a run of the project's own tests reads in a CI log (tests/runlog.py):
the whole-suite tests are out of the fast gate, a long test is named while
it runs, and a CI run prints a line per test and ends with the slowest tests."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import ROOT, TESTS

SAMPLE = """
import time

import pytest


def test_quick():
    pass


def test_slow():
    print("captured output")
    time.sleep(2.6)


@pytest.mark.whole_suite
def test_everything():
    pass
"""


@pytest.fixture
def sample(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makepyfile(test_sample=SAMPLE)
    pytester.makeini("[pytest]\nmarkers =\n    other: a marker no test carries\n")
    monkeypatch.setenv("PYTHONPATH", str(TESTS))
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("PLANMODE_TESTS_HEARTBEAT", "0.8")
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "runlog", "-p", "no:cacheprovider", "--strict-markers", *args)


def test_whole_suite_tests_run_only_when_the_marker_expression_names_them(sample: pytest.Pytester) -> None:
    default = run(sample)
    default.assert_outcomes(passed=2, deselected=1)
    other = run(sample, "-m", "not other")
    other.assert_outcomes(passed=2, deselected=1)
    whole = run(sample, "-m", "whole_suite", "-v")
    whole.assert_outcomes(passed=1, deselected=2)
    whole.stdout.fnmatch_lines(["*test_everything PASSED*"])


def test_a_long_test_is_named_while_it_runs(sample: pytest.Pytester) -> None:
    result = run(sample)
    lines = [line for line in result.stdout.lines if "running for" in line]
    assert lines and all("test_sample.py::test_slow running for" in line for line in lines), (
        result.stdout.str()
    )
    # The result letters go on after the file's name again; captured output stays captured.
    result.stdout.fnmatch_lines(["*test_slow running for * s", "test_sample.py .*"])
    assert "captured output" not in result.stdout.str()


def test_no_line_when_the_heartbeat_is_off(sample: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANMODE_TESTS_HEARTBEAT", "0")
    result = run(sample)
    result.assert_outcomes(passed=2, deselected=1)
    assert "running for" not in result.stdout.str()


def test_a_ci_run_prints_a_line_per_test_and_the_slowest_tests(
    sample: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "slowest 25 durations" not in run(sample).stdout.str()
    monkeypatch.setenv("CI", "1")
    result = run(sample)
    # One line per test, each test's line complete when it ends.
    result.stdout.fnmatch_lines(
        [
            "test_sample.py::test_quick PASSED*",
            "test_sample.py::test_slow ",
            "    ... test_sample.py::test_slow running for * s",
            "*test_sample.py::test_slow PASSED*",
            "*slowest 25 durations*",
            "*s call *test_sample.py::test_slow",
        ]
    )
    assert "slowest 3 durations" in run(sample, "--durations=3").stdout.str()


def test_the_project_marks_its_whole_suite_runs() -> None:
    """The fast gate of this repository leaves the whole-suite runs out,
    and `-m whole_suite` selects exactly them."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")}
    files = ["tests/test_conformance_full.py", "tests/test_node_target.py", "tests/test_wheel.py"]

    def collected(*args: str) -> set[str]:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--co", "-q", *args, *files],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
        return {line.split("::", 1)[1] for line in done.stdout.splitlines() if "::" in line}

    whole = {
        "test_suite_passes_identically_through_reference_and_exec",
        "test_suite_passes_the_implemented_operations_and_skips_the_rest",
        "test_wrong_variant_fails_exactly_the_cases_that_pin_the_rule",
        "test_wheel_runs_the_whole_suite",
    }
    fast = collected()
    assert fast and not fast & whole
    assert collected("-m", "whole_suite") == whole
