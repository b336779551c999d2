"""One table from contract host events to host steps, for every `pi:`
translation that replays an event script.

Each host event (`contract.host_events`) becomes the host steps that make
Pi do it, the same way in every operation: `command` is `/name args`,
`session.resume` is `/resume`, `tool.call` is a model turn calling the tool.
What differs between operations is said once, as the table's settings (the
settings file a `settings.write` edits, whether an allowed extension tool
runs, which calls skip Pi's argument check, the menu roles, the thinking
cycle key, whether Pi emits `agent_before_settle`), or as an override of
one event type for one operation (its own events, such as a registry
change, or a host event it reads its own way). An event no entry covers is
answered `Unsupported`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pytest_planmode.contract import host_events as host
from pytest_planmode.contract.virtual_paths import map_rooted
from pytest_planmode.hosts.pi import steps
from pytest_planmode.hosts.pi.client import Sandbox
from pytest_planmode.targets.pi.translation import Unsupported, ui_answer

SETTINGS_SCREEN = (
    "settings.screen saves through the extension's Settings screen, a chain of menus "
    "whose labels the case does not give"
)
HANDLER_HOLD = (
    "extension.hold needs a second extension whose before_agent_start handler the host "
    "holds open; the host loads one extension per run"
)


@dataclass(frozen=True)
class Place:
    """Where an event stands: the events after it, the run's sandbox, and
    the menu open when it comes (in the operation's own words)."""

    following: Sequence[Any] = ()
    sandbox: Sandbox | None = None
    menu: str | None = None

    @property
    def answered(self) -> bool:
        """The next event answers a prompt this one opens."""
        return bool(self.following) and isinstance(self.following[0], host.UiAnswer)


Handler = Callable[["EventTable", Any, Place], list[steps.Step]]


def _no_shell_check(tool: str) -> bool:
    return tool in host.SHELL_TOOLS


@dataclass(frozen=True)
class EventTable:
    """The steps of each host event for one operation (see the module)."""

    #: The settings document `settings.write` edits and `settings.unreadable`
    #: spoils, under the agent directory; None: the operation has none.
    settings_file: str | None = None
    #: An allowed extension tool runs when the model calls it.
    execute_tools: bool = True
    #: Which tool calls Pi checks against the tool's schema (the others
    #: carry only the arguments the case gives; the host fills the rest).
    validated: Callable[[str], bool] = _no_shell_check
    #: Menu roles as patterns over the extension's item texts (`ui.answer`
    #: by role); none: answers by label and position only.
    roles: Mapping[str, str] | None = None
    #: The key bound to Pi's thinking cycle (`key.press` of it cycles too).
    thinking_key: str | None = None
    #: Whether Pi emits `agent_before_settle` (None: the host's default).
    before_settle: bool | None = None
    #: Per-operation entries, by event class, over the shared ones.
    overrides: Mapping[type, Handler] = field(default_factory=dict)

    def with_overrides(self, **changes: Any) -> EventTable:
        return replace(self, **changes)

    def handler(self, event: Any) -> Handler | None:
        for kind in type(event).__mro__:
            found = self.overrides.get(kind) or SHARED.get(kind)
            if found is not None:
                return found
        return None

    def host_steps(self, event: Any, place: Place = Place()) -> list[steps.Step]:
        """The host steps of one event; Unsupported when none make it."""
        found = self.handler(event)
        if found is None:
            raise Unsupported(f"no host steps for a {event.type} event")
        return found(self, event, place)

    def settings(self) -> str:
        if self.settings_file is None:
            raise Unsupported("this operation has no settings file for the event to change")
        return self.settings_file


def real_path(virtual: str, sandbox: Sandbox | None) -> str:
    """A rooted virtual path (`$CWD/…`) as the sandbox path the extension sees."""
    if sandbox is None:
        raise Unsupported(f"the path {virtual!r} needs the run's sandbox")
    roots = {
        "$CWD": str(sandbox.cwd),
        "$HOME": str(sandbox.home),
        "$AGENT": str(sandbox.agent_dir),
        "$TMP": str(sandbox.root / "tmp"),
    }
    return str(map_rooted(virtual, roots))


def entries(items: Sequence[host.SessionEntry] | None) -> list[dict[str, Any]]:
    return [entry.model_dump(by_alias=True, exclude_none=True) for entry in items or []]


# ------------------------------------------------------------------ the shared entries


def _command(table: EventTable, event: host.Command, place: Place) -> list[steps.Step]:
    if place.answered:
        return [steps.Command(name=event.name, args=event.args, wait=False)]
    return [steps.Command(name=event.name, args=event.args)]


def _ui_answer(table: EventTable, event: host.UiAnswer, place: Place) -> list[steps.Step]:
    return [steps.Ui(answers=[steps.UiReply(**ui_answer(event, table.roles))])]


def _key_press(table: EventTable, event: host.KeyPress, place: Place) -> list[steps.Step]:
    cycles = table.thinking_key is not None and event.key == table.thinking_key
    if place.answered:
        return [steps.Shortcut(key=event.key, thinking_cycle=cycles, wait=False)]
    return [steps.Shortcut(key=event.key, thinking_cycle=cycles)]


def _nothing(table: EventTable, event: Any, place: Place) -> list[steps.Step]:
    # Reading the open screen changes nothing; the builder moves the clock
    # to every event's instant.
    return []


def _agent_start(table: EventTable, event: host.AgentStart, place: Place) -> list[steps.Step]:
    return [steps.AgentStart(prompt=event.prompt)]


def _agent_queue(table: EventTable, event: host.AgentQueue, place: Place) -> list[steps.Step]:
    return [steps.Queue(prompt=event.prompt)]


def _agent_settle(table: EventTable, event: host.AgentSettle, place: Place) -> list[steps.Step]:
    if table.before_settle is None:
        return [steps.AgentEnd(outcome=event.outcome)]
    return [steps.AgentEnd(outcome=event.outcome, before_settle=table.before_settle)]


def _context(table: EventTable, event: host.Context, place: Place) -> list[steps.Step]:
    return [steps.Context()]


def _tool_call(table: EventTable, event: host.ToolCall, place: Place) -> list[steps.Step]:
    if event.via is not None:
        raise Unsupported(
            f"a nested call through {event.via}: Pi 0.84.2 emits no tool_call for calls an "
            "orchestrator tool makes itself"
        )
    if table.execute_tools:
        return [
            steps.ToolCall(
                tool=event.tool,
                input=dict(event.input),
                execute=True,
                validate_=table.validated(event.tool),
            )
        ]
    return [steps.ToolCall(tool=event.tool, input=dict(event.input), validate_=table.validated(event.tool))]


def _thinking(table: EventTable, event: host.ThinkingSelect, place: Place) -> list[steps.Step]:
    return [steps.Thinking(level=event.level)]


def _reload(table: EventTable, event: host.SessionReload, place: Place) -> list[steps.Step]:
    return [steps.Reload()]


def _restart(table: EventTable, event: host.SessionRestart, place: Place) -> list[steps.Step]:
    return [steps.Restart()]


def _new(table: EventTable, event: host.SessionNew, place: Place) -> list[steps.Step]:
    return [steps.NewSession()]


def _resume(table: EventTable, event: host.SessionResume, place: Place) -> list[steps.Step]:
    if event.entries is None:
        return [steps.Resume()]
    return [steps.Resume(entries=entries(event.entries))]


def _label(table: EventTable, event: host.SessionLabel, place: Place) -> list[steps.Step]:
    return [steps.Label(label=event.label)]


def _tree(table: EventTable, event: host.SessionTree, place: Place) -> list[steps.Step]:
    if event.to is not None:
        return [steps.NavigateTree(label=event.to)]
    return [steps.NavigateTree(entries=entries(event.entries))]


def _compact(table: EventTable, event: host.SessionCompact, place: Place) -> list[steps.Step]:
    return [steps.Compact()]


def _settings_write(table: EventTable, event: host.SettingsWrite, place: Place) -> list[steps.Step]:
    return [steps.EditFile(root="agent", path=table.settings(), set=dict(event.settings))]


def _settings_unreadable(table: EventTable, event: host.SettingsUnreadable, place: Place) -> list[steps.Step]:
    return [steps.UnreadableFile(root="agent", path=table.settings())]


def _settings_screen(table: EventTable, event: host.SettingsScreen, place: Place) -> list[steps.Step]:
    raise Unsupported(SETTINGS_SCREEN)


def _handler_hold(table: EventTable, event: Any, place: Place) -> list[steps.Step]:
    raise Unsupported(HANDLER_HOLD)


def _cwd(table: EventTable, event: host.CwdChange, place: Place) -> list[steps.Step]:
    return [steps.SetCwd(path=real_path(event.cwd, place.sandbox))]


def _api_fail(table: EventTable, event: host.ApiFail, place: Place) -> list[steps.Step]:
    return [steps.FailNext(call=event.call)]


def _catalogue(table: EventTable, event: host.ModelsCatalogue, place: Place) -> list[steps.Step]:
    changed: dict[str, Any] = {}
    if event.scoped_models is not None:
        changed["scoped"] = list(event.scoped_models)
    if event.available_models is not None:
        changed["available"] = list(event.available_models)
    return [steps.Models(merge=True, **changed)]


#: `provider.change` fields -> the host's names for them.
PROVIDER_FIELDS = (
    ("resolves", "resolves"),
    ("auth", "auth"),
    ("auth_latency_ms", "authDelay"),
    ("credentials", "credentials"),
    ("change", "change"),
    ("change_latency_ms", "changeDelay"),
)


def _provider(table: EventTable, event: host.ProviderChange, place: Place) -> list[steps.Step]:
    """How Pi answers for the model from now on (a model not seen before
    joins the registry)."""
    changed = {name: getattr(event, key) for key, name in PROVIDER_FIELDS if getattr(event, key) is not None}
    provider, _, model_id = event.model.partition("/")
    catalogue = [{"provider": provider, "id": model_id}] if provider and model_id else []
    return [steps.Models(merge=True, catalogue=catalogue, behaviour={event.model: changed})]


def _model_select(table: EventTable, event: host.ModelSelect, place: Place) -> list[steps.Step]:
    return [steps.SetModel(model=event.model, source=event.source)]


def _session_start(table: EventTable, event: host.SessionStart, place: Place) -> list[steps.Step]:
    # Pi starting again on a session: CLI flags apply only when Pi itself
    # starts (a script's first session.start is the operation's own start).
    if event.flags:
        raise Unsupported("a second session.start with CLI flags: flags are applied when Pi itself starts")
    return [steps.Resume(entries=entries(event.entries))]


SHARED: dict[type, Handler] = {
    host.SessionStart: _session_start,
    host.AgentStart: _agent_start,
    host.AgentSettle: _agent_settle,
    host.AgentQueue: _agent_queue,
    host.Context: _context,
    host.ToolCall: _tool_call,
    host.Command: _command,
    host.UiAnswer: _ui_answer,
    host.UiShow: _nothing,
    host.KeyPress: _key_press,
    host.ClockAdvance: _nothing,
    host.ThinkingSelect: _thinking,
    host.SessionReload: _reload,
    host.SessionRestart: _restart,
    host.SessionResume: _resume,
    host.SessionNew: _new,
    host.SessionLabel: _label,
    host.SessionTree: _tree,
    host.SessionCompact: _compact,
    host.SettingsWrite: _settings_write,
    host.SettingsScreen: _settings_screen,
    host.SettingsUnreadable: _settings_unreadable,
    host.HandlerHold: _handler_hold,
    host.HandlerSettle: _handler_hold,
    host.CwdChange: _cwd,
    host.ApiFail: _api_fail,
    host.ModelsCatalogue: _catalogue,
    host.ProviderChange: _provider,
    host.ModelSelect: _model_select,
}

__all__ = ["SHARED", "EventTable", "Handler", "Place", "entries", "real_path"]
