from __future__ import annotations

from pytest_planmode.contract.planmode_tools import (
    NameResolution,
    PickerRow,
    ToolsAuthorizeInput,
    ToolsAuthorizeOutput,
    ToolsFreezeInput,
    ToolsFreezeOutput,
    ToolsPickerInput,
    ToolsPickerOutput,
)
from pytest_planmode.reference.ops import handler
from pytest_planmode.reference.planmode.plan_helpers import HELPER_NAMES
from pytest_planmode.reference.planmode.tool_freeze import freeze as freeze_policy
from pytest_planmode.reference.planmode.tool_freeze import policy_names
from pytest_planmode.reference.planmode.tool_picker import picker_rows
from pytest_planmode.reference.planmode.tool_registry import Registry
from pytest_planmode.reference.planmode.tool_workflow import replay, tool_from_entry


@handler("planmode.tools.freeze")
def freeze(inp: ToolsFreezeInput) -> ToolsFreezeOutput:
    registry = Registry.of(tool_from_entry(e) for e in inp.registry)
    chosen = policy_names(inp.settings, inp.session_selection)
    policy = freeze_policy(registry, chosen)
    return ToolsFreezeOutput(
        basis=policy.basis,
        allowlist=list(policy.allowlist),
        pending=list(policy.pending),
        resolutions=[
            NameResolution(name=r.name, admitted=r.admitted, reason=r.reason, pending=r.pending)
            for r in policy.resolutions
        ],
        helpers=list(HELPER_NAMES),
        active_tools=list(registry.active_names()),
        warnings=list(chosen.warnings),
    )


@handler("planmode.tools.picker")
def picker(inp: ToolsPickerInput) -> ToolsPickerOutput:
    registry = Registry.of(tool_from_entry(e) for e in inp.registry)
    chosen = policy_names(inp.settings, inp.session_selection)
    return ToolsPickerOutput(
        basis=chosen.basis,
        rows=[
            PickerRow(name=r.name, label=r.label, selected=r.selected) for r in picker_rows(registry, chosen)
        ],
    )


@handler("planmode.tools.authorize")
def authorize(inp: ToolsAuthorizeInput) -> ToolsAuthorizeOutput:
    result = replay(inp.registry, inp.settings, inp.session_selection, inp.events)
    trace = list(result.trace)
    return ToolsAuthorizeOutput.model_validate(
        {
            "trace": trace,
            "verdicts": [entry for entry in trace if entry["type"] == "verdict"],
            "allowlist": list(result.allowlist) if result.allowlist is not None else None,
            "pending": list(result.pending) if result.pending is not None else None,
        }
    )
