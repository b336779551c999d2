"""The host events, as the reference core's own values: one frozen
dataclass per event a Pi host can replay, each named as the event is
named in the scripts (`session.resume` is :class:`SessionResume`).

Every core that replays a script (the Plan lifecycle, the Plan tool
policy, the Plan model switch, opl-modes' sessions and its model
overrides) takes these same values. An event means what the core that
handles it makes of it: `/plan implement` is a :class:`Command` to every
core; the Plan lifecycle reads it as an Implement action, the tool policy
as the end of a Plan workflow, opl-modes as a typed command line. A core
keeps what it needs between events (the open menu, a queued follow-up, a
host call about to fail) in its own state, never in a second event class.

Events an operation adds to the host's (registry changes, a config file
written) are declared by the core that reads them, next to its handlers.

Session entries stay Pi's stored JSON objects (camelCase keys): they are
what a session file holds, read as such.

Who reads each event now (`tests/test_event_tables.py` checks this table
against the handler tables): L the Plan lifecycle (`planmode/lifecycle.py`),
T the Plan tool policy (`planmode/tools_authorize.py`), S the Plan model
switch session (`planmode/models_switch.py`), O opl-modes sessions
(`oplmodes/lifecycle.py`), M opl-modes model overrides
(`oplmodes/models_override.py`):

=====================  ==========
host event             read by
=====================  ==========
`session.start`        O
`agent.start`          L T S O
`agent.settle`         L T S O
`context`              L T
`tool.call`            L T S O
`command`              L T S O M
`ui.answer`            L T S O
`ui.show`              T
`clock.advance`        L T S O
`session.reload`       L T O M
`session.resume`       L T O M
`session.new`          T M
`session.label`        L T
`session.tree`         L T O
`key.press`            O
`settings.write`       L T S
`settings.screen`      L T S
`extension.hold`       T
`extension.settle`     T
`agent.queue`          L
`thinking.select`      L
`session.compact`      L
`session.restart`      L
`cwd.change`           L
`api.fail`             L
`models.catalogue`     S
`provider.change`      S M
`model.select`         M
`settings.unreadable`  S
=====================  ==========

Before this vocabulary each core had its own class for an event, and a
translation in `targets/reference/ops/` chose the meaning (so one host
event became several classes, or none, or two values for one event):

=====================  =====================================================
host event             reference classes it became
=====================  =====================================================
`session.start`        opl-modes session `SessionStarted`
`agent.start`          tools `RunStarted`; opl-modes session `AgentStarted`
`agent.settle`         lifecycle `RunSettled(fully)`; tools `RunSettled`;
                       opl-modes session `AgentEnded` + `AgentSettling`
`agent.queue`          lifecycle: none (a counter of the translation)
`context`              lifecycle `Context`; tools `ContextBuilt`
`tool.call`            lifecycle `PlanReady` (`plan_mode_complete` only);
                       tools `ToolCalled`; opl-modes session `ToolCalled`
`command`              lifecycle `PlanStart`, `PlanExit`, `PlanSave`,
                       `Implement` (+ `HandoffFailed`), `Export`; tools
                       `PlanStarted`, `PlanExited`, `PickerAction`; model
                       switch `TransitionAsked`; opl-modes models
                       `ModeEntered`, `ModeLeft`; opl-modes session
                       `CommandTyped`
`ui.answer`            lifecycle `Export`, `Implement` (+ `HandoffFailed`),
                       `PlanStart`, `PlanSave`, `PlanExit`; tools
                       `PickerAction`; model switch `TransitionAsked`;
                       opl-modes session `MenuPicked`
`ui.show`              tools `PickerAction`
`key.press`            opl-modes session `KeyPressed`
`clock.advance`        opl-modes session `ClockAdvanced`
`session.reload`       lifecycle `Reload`; tools `StateRestored("reload")`;
                       opl-modes models `StateReloaded`; opl-modes session
                       `Reloaded`
`session.resume`       lifecycle `Resume`; tools `StateRestored("resume")`;
                       opl-modes models `StateReloaded`; opl-modes session
                       `SessionResumed`
`session.restart`      lifecycle `Reload(restart=True)`
`session.new`          tools `NewSession`; opl-modes models `SessionStarted`
`session.label`        lifecycle `Label`; tools `Labelled`
`session.tree`         lifecycle `TreeNavigate`; tools `Navigated`;
                       opl-modes session `BranchChanged`
`session.compact`      lifecycle `Compaction`
`settings.write`       lifecycle `SettingsSave(via="json")`; tools
                       `SettingsSaved`; model switch `SettingsSaved`
`settings.screen`      lifecycle `SettingsSave(via="settings")`; tools
                       `SettingsSaved`; model switch `SettingsSaved`
`settings.unreadable`  model switch `SettingsSaved(settings_read_failed)`
`extension.hold`       tools `HandlerHeld`
`extension.settle`     tools `HandlerSettled`
`thinking.select`      lifecycle `ThinkingManual`
`cwd.change`           lifecycle `CwdChange`
`api.fail`             lifecycle: none (a `HandoffFailed` after the next
                       Implement)
`models.catalogue`     model switch `CatalogueChanged`
`provider.change`      model switch `ProviderChanged`; opl-modes models
                       `ModelAdded`, `ModelRemoved`, `CredentialsChanged`
`model.select`         opl-modes models `ModelSelected`
=====================  =====================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: A session entry as Pi stores it (a JSON object; other extensions' too).
Entry = Mapping[str, Any]


@dataclass(frozen=True)
class SessionStart:
    """Pi starts on a session: the extension loads with the CLI `flags`,
    then `session_start{startup}` on the session's stored `entries`."""

    at: int = 0
    flags: tuple[str, ...] = ()
    entries: tuple[Entry, ...] = ()


