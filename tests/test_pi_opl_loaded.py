"""`oplmodes.modes.script` through `pi:` reads what a `load_tools` call
enabled from Pi's active set when the extension's result does not say
(real opl-modes answers with a text only), the requested names first."""

from __future__ import annotations

from pytest_planmode.contract import host_events as host
from pytest_planmode.targets.pi.oplmodes_modes_script import _loaded

BEFORE = ["read", "bash", "load_tools"]
AFTER = {"activeTools": ["read", "bash", "load_tools", "browser", "subagent"]}


def call(tool: str, **arguments: object) -> host.ToolCall:
    return host.ToolCall(type="tool.call", tool=tool, input=dict(arguments))


def test_what_the_call_added_is_what_it_enabled() -> None:
    answered = {"tool": "load_tools", "allowed": True, "message": "Enabled: subagent, browser"}
    out = _loaded(call("load_tools", tools=["subagent", "ghost"]), answered, BEFORE, AFTER)
    assert out == {**answered, "enabled": ["subagent", "browser"]}
    assert _loaded(call("load_tools"), answered, BEFORE, AFTER)["enabled"] == ["browser", "subagent"]  # type: ignore[index]


def test_an_answer_that_says_refused_or_another_tool_is_kept() -> None:
    said = {"tool": "load_tools", "allowed": True, "message": "", "enabled": ["browser"]}
    assert _loaded(call("load_tools"), said, BEFORE, AFTER) == said
    refused = {"tool": "load_tools", "allowed": False, "message": "blocked"}
    assert _loaded(call("load_tools"), refused, BEFORE, AFTER) == refused
    other = {"tool": "read", "allowed": True, "message": "ok"}
    assert _loaded(call("read"), other, BEFORE, AFTER) == other
    assert _loaded(call("load_tools"), None, BEFORE, AFTER) is None
