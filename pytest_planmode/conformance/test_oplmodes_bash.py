"""Properties of the opl-modes per-segment Bash gate (opl-modes.md § Mode
behavior, § Configuration) that hold for any target."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_planmode.strategies import oplmodes_bash as s

#: The section a failure of these checks cites (a marker's `spec=` overrides it).
SPEC = "opl-modes.md § Mode behavior"

if TYPE_CHECKING:
    from pytest_planmode.harness import TargetClient

OP = "oplmodes.bash.check"


def _check(target: TargetClient, command: object, mode: str, config: dict[str, Any] | None) -> dict[str, Any]:
    return target.call(OP, {"command": command, "mode": mode, "config": config})


@pytest.mark.planmode(operation=OP, level="must", id="oplmodes.bash.property.whitespace-around-operators")
@given(data=st.data(), segments=s.safe_commands())
def test_allowed_command_stays_allowed_under_whitespace_changes(
    planmode_target: TargetClient, data: st.DataObject, segments: list[str]
) -> None:
    tight = data.draw(s.joined(segments))
    loose = data.draw(s.joined(segments))
    for command in (tight, loose):
        out = _check(planmode_target, command, s.SAFE_MODE, s.SAFE_CONFIG)
        assert out["allowed"] is True, (
            f"{command!r} is made of safe segments but was blocked: {out.get('reason')}"
        )


@pytest.mark.planmode(operation=OP, level="must", id="oplmodes.bash.property.blocked-segment-joined")
@given(
    data=st.data(),
    segments=s.safe_commands(),
    bad=s.blocked_segments,
    form=st.sampled_from(
        [
            "before",
            "after",
            "dollar",
            "dollar-quoted",
            "backtick",
            "backtick-quoted",
            "process-in",
            "process-out",
        ]
    ),
)
def test_joining_a_blocked_segment_blocks(
    planmode_target: TargetClient, data: st.DataObject, segments: list[str], bad: str, form: str
) -> None:
    allowed = data.draw(s.joined(segments))
    sep = data.draw(s.binary_separators)
    command = {
        "before": f"{bad} {sep} {allowed}",
        "after": f"{allowed} {sep} {bad}",
        "dollar": f"{allowed} $({bad})",
        "dollar-quoted": f'{allowed} "$({bad})"',
        "backtick": f"{allowed} `{bad}`",
        "backtick-quoted": f'{allowed} "`{bad}`"',
        "process-in": f"{allowed} <({bad})",
        "process-out": f"{allowed} >({bad})",
    }[form]
    out = _check(planmode_target, command, s.SAFE_MODE, s.SAFE_CONFIG)
    assert out["allowed"] is False, f"{command!r} holds the unsafe segment {bad!r} but was allowed"


@pytest.mark.planmode(operation=OP, level="must", id="oplmodes.bash.property.primitive-however-quoted")
@given(
    data=st.data(),
    segments=s.safe_commands(),
    name=s.primitives,
    sep=s.binary_separators,
    where=st.integers(min_value=0, max_value=4),
)
def test_destructive_primitive_in_command_position_blocks(
    planmode_target: TargetClient, data: st.DataObject, segments: list[str], name: str, sep: str, where: int
) -> None:
    word = data.draw(s.obfuscated(name))
    parts = list(segments)
    parts.insert(min(where, len(parts)), f"{word} target.txt")
    command = f" {sep} ".join(parts)
    out = _check(planmode_target, command, s.WIDE_MODE, s.WIDE_CONFIG)
    assert out["allowed"] is False, f"{command!r} runs {name} ({word!r}) but was allowed"


# The spec does not say what a non-string command does: blocking it without
# coercion is the reference's choice.
@pytest.mark.planmode(operation=OP, level="reference", id="oplmodes.bash.property.non-string-blocked")
@given(command=s.non_strings, mode=st.sampled_from(["off", "execute", "chat", "plan", "review"]))
def test_non_string_commands_are_blocked(planmode_target: TargetClient, command: object, mode: str) -> None:
    out = _check(planmode_target, command, mode, None)
    assert out["allowed"] is False, f"the non-string command {command!r} was allowed in {mode}"


#: Read-only commands that merely mention a destructive program in an
#: argument (opl-modes.md § Mode behavior: "Program-name entries are anchored
#: to command position and matched per segment, so a read-only command that
#: merely *mentions* a dangerous word in an argument ... stays allowed").
_MENTIONS = (
    "cat {}.sh",
    "ls {}/",
    "grep -rn '{}' src",
    "git log --grep={}",
    "grep -c {} a.txt",
    "head -n 5 {}.log",
)


@pytest.mark.planmode(operation=OP, level="must", id="oplmodes.bash.property.mention-stays-allowed")
@given(
    data=st.data(),
    segments=s.safe_commands(),
    name=s.primitives,
    template=st.sampled_from(_MENTIONS),
    where=st.integers(min_value=0, max_value=4),
)
def test_mentioning_a_primitive_in_an_argument_stays_allowed(
    planmode_target: TargetClient,
    data: st.DataObject,
    segments: list[str],
    name: str,
    template: str,
    where: int,
) -> None:
    parts = list(segments)
    parts.insert(min(where, len(parts)), template.format(name))
    sep = data.draw(st.sampled_from(["&&", "||", "|", ";", "&", "\n"]))
    command = f" {sep} ".join(parts)
    out = _check(planmode_target, command, s.SAFE_MODE, s.SAFE_CONFIG)
    assert out["allowed"] is True, f"{command!r} only mentions {name} but was blocked: {out.get('reason')}"


@pytest.mark.planmode(operation=OP, level="must", id="oplmodes.bash.property.unrestricted-allows")
@given(
    command=s.any_text.filter(lambda t: t.strip() != ""), mode=st.sampled_from(["off", "execute", "custom"])
)
def test_unrestricted_modes_allow_any_command(planmode_target: TargetClient, command: str, mode: str) -> None:
    config = {"modes": {"custom": {"unrestrictedBash": True}}} if mode == "custom" else None
    out = _check(planmode_target, command, mode, config)
    assert out["allowed"] is True, f"{command!r} was blocked in unrestricted mode {mode}: {out.get('reason')}"


@pytest.mark.planmode(
    operation="oplmodes.bash.segments", level="reference", id="oplmodes.bash.property.segments-trimmed"
)
@given(command=s.any_text)
def test_segments_are_trimmed_and_non_empty(planmode_target: TargetClient, command: str) -> None:
    out = planmode_target.call("oplmodes.bash.segments", {"command": command})
    for seg in out["segments"]:
        assert seg and seg == seg.strip(), f"segment {seg!r} of {command!r} is empty or not trimmed"
