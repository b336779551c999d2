"""The mode registry of opl-modes (opl-modes.md § Extension features,
§ Configuration, § Architecture): built-in `off`, `chat`, `plan`, `execute`
plus custom modes, and the lists derived from it (cycle, picker).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

OFF = "off"
CHAT = "chat"
PLAN = "plan"
EXECUTE = "execute"
BUILTIN_MODES = (OFF, CHAT, PLAN, EXECUTE)

#: `/mode normal` selects `off`; `normal` is the name people see for it.
NORMAL_ALIAS = "normal"

#: Tools opl-modes itself registers; they are never "unknown" to a mode.
PLAN_COMPLETE = "plan_complete"
LOAD_TOOLS = "load_tools"
EXTENSION_TOOLS = frozenset({PLAN_COMPLETE, LOAD_TOOLS})

#: Built-in read-only tool list of `chat` and `plan` (reference choice: the
#: spec calls them "configurable read-only tool lists" without naming them;
#: these are Pi's read-only built-ins).
DEFAULT_READONLY_TOOLS: tuple[str, ...] = ("read", "bash", "grep", "find", "ls")


@dataclass(frozen=True)
class Appearance:
    prefix: str | None = None
    prefix_color: str | None = None
    border_color: str | None = None
    mode_color: str | None = None


@dataclass(frozen=True)
class ModeDef:
    """One mode of the effective registry.

    `tools is None` means the mode has no list of its own and inherits the
    resting tool set (all tools, or the pinned `modes.off.tools`)."""

    name: str
    builtin: bool
    enabled: bool = True
    visible: bool = True
    tools: tuple[str, ...] | None = None
    tools_source: str = "inherit"
    allow_plan_complete: bool = False
    allow_execute: bool = True
    prompt: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    appearance: Appearance = Appearance()
    model: tuple[str, str] | None = None


def builtin_defaults() -> dict[str, ModeDef]:
    """The four built-in modes before configuration is merged over them
    (opl-modes.md § Architecture: config.ts registers built-in modes)."""
    return {
        OFF: ModeDef(OFF, True, tools_source="snapshot"),
        CHAT: ModeDef(CHAT, True, tools=DEFAULT_READONLY_TOOLS, tools_source="builtin"),
        PLAN: ModeDef(PLAN, True, tools=DEFAULT_READONLY_TOOLS, tools_source="builtin"),
        # Execute is reached only with a plan (`/execute`, `Execute:` entries),
        # never from the picker's mode list or the cycle.
        EXECUTE: ModeDef(EXECUTE, True, visible=False, allow_plan_complete=True),
    }


def plan_complete_allowed(mode: ModeDef) -> bool:
    """The single `planCompleteAllowed()` predicate (opl-modes.md § Execute
    handoff): execute mode, or any mode that sets `allowPlanComplete`. The
    tool gate, the tool body and the result handler all ask this."""
    return mode.name == EXECUTE or mode.allow_plan_complete


def cycle_modes(modes: Mapping[str, ModeDef]) -> list[str]:
    """Modes the cycle shortcut rotates through (opl-modes.md § Commands,
    flags, and shortcuts): enabled and visible, never execute."""
    return [m.name for m in modes.values() if m.enabled and m.visible and m.name != EXECUTE]


def picker_modes(modes: Mapping[str, ModeDef]) -> list[str]:
    """Modes listed by the `/mode` picker: the same set as the cycle;
    `visible: false` hides a mode here too (§ Mode behavior)."""
    return cycle_modes(modes)


def display_name(name: str) -> str:
    """What people see for a mode name: `off` is shown as `normal`
    (opl-modes.md § Commands, flags, and shortcuts: `/mode normal`)."""
    return NORMAL_ALIAS if name == OFF else name
