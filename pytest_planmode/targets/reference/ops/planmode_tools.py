from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_planmode.contract import planmode_tools
from pytest_planmode.contract import planmode_tools as tools
from pytest_planmode.contract.planmode_tools import (
    ToolsAuthorizeInput,
    ToolsAuthorizeOutput,
    ToolsFreezeInput,
    ToolsFreezeOutput,
    ToolsPickerInput,
    ToolsPickerOutput,
)
from pytest_planmode.contract.screen import ScreenEntry, entry
from pytest_planmode.reference.planmode import tools_events as ev
from pytest_planmode.reference.planmode.plan_helpers import HELPER_NAMES
from pytest_planmode.reference.planmode.tools_authorize import replay
from pytest_planmode.reference.planmode.tools_freeze import freeze as freeze_policy
from pytest_planmode.reference.planmode.tools_freeze import policy_names
from pytest_planmode.reference.planmode.tools_picker import picker_rows
from pytest_planmode.reference.planmode.tools_registry import (
    Registry,
    Tool,
    normalize_exposure,
    with_pi_selection,
)
from pytest_planmode.targets.reference.convert import output, value
from pytest_planmode.targets.reference.host import HOST_EVENTS, host_event, members
from pytest_planmode.targets.reference.ops import handler


def tool_from_entry(entry: tools.ToolEntry) -> Tool:
    """§ Default Plan policy tools: a registry entry as reference data, its
    exposure normalised (missing → direct, codemode-deferred → deferred)."""
    return value(Tool, entry, exposure=normalize_exposure(entry.exposure))


#: Each script event's reference event, by the event's contract class: the
#: operation's own registry changes and choices, and the host's (one class
#: each, :mod:`pytest_planmode.targets.reference.host`).
_EVENTS: dict[type[Any], Callable[[Any], ev.ToolEvent]] = {
    tools.RegisterEvent: lambda e: ev.Registered(e.at, tool_from_entry(e.tool)),
    tools.UnregisterEvent: lambda e: ev.Unregistered(e.at, e.name),
    tools.ActivateEvent: lambda e: ev.ActiveSetChanged(e.at, tuple(e.names), e.type == "tools.activate"),
    tools.ExposeEvent: lambda e: ev.ExposureChanged(e.at, e.name, normalize_exposure(e.exposure)),
    tools.DeclareEvent: lambda e: ev.Declared(e.at, e.name),
    tools.ChooseEvent: lambda e: ev.Chosen(e.at, list(e.tools), e.start),
    **{cls: host_event for cls in members(tools.ToolScriptEvent) if cls in HOST_EVENTS},
}


def script_events(inp: ToolsAuthorizeInput) -> list[ev.ToolEvent]:
    return [_EVENTS[type(e)](e) for e in inp.events]


@handler(planmode_tools.FREEZE)
def freeze(inp: ToolsFreezeInput) -> ToolsFreezeOutput:
    registry = Registry.of(tool_from_entry(e) for e in inp.registry)
    chosen = policy_names(inp.settings, inp.session_selection)
    policy = freeze_policy(registry, chosen)
    return output(
        ToolsFreezeOutput,
        policy,
        helpers=HELPER_NAMES,
        active_tools=registry.active_names(),
        warnings=chosen.warnings,
    )


@handler(planmode_tools.PICKER)
def picker(inp: ToolsPickerInput) -> ToolsPickerOutput:
    registry = Registry.of(tool_from_entry(e) for e in inp.registry)
    chosen = policy_names(inp.settings, inp.session_selection)
    return output(ToolsPickerOutput, chosen, rows=picker_rows(registry, chosen))


#: The title of the Plan policy tools picker (reference wording).
PICKER_TITLE = "Plan policy tools"


def picker_screen(trace: list[dict[str, Any]]) -> list[ScreenEntry]:
    """§ Enable inactive built-in search tools in Pi / § Default Plan policy
    tools: each time the picker opens it shows its rows, one select entry
    per row (`[x] grep (inactive in Pi)`: selected, name, label; reference
    wording). Showing the open picker again shows nothing new."""
    return [
        entry(
            "select",
            PICKER_TITLE,
            [f"[{'x' if row['selected'] else ' '}] {row['name']} ({row['label']})" for row in obs["rows"]],
        )
        for obs in trace
        if obs["type"] == "picker" and obs["event"] == "open" and obs["rows"] is not None
    ]


@handler(planmode_tools.AUTHORIZE)
def authorize(inp: ToolsAuthorizeInput) -> ToolsAuthorizeOutput:
    registry = [tool_from_entry(e) for e in inp.registry]
    if inp.pi_settings is not None:
        registry = with_pi_selection(registry, inp.pi_settings.active_built_ins())
    result = replay(registry, inp.settings, inp.session_selection, script_events(inp))
    trace = list(result.trace)
    return ToolsAuthorizeOutput.model_validate(
        {
            "trace": trace,
            "verdicts": [entry for entry in trace if entry["type"] == "verdict"],
            "allowlist": list(result.allowlist) if result.allowlist is not None else None,
            "pending": list(result.pending) if result.pending is not None else None,
            "screen": picker_screen(trace),
        }
    )
