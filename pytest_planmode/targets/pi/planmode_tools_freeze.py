"""`planmode.tools.freeze` through the host (pi-plan-mode-settings.md
§ Default Plan policy tools, § Plan helper tools).

The frozen allowlist is not something an extension shows: it is what Plan
mode lets run once the workflow's first provider-bound context has settled.
So the case becomes a workflow that reaches that boundary, then asks:
Pi's registry and settings as the case gives them, `/plan start`, an agent
run and its first `context`. Pi's active set is read right there. Then
every name the case mentions is made callable the way Pi could make it
later (registered, active, direct exposure), which the spec says never
widens a frozen policy ("An admitted tool may be reactivated or declared
later without widening that frozen policy"; "Names unavailable at
resolution wait for the next Plan workflow"), and called once: a call the
extension allows is a name of the allowlist. The helpers are called too.

What is read back, and from what:

- `allowlist`: the names whose probe call was allowed. Which names are in
  it is visible; their order is not (a verdict per call carries none): they
  are listed in the order the spec gives the names, the explicit list's
  first-seen order, or for automatic defaults the order Pi lists its
  built-in tools in, then any other name in registry order.
- `helpers`: the helpers whose call was allowed.
- `activeTools`: Pi's active set at the boundary, without the tools the
  extension registered itself (they are not part of the case's registry).
- `warnings`: the texts of warning notifications (`ui.notify(…, "warning")`)
  shown up to the boundary.

Answered `unsupported`, per case: a selection already stored in the session
(its entry format is the extension's own); on Pi 0.84.2 also a registry with
exposures or server annotations (its `getAllTools()` has no field for them;
the host refuses). On Pi 1.x a non-direct tool is made callable for its
probe by its owner registering it again as direct.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from pytest_planmode.contract import host_events as host
from pytest_planmode.contract import planmode_tools as contract
from pytest_planmode.contract.planmode_settings import PiPlanModeDocument
from pytest_planmode.hosts.pi import steps as host_steps
from pytest_planmode.hosts.pi.client import Sandbox
from pytest_planmode.targets.pi import planmode_tools_authorize as authorize
from pytest_planmode.targets.pi.translation import (
    OPL_COMMANDS,
    HostRun,
    Translation,
    Unsupported,
    calls,
    parse_input,
    step_trace,
)

OPERATION = "planmode.tools.freeze"
#: The extension's own helpers (§ Plan helper tools).
HELPERS = ("plan_mode_question", "plan_mode_complete")
#: Pi's built-in tools in the order Pi lists them, then `powershell`: the
#: presentation order of an automatic allowlist.
PI_BUILT_INS = ("read", "bash", "edit", "write", "grep", "find", "ls", "powershell")
#: A probe call of a shell tool carries a command every limited-shell policy
#: admits, so that its verdict is the allowlist's alone.
PROBE_COMMANDS = {"bash": "ls", "powershell": "Get-ChildItem"}


def parse(payload: Mapping[str, Any]) -> contract.ToolsFreezeInput:
    return parse_input(OPERATION, contract.ToolsFreezeInput, payload)


def explicit_names(settings: Mapping[str, Any]) -> list[str] | None:
    """The explicit `defaultPlanTools` of a valid document, first-seen order
    without duplicates; None when the document is invalid or omits it."""
    try:
        document = PiPlanModeDocument.model_validate(dict(settings))
    except ValidationError:
        return None
    names = document.defaultPlanTools
    return None if names is None else list(dict.fromkeys(names))


def candidates(case: contract.ToolsFreezeInput) -> list[str]:
    """Every name the case mentions (its registry, its settings' list, valid
    or not), in presentation order; the helpers are probed apart."""
    named = explicit_names(case.settings)
    if named is not None:
        first = named
    else:
        first = [name for name in PI_BUILT_INS if any(t.name == name for t in case.registry)]
    raw = case.settings.get("defaultPlanTools")
    listed = [n for n in raw if isinstance(n, str) and n.strip()] if isinstance(raw, list) else []
    names = [*first, *(t.name for t in case.registry), *listed]
    return [name for name in dict.fromkeys(names) if name not in HELPERS]


def effective(case: contract.ToolsFreezeInput, name: str) -> contract.ToolEntry | None:
    """The registry entry Pi resolves `name` to (a later entry replaces an
    earlier one), if registered."""
    return next((t for t in authorize.registered_tools(case.registry) if t.name == name), None)


#: The exposures of tools Pi puts in its active set (None: direct).
PI_ACTIVATES = (None, "direct", "model-only")
#: How many events come before the probes (the boundary is the last one).
BOUNDARY = 3


def probe_events(case: contract.ToolsFreezeInput) -> list[Any]:
    """The workflow, in the vocabulary of `planmode.tools.authorize`: to
    the first context, then every name made callable, then one call each."""
    events: list[Any] = [
        host.Command(type="command", name="plan", args="start"),
        host.AgentStart(type="agent.start"),
        host.Context(type="context"),
    ]
    names = candidates(case)
    for name in names:
        tool = effective(case, name)
        if tool is None:
            entry = contract.ToolEntry(name=name, source="user-extension")
            events.append(contract.RegisterEvent(type="tools.register", tool=entry))
            continue
        if tool.exposure is not None and tool.exposure != "direct":
            events.append(contract.ExposeEvent(type="tools.expose", name=name, exposure=None))
        if not tool.active:
            events.append(contract.ActivateEvent(type="tools.activate", names=[name]))
    if len(events) > BOUNDARY:
        # Pi 1.x declares to the model the tools active when an LLM call
        # starts: a tool made callable now is callable from the next call.
        # A new run of the same workflow makes that call.
        events += [host.AgentSettle(type="agent.settle"), host.AgentStart(type="agent.start")]
    for name in [*names, *HELPERS]:
        command = PROBE_COMMANDS.get(name)
        call_input = {} if command is None else {"command": command}
        events.append(host.ToolCall(type="tool.call", tool=name, input=call_input))
    return events


def script(payload: Mapping[str, Any], sandbox: Sandbox) -> list[host_steps.Step]:
    case = parse(payload)
    if case.session_selection is not None:
        raise Unsupported(
            "a selection already stored in the session is kept in the extension's own entry "
            "format, which the spec does not fix"
        )
    for tool in authorize.registered_tools(case.registry):
        if tool.active and tool.exposure not in PI_ACTIVATES:
            # The active set is an effect here: Pi's own, read at the boundary.
            raise Unsupported(
                f"Pi activates only direct and model-only tools; the case's registry has {tool.name} "
                f"active with exposure {tool.exposure}, a state of Pi's active set Pi never holds"
            )
    steps = authorize.prelude(case.registry, case.settings)
    events = probe_events(case)
    for index, event in enumerate(events):
        steps.extend(authorize.event_steps(event, events[index + 1 :]))
        if index == BOUNDARY - 1:
            steps.append(host_steps.State())
    return steps


def effects(payload: Mapping[str, Any], run: HostRun) -> dict[str, Any]:
    case = parse(payload)
    authorize.command_errors(run)
    names = candidates(case)
    probes = [run.result(i) for i, step in enumerate(run.results) if step.get("do") == "tool_call"]
    allowed = {name for name, record in zip([*names, *HELPERS], probes, strict=True) if record.get("allowed")}
    (boundary,) = [i for i, step in enumerate(run.results) if step.get("do") == "state"]
    own = {
        str(args[0].get("name"))
        for args in calls(run.trace, "pi.registerTool")
        if args and isinstance(args[0], dict)
    }
    listed = {t.name for t in authorize.registered_tools(case.registry)}
    active = run.result(boundary)["state"]["activeTools"]
    shown = step_trace(run, (0, boundary + 1))
    return {
        "allowlist": [name for name in names if name in allowed],
        "helpers": [name for name in HELPERS if name in allowed],
        "activeTools": [name for name in active if name in listed or name not in own],
        "warnings": [str(args[0]) for args in calls(shown, "ui.notify") if args[1:2] == ["warning"]],
    }


TRANSLATION = Translation(
    script, effects, command="plan", spec="pi-plan-mode", unless=OPL_COMMANDS, options={"holdPrompts": True}
)
