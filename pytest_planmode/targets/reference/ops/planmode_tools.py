from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_planmode.contract import host_events as host
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
from pytest_planmode.reference.planmode import tools_events as ev
from pytest_planmode.reference.planmode.plan_helpers import HELPER_NAMES
from pytest_planmode.reference.planmode.tools_authorize import replay
from pytest_planmode.reference.planmode.tools_freeze import freeze as freeze_policy
from pytest_planmode.reference.planmode.tools_freeze import policy_names
from pytest_planmode.reference.planmode.tools_picker import picker_rows
from pytest_planmode.reference.planmode.tools_registry import Registry, Tool, normalize_exposure
from pytest_planmode.targets.reference.convert import output, value
from pytest_planmode.targets.reference.ops import handler


def tool_from_entry(entry: tools.ToolEntry) -> Tool:
    """§ Default Plan policy tools: a registry entry as reference data, its
    exposure normalised (missing → direct, codemode-deferred → deferred)."""
    return value(Tool, entry, exposure=normalize_exposure(entry.exposure))


def _command(e: host.Command) -> list[ev.ToolEvent]:
    args = e.args.strip()
    if args == "start":
        return [ev.PlanStarted(e.at, None)]
    if args == "tools":
        return [ev.PickerAction(e.at, "open")]
    return [ev.PlanExited(e.at)]


def _choose(e: tools.ChooseEvent) -> list[ev.ToolEvent]:
    chosen: list[ev.ToolEvent] = [ev.SelectionMade(e.at, list(e.tools))]
    return [*chosen, ev.PlanStarted(e.at, None)] if e.start else chosen


#: Each script event's reference values, by the event's contract class
#: (events that change nothing the tool policy reads map to none).
_EVENTS: dict[type[Any], Callable[[Any], list[ev.ToolEvent]]] = {
    tools.RegisterEvent: lambda e: [ev.Registered(e.at, tool_from_entry(e.tool))],
    tools.UnregisterEvent: lambda e: [ev.Unregistered(e.at, e.name)],
    tools.ActivateEvent: lambda e: [ev.ActiveSetChanged(e.at, tuple(e.names), e.type == "tools.activate")],
    tools.ExposeEvent: lambda e: [ev.ExposureChanged(e.at, e.name, normalize_exposure(e.exposure))],
    tools.DeclareEvent: lambda e: [ev.Declared(e.at, e.name)],
    tools.ChooseEvent: _choose,
    host.SessionLabel: lambda e: [ev.Labelled(e.at, e.label)],
    host.SessionTree: lambda e: [ev.Navigated(e.at, e.to)],
    host.Command: _command,
    host.UiAnswer: lambda e: [ev.PickerAction(e.at, "close")],
    host.UiShow: lambda e: [ev.PickerAction(e.at, "show")],
    host.SettingsWrite: lambda e: [ev.SettingsSaved(e.at, e.settings)],
    host.SettingsScreen: lambda e: [ev.SettingsSaved(e.at, e.settings)],
    host.HandlerHold: lambda e: [ev.HandlerHeld(e.at, e.handler)],
    host.HandlerSettle: lambda e: [ev.HandlerSettled(e.at, e.handler)],
    host.AgentStart: lambda e: [ev.RunStarted(e.at)],
    host.AgentSettle: lambda e: [ev.RunSettled(e.at)],
    host.Context: lambda e: [ev.ContextBuilt(e.at)],
    host.ToolCall: lambda e: [ev.ToolCalled(e.at, e.tool, e.via, e.input.get("command"))],
    host.ClockAdvance: lambda e: [],
    host.SessionReload: lambda e: [ev.StateRestored(e.at, "reload")],
    host.SessionResume: lambda e: [ev.StateRestored(e.at, "resume")],
    host.SessionNew: lambda e: [ev.NewSession(e.at)],
}


def script_events(inp: ToolsAuthorizeInput) -> list[ev.ToolEvent]:
    return [value for e in inp.events for value in _EVENTS[type(e)](e)]


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


@handler(planmode_tools.AUTHORIZE)
def authorize(inp: ToolsAuthorizeInput) -> ToolsAuthorizeOutput:
    result = replay(
        [tool_from_entry(e) for e in inp.registry], inp.settings, inp.session_selection, script_events(inp)
    )
    trace = list(result.trace)
    return ToolsAuthorizeOutput.model_validate(
        {
            "trace": trace,
            "verdicts": [entry for entry in trace if entry["type"] == "verdict"],
            "allowlist": list(result.allowlist) if result.allowlist is not None else None,
            "pending": list(result.pending) if result.pending is not None else None,
        }
    )
