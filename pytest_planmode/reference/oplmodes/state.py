"""Mode state in session entries and the shared mode state (opl-modes.md
§ Tool inheritance warning, the persistence paragraph; § Architecture).

The `mode-switcher` entry type and the legacy chat/plan identifiers are
compatibility contracts: an implementation must keep reading them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_planmode.reference.oplmodes import plans
from pytest_planmode.reference.oplmodes.config import OplConfig
from pytest_planmode.reference.oplmodes.registry import (
    CHAT,
    EXECUTE,
    NORMAL_ALIAS,
    OFF,
    PLAN,
    display_name,
)

ENTRY_TYPE = "custom"
MODE_SWITCHER = "mode-switcher"
#: Legacy identifiers of the separate chat and plan extensions opl-modes
#: replaced (reference choice of spelling; the spec names them as a
#: contract without spelling them out).
LEGACY_CHAT = "chat-mode"
LEGACY_PLAN = "plan-mode"
KNOWN_ENTRY_TYPES = (MODE_SWITCHER, LEGACY_CHAT, LEGACY_PLAN)

#: The one global the state module publishes for `opl-input`/`opl-footer`.
SHARED_KEY = "__agentMode"


@dataclass(frozen=True)
class Restored:
    mode: str
    plan_file: str | None
    refine_cycles: int
    warnings: tuple[str, ...]


def mode_entry(mode: str, plan_file: str | None, refine_cycles: int) -> dict[str, Any]:
    """The session entry written on every mode change (opl-modes.md § Tool
    inheritance warning: mode state is persisted in session entries)."""
    return {
        "type": ENTRY_TYPE,
        "customType": MODE_SWITCHER,
        "data": {"mode": mode, "planFile": plan_file, "refineCycles": refine_cycles},
    }


def _last_own_entry(entries: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    for entry in reversed(entries):
        if (
            isinstance(entry, Mapping)
            and entry.get("type") == ENTRY_TYPE
            and entry.get("customType") in KNOWN_ENTRY_TYPES
        ):
            return entry
    return None


def restore(
    entries: Sequence[Mapping[str, Any]], config: OplConfig, existing_plans: Sequence[str]
) -> Restored:
    """The state to resume from the entries on the current branch: the last
    opl-modes entry wins; entries of other extensions are not ours and are
    skipped. An unknown (or disabled) mode falls back to normal; a plan
    filename with a path separator or `..` is dropped; execute without a
    usable plan falls back to normal, so a stale or foreign branch cannot
    leave the session unrestricted or reading outside `.pi/plans/`."""
    entry = _last_own_entry(entries)
    if entry is None:
        return Restored(OFF, None, 0, ())
    kind = str(entry.get("customType"))
    data = entry.get("data")
    if not isinstance(data, Mapping):
        return Restored(
            OFF,
            None,
            0,
            (f"session entry {kind} has no usable data; falling back to normal",),
        )
    warnings: list[str] = []
    raw_mode: Any
    if kind == MODE_SWITCHER:
        raw_mode = data.get("mode")
    else:
        enabled = data.get("enabled")
        raw_mode = (CHAT if kind == LEGACY_CHAT else PLAN) if enabled is True else OFF
    raw_plan = data.get("planFile")
    plan_file: str | None = None
    if raw_plan is not None:
        resolved = (
            plans.resolve_resumed(raw_plan)
            if isinstance(raw_plan, str)
            else plans.PlanFile(False, None, "plan filename is not a string: dropped")
        )
        if resolved.accepted:
            plan_file = raw_plan
        else:
            warnings.append(f"session entry plan file dropped: {resolved.reason}")
    cycles = data.get("refineCycles")
    refine = cycles if isinstance(cycles, int) and not isinstance(cycles, bool) and cycles >= 0 else 0
    mode = _known_mode(raw_mode, config)
    if mode is None:
        warnings.append(f"session entry names unknown mode {_short(raw_mode)}; falling back to normal")
        return Restored(OFF, None, 0, tuple(warnings))
    if mode == EXECUTE and (plan_file is None or plan_file not in existing_plans):
        warnings.append(
            "session entry is in execute mode without a plan file that exists; falling back to normal"
        )
        return Restored(OFF, None, 0, tuple(warnings))
    if mode != PLAN:
        refine = 0
    if mode == OFF:
        plan_file = None
    return Restored(mode, plan_file, refine, tuple(warnings))


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _known_mode(value: Any, config: OplConfig) -> str | None:
    if not isinstance(value, str):
        return None
    name = OFF if value == NORMAL_ALIAS else value
    mode = config.modes.get(name)
    if mode is None or not mode.enabled:
        return None
    return name


def published_state(mode: str, plan_file: str | None, config: OplConfig) -> dict[str, Any]:
    """`globalThis.__agentMode` (§ Architecture, § Mode appearance): the
    mode, its display name, the active plan and its appearance. Appearance
    fields a mode omits are null, so `opl-input` uses its compiled defaults;
    `modeColor` falls back to `muted` as the footer does."""
    from pytest_planmode.reference.oplmodes.appearance import DEFAULT_MODE_COLOR

    look = config.modes[mode].appearance
    return {
        SHARED_KEY: {
            "mode": mode,
            "name": display_name(mode),
            "planFile": plans.plan_path(plan_file) if plan_file else None,
            "prefix": look.prefix,
            "prefixColor": look.prefix_color,
            "borderColor": look.border_color,
            "modeColor": look.mode_color or DEFAULT_MODE_COLOR,
        }
    }
