"""Properties of the Plan tool policy (pi-plan-mode-settings.md § Default
Plan policy tools; § Plan helper tools) that hold for any target."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pytest_planmode.strategies import planmode_tools as s

#: The section a failure of these checks cites (a marker's `spec=` overrides it).
SPEC = "pi-plan-mode-settings.md § Default Plan policy tools"

FREEZE = "planmode.tools.freeze"
AUTHORIZE = "planmode.tools.authorize"

#: The automatic safe built-ins the reference pins (level reference).
REFERENCE_SAFE_BUILT_INS = {"read", "bash", "grep", "find", "ls", "powershell"}


def _entry(name: str, exposure: str, source: str = "user-extension") -> dict[str, Any]:
    return {"name": name, "registered": True, "active": True, "source": source, "exposure": exposure}


def _effective(registry: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Pi resolves tools by name: the last entry of a name is effective."""
    return {entry["name"]: entry for entry in registry}


def _freeze(
    target: Any, registry: list[dict[str, Any]], settings: dict[str, Any], selection: Any
) -> list[str]:
    inp: dict[str, Any] = {"registry": registry, "settings": settings}
    if selection is not None:
        inp["sessionSelection"] = selection
    return list(target.call(FREEZE, inp)["allowlist"])


@pytest.mark.planmode(operation=FREEZE, level="must", id="planmode.tools.property.allowlist-within-names")
@given(registry=s.registries, settings=s.settings_documents(), selection=s.selections)
def test_allowlist_is_within_configured_or_selected_names(
    planmode_target: Any,
    registry: list[dict[str, Any]],
    settings: dict[str, Any],
    selection: list[str] | None,
) -> None:
    """The frozen allowlist holds only names of the session's selection,
    else of `defaultPlanTools`, else already-active built-ins; a selection
    takes precedence over `defaultPlanTools`, and selected or configured
    names resolve alike."""
    allowlist = _freeze(planmode_target, registry, settings, selection)
    assert len(allowlist) == len(set(allowlist)), f"duplicate names in {allowlist}"
    if selection is not None:
        assert set(allowlist) <= set(selection), (allowlist, selection)
        # Precedence, as the allowlist shows it: the selection resolves as the
        # same names configured would, whatever `defaultPlanTools` says.
        configured = _freeze(planmode_target, registry, {**settings, "defaultPlanTools": selection}, None)
        assert allowlist == configured, (
            f"selection {selection} froze {allowlist}, the same names configured froze {configured}"
        )
    elif "defaultPlanTools" in settings:
        assert set(allowlist) <= set(settings["defaultPlanTools"]), (allowlist, settings)
        selected = _freeze(planmode_target, registry, {}, settings["defaultPlanTools"])
        assert allowlist == selected, (
            f"defaultPlanTools {settings['defaultPlanTools']} froze {allowlist}, "
            f"the same names selected froze {selected}"
        )
    else:
        # Automatic: only already-active, registered built-ins, directly usable.
        tools = _effective(registry)
        for name in allowlist:
            tool = tools.get(name)
            assert tool is not None and tool["registered"] and tool["active"], name
            assert tool["source"] == "built-in", f"{name} from {tool['source']} admitted automatically"


@pytest.mark.planmode(
    operation=FREEZE,
    level="reference",
    id="planmode.tools.property.automatic-within-safe-built-ins",
)
@given(registry=s.registries)
def test_automatic_allowlist_is_within_the_safe_built_ins(
    planmode_target: Any, registry: list[dict[str, Any]]
) -> None:
    out = planmode_target.call(FREEZE, {"registry": registry})
    assert set(out["allowlist"]) <= REFERENCE_SAFE_BUILT_INS, out["allowlist"]


@pytest.mark.planmode(
    operation=FREEZE,
    level="must",
    id="planmode.tools.property.freeze-never-admits-blocked-or-hidden",
)
@given(registry=s.registries, settings=s.settings_documents(), selection=s.selections)
def test_blocked_and_hidden_never_admitted(
    planmode_target: Any,
    registry: list[dict[str, Any]],
    settings: dict[str, Any],
    selection: list[str] | None,
) -> None:
    inp: dict[str, Any] = {"registry": registry, "settings": settings}
    if selection is not None:
        inp["sessionSelection"] = selection
    out = planmode_target.call(FREEZE, inp)
    tools = _effective(registry)
    for name in out["allowlist"]:
        assert name not in s.BLOCKED_NAMES, f"{name} admitted"
        tool = tools.get(name)
        assert tool is not None and tool["registered"], f"unregistered {name} admitted"
        assert tool.get("exposure") not in ("hidden", "unsupported"), f"{name} admitted with {tool}"
    active = {name for name, tool in tools.items() if tool["registered"] and tool["active"]}
    assert set(out["activeTools"]) == active, "Plan mode changed Pi's active set"


