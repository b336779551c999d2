"""Rows of the Plan policy tools picker (pi-plan-mode-settings.md § Enable
inactive built-in search tools in Pi; § Default Plan policy tools).

The picker shows a snapshot taken when it opens; these rows are computed
from that snapshot and never update in place.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_planmode.reference.planmode.plan_helpers import HELPER_NAMES
from pytest_planmode.reference.planmode.tools_freeze import (
    ADMITTED,
    BLOCKED_NAMES,
    SAFE_BUILT_INS,
    PolicyNames,
    resolve_automatic,
)
from pytest_planmode.reference.planmode.tools_registry import Registry, Tool

AVAILABLE = "available"
INACTIVE_IN_PI = "inactive in Pi"
BLOCKED_BY_POLICY = "blocked by Plan policy"
PENDING_REGISTRATION = "pending registration"
UNAVAILABLE = "unavailable"

# Exposures whose rows need Pi activation before Plan mode can use them.
_NEEDS_ACTIVATION = frozenset({"direct", "model-only"})


@dataclass(frozen=True)
class PickerRow:
    name: str
    label: str
    selected: bool


def label(name: str, tool: Tool | None) -> str:
    """§ Enable inactive built-in search tools in Pi: registered but inactive
    rows read "inactive in Pi", not "blocked by Plan policy"; `edit`, `write`
    (and `update_plan`) are policy-blocked even when active in Pi; an
    unregistered name is "pending registration"; hidden and unsupported
    exposure are "unavailable" (reference wording)."""
    if name in BLOCKED_NAMES:
        return BLOCKED_BY_POLICY
    if tool is None or not tool.registered:
        return PENDING_REGISTRATION
    if tool.exposure in ("hidden", "unsupported"):
        return UNAVAILABLE
    if tool.exposure in _NEEDS_ACTIVATION and not tool.active:
        return INACTIVE_IN_PI
    return AVAILABLE


def picker_rows(registry: Registry, chosen: PolicyNames) -> tuple[PickerRow, ...]:
    """§ Default Plan policy tools: one row per registered tool (helpers are
    not optional tools and get no row), then one per explicit name the
    registry does not hold, shown as pending registration."""
    names = [t.name for t in registry.tools if t.registered and t.name not in HELPER_NAMES]
    if chosen.names is not None:
        names += [n for n in chosen.names if n not in names and n not in HELPER_NAMES]
    rows = []
    for name in names:
        tool = registry.get(name)
        if chosen.names is None:
            selected = resolve_automatic(name, tool) == ADMITTED and name in SAFE_BUILT_INS
        else:
            selected = name in chosen.names
        rows.append(PickerRow(name, label(name, tool), selected))
    return tuple(rows)
