"""The adapter's one conversion rule: fields by attribute name, overrides by keyword."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from pydantic import ValidationError

from pytest_planmode.contract.oplmodes_plans import PlansResolveOutput
from pytest_planmode.contract.planmode_shell import ShellCheckOutput
from pytest_planmode.targets.reference.convert import output, value


@dataclass(frozen=True)
class _Resolved:
    accepted: bool
    path: str | None
    reason: str | None
    unrelated: int = 3


def test_an_output_reads_the_attributes_of_its_field_names_only() -> None:
    out = output(PlansResolveOutput, _Resolved(True, ".pi/plans/plan-x.md", None))
    assert out.model_dump(by_alias=True) == {"accepted": True, "path": ".pi/plans/plan-x.md", "reason": None}


def test_a_keyword_overrides_the_attribute_of_that_name() -> None:
    out = output(PlansResolveOutput, _Resolved(True, "a", None), reason="why", path=None)
    assert (out.accepted, out.path, out.reason) == (True, None, "why")


def test_a_missing_required_field_is_an_error_not_a_silent_default() -> None:
    @dataclass(frozen=True)
    class Partial:
        blocked: str | None

    # `allowed` is an effect (required); `blocked`, an explanation, may be absent.
    with pytest.raises(ValidationError, match="allowed"):
        output(ShellCheckOutput, Partial("rm -rf x"))


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


# -- the adapter's hot paths ---------------------------------------------------

_HOT = [
    ("planmode.bash.check", {"command": "ls && rm -rf x", "cwd": "/p"}),
    (
        "planmode.bash.check",
        {"command": "kubectl get pods", "cwd": "/p", "safeSubcommands": {"kubectl": ["get"]}},
    ),
    ("planmode.bash.check", {"command": "ls", "cwd": "/p", "safeSubcommands": None}),
    ("planmode.bash.check", {"command": "ls", "cwd": "/p", "safeSubcommands": {"git": "log"}}),
    ("planmode.bash.check", {"command": "", "cwd": "/p"}),
    ("planmode.bash.check", {"command": "echo $(x)", "cwd": "/p"}),
    ("planmode.powershell.check", {"command": "Get-ChildItem | Select-Object Name", "cwd": "/p"}),
    (
        "planmode.powershell.check",
        {"command": "kubectl get x", "cwd": "/p", "safeSubcommands": {"kubectl": ["get"]}},
    ),
    ("oplmodes.bash.check", {"command": "ls | rm -rf /", "mode": "plan"}),
    ("oplmodes.bash.check", {"command": "cat f", "mode": "execute"}),
    ("oplmodes.bash.check", {"command": "   ", "mode": "chat"}),
]


def _validated(op: str, payload: dict[str, object]) -> object:
    """The answer of the validated path: input model, handler, output dump."""
    from pytest_planmode.targets.reference.ops import handlers

    spec, func = handlers()[op]
    result = func(spec.input.model_validate(payload, strict=True))
    return result.model_dump(mode="json", by_alias=True)


@pytest.mark.parametrize(("op", "payload"), _HOT, ids=[f"{op}:{p['command']!r}" for op, p in _HOT])
def test_a_hot_path_answers_exactly_what_the_validated_path_answers(
    op: str, payload: dict[str, object]
) -> None:
    from pytest_planmode.targets.reference.adapter import REFERENCE
    from pytest_planmode.targets.reference.ops import fast_paths

    fast = fast_paths()[op](payload)
    assert fast is not None, "the common shape takes the hot path"
    assert fast == _validated(op, payload)
    assert REFERENCE.call(op, payload) == {"output": fast}


@pytest.mark.parametrize(
    ("op", "payload", "message"),
    [
        ("planmode.bash.check", {"command": 1, "cwd": "/p"}, "command"),
        ("planmode.bash.check", {"command": "ls", "cwd": "/p", "extra": 1}, "extra"),
        ("planmode.bash.check", {"command": "ls"}, "cwd"),
        ("planmode.powershell.check", {"command": "ls", "cwd": None}, "cwd"),
        ("oplmodes.bash.check", {"command": "ls", "mode": 3}, "mode"),
        ("oplmodes.bash.check", {"command": "ls", "mode": "plan", "config": []}, "config"),
    ],
)
def test_a_payload_of_another_shape_gets_the_validated_paths_message(
    op: str, payload: dict[str, object], message: str
) -> None:
    from pytest_planmode.targets.reference.adapter import REFERENCE
    from pytest_planmode.targets.reference.ops import fast_paths

    assert fast_paths()[op](payload) is None
    answer = REFERENCE.call(op, payload)
    assert "error" in answer and message in answer["error"]["message"], answer