@dataclass(frozen=True)
class AgentStart:
    """A user prompt opens an agent run."""

    at: int = 0
    prompt: str = ""


@dataclass(frozen=True)
class AgentSettle:
    """The open run ends (`agent_end`, then `agent_settled`)."""

    at: int = 0
    #: `completed`, `aborted` or `error`.
    outcome: str = "completed"


@dataclass(frozen=True)
class AgentQueue:
    """A prompt queued while the run streams: the next settle ends only
    `agent_end`, the run goes on with the queued prompt."""

    at: int = 0
    prompt: str = ""


@dataclass(frozen=True)
class Context:
    """Pi's `context` hook before an LLM call of the open run."""

    at: int = 0


@dataclass(frozen=True)
class ToolCall:
    """The model calls a registered, active tool in the open run; `via`
    names the orchestrator of a nested call."""

    at: int = 0
    tool: str = ""
    input: Mapping[str, Any] = field(default_factory=dict)
    via: str | None = None


@dataclass(frozen=True)
class Command:
    """The user types `/name args`."""

    at: int = 0
    name: str = ""
    args: str = ""


@dataclass(frozen=True)
class UiAnswer:
    """The user answers the open menu or dialog: by `label` (None
    dismisses, unless `index` or `role` names the item), by `index` (its
    position) or by `role` (what it does; `plan` with `execute`)."""

    at: int = 0
    label: str | None = None
    index: int | None = None
    role: str | None = None
    plan: str | None = None


@dataclass(frozen=True)
class UiShow:
    """The host reads the open screen, choosing nothing."""

    at: int = 0


@dataclass(frozen=True)
class KeyPress:
    at: int = 0
    key: str = ""


@dataclass(frozen=True)
class ClockAdvance:
    """Virtual time passes (`at` is already the instant after it)."""

    at: int = 0
    ms: int = 0


@dataclass(frozen=True)
class SessionReload:
    """`/reload`: a new extension runtime on the same session and branch."""

    at: int = 0


@dataclass(frozen=True)
class SessionResume:
    """`/resume`: a new runtime on the resumed session's stored entries
    (None: this session's own)."""

    at: int = 0
    entries: tuple[Entry, ...] | None = None


@dataclass(frozen=True)
class SessionRestart:
    """Pi quits and starts again on the same session (the extension loads afresh)."""

    at: int = 0


@dataclass(frozen=True)
class SessionNew:
    """`/new`: a new runtime on an empty session."""

    at: int = 0


@dataclass(frozen=True)
class SessionLabel:
    """The user labels the current leaf entry of the session tree."""

    at: int = 0
    label: str = ""


@dataclass(frozen=True)
class SessionTree:
    """`/tree` navigation to the entry labelled `to`, or to a branch whose
    entries are `entries` (one of the two)."""

    at: int = 0
    to: str | None = None
    entries: tuple[Entry, ...] | None = None


@dataclass(frozen=True)
class SessionCompact:
    """Compaction: earlier conversation text is gone from later contexts."""

    at: int = 0


@dataclass(frozen=True)
class SettingsWrite:
    """The settings file edited as JSON on disk: the fields given change,
    None removes one, any value is written as is."""

    at: int = 0
    settings: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SettingsScreen:
    """A save through the extension's Settings screen: the fields given
    change, None resets one."""

    at: int = 0
    settings: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SettingsUnreadable:
    """The settings file can no longer be read, until it is written again."""

    at: int = 0


@dataclass(frozen=True)
class HandlerHold:
    """Another extension's `before_agent_start` handler stays unsettled at
    the next run start, until the matching :class:`HandlerSettle`."""

    at: int = 0
    handler: str = ""


@dataclass(frozen=True)
class HandlerSettle:
    at: int = 0
    handler: str = ""


@dataclass(frozen=True)
class ThinkingSelect:
    """The user sets Pi's thinking level."""

    at: int = 0
    level: str = "medium"


@dataclass(frozen=True)
class CwdChange:
    """Pi's working directory from now on."""

    at: int = 0
    cwd: str = "/"


@dataclass(frozen=True)
class ApiFail:
    """The extension's next call of `call` (`sendUserMessage` or
    `newSession`) fails."""

    at: int = 0
    call: str = ""


@dataclass(frozen=True)
class ModelsCatalogue:
    """The model scope and the available models from now on; None: as before."""

    at: int = 0
    scoped_models: tuple[str, ...] | None = None
    available_models: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ProviderChange:
    """How Pi answers for `model` from now on: the fields given change
    (None: as before; a model not seen before starts from the defaults)."""

    at: int = 0
    model: str = ""
    resolves: bool | None = None
    auth: str | None = None
    auth_latency_ms: int | None = None
    credentials: bool | None = None
    change: str | None = None
    change_latency_ms: int | None = None


@dataclass(frozen=True)
class ModelSelect:
    """The user picks `model` in Pi (`set`: the selector; `cycle`: the scope)."""

    at: int = 0
    model: str = ""
    source: str = "set"


HostEvent = (
    SessionStart
    | AgentStart
    | AgentSettle
    | AgentQueue
    | Context
    | ToolCall
    | Command
    | UiAnswer
    | UiShow
    | KeyPress
    | ClockAdvance
    | SessionReload
    | SessionResume
    | SessionRestart
    | SessionNew
    | SessionLabel
    | SessionTree
    | SessionCompact
    | SettingsWrite
    | SettingsScreen
    | SettingsUnreadable
    | HandlerHold
    | HandlerSettle
    | ThinkingSelect
    | CwdChange
    | ApiFail
    | ModelsCatalogue
    | ProviderChange
    | ModelSelect
)
