"""The events a Plan-lifecycle script replays (pi-plan-mode-settings.md
§ Plan reinjection, § Thinking level, § Export destination, § Toggle
shortcut), as the reference's own values. Each has its virtual instant
`at`; the lifecycle dispatches on the event's class."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class PlanStart:
    at: int = 0


@dataclass(frozen=True)
class PlanRun:
    at: int = 0


@dataclass(frozen=True)
class PlanReady:
    at: int = 0
    plan: str = ""


@dataclass(frozen=True)
class PlanSave:
    at: int = 0


@dataclass(frozen=True)
class Implement:
    at: int = 0
    #: `here`, `fresh` or `saved`; `offered`: what the menu or `/plan
    #: implement` offers, the ready plan in Plan mode, else the saved plan.
    how: str = "here"
    #: The fresh screen's one-shot thinking choice; None: the current level.
    thinking: str | None = None
    #: For `saved`: `current` or `fresh` (the direct fresh action).
    session: str = "current"


@dataclass(frozen=True)
class Context:
    at: int = 0
    #: None: as tracked from earlier events.
    plan_in_history: bool | None = None


@dataclass(frozen=True)
class RunSettled:
    at: int = 0
    fully: bool = True


@dataclass(frozen=True)
class Resume:
    at: int = 0


@dataclass(frozen=True)
class PlanExit:
    at: int = 0


@dataclass(frozen=True)
class Supersede:
    at: int = 0


@dataclass(frozen=True)
class SettingsSave:
    at: int = 0
    #: The fields changed, as raw JSON values; None removes a field.
    settings: Mapping[str, Any] = field(default_factory=dict)
    #: `settings` (a Settings save) or `json` (a manual edit).
    via: str = "settings"


@dataclass(frozen=True)
class HandoffFailed:
    at: int = 0
    #: The kickoff prompt was handed to Pi before the delivery failed (a
    #: session replacement that fails comes before the prompt is sent).
    sent: bool = True


@dataclass(frozen=True)
class ThinkingManual:
    at: int = 0
    level: str = "medium"


@dataclass(frozen=True)
class Reload:
    at: int = 0
    restart: bool = False


@dataclass(frozen=True)
class TreeNavigate:
    at: int = 0
    plan_in_history: bool | None = None
    #: A label given by :class:`Label`: history as it was there.
    to: str | None = None


@dataclass(frozen=True)
class Label:
    """The current point of the session gets a name to navigate back to."""

    at: int = 0
    name: str = ""


@dataclass(frozen=True)
class Compaction:
    at: int = 0


@dataclass(frozen=True)
class CwdChange:
    at: int = 0
    cwd: str = "/"


@dataclass(frozen=True)
class Export:
    at: int = 0
    path: str | None = None
    #: `ready`, `saved` or `active`; None: the ready, else active, else saved plan.
    source: str | None = None
    cancel: bool = False


LifecycleEvent = (
    PlanStart
    | PlanRun
    | PlanReady
    | PlanSave
    | Implement
    | Context
    | RunSettled
    | Resume
    | PlanExit
    | Supersede
    | SettingsSave
    | HandoffFailed
    | ThinkingManual
    | Reload
    | TreeNavigate
    | Label
    | Compaction
    | CwdChange
    | Export
)
