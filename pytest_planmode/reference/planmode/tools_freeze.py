"""Resolution and freezing of the Plan allowlist (pi-plan-mode-settings.md
§ Default Plan policy tools; § Plan helper tools; § Enable inactive built-in
search tools in Pi).

At a workflow's first provider-bound context Plan mode resolves its retained
names against the live registry once and freezes the result. This module is
that resolution: names in, allowlist + pending names + one reason per name out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_planmode.reference.planmode.plan_helpers import HELPER_NAMES
from pytest_planmode.reference.planmode.settings import read_document
from pytest_planmode.reference.planmode.settings_values import InvalidSetting, tool_names
from pytest_planmode.reference.planmode.tools_registry import Registry, Tool

#: Names that stay blocked whatever their source metadata or activation.
BLOCKED_NAMES = ("edit", "write", "update_plan")

#: Names whose calls go to the limited-shell policy once admitted.
SHELL_NAMES = ("bash", "powershell")

#: Reference choice: the safe built-ins automatic defaults may admit. The
#: spec's example list, plus `powershell`, which (like `bash`) only ever runs
#: through its limited-shell policy. `edit`, `write` and `update_plan` are
#: never safe.
SAFE_BUILT_INS = ("read", "bash", "grep", "find", "ls", "powershell")

# Where the names come from.
BASIS_SELECTION = "session-selection"
BASIS_SETTINGS = "settings"
BASIS_AUTOMATIC = "automatic"

# Per-name resolution reasons.
ADMITTED = "admitted"
POLICY_BLOCKED = "policy-blocked"
PLAN_HELPER = "plan-helper"
UNREGISTERED = "unregistered"
HIDDEN = "hidden"
UNSUPPORTED = "unsupported-exposure"
INACTIVE = "inactive"
OVERRIDE_NEEDS_OPT_IN = "override-needs-opt-in"

#: Reasons that make an explicit name wait for the next Plan workflow: the
#: tool may become available; a blocked name or a helper never will.
WAITING_REASONS = frozenset({UNREGISTERED, HIDDEN, UNSUPPORTED, INACTIVE})

# Exposure -> does a name need direct activation to be admitted? Hidden and
# unsupported exposures are never admitted, whatever is declared or saved.
_NEEDS_ACTIVATION = {"direct": True, "model-only": True, "codemode": False, "deferred": False}
_NEVER_ADMITTED = {"hidden": HIDDEN, "unsupported": UNSUPPORTED}


@dataclass(frozen=True)
class PolicyNames:
    """The names a workflow will resolve. `names is None` means automatic
    safe built-ins."""

    basis: str
    names: tuple[str, ...] | None
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Resolution:
    name: str
    admitted: bool
    reason: str
    pending: bool


@dataclass(frozen=True)
class FrozenPolicy:
    """The executable allowlist of one Plan workflow, frozen at resolution."""

    basis: str
    allowlist: tuple[str, ...]
    pending: tuple[str, ...]
    resolutions: tuple[Resolution, ...]

    def resolution(self, name: str) -> Resolution | None:
        for item in self.resolutions:
            if item.name == name:
                return item
        return None


def settings_names(settings: Mapping[str, Any]) -> PolicyNames:
    """§ Default Plan policy tools: an omitted `defaultPlanTools` means
    automatic safe built-ins; `[]` means no optional tools. An invalid
    document (any of its fields) falls back to the safe-built-in defaults
    with a warning (§ Thinking level: invalid settings fall back to
    "available safe-built-in tool defaults"). Unknown keys and the retired
    `toolVisibility` are ignored."""
    reading = read_document(settings)
    if reading.invalid is not None:
        return PolicyNames(
            BASIS_AUTOMATIC,
            None,
            (f"invalid settings ({reading.invalid.detail}); using automatic safe built-ins instead",),
        )
    names = reading.settings.default_plan_tools
    return PolicyNames(BASIS_AUTOMATIC if names is None else BASIS_SETTINGS, names)


def policy_names(settings: Mapping[str, Any], selection: Sequence[Any] | None) -> PolicyNames:
    """§ Default Plan policy tools: a selection stored in the session (through
    "Choose tools, then start…" or `/plan tools`) takes precedence over
    `defaultPlanTools`; without one the global setting is the baseline."""
    if selection is not None:
        try:
            return PolicyNames(BASIS_SELECTION, tool_names(list(selection)))
        except InvalidSetting as exc:
            # Reference choice: a malformed stored selection is ignored, not
            # half-applied; the settings baseline applies instead.
            base = settings_names(settings)
            note = f"stored session selection ignored ({exc})"
            return PolicyNames(base.basis, base.names, (note, *base.warnings))
    return settings_names(settings)


def unavailability(tool: Tool | None) -> str | None:
    """Why a registry entry can never run now (unregistered, hidden or
    unsupported exposure), whatever is declared or saved; None otherwise."""
    if tool is None or not tool.registered:
        return UNREGISTERED
    return _NEVER_ADMITTED.get(tool.exposure)


def resolve_explicit(name: str, tool: Tool | None) -> str:
    """§ Default Plan policy tools: one configured or selected name against
    the live registry. Direct and `model-only` tools must be active;
    registered `codemode`/`deferred` tools need no direct activation;
    `edit`, `write`, `update_plan` stay blocked regardless of source; an
    extension tool under any name is trusted once explicitly named."""
    if name in BLOCKED_NAMES:
        return POLICY_BLOCKED
    if name in HELPER_NAMES:
        return PLAN_HELPER
    blocked = unavailability(tool)
    if blocked is not None or tool is None:
        return blocked or UNREGISTERED
    if _NEEDS_ACTIVATION[tool.exposure] and not tool.active:
        return INACTIVE
    return ADMITTED


def resolve_automatic(name: str, tool: Tool | None) -> str:
    """§ Default Plan policy tools: automatic defaults admit already-active
    safe built-ins, rechecking the effective source metadata at the
    boundary, so an override of a safe built-in name needs explicit opt-in."""
    blocked = unavailability(tool)
    if blocked is not None or tool is None:
        return blocked or UNREGISTERED
    if tool.source != "built-in":
        return OVERRIDE_NEEDS_OPT_IN
    if not tool.active:
        return INACTIVE
    return ADMITTED


def freeze(registry: Registry, chosen: PolicyNames) -> FrozenPolicy:
    """§ Default Plan policy tools: resolve the retained names against the
    live registry, exposure and active declarations, and freeze the
    allowlist. Unavailable explicit names are pending: they wait for the
    next Plan workflow. Nothing is registered or activated."""
    automatic = chosen.names is None
    candidates = SAFE_BUILT_INS if chosen.names is None else chosen.names
    resolutions: list[Resolution] = []
    for name in candidates:
        tool = registry.get(name)
        reason = resolve_automatic(name, tool) if automatic else resolve_explicit(name, tool)
        admitted = reason == ADMITTED
        pending = not automatic and reason in WAITING_REASONS
        resolutions.append(Resolution(name, admitted, reason, pending))
    return FrozenPolicy(
        basis=chosen.basis,
        allowlist=tuple(r.name for r in resolutions if r.admitted),
        pending=tuple(r.name for r in resolutions if r.pending),
        resolutions=tuple(resolutions),
    )
