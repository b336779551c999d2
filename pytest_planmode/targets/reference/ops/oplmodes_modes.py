from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_planmode.contract import oplmodes_modes
from pytest_planmode.contract import oplmodes_modes as modes
from pytest_planmode.contract.oplmodes_modes import ModesScriptInput, ModesScriptOutput
from pytest_planmode.reference.oplmodes import events as ev
from pytest_planmode.reference.oplmodes.lifecycle import run_script
from pytest_planmode.targets.reference.host import HOST_EVENTS, host_event, members
from pytest_planmode.targets.reference.ops import handler
from pytest_planmode.targets.reference.ops.oplmodes_config import load_from_input

#: Each script event's reference event, by its contract class: the host's
#: (one class each) and the operation's own three.
_EVENTS: dict[type[Any], Callable[[Any], ev.SessionEvent]] = {
    **{cls: host_event for cls in members(modes.ModesEvent) if cls in HOST_EVENTS},
    modes.ConfigWrite: lambda e: ev.ConfigWrite(e.at, e.config, "config" in e.model_fields_set),
    modes.ToolsRegistered: lambda e: ev.ToolsRegistered(e.at, tuple(e.tools)),
    modes.ActiveToolsChanged: lambda e: ev.ActiveToolsChanged(e.at, tuple(e.tools)),
}


def script_events(inp: ModesScriptInput) -> list[ev.SessionEvent]:
    return [_EVENTS[type(e)](e) for e in inp.events]


@handler(oplmodes_modes.SCRIPT)
def script(inp: ModesScriptInput) -> ModesScriptOutput:
    config = load_from_input(inp, "config")
    session = run_script(
        config,
        script_events(inp),
        registered=inp.registered_tools,
        active=inp.active_tools,
        pi_version=inp.pi_version,
        existing_plans=inp.plans,
        keybindings=inp.keybindings,
        disk=(inp.config, "config" in inp.model_fields_set),
    )
    # One step per event, named as the script names it.
    steps = [{**step, "event": event.type} for step, event in zip(session.steps, inp.events, strict=True)]
    return ModesScriptOutput.model_validate(
        {
            "steps": steps,
            "final": session.final(),
            "trace": session.trace,
            "configProblems": [p.message for p in config.problems],
        }
    )
