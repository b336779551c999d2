"""opl-modes tool sets: the active tools of a mode and `load_tools`
(opl-modes.md § Mode behavior, § Tool inheritance warning, § Execute
handoff, § Lazy tool loading)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from pytest_planmode.contract import Operation
from pytest_planmode.contract.base import ContractInput, ContractOutput, effect, explanation
from pytest_planmode.spec_values import PI_BUILTIN_TOOLS


class ToolsActiveInput(ContractInput):
    config: Any = Field(default=None, description="The opl-modes.json document; omit for no file.")
    mode: str = Field(description="The mode being entered (`normal` is accepted for `off`).")
    registered_tools: list[str] = Field(
        default_factory=lambda: list(PI_BUILTIN_TOOLS),
        description="Tools registered in Pi (default: Pi's built-ins).",
    )
    snapshot: list[str] | None = Field(
        default=None,
        description="Tools active at rest, taken on mode entry (default: every registered tool).",
    )
    loaded: list[str] = Field(
        default_factory=list, description="Lazy tools already enabled by load_tools in this mode."
    )
    warned_tools: list[str] = Field(
        default_factory=list, description="Unknown names already warned about in this session."
    )


class ToolsActiveOutput(ContractOutput):
    mode: str = effect()
    known: bool = effect(description="False when the mode is not registered or is disabled.")
    error: str | None = effect(description="The error shown when the mode cannot be entered (null: none).")
    active_tools: list[str] = effect(description="The active tool set applied.")
    permitted_tools: list[str] = explanation(description="The mode's policy before lazy tools are withheld.")
    withheld_lazy_tools: list[str] = explanation()
    load_tools_registered: bool = effect(description="`load_tools` is registered.")
    inherits_all_tools: bool = explanation()
    plan_complete_allowed: bool = effect(description="`plan_complete` is offered.")
    unknown_tools: list[str] = explanation(description="Names in the mode's list that Pi does not know.")
    warnings: list[str] = effect(description="One per unknown name not yet warned this session.")


class ToolsLoadInput(ToolsActiveInput):
    request: list[str] | None = Field(
        default=None,
        description="The `tools` argument of load_tools; omit for the call with no argument.",
    )


class IgnoredTool(ContractOutput):
    tool: str = effect()
    reason: Literal["not-lazy", "not-permitted", "already-active", "unregistered"] = explanation()


class ToolsLoadOutput(ContractOutput):
    available: bool = effect(description="Whether load_tools is offered in this mode at all.")
    error: str | None = effect(description="The error the tool returns (null: none).")
    enabled: list[str] = effect(description="The tools the call enabled.")
    ignored: list[IgnoredTool] = effect(description="The names the call reports as not enabled.")
    active_tools: list[str] = effect(description="The active set after the call.")
    withheld_lazy_tools: list[str] = explanation()
    message: str = effect(description="The tool's text result.")


ACTIVE = Operation(
    name="oplmodes.tools.active",
    input=ToolsActiveInput,
    output=ToolsActiveOutput,
    summary=(
        "The active tools on entering a mode: own list or inherited set, plan_complete, "
        "lazy tools withheld, load_tools."
    ),
)

LOAD = Operation(
    name="oplmodes.tools.load",
    input=ToolsLoadInput,
    output=ToolsLoadOutput,
    summary="One load_tools call, bounded by the current mode's tool policy.",
)

OPERATIONS = [ACTIVE, LOAD]
