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
from pytest_planmode.contract import planmode_lifecycle as lifecycle
from pytest_planmode.contract import planmode_tools as contract
from pytest_planmode.hosts.pi import steps
from pytest_planmode.hosts.pi.client import Sandbox
from pytest_planmode.targets.pi import _planmode_plans as plans
from pytest_planmode.targets.pi.events import SHARED, EventTable, Place
from pytest_planmode.targets.pi.translation import (
    OPL_COMMANDS,
    HostRun,
    ScriptBuilder,
    Translation,
    Unsupported,
    parse_input,
    screen,
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


def host_tool(tool: contract.ToolEntry) -> steps.HostTool:
    # A case describes tools by name and metadata, not by schema: only the
    # shell tools get theirs (a call carries its command).
    properties = {"command": "string"} if tool.name in host.SHELL_TOOLS else {}
    fields: dict[str, Any] = {
        "name": tool.name,
        "source": _SOURCES[tool.source],
        "active": tool.active,
        "properties": properties,
    }
    if tool.exposure is not None:
        fields["exposure"] = PI_EXPOSURE.get(tool.exposure, tool.exposure)
    if tool.annotations:
        fields["annotations"] = dict(tool.annotations)
    return steps.HostTool(**fields)


#: Why a tool cannot leave Pi's registry mid-session.
NO_UNREGISTER = (
    "Pi has no API to unregister a tool (0.84.2 and 1.6.0): a tool leaves Pi's registry only "
    "when every extension loads again (/reload or a new session), which reloads the extension "
    "under test too"
)


def _register(table: EventTable, event: contract.RegisterEvent, place: Place) -> list[steps.Step]:
    if not event.tool.registered:
        raise Unsupported(NO_UNREGISTER)
    return [steps.RegisterTool(**host_tool(event.tool).model_dump(exclude_unset=True))]


def _unregister(table: EventTable, event: contract.UnregisterEvent, place: Place) -> list[steps.Step]:
    raise Unsupported(NO_UNREGISTER)


def _activate(table: EventTable, event: contract.ActivateEvent, place: Place) -> list[steps.Step]:
    if event.type == "tools.activate":
        return [steps.Activate(names=list(event.names))]
    return [steps.Deactivate(names=list(event.names))]


def _expose(table: EventTable, event: contract.ExposeEvent, place: Place) -> list[steps.Step]:
    exposure = None if event.exposure is None else PI_EXPOSURE.get(event.exposure, event.exposure)
    return [steps.Expose(name=event.name, exposure=exposure)]


def _declare(table: EventTable, event: contract.DeclareEvent, place: Place) -> list[steps.Step]:
    return [steps.Declare(name=event.name)]


#: The extension's own Plan helper tools (§ Plan helper tools).
QUESTION_TOOL = "plan_mode_question"
HELPERS = frozenset({QUESTION_TOOL, lifecycle.COMPLETE_TOOL})


def _tool_call(table: EventTable, event: host.ToolCall, place: Place) -> list[steps.Step]:
    """A tool call is judged where Pi's `tool_call` handlers leave it; the
    tool does not run. A Plan helper may refuse inside itself instead: the
    case's last call of a helper runs (nothing after it can see what it did),
    so its own answer is read too."""
    runs = event.tool in HELPERS and event.via is None and not place.following
    return SHARED[host.ToolCall](table.with_overrides(execute_tools=True) if runs else table, event, place)


def _choose(table: EventTable, event: contract.ChooseEvent, place: Place) -> list[steps.Step]:
    raise Unsupported(
        "tools.choose goes through the extension's tools chooser, whose row and done labels "
        "are the extension's own (the case names tools, not the labels to answer)"
    )


#: The shared table, with this operation's own events. The case gives the
#: arguments that matter to the policy only (a shell command); Pi's schema
#: check of the rest is not the case's. An allowed extension tool does not run.
EVENTS = EventTable(
    settings_file=SETTINGS_FILE,
    execute_tools=False,
    overrides={
        contract.RegisterEvent: _register,
        contract.UnregisterEvent: _unregister,
        contract.ActivateEvent: _activate,
        contract.ExposeEvent: _expose,
        contract.DeclareEvent: _declare,
        contract.ChooseEvent: _choose,
        host.ToolCall: _tool_call,
    },
)


def event_steps(event: Any, following: list[Any]) -> list[steps.Step]:
    """The host steps of one event (`following`: the events after it)."""
    return EVENTS.host_steps(event, Place(following))


def registered_tools(registry: list[contract.ToolEntry]) -> list[contract.ToolEntry]:
    """The tools Pi has registered: Pi resolves a tool by name, so of
    several entries of one name the last is the tool."""
    return [tool for tool in {t.name: t for t in registry}.values() if tool.registered]


def pi_settings_prelude(
    registry: list[contract.ToolEntry], settings: Mapping[str, Any], pi: host.PiSettings
) -> list[steps.Step]:
    """The prelude when the case gives Pi's own settings: Pi's `defaultTools`
    (and Pi itself) decide which built-ins are active; the other tools of
    the registry are registered by their extensions before Pi starts."""
    tools = registered_tools(registry)
    pi_settings: dict[str, Any] = {}
    if pi.default_tools is not None:
        pi_settings["defaultTools"] = list(pi.default_tools)
    others = [tool for tool in tools if tool.source != "built-in"]
    out: list[steps.Step] = [steps.PiSettings(settings=pi_settings, pi_version=pi.pi_version)]
    out += [steps.RegisterTool(**host_tool(tool).model_dump(exclude_unset=True)) for tool in others]
    out += [steps.WriteFile(root="agent", path=SETTINGS_FILE, content=dict(settings)), steps.Start()]
    inactive = [tool.name for tool in others if not tool.active]
    if inactive:
        out.append(steps.Deactivate(names=inactive))
    return out


def prelude(registry: list[contract.ToolEntry], settings: Mapping[str, Any]) -> list[steps.Step]:
    """The host steps before a case's events: the case's registry as Pi's,
    its settings as the `pi-plan-mode.json` document, then Pi starts."""
    tools = registered_tools(registry)
    out: list[steps.Step] = [
        steps.Registry(tools=[host_tool(tool) for tool in tools]),
        steps.WriteFile(root="agent", path=SETTINGS_FILE, content=dict(settings)),
        steps.Start(),
    ]
    # The extension's helpers are active unless the case lists them: a
    # listed inactive one stays inactive once the extension registers it.
    inactive = [tool.name for tool in tools if not tool.active]
    if inactive:
        out.append(steps.Deactivate(names=inactive))
    return out


def command_errors(run: HostRun) -> None:
    """A command the extension does not know fails the case (RuntimeError)."""
    for index, step in enumerate(run.results):
        if step.get("do") == "command" and step.get("error"):
            raise RuntimeError(f"step {index}: {step['error']}")


def script(payload: Mapping[str, Any], sandbox: Sandbox) -> list[steps.Step]:
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
        answered = record.get("result")
        # The helper ran to an answer: an error, or a question helper that
        # answered without asking the user anything.
        if (
            record.get("allowed")
            and answered is not None
            and (answered.get("isError") or event.tool == QUESTION_TOOL)
        ):
            how = "with an error" if answered.get("isError") else "at once, without asking the user"
            raise Unsupported(
                f"the extension's own {event.tool} answered the call {how} "
                f"({' '.join(plans.texts(answered.get('content')))[:200]!r}): "
                "whether that refuses the call or the placeholder arguments the host gave is the "
                "extension's own text, which the spec does not fix"
            )
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
    return {"verdicts": verdicts, "screen": screen(run.trace)}


TRANSLATION = Translation(
    script, effects, command="plan", spec="pi-plan-mode", unless=OPL_COMMANDS, options={"holdPrompts": True}
)
