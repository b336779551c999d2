"""`planmode.tools.authorize` through the host (pi-plan-mode-settings.md
§ Default Plan policy tools, § Plan helper tools, § Enable inactive built-in
search tools in Pi).

The case's registry becomes Pi's registry before the extension loads, its
settings the `pi-plan-mode.json` document; each event is replayed as the
Pi-level steps it names. The effect read back is one verdict per tool call:
whether Pi itself refused it (the tool is not registered or not active, so
it never reached the extension) and whether it was allowed.

On Pi 1.x the tool surface is Pi's own: an exposure is declared by the
tool's owner (the host's extension standing for the other extension
registers the tool again to change it), `tools.declare` is Pi's
`tool_search` loading the tool, and a nested call is the model calling the
orchestrator, whose code calls the tool through Pi's `ctx.executeTool`
(`tool_call` with `parentToolCallId`). Pi 0.84.2 has none of these: the host
refuses them, naming its version.

Inputs a host cannot express are answered `unsupported`, per case: a
selection stored in the session (its entry format is the extension's own),
the tools chooser and the Settings screen (menus whose labels the case does
not give), another extension's held handler, and the Pi 1.x steps above on
Pi 0.84.2.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_planmode.contract import host_events as host
from pytest_planmode.contract import planmode_tools as contract
from pytest_planmode.hosts.pi.client import Sandbox
from pytest_planmode.targets.pi.translation import (
    OPL_COMMANDS,
    HostRun,
    ScriptBuilder,
    Translation,
    Unsupported,
    parse_input,
)

OPERATION = "planmode.tools.authorize"
SETTINGS_FILE = "pi-plan-mode.json"
#: Virtual time given to the extension after a settings file changes (its
#: watcher's debounce runs on the virtual clock).
WATCH_SETTLE_MS = 500

_SOURCES = {
    "built-in": "builtin",
    "user-extension": "user-extension",
    "project-extension": "project-extension",
    # An extension tool registered under a built-in name: Pi keeps the
    # extension's own source metadata for it.
    "override": "user-extension",
}


#: How Pi shows an exposure: its MCP extension registers a server's
#: `codemode` exposure (`codemode-deferred`) as the tool exposure `deferred`.
PI_EXPOSURE = {"codemode-deferred": "deferred"}


def parse(payload: Mapping[str, Any]) -> contract.ToolsAuthorizeInput:
    return parse_input(OPERATION, contract.ToolsAuthorizeInput, payload)


def host_tool(tool: contract.ToolEntry) -> dict[str, Any]:
    # A case describes tools by name and metadata, not by schema: only the
    # shell tools get theirs (a call carries its command).
    properties = {"command": "string"} if tool.name in host.SHELL_TOOLS else {}
    step: dict[str, Any] = {
        "name": tool.name,
        "source": _SOURCES[tool.source],
        "active": tool.active,
        "properties": properties,
    }
    if tool.exposure is not None:
        step["exposure"] = PI_EXPOSURE.get(tool.exposure, tool.exposure)
    if tool.annotations:
        step["annotations"] = dict(tool.annotations)
    return step


def event_steps(event: Any, following: list[Any]) -> list[dict[str, Any]]:
    """The host steps of one event (`following`: the events after it)."""
    if isinstance(event, host.Command):
        waits = bool(following) and isinstance(following[0], host.UiAnswer)
        step: dict[str, Any] = {"do": "command", "name": event.name, "args": event.args}
        return [{**step, "wait": False}] if waits else [step]
    if isinstance(event, host.UiAnswer):
        return [
            {"do": "ui", "answers": [{"cancel": True} if event.label is None else {"select": event.label}]}
        ]
    if isinstance(event, host.UiShow):
        return []  # reading the open screen changes nothing
    if isinstance(event, contract.RegisterEvent):
        if not event.tool.registered:
            return [{"do": "unregister_tool", "name": event.tool.name}]
        return [{"do": "register_tool", **host_tool(event.tool)}]
    if isinstance(event, contract.UnregisterEvent):
        return [{"do": "unregister_tool", "name": event.name}]
    if isinstance(event, contract.ActivateEvent):
        kind = "activate" if event.type == "tools.activate" else "deactivate"
        return [{"do": kind, "names": list(event.names)}]
    if isinstance(event, contract.ExposeEvent):
        exposure = None if event.exposure is None else PI_EXPOSURE.get(event.exposure, event.exposure)
        return [{"do": "expose", "name": event.name, "exposure": exposure}]
    if isinstance(event, contract.DeclareEvent):
        return [{"do": "declare", "name": event.name}]
    if isinstance(event, contract.ChooseEvent):
        raise Unsupported(
            "tools.choose goes through the extension's tools chooser, whose row and done labels "
            "are the extension's own (the case names tools, not the labels to answer)"
        )
    if isinstance(event, host.SettingsWrite):
        return [{"do": "edit_file", "root": "agent", "path": SETTINGS_FILE, "set": dict(event.settings)}]
    if isinstance(event, host.SettingsScreen):
        raise Unsupported(
            "settings.screen saves through the extension's Settings screen, a chain of menus "
            "whose labels the case does not give"
        )
    if isinstance(event, host.HandlerHold | host.HandlerSettle):
        raise Unsupported(
            "extension.hold needs a second extension whose before_agent_start handler the host "
            "holds open; the host loads one extension per run"
        )
    if isinstance(event, host.AgentStart):
        return [{"do": "agent_start", "prompt": event.prompt}]
    if isinstance(event, host.Context):
        return [{"do": "context"}]
    if isinstance(event, host.ToolCall):
        # The case gives the arguments that matter to the policy only (a
        # shell command); Pi's schema check of the rest is not the case's.
        validate = event.tool in host.SHELL_TOOLS
        step = {"do": "tool_call", "tool": event.tool, "input": dict(event.input), "validate": validate}
        return [step if event.via is None else {**step, "via": event.via}]
    if isinstance(event, host.AgentSettle):
        return [{"do": "agent_end", "outcome": event.outcome}]
    if isinstance(event, host.ClockAdvance):
        return []  # the builder moves the clock to every event's instant
    if isinstance(event, host.SessionReload):
        return [{"do": "reload"}]
    if isinstance(event, host.SessionResume):
        return [{"do": "resume"}]
    if isinstance(event, host.SessionNew):
        return [{"do": "new_session"}]
    if isinstance(event, host.SessionLabel):
        return [{"do": "label", "label": event.label}]
    if isinstance(event, host.SessionTree):
        return [{"do": "navigate_tree", "label": event.to}]
    raise Unsupported(f"no host steps for a {event.type} event")


def registered_tools(registry: list[contract.ToolEntry]) -> list[contract.ToolEntry]:
    """The tools Pi has registered: Pi resolves a tool by name, so of
    several entries of one name the last is the tool."""
    return [tool for tool in {t.name: t for t in registry}.values() if tool.registered]


def pi_settings_prelude(
    registry: list[contract.ToolEntry], settings: Mapping[str, Any], pi: host.PiSettings
) -> list[dict[str, Any]]:
    """The prelude when the case gives Pi's own settings: Pi's `defaultTools`
    (and Pi itself) decide which built-ins are active; the other tools of
    the registry are registered by their extensions before Pi starts."""
    tools = registered_tools(registry)
    pi_step: dict[str, Any] = {"do": "pi_settings", "piVersion": pi.pi_version, "settings": {}}
    if pi.default_tools is not None:
        pi_step["settings"]["defaultTools"] = list(pi.default_tools)
    others = [tool for tool in tools if tool.source != "built-in"]
    steps = [pi_step, *({"do": "register_tool", **host_tool(tool)} for tool in others)]
    steps += [{"do": "write_file", "root": "agent", "path": SETTINGS_FILE, "content": dict(settings)}]
    steps.append({"do": "start"})
    inactive = [tool.name for tool in others if not tool.active]
    if inactive:
        steps.append({"do": "deactivate", "names": inactive})
    return steps


def prelude(registry: list[contract.ToolEntry], settings: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The host steps before a case's events: the case's registry as Pi's,
    its settings as the `pi-plan-mode.json` document, then Pi starts."""
    tools = registered_tools(registry)
    steps: list[dict[str, Any]] = [
        {"do": "registry", "tools": [host_tool(tool) for tool in tools]},
        {"do": "write_file", "root": "agent", "path": SETTINGS_FILE, "content": dict(settings)},
        {"do": "start"},
    ]
    # The extension's helpers are active unless the case lists them: a
    # listed inactive one stays inactive once the extension registers it.
    inactive = [tool.name for tool in tools if not tool.active]
    if inactive:
        steps.append({"do": "deactivate", "names": inactive})
    return steps


