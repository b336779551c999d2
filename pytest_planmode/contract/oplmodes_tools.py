"""opl-modes tool sets: the active tools of a mode and `load_tools`
(opl-modes.md § Mode behavior, § Tool inheritance warning, § Execute
handoff, § Lazy tool loading)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from pytest_planmode.contract import Operation
from pytest_planmode.contract.base import ContractInput, ContractOutput
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
    mode: str
    known: bool = Field(description="False when the mode is not registered or is disabled.")
    error: str | None = None
    active_tools: list[str]
    permitted_tools: list[str] = Field(description="The mode's policy before lazy tools are withheld.")
    withheld_lazy_tools: list[str]
    load_tools_registered: bool
    inherits_all_tools: bool
    plan_complete_allowed: bool
    unknown_tools: list[str] = Field(description="Names in the mode's list that Pi does not know.")
    warnings: list[str] = Field(description="One per unknown name not yet warned this session.")


class ToolsLoadInput(ToolsActiveInput):
    request: list[str] | None = Field(
        default=None,
        description="The `tools` argument of load_tools; omit for the call with no argument.",
    )


class IgnoredTool(ContractOutput):
    tool: str
    reason: Literal["not-lazy", "not-permitted", "already-active", "unregistered"]


class ToolsLoadOutput(ContractOutput):
    available: bool = Field(description="Whether load_tools is offered in this mode at all.")
    error: str | None = None
    enabled: list[str]
    ignored: list[IgnoredTool]
    active_tools: list[str] = Field(description="The active set after the call.")
    withheld_lazy_tools: list[str]
    message: str


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
