"""The events a tool-policy script replays (pi-plan-mode-settings.md
§ Default Plan policy tools; § Plan helper tools) besides the host's:
registry changes and the picker's choices, as the reference's own values.
Workflow boundaries, agent runs, session moves and calls are host events
(:mod:`pytest_planmode.reference.host_events`), read in
:mod:`.tools_authorize`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pytest_planmode.reference import host_events as host
from pytest_planmode.reference.planmode.tools_registry import Tool


@dataclass(frozen=True)
class Registered:
    at: int
    tool: Tool


@dataclass(frozen=True)
class Unregistered:
    at: int
    name: str


@dataclass(frozen=True)
class ActiveSetChanged:
    """Pi activates (or deactivates) tools; Plan mode itself never does."""

    at: int
    names: tuple[str, ...]
    active: bool


@dataclass(frozen=True)
class ExposureChanged:
    at: int
    name: str
    #: Already normalised (see :func:`tools_registry.normalize_exposure`).
    exposure: str


@dataclass(frozen=True)
class Declared:
    """Pi's `tool_search` declares a tool: it becomes active."""

    at: int
    name: str


@dataclass(frozen=True)
class Chosen:
    """The user chooses the session's Plan tools in the picker; `start`:
    through **Choose tools, then start…**, which starts Plan mode with them."""

    at: int
    tools: Sequence[Any]
    start: bool = False


#: The events a tool-policy script replays: its own registry changes and
#: choices, and the host's (:mod:`pytest_planmode.reference.host_events`).
ToolEvent = (
    Registered
    | Unregistered
    | ActiveSetChanged
    | ExposureChanged
    | Declared
    | Chosen
    | host.SessionLabel
    | host.SessionTree
    | host.Command
    | host.UiAnswer
    | host.UiShow
    | host.SettingsWrite
    | host.SettingsScreen
    | host.HandlerHold
    | host.HandlerSettle
    | host.AgentStart
    | host.AgentSettle
    | host.Context
    | host.ToolCall
    | host.ClockAdvance
    | host.SessionReload
    | host.SessionResume
    | host.SessionNew
)
