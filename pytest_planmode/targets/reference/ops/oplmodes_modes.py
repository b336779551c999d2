from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_planmode.contract import oplmodes_modes
from pytest_planmode.contract import oplmodes_modes as modes
from pytest_planmode.contract.oplmodes_modes import ModesScriptInput, ModesScriptOutput
from pytest_planmode.reference.oplmodes import events as ev
from pytest_planmode.reference.oplmodes.lifecycle import run_script
from pytest_planmode.targets.reference.convert import value
from pytest_planmode.targets.reference.ops import handler
from pytest_planmode.targets.reference.ops.oplmodes_config import load_from_input


def _entries(event: Any) -> tuple[dict[str, Any], ...]:
    """Session entries as Pi stores them (JSON objects, camelCase keys)."""
    return tuple(entry.model_dump(mode="json", by_alias=True) for entry in event.entries)


#: Each script event's reference value, by its contract class.
_EVENTS: dict[type[Any], Callable[[Any], ev.SessionEvent]] = {
    modes.SessionStart: lambda e: value(ev.SessionStarted, e, flags=tuple(e.flags), entries=_entries(e)),
    modes.SessionResume: lambda e: value(ev.SessionResumed, e, entries=_entries(e)),
    modes.BranchChange: lambda e: value(ev.BranchChanged, e, entries=_entries(e)),
    modes.Command: lambda e: value(ev.CommandTyped, e),
    modes.Key: lambda e: value(ev.KeyPressed, e),
    modes.Pick: lambda e: value(ev.MenuPicked, e),
    modes.AgentEnd: lambda e: value(ev.AgentEnded, e),
    modes.ToolCall: lambda e: value(ev.ToolCalled, e),
    modes.AgentBeforeSettle: lambda e: value(ev.AgentSettling, e),
    modes.ToolsRegistered: lambda e: value(ev.ToolsRegistered, e, tools=tuple(e.tools)),
    modes.ActiveToolsChanged: lambda e: value(ev.ActiveToolsChanged, e, tools=tuple(e.tools)),
    modes.Reload: lambda e: value(ev.Reloaded, e, config_present="config" in e.model_fields_set),
}


def script_events(inp: ModesScriptInput) -> list[ev.SessionEvent]:
    return [_EVENTS[type(e)](e) for e in inp.events]


@handler(oplmodes_modes.SCRIPT)
def script(inp: ModesScriptInput) -> ModesScriptOutput:
    config = load_from_input(inp, "config")
    events = script_events(inp)
    session = run_script(
        config,
        events,
        registered=inp.registered_tools,
        active=inp.active_tools,
        pi_version=inp.pi_version,
        existing_plans=inp.plans,
        keybindings=inp.keybindings,
    )
    return ModesScriptOutput.model_validate(
        {
            "steps": session.steps,
            "final": session.final(),
            "trace": session.trace,
            "configProblems": [p.message for p in config.problems],
        }
    )
