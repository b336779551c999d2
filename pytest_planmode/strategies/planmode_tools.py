"""Strategies for pi-plan-mode tool policy: registries, settings, session
selections and scripts of registry changes after the resolution boundary."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

#: Names the strategies draw from: safe built-ins, blocked names, helpers,
#: an orchestrator, an MCP tool and custom tools, so collisions are common.
TOOL_NAMES = (
    "read",
    "bash",
    "powershell",
    "grep",
    "find",
    "ls",
    "edit",
    "write",
    "update_plan",
    "codemode",
    "mcp__docs__read",
    "lint_tool",
    "summarize",
    "plan_mode_question",
)
BLOCKED_NAMES = ("edit", "write", "update_plan")
HELPER_NAMES = ("plan_mode_question", "plan_mode_complete")
EXPOSURES = (
    None,
    "direct",
    "model-only",
    "codemode",
    "deferred",
    "hidden",
    "unsupported",
    "codemode-deferred",
)
SOURCES = ("built-in", "user-extension", "project-extension", "override")

names = st.sampled_from(TOOL_NAMES)
name_lists = st.lists(names, max_size=8)


_BOOLEANS = st.booleans()
_SOURCES = st.sampled_from(SOURCES)
_EXPOSURES = st.sampled_from(EXPOSURES)


@st.composite
def tool_entries(draw: st.DrawFn, name: str | None = None) -> dict[str, Any]:
    """One registry entry as JSON (exposure sometimes missing, as on older Pi)."""
    entry: dict[str, Any] = {
        "name": name if name is not None else draw(names),
        "registered": draw(_BOOLEANS),
        "active": draw(_BOOLEANS),
        "source": draw(_SOURCES),
    }
    exposure = draw(_EXPOSURES)
    if exposure is not None:
        entry["exposure"] = exposure
    if draw(_BOOLEANS):
        entry["annotations"] = {"readOnlyHint": True}
    return entry


_ANY_TOOL_ENTRY = tool_entries()
registries = st.lists(_ANY_TOOL_ENTRY, max_size=10)


@st.composite
def settings_documents(draw: st.DrawFn) -> dict[str, Any]:
    """A settings document: `defaultPlanTools` omitted or a list of names,
    sometimes with the retired `toolVisibility` key beside it."""
    doc: dict[str, Any] = {}
    if draw(_BOOLEANS):
        doc["defaultPlanTools"] = draw(name_lists)
    if draw(_BOOLEANS):
        doc["toolVisibility"] = {n: "visible" for n in draw(name_lists)}
    return doc


selections = st.none() | name_lists


_LATER_KINDS = st.sampled_from(
    (
        "register",
        "unregister",
        "activate",
        "deactivate",
        "expose",
        "declare",
        "settings",
        "selection",
        "reload",
        "resume",
        "context",
        "navigate",
    )
)
_SETTINGS_WAYS = st.sampled_from(("settings.screen", "settings.write"))
_MAYBE_NAME_LISTS = st.one_of(st.none(), name_lists)


@st.composite
def later_events(draw: st.DrawFn) -> list[dict[str, Any]]:
    """One host step that may happen after the resolution boundary, between
    agent runs, without starting a new Plan workflow: its events."""
    kind = draw(_LATER_KINDS)
    if kind == "register":
        return [{"type": "tools.register", "tool": draw(_ANY_TOOL_ENTRY)}]
    if kind == "unregister":
        return [{"type": "tools.unregister", "name": draw(names)}]
    if kind in ("activate", "deactivate"):
        return [{"type": f"tools.{kind}", "names": draw(name_lists)}]
    if kind == "expose":
        return [{"type": "tools.expose", "name": draw(names), "exposure": draw(_EXPOSURES)}]
    if kind == "declare":
        return [{"type": "tools.declare", "name": draw(names)}]
    if kind == "settings":
        way = draw(_SETTINGS_WAYS)
        return [{"type": way, "settings": {"defaultPlanTools": draw(_MAYBE_NAME_LISTS)}}]
    if kind == "selection":
        return [{"type": "tools.choose", "tools": draw(name_lists)}]
    if kind == "navigate":
        return [{"type": "session.tree", "to": "c1"}]
    if kind == "context":
        # Another run of the same workflow: its contexts are not boundaries.
        return [{"type": "agent.start"}, {"type": "context"}, {"type": "agent.settle"}]
    return [{"type": f"session.{kind}"}]


#: Commands the limited shells block, whatever `safeSubcommands` says:
#: an admitted shell call must still be decided by its limited shell.
BLOCKED_COMMANDS = {"bash": "rm -rf build", "powershell": "Remove-Item -Recurse build"}


def calls_for_every_name(via: str | None = None) -> list[dict[str, Any]]:
    """A call of every strategy name, directly or nested through `via`; a
    shell call carries a command its limited shell blocks."""
    calls = []
    for name in TOOL_NAMES:
        call: dict[str, Any] = {"type": "tool.call", "tool": name}
        if name in BLOCKED_COMMANDS:
            call["input"] = {"command": BLOCKED_COMMANDS[name]}
        if via is not None:
            call["via"] = via
        calls.append(call)
    return calls


_ORCHESTRATED = st.lists(
    st.sampled_from([name for name in TOOL_NAMES if name != "codemode"]), max_size=6, unique=True
)


@st.composite
def orchestrated_registries(draw: st.DrawFn) -> list[dict[str, Any]]:
    """An active `codemode` orchestrator beside tools that are all
    `model-only`: every nested call of them must be denied."""
    entries = [{"name": "codemode", "source": "user-extension"}]
    for name in draw(_ORCHESTRATED):
        entries.append({**draw(tool_entries(name)), "exposure": "model-only"})
    return entries
