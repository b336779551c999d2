from __future__ import annotations

from typing import Any

from pytest_planmode.contract import oplmodes_bash
from pytest_planmode.contract.oplmodes_bash import (
    BashCheckInput,
    BashCheckOutput,
    BashSegmentsInput,
    BashSegmentsOutput,
)
from pytest_planmode.reference.oplmodes import bash_gate
from pytest_planmode.reference.oplmodes.bash_scanner import allowlist_segments
from pytest_planmode.targets.reference.convert import output
from pytest_planmode.targets.reference.ops import fast_path, handler


@handler(oplmodes_bash.CHECK)
def check(inp: BashCheckInput) -> BashCheckOutput:
    decision = bash_gate.check(inp.command, inp.mode, inp.config)
    return output(BashCheckOutput, decision)


@handler(oplmodes_bash.SEGMENTS)
def segments(inp: BashSegmentsInput) -> BashSegmentsOutput:
    return BashSegmentsOutput(segments=allowlist_segments(inp.command))


@fast_path(oplmodes_bash.CHECK)
def check_fast(payload: Any) -> dict[str, Any] | None:
    """The wire-form output for a string `command` in a string `mode`
    without a configuration document (None for any other shape)."""
    if type(payload) is not dict or len(payload) != 2:
        return None
    command = payload.get("command")
    mode = payload.get("mode")
    if type(command) is not str or type(mode) is not str:
        return None
    decision = bash_gate.check(command, mode, None)
    return {
        "allowed": decision.allowed,
        "reason": decision.reason,
        "blockedSegment": decision.blocked_segment,
        "pattern": decision.pattern,
        "segments": list(decision.segments),
    }
