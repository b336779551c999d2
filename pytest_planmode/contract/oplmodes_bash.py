"""opl-modes per-segment Bash gate: one command in one mode under one
opl-modes.json document (opl-modes.md § Mode behavior, § Configuration)."""

from __future__ import annotations

from typing import Any

from pydantic import Field, JsonValue

from pytest_planmode.contract import Operation
from pytest_planmode.contract.base import ContractInput, ContractOutput, effect, explanation


class BashCheckInput(ContractInput):
    command: JsonValue = Field(
        description=(
            "The `command` argument of the Bash tool call, exactly as the model sent it. "
            "Any JSON value: a value that is not a string is blocked, never coerced."
        )
    )
    mode: str = Field(description="The active mode: `off`, `chat`, `plan`, `execute` or a custom name.")
    config: dict[str, Any] | None = Field(
        default=None,
        description=(
            "The raw opl-modes.json document (`bashPatterns`, `modes.<name>` with `tools`, "
            "`safePatterns`, `destructivePatterns`, `unrestrictedBash`). Omit for no file."
        ),
    )


class BashCheckOutput(ContractOutput):
    allowed: bool = effect(description="The verdict.")
    reason: str | None = effect(
        description=(
            "Null when allowed; otherwise the text the block returns to the model, naming the "
            "segment or pattern that blocked."
        )
    )
    blocked_segment: str | None = explanation(
        description="The segment (or text) that blocked, when one did; `(empty command)` for a blank one.",
    )
    pattern: str | None = explanation(
        description="The destructive entry or user pattern that blocked, when one did."
    )
    segments: list[str] | None = explanation(
        description="The allowlist segments of the command (see oplmodes.bash.segments)."
    )


class BashSegmentsInput(ContractInput):
    command: str = Field(description="A Bash command line.")


class BashSegmentsOutput(ContractOutput):
    segments: list[str] = effect(
        description=(
            "The quote-aware allowlist segmentation, each segment trimmed, in the order the "
            "segments start; empty segments are left out."
        )
    )


CHECK = Operation(
    name="oplmodes.bash.check",
    input=BashCheckInput,
    output=BashCheckOutput,
    summary="Decide one Bash command in one opl-modes mode (per-segment safe list, destructive base).",
)

SEGMENTS = Operation(
    name="oplmodes.bash.segments",
    input=BashSegmentsInput,
    output=BashSegmentsOutput,
    summary="Split a Bash command into the segments the opl-modes safe list checks.",
)

OPERATIONS = [CHECK, SEGMENTS]
