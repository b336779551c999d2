"""pi-plan-mode's ready-plan "Start fresh and implement" screen and the
saved-plan direct fresh action (§ Implementation model and thinking).

The model row starts from the first usable ``normalModel`` candidate and
keeps the rest as fallbacks; Start re-resolves that chain against the
catalogue of that moment; a picked model replaces the chain for that one
session. Nothing here writes Settings or touches the planning session.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pytest_planmode.reference.planmode.models_switch import (
    Behaviour,
    ChainResult,
    Settings,
    Step,
    SwitchWarning,
    collapse_duplicates,
    merge_log,
    walk_chain,
)


@dataclass(frozen=True)
class FreshScreen:
    """The inputs of one fresh-session handoff."""

    action: str  # "screen" or "saved-direct"
    planning_model: str
    planning_thinking: str
    open_catalogue: frozenset[str]
    start_catalogue: frozenset[str]
    behaviours: Mapping[str, Behaviour]
    pick: str | None = None
    pick_thinking: str | None = None


@dataclass(frozen=True)
class Notice:
    kind: str
    message: str


@dataclass(frozen=True)
class FreshResult:
    initial_model: str
    fallbacks: tuple[str, ...]
    unavailable: tuple[str, ...]
    initial_thinking: str
    chain: tuple[str, ...]
    notice: Notice | None
    walked: ChainResult
    model: str
    thinking_level: str
    log: tuple[Step, ...]
    warnings: tuple[SwitchWarning, ...]


def configured_chain(settings: Settings) -> tuple[str, ...]:
    """§ Implementation model and thinking: with ``autoSwitchModel`` enabled the
    ``normalModel`` candidates seed the fresh screen; without it (or without
    ``normalModel``) implementation keeps the current session model."""
    if not settings.auto_switch:
        return ()
    return collapse_duplicates(settings.chains.get("normalModel", ()))


def _start_chain(screen: FreshScreen, usable: Sequence[str]) -> tuple[tuple[str, ...], Notice | None]:
    """What Start applies: the picked model alone, or the remaining chain
    re-resolved against the catalogue at Start."""
    if screen.pick is not None and screen.action == "screen":
        if screen.pick in screen.start_catalogue:
            return (screen.pick,), None
        return (), Notice(
            "planning-fallback",
            f"{screen.pick} is no longer available; the fresh session keeps {screen.planning_model}",
        )
    still = tuple(m for m in usable if m in screen.start_catalogue)
    if not usable:
        return (), None
    if not still:
        return (), Notice(
            "planning-fallback",
            "No configured implementation model is available any more; the fresh session "
            f"keeps {screen.planning_model}",
        )
    if still[0] != usable[0]:
        return still, Notice("switched", f"{usable[0]} is no longer available; switched to {still[0]}")
    return still, None


def fresh(screen: FreshScreen, settings: Settings) -> FreshResult:
    """§ Implementation model and thinking: the fresh screen's one-shot
    values, re-resolution on Start and the handoff switch (same per-candidate
    two-second authentication budget as the Plan-boundary switch)."""
    configured = configured_chain(settings)
    usable = tuple(m for m in configured if m in screen.open_catalogue)
    unavailable = tuple(m for m in configured if m not in screen.open_catalogue)
    initial = usable[0] if usable else screen.planning_model
    chain, notice = _start_chain(screen, usable)
    warnings: list[SwitchWarning] = []
    if screen.action == "saved-direct" and configured and not usable:
        # The direct action "warns only when no configured candidate can be used".
        warnings.append(
            SwitchWarning(
                "unavailable",
                "No configured implementation model is available; the fresh session keeps "
                f"{screen.planning_model}",
            )
        )
    walked = walk_chain(
        chain,
        current=screen.planning_model,
        available=screen.start_catalogue,
        behaviours=screen.behaviours,
        start_at=0,
        direction="normalModel",
    )
    if walked.warning is not None:
        warnings.append(walked.warning)
    thinking = screen.pick_thinking or screen.planning_thinking
    steps = list(walked.steps)
    if walked.applied is not None and walked.end_at is not None:
        steps.append(Step(walked.end_at, "thinking.restore", None, thinking))
    return FreshResult(
        initial_model=initial,
        fallbacks=usable[1:],
        unavailable=unavailable,
        initial_thinking=screen.planning_thinking,
        chain=chain,
        notice=notice,
        walked=walked,
        model=walked.applied or screen.planning_model,
        thinking_level=thinking,
        log=merge_log(steps, walked.late),
        warnings=tuple(warnings),
    )


__all__ = ["FreshResult", "FreshScreen", "Notice", "configured_chain", "fresh"]
