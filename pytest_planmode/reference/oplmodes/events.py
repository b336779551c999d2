"""The events an opl-modes session script replays (opl-modes.md § Commands,
flags, and shortcuts; § Execute handoff; § Tool inheritance warning): the
host's (:mod:`pytest_planmode.reference.host_events`), read in
:mod:`.lifecycle`, and the three this operation adds, as the reference's
own values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_planmode.reference import host_events as host


@dataclass(frozen=True)
class ToolsRegistered:
    """Pi's tool registry is now `tools`."""

    at: int = 0
    tools: tuple[str, ...] = ()


@dataclass(frozen=True)
class ActiveToolsChanged:
    """Something other than opl-modes sets Pi's active tools to `tools`."""

    at: int = 0
    tools: tuple[str, ...] = ()


@dataclass(frozen=True)
class ConfigWrite:
    """opl-modes.json is written (`present` false: removed); the module
    reads it when it loads again (`/reload`)."""

    at: int = 0
    config: Any = None
    present: bool = False


SessionEvent = (
    host.SessionStart
    | host.SessionResume
    | host.SessionTree
    | host.SessionReload
    | host.Command
    | host.KeyPress
    | host.UiAnswer
    | host.AgentStart
    | host.ToolCall
    | host.AgentSettle
    | host.ClockAdvance
    | ConfigWrite
    | ToolsRegistered
    | ActiveToolsChanged
)
