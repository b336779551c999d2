from __future__ import annotations

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
from pytest_planmode.targets.reference.ops import handler


@handler(oplmodes_bash.CHECK)
def check(inp: BashCheckInput) -> BashCheckOutput:
    decision = bash_gate.check(inp.command, inp.mode, inp.config)
    return output(BashCheckOutput, decision)


@handler(oplmodes_bash.SEGMENTS)
def segments(inp: BashSegmentsInput) -> BashSegmentsOutput:
    return BashSegmentsOutput(segments=allowlist_segments(inp.command))
