from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_planmode.contract import host_events as host
from pytest_planmode.contract import oplmodes_modes
from pytest_planmode.contract import oplmodes_modes as modes
from pytest_planmode.contract.oplmodes_modes import ModesScriptInput, ModesScriptOutput
from pytest_planmode.reference.oplmodes import events as ev
from pytest_planmode.reference.oplmodes.lifecycle import SETTLE_MIN_VERSION, parse_version, run_script
from pytest_planmode.targets.reference.ops import handler
from pytest_planmode.targets.reference.ops.oplmodes_config import load_from_input


def _entries(entries: list[host.SessionEntry] | None) -> tuple[dict[str, Any], ...]:
    """Session entries as Pi stores them (JSON objects, camelCase keys)."""
    return tuple(entry.model_dump(mode="json", by_alias=True) for entry in entries or ())


class _Translation:
    """Host events as the reference session's own events. One host event
    may be several of them (a run that settles is `agent_end`, then, from
    Pi 0.87.0, `agent_before_settle`); the config file on disk is tracked
    so that `/reload` reads what was last written."""

    def __init__(self, inp: ModesScriptInput) -> None:
        self.present = "config" in inp.model_fields_set
        self.config = inp.config
        version = parse_version(inp.pi_version)
        self.emits_settle = version is not None and version >= SETTLE_MIN_VERSION

    def __call__(self, e: Any) -> list[ev.SessionEvent]:
        return _EVENTS[type(e)](self, e)

    def reload(self, e: host.SessionReload) -> list[ev.SessionEvent]:
        return [ev.Reloaded(e.at, self.config, self.present)]

    def config_write(self, e: modes.ConfigWrite) -> list[ev.SessionEvent]:
        self.present = "config" in e.model_fields_set
        self.config = e.config
        return [ev.ConfigWritten(e.at)]

    def settle(self, e: host.AgentSettle) -> list[ev.SessionEvent]:
        ended: list[ev.SessionEvent] = [ev.AgentEnded(e.at)]
        return [*ended, ev.AgentSettling(e.at, e.outcome)] if self.emits_settle else ended


def _resumed(_: _Translation, e: host.SessionResume) -> list[ev.SessionEvent]:
    return [ev.SessionResumed(e.at, () if e.entries is None else _entries(e.entries))]


def _command(_: _Translation, e: host.Command) -> list[ev.SessionEvent]:
    return [ev.CommandTyped(e.at, f"/{e.name} {e.args}" if e.args else f"/{e.name}")]


#: Host event -> the reference session's events it becomes.
_EVENTS: dict[type[Any], Callable[[_Translation, Any], list[ev.SessionEvent]]] = {
    host.SessionStart: lambda _, e: [ev.SessionStarted(e.at, tuple(e.flags), _entries(e.entries))],
    host.SessionResume: _resumed,
    host.SessionTree: lambda _, e: [ev.BranchChanged(e.at, _entries(e.entries))],
    host.SessionReload: _Translation.reload,
    modes.ConfigWrite: _Translation.config_write,
    host.Command: _command,
    host.KeyPress: lambda _, e: [ev.KeyPressed(e.at, e.key)],
    host.UiAnswer: lambda _, e: [ev.MenuPicked(e.at, e.label, e.index, e.role, e.plan)],
    host.AgentStart: lambda _, e: [ev.AgentStarted(e.at)],
    host.ToolCall: lambda _, e: [ev.ToolCalled(e.at, e.tool, dict(e.input))],
    host.AgentSettle: _Translation.settle,
    host.ClockAdvance: lambda _, e: [ev.ClockAdvanced(e.at)],
    modes.ToolsRegistered: lambda _, e: [ev.ToolsRegistered(e.at, tuple(e.tools))],
    modes.ActiveToolsChanged: lambda _, e: [ev.ActiveToolsChanged(e.at, tuple(e.tools))],
}


def _merge(steps: list[dict[str, Any]], event: str) -> dict[str, Any]:
    """One host event's step from the reference steps it became: the state
    after the last, everything any of them showed, and `ignored` only when
    none of them acted."""
    merged = dict(steps[-1])
    merged["event"] = event
    merged["notifications"] = [n for s in steps for n in s["notifications"]]
    merged["planFiles"] = [f for s in steps for f in s["planFiles"]]
    merged["thinkingCycled"] = any(s["thinkingCycled"] for s in steps)
    for key in ("menu", "result", "persisted"):
        merged[key] = next((s[key] for s in reversed(steps) if s[key] is not None), None)
    reasons = [s["ignored"] for s in steps]
    merged["ignored"] = "; ".join(r for r in reasons if r) if all(reasons) else None
    return merged


@handler(oplmodes_modes.SCRIPT)
def script(inp: ModesScriptInput) -> ModesScriptOutput:
    config = load_from_input(inp, "config")
    translate = _Translation(inp)
    groups = [translate(event) for event in inp.events]
    session = run_script(
        config,
        [event for group in groups for event in group],
        registered=inp.registered_tools,
        active=inp.active_tools,
        pi_version=inp.pi_version,
        existing_plans=inp.plans,
        keybindings=inp.keybindings,
    )
    steps: list[dict[str, Any]] = []
    position = 0
    for event, group in zip(inp.events, groups, strict=True):
        steps.append(_merge(session.steps[position : position + len(group)], event.type))
        position += len(group)
    return ModesScriptOutput.model_validate(
        {
            "steps": steps,
            "final": session.final(),
            "trace": session.trace,
            "configProblems": [p.message for p in config.problems],
        }
    )
