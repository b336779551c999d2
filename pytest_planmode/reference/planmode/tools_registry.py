"""Pi's tool registry as data (pi-plan-mode-settings.md § Default Plan policy
tools): what Plan mode reads when it resolves names, never what it writes.

Plan mode never registers or activates a tool, so this module only offers
ways to *describe* registry changes that Pi (or another extension) makes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

#: Public exposures Plan mode understands.
EXPOSURES = ("direct", "model-only", "codemode", "deferred", "hidden", "unsupported")

# MCP's `codemode-deferred` is published as `deferred`; a missing exposure
# (older Pi) keeps the direct-tool behaviour.
_EXPOSURE_ALIASES = {"codemode-deferred": "deferred"}

SOURCES = ("built-in", "user-extension", "project-extension", "override")


def normalize_exposure(raw: str | None) -> str:
    """§ Default Plan policy tools: missing exposure means `direct` (older
    Pi), MCP `codemode-deferred` means `deferred`. Any other value Plan mode
    does not know is treated as `unsupported` (reference choice: an exposure
    nobody reviewed stays unavailable, failing closed)."""
    if raw is None:
        return "direct"
    value = _EXPOSURE_ALIASES.get(raw, raw)
    return value if value in EXPOSURES else "unsupported"


@dataclass(frozen=True)
class Tool:
    """One effective registry entry. `source` is the effective source
    metadata: a built-in name overridden by an extension is not `built-in`."""

    name: str
    registered: bool = True
    active: bool = True
    exposure: str = "direct"
    source: str = "built-in"


@dataclass(frozen=True)
class Registry:
    """Effective tools by name, in first-registration order.

    Pi resolves tools by name, so a later registration of the same name (an
    extension overriding a built-in) replaces the earlier entry.
    """

    tools: tuple[Tool, ...] = ()

    @classmethod
    def of(cls, entries: Iterable[Tool]) -> Registry:
        registry = cls()
        for tool in entries:
            registry = registry.register(tool)
        return registry

    def get(self, name: str) -> Tool | None:
        """§ Default Plan policy tools: Pi resolves tools by name; the
        effective tool called `name`, or None if Pi has no such entry."""
        for tool in self.tools:
            if tool.name == name:
                return tool
        return None

    def register(self, tool: Tool) -> Registry:
        """§ Default Plan policy tools: register `tool`; an existing entry of
        that name (a built-in an extension overrides) is replaced in place."""
        if self.get(tool.name) is None:
            return Registry((*self.tools, tool))
        return Registry(tuple(tool if t.name == tool.name else t for t in self.tools))

    def update(self, name: str, **changes: object) -> Registry:
        """§ Default Plan policy tools: change fields of the entry `name`
        (activation, declaration, exposure); an unknown name changes nothing,
        as Pi ignores activation requests for tools it does not know."""
        return Registry(
            tuple(replace(t, **changes) if t.name == name else t for t in self.tools)  # type: ignore[arg-type]
        )

    def active_names(self) -> tuple[str, ...]:
        """§ Enable inactive built-in search tools in Pi: the names Pi has
        active (Pi controls activation; Plan mode never changes it)."""
        return tuple(t.name for t in self.tools if t.registered and t.active)
