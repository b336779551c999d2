"""The tool-policy properties catch a target that widens a frozen allowlist
or runs a blocked name (they must be able to fail)."""

from __future__ import annotations

import textwrap

import pytest

from pytest_planmode.suite import CONFORMANCE_DIR

PROPERTIES = CONFORMANCE_DIR / "test_planmode_tools.py"

LEAKY = textwrap.dedent(
    """
    from pytest_planmode.targets.reference.adapter import REFERENCE

    class Leaky:
        '''The reference, except that it {what}.'''
        def hello(self, suite):
            return REFERENCE.hello(suite)
        def call(self, op, input):
            answer = REFERENCE.call(op, input)
            out = answer.get("output")
            if out is not None and op == "planmode.tools.authorize":
                for entry in out["trace"]:
                    if entry["type"] == "verdict" and entry["reason"] in {reasons}:
                        entry["verdict"], entry["reason"] = "allow", "allowed"
                out["verdicts"] = [e for e in out["trace"] if e["type"] == "verdict"]
            if out is not None and op == "planmode.tools.freeze" and {freeze_edit}:
                out["allowlist"] = out["allowlist"] + ["edit"]
            return answer
    """
)


@pytest.mark.parametrize(
    ("what", "reasons", "freeze_edit", "property_name"),
    [
        (
            "admits names activated later",
            {"not-admitted", "not-selected"},
            False,
            "freezing_never_widens",
        ),
        ("runs edit", {"policy-blocked"}, False, "calls_never_run"),
        ("runs hidden tools", {"hidden"}, False, "calls_never_run"),
        ("runs model-only tools nested", {"nested-model-only"}, False, "model_only"),
        ("admits edit at resolution", set(), True, "blocked_and_hidden"),
    ],
)
def test_properties_fail_a_leaky_target(
    pytester: pytest.Pytester,
    what: str,
    reasons: set[str],
    freeze_edit: bool,
    property_name: str,
) -> None:
    pytester.makepyfile(
        leaky=LEAKY.format(what=what, reasons=sorted(reasons) or "()", freeze_edit=freeze_edit)
    )
    pytester.syspathinsert()
    result = pytester.runpytest(
        "--hypothesis-profile=planmode-ci",
        "--planmode-target=python:leaky:Leaky",
        "-p",
        "no:cacheprovider",
        "-k",
        property_name,
        str(PROPERTIES),
    )
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) >= 1, result.stdout.str()


def test_properties_pass_the_reference(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "--hypothesis-profile=planmode-ci",
        "--planmode-target=reference",
        "-p",
        "no:cacheprovider",
        str(PROPERTIES),
    )
    result.assert_outcomes(passed=6)
