"""The events a tool-policy script replays (pi-plan-mode-settings.md
§ Default Plan policy tools; § Plan helper tools), as the reference's own
values: registry changes, workflow boundaries, agent runs, session moves
and calls."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

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
class HandlerHeld:
    """Another extension's `before_agent_start` handler: at the next run
    start it stays unsettled until the matching :class:`HandlerSettled`."""

    at: int
    handler: str


@dataclass(frozen=True)
class HandlerSettled:
    at: int
    handler: str


@dataclass(frozen=True)
class RunStarted:
    """A user prompt opens an agent run (`before_agent_start` fires)."""

    at: int


@dataclass(frozen=True)
class RunSettled:
    at: int


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
class Labelled:
    """The user labels the current leaf entry of the session tree."""

    at: int
    label: str


@dataclass(frozen=True)
class Navigated:
    """Tree navigation to the entry labelled `label`."""

    at: int
    label: str


@dataclass(frozen=True)
class PickerAction:
    """`open` takes a fresh snapshot, `show` renders the open picker, `close`."""

    at: int
    action: str


@dataclass(frozen=True)
class ToolCalled:
    """A call in the open run; `command` is a shell call's command text."""

    at: int
    tool: str
    via: str | None
    command: str | None = None


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
    | HandlerHeld
    | HandlerSettled
    | RunStarted
    | RunSettled
    | ContextBuilt
    | StateRestored
    | NewSession
    | Labelled
    | Navigated
    | PickerAction
    | ToolCalled
)
