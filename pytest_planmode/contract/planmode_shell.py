"""pi-plan-mode limited shells: one `bash` or `powershell` submission in Plan mode."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from pytest_planmode.contract import Operation
from pytest_planmode.contract.base import ContractInput, ContractOutput, effect, explanation


class ShellCheckInput(ContractInput):
    command: str = Field(description="The complete submission, exactly as the model sent it.")
    cwd: str = Field(description="Pi's current working directory (an absolute path).")
    safe_subcommands: Any = Field(
        default=None,
        description=(
            "The raw `safeSubcommands` settings value, unvalidated (omit it when the setting "
            "is absent). An invalid value invalidates the whole settings document, whose "
            "fallback is the default policy: then no prefix is trusted."
        ),
    )


class ShellCheckOutput(ContractOutput):
    allowed: bool = effect(description="The verdict.")
    blocked: str | None = explanation(
        description=(
            "Null when allowed. Otherwise the first blocked segment (trimmed), the complete "
            "submitted input when the syntax is unsupported or malformed, or `(empty command)`: "
            "the text the block message shows. An explanation: a Pi extension's `tool_call` "
            "hook returns a free-text reason, and which text it names is a reference choice "
            "(reference-choices.md § pi-plan-mode: limited Bash)."
        )
    )
    segments: list[str] | None = explanation(
        description="Every parsed segment, trimmed, in order (empty when nothing was parsed).",
    )
    rule: str | None = explanation(description="Stable id of the rule that blocked.")
    reason: str | None = explanation(description="Why it was blocked, for people.")
    settings_error: str | None = explanation(description="Why `safeSubcommands` was invalid, when it was.")


BASH_CHECK = Operation(
    name="planmode.bash.check",
    input=ShellCheckInput,
    output=ShellCheckOutput,
    summary=(
        "Decide one limited-Bash submission in Plan mode (segments, trusted prefixes, reviewed policy)."
    ),
)

POWERSHELL_CHECK = Operation(
    name="planmode.powershell.check",
    input=ShellCheckInput,
    output=ShellCheckOutput,
    summary="Decide one limited-PowerShell submission in Plan mode.",
)

OPERATIONS = [BASH_CHECK, POWERSHELL_CHECK]
