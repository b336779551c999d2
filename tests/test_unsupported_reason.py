"""An `unsupported` answer's skip reason keeps the target's own reason, in
the report and on the terminal."""

from __future__ import annotations

import pytest

from pytest_planmode.harness.verdict import unsupported_reason
from pytest_planmode.suite import FIXTURES_DIR
from tests.pi_examples import PLAN_EXAMPLE


def test_the_reason_names_the_operation_and_the_targets_reason() -> None:
    assert unsupported_reason("a.b", "needs a terminal") == (
        "unsupported: the target answered unsupported for a.b: needs a terminal"
    )
    assert unsupported_reason("a.b", "a.b: no translation") == (
        "unsupported: the target answered unsupported for a.b: no translation"
    )
    assert unsupported_reason("a.b", None) == "unsupported: the target answered unsupported for a.b"
    assert unsupported_reason("a.b", "  ") == "unsupported: the target answered unsupported for a.b"


def test_a_case_answered_unsupported_keeps_the_targets_reason(pytester: pytest.Pytester, suite) -> None:  # type: ignore[no-untyped-def]
    # The pi-plan-mode example registers no /mode command: the pi: target
    # answers opl-modes cases unsupported and says why.
    run = suite(
        f"pi:{PLAN_EXAMPLE}",
        "-rs",
        str(FIXTURES_DIR / "oplmodes" / "cycling.toml"),
    )
    assert run.report is not None, run.text[-3000:]
    reasons = run.report["skipReasons"]
    assert reasons, run.text[-3000:]
    some = next(iter(reasons.values()))
    assert some.startswith("unsupported: the target answered unsupported for oplmodes."), some
    assert "registers no /mode command" in some, some
    assert "registers no /mode command" in run.text
