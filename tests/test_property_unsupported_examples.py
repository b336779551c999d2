"""A property check through a target that supports an operation for some
inputs only (a Pi host answers `unsupported` per case): the examples it
answers are judged, the others set aside; a check none of whose examples
was answered is skipped, with the target's reason."""

from __future__ import annotations

import pytest
from conftest import python_adapter

from pytest_planmode.suite import CONFORMANCE_DIR

CHECK = f"{CONFORMANCE_DIR / 'test_oplmodes_plans.py'}::test_names_without_letter_or_digit_are_rejected"
CHECK_ID = "oplmodes.plans.property.no-alnum-rejected"

#: Answers unsupported where `unsupported` holds; otherwise the reference,
#: or (WRONG) accepts every other name it answers.
BODY = """
from pytest_planmode.targets.reference.adapter import REFERENCE
if {unsupported}:
    return {{"unsupported": True}}
if {wrong}:
    return {{"output": {{"accepted": True, "path": ".pi/plans/plan-x.md", "reason": None}}}}
return REFERENCE.call(op, input)
"""


def _port(pytester: pytest.Pytester, name: str, unsupported: str, wrong: str = "False") -> str:
    return python_adapter(pytester, name, BODY.format(unsupported=unsupported, wrong=wrong))


def test_examples_answered_unsupported_are_set_aside_and_the_rest_judged(pytester, suite) -> None:  # type: ignore[no-untyped-def]
    target = _port(pytester, "partial_port", "len(input['value']) % 2 == 0")
    run = suite(target, CHECK)
    assert run.report is not None, run.text[-3000:]
    assert run.report["results"][CHECK_ID] == "passed", run.text[-3000:]


def test_a_wrong_answer_among_supported_examples_still_fails(pytester, suite) -> None:  # type: ignore[no-untyped-def]
    target = _port(pytester, "partial_wrong_port", "len(input['value']) % 2 == 0", wrong="True")
    run = suite(target, CHECK)
    assert run.report is not None, run.text[-3000:]
    assert run.report["results"][CHECK_ID] == "failed", run.text[-3000:]
    assert "has no letter or digit but was accepted" in run.text


def test_a_check_with_no_supported_example_is_skipped_with_the_reason(pytester, suite) -> None:  # type: ignore[no-untyped-def]
    target = _port(pytester, "never_port", "True")
    run = suite(target, CHECK, "-rs")
    assert run.report is not None, run.text[-3000:]
    assert run.report["results"][CHECK_ID] == "skipped", run.text[-3000:]
    reason = run.report["skipReasons"][CHECK_ID]
    assert reason.startswith("unsupported: the target answered unsupported for every generated example")
    assert reason.endswith("(the last: oplmodes.plans.resolve)")
