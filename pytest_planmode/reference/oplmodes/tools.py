"""Which tools are active in a mode (opl-modes.md § Mode behavior, § Tool
inheritance warning, § Execute handoff, § Lazy tool loading).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pytest_planmode.reference.oplmodes.config import OplConfig
from pytest_planmode.reference.oplmodes.registry import (
    EXTENSION_TOOLS,
    LOAD_TOOLS,
    OFF,
    PLAN_COMPLETE,
    ModeDef,
    plan_complete_allowed,
)


@dataclass(frozen=True)
class ActiveSet:
    mode: str
    #: What the mode permits before lazy tools are withheld, in order.
    permitted: tuple[str, ...]
    active: tuple[str, ...]
    withheld_lazy: tuple[str, ...]
    load_tools_registered: bool
    inherits_all: bool
    #: Names in the mode's own list that Pi does not know.
    unknown: tuple[str, ...]


def _dedupe(names: Iterable[str]) -> tuple[str, ...]:
    seen: list[str] = []
    for name in names:
        if name not in seen:
            seen.append(name)
    return tuple(seen)


def resting_set(config: OplConfig, snapshot: Sequence[str], registered: Sequence[str]) -> tuple[str, ...]:
    """The tools of normal mode (§ Tool inheritance warning): the pinned
    `modes.off.tools` when set, else the snapshot taken on mode entry,
    never wider than what Pi has registered."""
    off = config.modes[OFF]
    base = off.tools if off.tools is not None else tuple(snapshot)
    return tuple(n for n in _dedupe(base) if n in registered and n not in EXTENSION_TOOLS)


def permitted_tools(
    mode: ModeDef, config: OplConfig, snapshot: Sequence[str], registered: Sequence[str]
) -> tuple[str, ...]:
    """The mode's tool policy: its own list, or (no list) the resting set it
    inherits; `plan_complete` appended where the one predicate allows it."""
    if mode.name == OFF or mode.tools is None:
        base = resting_set(config, snapshot, registered)
    else:
        base = tuple(n for n in mode.tools if n != LOAD_TOOLS)
    if plan_complete_allowed(mode):
        base = (*base, PLAN_COMPLETE)
    else:
        base = tuple(n for n in base if n != PLAN_COMPLETE)
    return _dedupe(base)


def active_set(
    mode: ModeDef,
    config: OplConfig,
    snapshot: Sequence[str],
    registered: Sequence[str],
    loaded: Sequence[str] = (),
) -> ActiveSet:
    """The active tools on entering `mode` (opl-modes.md § Mode behavior,
    § Lazy tool loading; Pi ignores names it does not
    know, so only registered names and opl-modes' own tools are active);
    lazy tools the mode permits are withheld unless already `loaded`, and
    `load_tools` is offered when at least one is withheld."""
    permitted = permitted_tools(mode, config, snapshot, registered)
    own_list = mode.tools if (mode.tools is not None) else ()
    unknown = tuple(n for n in _dedupe(own_list) if n not in registered and n not in EXTENSION_TOOLS)
    usable = tuple(n for n in permitted if n in registered or n in EXTENSION_TOOLS)
    lazy = set(config.lazy_tools)
    withheld = tuple(n for n in usable if n in lazy and n not in loaded)
    active = [n for n in usable if n not in withheld]
    if withheld:
        active.append(LOAD_TOOLS)
    return ActiveSet(
        mode=mode.name,
        permitted=permitted,
        active=_dedupe(active),
        withheld_lazy=withheld,
        load_tools_registered=bool(withheld),
        inherits_all=mode.tools is None,
        unknown=unknown,
    )
