"""The adapter's one conversion rule: fields by attribute name, overrides by keyword."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from pydantic import ValidationError

from pytest_planmode.contract.oplmodes_plans import PlanResolveOutput
from pytest_planmode.contract.planmode_shell import ShellCheckOutput
from pytest_planmode.targets.reference.convert import output, value


@dataclass(frozen=True)
class _Resolved:
    accepted: bool
    path: str | None
    reason: str | None
    unrelated: int = 3


def test_an_output_reads_the_attributes_of_its_field_names_only() -> None:
    out = output(PlanResolveOutput, _Resolved(True, ".pi/plans/plan-x.md", None))
    assert out.model_dump(by_alias=True) == {"accepted": True, "path": ".pi/plans/plan-x.md", "reason": None}


def test_a_keyword_overrides_the_attribute_of_that_name() -> None:
    out = output(PlanResolveOutput, _Resolved(True, "a", None), reason="why", path=None)
    assert (out.accepted, out.path, out.reason) == (True, None, "why")


def test_a_missing_required_field_is_an_error_not_a_silent_default() -> None:
    @dataclass(frozen=True)
    class Partial:
        blocked: str

    # `allowed` is the one required (effect) field of a shell check.
    with pytest.raises(ValidationError, match="allowed"):
        output(ShellCheckOutput, Partial("rm -rf /"))


def test_a_reference_value_reads_a_contract_input_the_same_way() -> None:
    @dataclass(frozen=True)
    class Target:
        accepted: bool
        note: str = "default"

    assert value(Target, _Resolved(False, None, None)) == Target(False)
    assert value(Target, _Resolved(False, None, None), note="given") == Target(False, "given")

    @dataclass(frozen=True)
    class Needs:
        missing: str

    with pytest.raises(TypeError, match="missing"):
        value(Needs, _Resolved(False, None, None))