def command_errors(run: HostRun) -> None:
    """A command the extension does not know fails the case (RuntimeError)."""
    for index, step in enumerate(run.results):
        if step.get("do") == "command" and step.get("error"):
            raise RuntimeError(f"step {index}: {step['error']}")


def script(payload: Mapping[str, Any], sandbox: Sandbox) -> list[dict[str, Any]]:
    case = parse(payload)
    if case.session_selection is not None:
        raise Unsupported(
            "a selection already stored in the session is kept in the extension's own entry "
            "format, which the spec does not fix"
        )
    builder = ScriptBuilder()
    if case.pi_settings is not None:
        builder.add(*pi_settings_prelude(case.registry, case.settings, case.pi_settings))
    else:
        builder.add(*prelude(case.registry, case.settings))
    events = list(case.events)
    for index, event in enumerate(events):
        builder.begin(event.at)
        builder.add(*event_steps(event, events[index + 1 :]))
        builder.end()
        if isinstance(event, host.SettingsWrite):
            builder.elapse(WATCH_SETTLE_MS)
    return builder.steps


def effects(payload: Mapping[str, Any], run: HostRun) -> dict[str, Any]:
    case = parse(payload)
    verdicts: list[dict[str, Any]] = []
    calls = iter(index for index, step in enumerate(run.results) if step.get("do") == "tool_call")
    for event in case.events:
        if not isinstance(event, host.ToolCall):
            continue
        record = run.result(next(calls))
        verdicts.append(
            {
                "at": event.at,
                "type": "verdict",
                "tool": event.tool,
                "via": event.via,
                "decidedBy": "extension" if record.get("reached") else "pi",
                "verdict": "allow" if record.get("allowed") else "deny",
            }
        )
    command_errors(run)
    return {"verdicts": verdicts}


TRANSLATION = Translation(
    script, effects, command="plan", spec="pi-plan-mode", unless=OPL_COMMANDS, options={"holdPrompts": True}
)
