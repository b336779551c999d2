"""`load_tools` (opl-modes.md § Lazy tool loading): enabling withheld lazy
tools on demand, bounded by the current mode's tool policy."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pytest_planmode.reference.oplmodes.config import PROTECTED_TOOLS, OplConfig
from pytest_planmode.reference.oplmodes.registry import LOAD_TOOLS, ModeDef
from pytest_planmode.reference.oplmodes.tools import active_set


@dataclass(frozen=True)
class Ignored:
    tool: str
    reason: str
    message: str


@dataclass(frozen=True)
class LoadResult:
    enabled: tuple[str, ...]
    ignored: tuple[Ignored, ...]
    active: tuple[str, ...]
    withheld_lazy: tuple[str, ...]
    loaded: tuple[str, ...]
    message: str
    available: bool


def load_tools(
    mode: ModeDef,
    config: OplConfig,
    snapshot: Sequence[str],
    registered: Sequence[str],
    loaded: Sequence[str],
    request: Sequence[str] | None,
) -> LoadResult:
    """One `load_tools` call: with no argument, every lazy tool the mode
    currently withholds; otherwise only the requested names the mode
    permits. A tool the mode does not permit is never enabled, so a
    read-only mode cannot load a write-capable tool."""
    before = active_set(mode, config, snapshot, registered, loaded)
    if not before.load_tools_registered and not loaded:
        return LoadResult(
            (),
            (),
            before.active,
            before.withheld_lazy,
            tuple(loaded),
            f"load_tools is not available in {mode.name} mode: no lazy tool is withheld",
            False,
        )
    lazy = set(config.lazy_tools)
    wanted = list(before.withheld_lazy) if request is None else list(dict.fromkeys(request))
    enabled: list[str] = []
    ignored: list[Ignored] = []
    for name in wanted:
        if name in before.withheld_lazy:
            enabled.append(name)
        elif name in loaded:
            ignored.append(Ignored(name, "already-active", f"{name} is already active"))
        elif name in PROTECTED_TOOLS or name == LOAD_TOOLS or name not in lazy:
            ignored.append(Ignored(name, "not-lazy", f"{name} is not a lazy tool"))
        elif name not in before.permitted:
            ignored.append(Ignored(name, "not-permitted", f"{name} is not permitted in {mode.name} mode"))
        else:
            ignored.append(Ignored(name, "unregistered", f"{name} is not registered in Pi"))
    now_loaded = (*loaded, *enabled)
    after = active_set(mode, config, snapshot, registered, now_loaded)
    # load_tools stays offered until the next mode switch (reference choice:
    # the model already saw it this turn).
    active = after.active if LOAD_TOOLS in after.active else (*after.active, LOAD_TOOLS)
    if enabled:
        message = "Enabled: " + ", ".join(enabled)
    else:
        message = "No tools enabled"
    if ignored:
        message += "; ignored: " + "; ".join(i.message for i in ignored)
    return LoadResult(tuple(enabled), tuple(ignored), active, after.withheld_lazy, now_loaded, message, True)
