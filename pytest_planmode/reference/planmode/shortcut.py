"""The Plan-mode toggle shortcut (pi-plan-mode-settings.md § Toggle shortcut).

Pi snapshots shortcut registrations when it binds the editor, so the
binding is registered once per extension runtime: a changed value waits for
`/reload` or a restart, and the loaded value is reported beside it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Shortcut:
    loaded: str | None
    configured: str | None
    registrations: int

    @property
    def pending(self) -> bool:
        return self.loaded != self.configured


def at_startup(configured: str | None) -> Shortcut:
    """§ Toggle shortcut: disabled (nothing registered) when omitted."""
    return Shortcut(configured, configured, 1 if configured is not None else 0)


def configure(state: Shortcut, configured: str | None) -> Shortcut:
    """§ Toggle shortcut: a save or JSON edit changes only the configured
    value; the current binding stays unchanged."""
    return replace(state, configured=configured)


def new_runtime(state: Shortcut) -> Shortcut:
    """§ Toggle shortcut: `/reload` or a restart registers the configured
    value (or nothing, when it was removed). Tree navigation and compaction
    are not new runtimes and never come here."""
    registered = 1 if state.configured is not None else 0
    return Shortcut(state.configured, state.configured, state.registrations + registered)
