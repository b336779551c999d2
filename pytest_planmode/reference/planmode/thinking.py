"""Plan thinking: a fixed level only while Plan mode is active
(pi-plan-mode-settings.md § Thinking level; § Implementation model and
thinking for the fresh screen's thinking row)."""

from __future__ import annotations

from dataclasses import dataclass

INHERIT = "inherit"


@dataclass(frozen=True)
class Snapshot:
    """The level Pi had before Plan mode, and the level Plan mode applied."""

    prior: str
    applied: str


@dataclass(frozen=True)
class Entry:
    level: str
    snapshot: Snapshot | None


def enter(setting: str, current: str) -> Entry:
    """§ Thinking level: `inherit` keeps Pi's current level and takes no
    snapshot; a fixed level is applied and the prior one snapshotted. The
    setting is read when the Plan workflow starts, so a later save waits for
    the next workflow."""
    if setting == INHERIT:
        return Entry(current, None)
    return Entry(setting, Snapshot(prior=current, applied=setting))


def leave(snapshot: Snapshot | None, current: str) -> tuple[str, bool]:
    """§ Thinking level: on exit the prior level comes back only if Pi is
    still at the level the extension applied; a manual change made during
    Plan mode is preserved. Returns the level and whether it was restored."""
    if snapshot is None:
        return current, False
    if current == snapshot.applied:
        return snapshot.prior, True
    return current, False


def fresh_session_level(choice: str | None, current: str) -> str:
    """§ Implementation model and thinking: the fresh screen's thinking row
    starts from the current thinking level; a choice applies to that one
    session and is never written back to Settings."""
    return current if choice is None else choice