#: Exposures whose tools a direct call runs (a missing one: older Pi, direct).
DIRECT_EXPOSURES = (None, "direct", "model-only")

#: Commands every limited shell allows (reviewed, whatever `safeSubcommands` says).
ALLOWED_COMMANDS = {"bash": "ls", "powershell": "Get-Location"}


def boundary_calls() -> list[dict[str, Any]]:
    """A direct call of every ordinary strategy name (no Plan helper), a
    shell call carrying a command its limited shell allows: what they come
    to right after the resolution boundary shows the frozen allowlist."""
    calls = []
    for name in s.TOOL_NAMES:
        if name in s.HELPER_NAMES:
            continue
        call: dict[str, Any] = {"type": "tool.call", "tool": name}
        if name in ALLOWED_COMMANDS:
            call["input"] = {"command": ALLOWED_COMMANDS[name]}
        calls.append(call)
    return calls


def _script(
    registry: list[dict[str, Any]],
    settings: dict[str, Any],
    selection: list[str] | None,
    later: list[list[dict[str, Any]]],
    at_boundary: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    events: list[dict[str, Any]] = [
        {"type": "command", "name": "plan", "args": "start"},
        {"type": "session.label", "label": "c1"},
        {"type": "agent.start"},
        {"type": "context"},
        *(at_boundary or []),
        {"type": "agent.settle"},
    ]
    events += [event for step in later for event in step]
    events.append({"type": "agent.start"})
    events += s.calls_for_every_name() + s.calls_for_every_name(via="codemode")
    inp: dict[str, Any] = {"registry": registry, "settings": settings, "events": events}
    if selection is not None:
        inp["sessionSelection"] = selection
    return inp


@pytest.mark.planmode(
    operations=[FREEZE, AUTHORIZE], level="must", id="planmode.tools.property.freezing-never-widens"
)
@given(
    registry=s.registries,
    settings=s.settings_documents(),
    selection=s.selections,
    later=st.lists(s.later_events(), max_size=8),
)
# Each way a name could be added later, once for sure: a selected tool that
# is registered, or activated, after the boundary and before another
# context of the same workflow.
@example(
    registry=[_entry("read", "direct", source="built-in")],
    settings={"defaultPlanTools": ["read", "lint_tool"]},
    selection=None,
    later=[
        [{"type": "tools.register", "tool": _entry("lint_tool", "direct")}],
        [{"type": "agent.start"}, {"type": "context"}, {"type": "agent.settle"}],
    ],
)
@example(
    registry=[
        _entry("read", "direct", source="built-in"),
        {**_entry("lint_tool", "direct"), "active": False},
    ],
    settings={},
    selection=["read", "lint_tool"],
    later=[
        [{"type": "tools.activate", "names": ["lint_tool"]}],
        [{"type": "agent.start"}, {"type": "context"}, {"type": "agent.settle"}],
    ],
)
def test_freezing_never_widens(
    planmode_target: Any,
    registry: list[dict[str, Any]],
    settings: dict[str, Any],
    selection: list[str] | None,
    later: list[list[dict[str, Any]]],
) -> None:
    """Later registrations, reactivations, declarations, saves, selections,
    reloads, resumes, contexts and tree navigation never add a name.

    As the verdicts show it: right after the first context, the extension
    admits no name outside the allowlist the same boundary freezes and every
    directly callable one in it; after anything later, it admits no
    ordinary name outside it."""
    frozen = _freeze(planmode_target, registry, settings, selection)
    first = boundary_calls()
    out = planmode_target.call(AUTHORIZE, _script(registry, settings, selection, later, at_boundary=first))
    verdicts = out["verdicts"]
    assert len(verdicts) >= len(first), f"{len(verdicts)} verdicts for {len(first)} calls at the boundary"
    tools = _effective(registry)
    for verdict in verdicts[: len(first)]:
        if verdict["decidedBy"] != "extension":
            continue  # Pi's own gate: the tool is not registered or not active
        name, admitted = verdict["tool"], verdict["verdict"] != "deny"
        if admitted:
            assert name in frozen, f"at the boundary {verdict} admits a name outside {frozen}"
        elif name in frozen and tools.get(name, {}).get("exposure") in DIRECT_EXPOSURES:
            raise AssertionError(f"at the boundary {verdict} denies {name}, frozen in {frozen}")
    for verdict in verdicts[len(first) :]:
        if verdict["tool"] in s.HELPER_NAMES:
            continue
        if verdict["verdict"] != "deny":
            assert verdict["tool"] in frozen, f"{verdict} admits a name outside {frozen}"
            if verdict.get("via") is not None:
                assert verdict["via"] in frozen, f"{verdict}: orchestrator outside {frozen}"


@pytest.mark.planmode(
    operation=AUTHORIZE,
    level="must",
    id="planmode.tools.property.calls-never-run-blocked-hidden-nested-model-only",
)
@given(
    registry=s.registries,
    settings=s.settings_documents(),
    selection=s.selections,
    later=st.lists(s.later_events(), max_size=8),
)
# Each rule once for sure, whatever the random draw finds: a selected hidden
# tool, a selected active `edit`, and a selected model-only tool nested
# through a selected codemode orchestrator.
@example(
    registry=[_entry("mcp__docs__read", "hidden")],
    settings={"defaultPlanTools": ["mcp__docs__read"]},
    selection=None,
    later=[],
)
@example(
    registry=[_entry("edit", "direct", source="built-in")],
    settings={"defaultPlanTools": ["edit"]},
    selection=None,
    later=[],
)
@example(
    registry=[_entry("codemode", "codemode"), _entry("mcp__docs__read", "model-only")],
    settings={"defaultPlanTools": ["codemode", "mcp__docs__read"]},
    selection=None,
    later=[],
)
def test_calls_never_run_blocked_hidden_or_nested_model_only(
    planmode_target: Any,
    registry: list[dict[str, Any]],
    settings: dict[str, Any],
    selection: list[str] | None,
    later: list[list[dict[str, Any]]],
) -> None:
    inp = _script(registry, settings, selection, later)
    out = planmode_target.call(AUTHORIZE, inp)
    # Replay the registry changes to know each tool's exposure at call time.
    tools = _effective(registry)
    for event in (event for step in later for event in step):
        if event["type"] == "tools.register":
            tools[event["tool"]["name"]] = event["tool"]
        elif event["type"] == "tools.expose" and event["name"] in tools:
            tools[event["name"]] = {**tools[event["name"]], "exposure": event["exposure"]}
    for verdict in out["verdicts"]:
        name = verdict["tool"]
        if name in ("bash", "powershell"):
            # Each shell call carries a command its limited shell blocks.
            assert verdict["verdict"] == "deny", f"{name} skipped its limited shell: {verdict}"
        if name in s.HELPER_NAMES or verdict["verdict"] == "deny":
            continue
        tool = tools.get(name, {})
        assert name not in s.BLOCKED_NAMES, f"{name} ran in Plan mode: {verdict}"
        assert tool.get("exposure") != "hidden", f"hidden {name} ran: {verdict}"
        if verdict.get("via") is not None:
            assert tool.get("exposure") != "model-only", f"model-only {name} ran nested: {verdict}"


@pytest.mark.planmode(
    operation=AUTHORIZE, level="must", id="planmode.tools.property.nested-model-only-never-runs"
)
@given(registry=s.orchestrated_registries(), selected=s.name_lists)
def test_nested_model_only_never_runs(
    planmode_target: Any, registry: list[dict[str, Any]], selected: list[str]
) -> None:
    settings = {"defaultPlanTools": ["codemode", *selected]}
    out = planmode_target.call(AUTHORIZE, _script(registry, settings, None, []))
    model_only = {e["name"] for e in registry if e.get("exposure") == "model-only"}
    for verdict in out["verdicts"]:
        if verdict.get("via") is not None and verdict["tool"] in model_only:
            if verdict["tool"] in s.HELPER_NAMES:
                continue
            assert verdict["verdict"] == "deny", f"model-only {verdict['tool']} ran nested: {verdict}"
