"""The shipped suite passes against the reference, with identical results
through `reference` and through `exec:python -m pytest_planmode.serve`.

The fast gate runs every fixture case both ways (the property checks run
both ways in test_side_by_side.py, on the plan-name module); the whole
suite, every property check included, is a `whole_suite` test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SERVE

from pytest_planmode.suite import FIXTURES_DIR, load_suite


def full_run(pytester: pytest.Pytester, target: str, *args: str) -> dict[str, object]:
    report = pytester.path / f"report-{abs(hash(target))}.json"
    result = pytester.runpytest_subprocess(
        f"--planmode-target={target}", f"--planmode-report={report}", "-p", "no:cacheprovider", *args
    )
    assert result.ret == 0, result.stdout.str()[-6000:] + result.stderr.str()[-2000:]
    (data,) = json.loads(Path(report).read_text())["targets"]
    assert isinstance(data, dict)
    return data


def test_every_fixture_case_passes_identically_through_reference_and_exec(pytester: pytest.Pytester) -> None:
    ref = full_run(pytester, "reference", "--planmode-strict", str(FIXTURES_DIR))
    wire = full_run(pytester, SERVE, "--planmode-strict", str(FIXTURES_DIR))
    assert ref["results"] == wire["results"]
    results = ref["results"]
    assert isinstance(results, dict)
    assert set(results) == {c.id for c in load_suite()}
    assert set(results.values()) == {"passed"}
    assert ref["totals"] == wire["totals"]


@pytest.mark.whole_suite
def test_suite_passes_identically_through_reference_and_exec(pytester: pytest.Pytester) -> None:
    ref = full_run(pytester, "reference", "--planmode-strict")
    wire = full_run(pytester, SERVE, "--planmode-strict")
    assert ref["results"] == wire["results"]
    results = ref["results"]
    assert isinstance(results, dict)
    assert {c.id for c in load_suite()} <= set(results)
    assert set(results) - {c.id for c in load_suite()}, "no property check ran"
    assert set(results.values()) == {"passed"}
