"""The events an opl-modes session script replays (opl-modes.md § Commands,
flags, and shortcuts; § Execute handoff; § Tool inheritance warning), as
the reference's own values. `kind` is the event's name in the steps a
session reports. Session entries stay Pi's stored JSON objects: they are
what a session file holds, read as such."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar


@dataclass(frozen=True)
class SessionStarted:
    kind: ClassVar[str] = "session_start"
    at: int = 0
    #: `--chat` and/or `--plan` (anything else is warned about).
    flags: tuple[str, ...] = ()
    entries: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class SessionResumed:
    kind: ClassVar[str] = "session_resume"
    at: int = 0
    entries: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class BranchChanged:
    kind: ClassVar[str] = "branch_change"
    at: int = 0
    entries: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class CommandTyped:
    kind: ClassVar[str] = "command"
    at: int = 0
    text: str = ""


@dataclass(frozen=True)
class KeyPressed:
    kind: ClassVar[str] = "key"
    at: int = 0
    key: str = ""


@dataclass(frozen=True)
class MenuPicked:
    kind: ClassVar[str] = "pick"
    at: int = 0
    #: None dismisses the menu (unless `index` or `role` names the item).
    entry: str | None = None
    #: The item's position in the open menu.
    index: int | None = None
    #: What the item does (`execute`, `refine`, `save-exit`, `discard-exit`).
    role: str | None = None
    #: With role `execute`: the plan name the entry executes.
    plan: str | None = None


@dataclass(frozen=True)
class AgentEnded:
    kind: ClassVar[str] = "agent_end"
    at: int = 0


@dataclass(frozen=True)
class ToolCalled:
    kind: ClassVar[str] = "tool_call"
    at: int = 0
    tool: str = ""
    input: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class AgentSettling:
    kind: ClassVar[str] = "agent_before_settle"
    at: int = 0
    #: `completed`, `aborted` or `errored`.
    outcome: str = "completed"


@dataclass(frozen=True)
class ToolsRegistered:
    kind: ClassVar[str] = "tools_registered"
    at: int = 0
    tools: tuple[str, ...] = ()


@dataclass(frozen=True)
class ActiveToolsChanged:
    kind: ClassVar[str] = "active_tools_changed"
    at: int = 0
    tools: tuple[str, ...] = ()


@dataclass(frozen=True)
class Reloaded:
    """`/reload`: opl-modes.json is read anew (`config_present` false: no file)."""

    kind: ClassVar[str] = "reload"
    at: int = 0
    config: Any = None
    config_present: bool = False


@dataclass(frozen=True)
class AgentStarted:
    """A user prompt opens an agent run."""

    kind: ClassVar[str] = "agent.start"
    at: int = 0


@dataclass(frozen=True)
class ConfigWritten:
    """opl-modes.json is written; the module reads it when it loads again."""

    kind: ClassVar[str] = "config.write"
    at: int = 0


@dataclass(frozen=True)
class ClockAdvanced:
    kind: ClassVar[str] = "clock.advance"
    at: int = 0


SessionEvent = (
    SessionStarted
    | SessionResumed
    | BranchChanged
    | CommandTyped
    | KeyPressed
    | MenuPicked
    | AgentEnded
    | ToolCalled
    | AgentSettling
    | ToolsRegistered
    | ActiveToolsChanged
    | Reloaded
    | AgentStarted
    | ConfigWritten
    | ClockAdvanced
)
