"""Tests of opl-modes tool sets and lazy tools in the reference
(opl-modes.md § Mode behavior, § Tool inheritance warning, § Lazy tool
loading)."""

from __future__ import annotations

from typing import Any

from hypothesis import given

from pytest_planmode.reference.oplmodes import config as cfg
from pytest_planmode.reference.oplmodes.lazy_tools import load_tools
from pytest_planmode.reference.oplmodes.tools import active_set, resting_set
from pytest_planmode.strategies import oplmodes_modes as s

ALL = ["read", "bash", "edit", "write", "grep", "find", "ls", "subagent", "browser"]


def test_chat_is_read_only() -> None:
    config = cfg.load(None, present=False)
    result = active_set(config.modes["chat"], config, ALL, ALL)
    assert result.active == ("read", "bash", "grep", "find", "ls")


def test_off_never_wider_than_snapshot_or_registry() -> None:
    config = cfg.load(None, present=False)
    assert resting_set(config, ["read", "ghost"], ["read", "bash"]) == ("read",)


def test_pinned_off_replaces_snapshot_for_inheriting_modes() -> None:
    config = cfg.load({"modes": {"off": {"tools": ["read"]}, "scratch": {}}})
    assert active_set(config.modes["scratch"], config, ALL, ALL).active == ("read",)
    assert active_set(config.modes["execute"], config, ALL, ALL).active == ("read", "plan_complete")


def test_lazy_withheld_and_load_tools_offered() -> None:
    config = cfg.load({"lazyTools": ["subagent", "browser"]})
    result = active_set(config.modes["off"], config, ALL, ALL)
    assert result.withheld_lazy == ("subagent", "browser")
    assert result.active[-1] == "load_tools"
    chat = active_set(config.modes["chat"], config, ALL, ALL)
    assert not chat.load_tools_registered


def test_load_tools_bounded_by_mode() -> None:
    config = cfg.load(
        {"lazyTools": ["subagent", "browser"], "modes": {"research": {"tools": ["read", "subagent"]}}}
    )
    result = load_tools(config.modes["research"], config, ALL, ALL, (), ["browser", "subagent", "write"])
    assert result.enabled == ("subagent",)
    assert {i.tool: i.reason for i in result.ignored} == {"browser": "not-permitted", "write": "not-lazy"}
    assert set(result.active) == {"read", "subagent", "load_tools"}


def test_unknown_names_reported() -> None:
    config = cfg.load({"modes": {"review": {"tools": ["read", "web_serch", "plan_complete"]}}})
    result = active_set(config.modes["review"], config, ALL, ALL)
    assert result.unknown == ("web_serch",)


@given(scenario=s.lazy_scenarios(), snapshot=s.registries)
def test_load_never_outside_permitted(
    scenario: tuple[dict[str, Any], str, list[str] | None], snapshot: list[str]
) -> None:
    document, mode_name, request = scenario
    config = cfg.load(document)
    mode = config.modes[mode_name]
    before = active_set(mode, config, snapshot, s.TOOL_NAMES)
    result = load_tools(mode, config, snapshot, s.TOOL_NAMES, (), request)
    assert set(result.enabled) <= set(before.withheld_lazy)
    assert set(result.active) <= set(before.permitted) | {"load_tools"}
