"""The events a tool-policy script replays (pi-plan-mode-settings.md
§ Default Plan policy tools; § Plan helper tools), as the reference's own
values: registry changes, workflow boundaries, session moves and calls."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_planmode.reference.planmode.tool_registry import Tool


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
    #: Already normalised (see :func:`tool_registry.normalize_exposure`).
    exposure: str


@dataclass(frozen=True)
class Declared:
    """Pi's `tool_search` declares a tool: it becomes active."""

    at: int
    name: str


@dataclass(frozen=True)
class SettingsSaved:
    """The changed fields as raw JSON values; `None` removes a field."""

    at: int
    changes: Mapping[str, Any]


@dataclass(frozen=True)
class SelectionMade:
    at: int
    tools: Sequence[Any]


@dataclass(frozen=True)
class PlanStarted:
    at: int
    contract: str | None


@dataclass(frozen=True)
class PlanExited:
    at: int


@dataclass(frozen=True)
class AgentStartHandler:
    """A `before_agent_start` handler that settles at `settles_at`."""

    at: int
    settles_at: int


@dataclass(frozen=True)
class ContextBuilt:
    """A provider-bound context: a workflow's first is its resolution boundary."""

    at: int


@dataclass(frozen=True)
class StateRestored:
    """`reload` or `resume`: the stored state comes back as it is."""

    at: int
    cause: str


@dataclass(frozen=True)
class NewSession:
    at: int


@dataclass(frozen=True)
class Navigated:
    at: int
    contract: str | None
    active: bool


@dataclass(frozen=True)
class PickerAction:
    """`open` takes a fresh snapshot, `show` renders the open picker, `close`."""

    at: int
    action: str


@dataclass(frozen=True)
class ToolCalled:
    at: int
    tool: str
    via: str | None
    contract: str | None


ToolEvent = (
    Registered
    | Unregistered
    | ActiveSetChanged
    | ExposureChanged
    | Declared
    | SettingsSaved
    | SelectionMade
    | PlanStarted
    | PlanExited
    | AgentStartHandler
    | ContextBuilt
    | StateRestored
    | NewSession
    | Navigated
    | PickerAction
    | ToolCalled
)
