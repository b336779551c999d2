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


@pytest.mark.planmode(
    operation=FREEZE, level="must", id="planmode.tools.property.allowlist-within-names", explains=("basis",)
)
@given(registry=s.registries, settings=s.settings_documents(), selection=s.selections)
def test_allowlist_is_within_configured_or_selected_names(
    planmode_target: Any,
    registry: list[dict[str, Any]],
    settings: dict[str, Any],
    selection: list[str] | None,
) -> None:
    inp: dict[str, Any] = {"registry": registry, "settings": settings}
    if selection is not None:
        inp["sessionSelection"] = selection
    out = planmode_target.call(FREEZE, inp)
    allowlist = out["allowlist"]
    assert len(allowlist) == len(set(allowlist)), f"duplicate names in {allowlist}"
    if selection is not None:
        assert set(allowlist) <= set(selection), (allowlist, selection)
        assert out["basis"] == "session-selection"
    elif "defaultPlanTools" in settings:
        assert set(allowlist) <= set(settings["defaultPlanTools"]), (allowlist, settings)
        assert out["basis"] == "settings"
    else:
        # Automatic: only already-active, registered built-ins, directly usable.
        tools = _effective(registry)
        for name in allowlist:
            tool = tools.get(name)
            assert tool is not None and tool["registered"] and tool["active"], name
            assert tool["source"] == "built-in", f"{name} from {tool['source']} admitted automatically"
        assert out["basis"] == "automatic"


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


def _script(
    registry: list[dict[str, Any]],
    settings: dict[str, Any],
    selection: list[str] | None,
    later: list[list[dict[str, Any]]],
) -> dict[str, Any]:
    events: list[dict[str, Any]] = [
        {"type": "command", "name": "plan", "args": "start"},
        {"type": "session.label", "label": "c1"},
        {"type": "agent.start"},
        {"type": "context"},
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
    operations=[FREEZE, AUTHORIZE],
    level="must",
    id="planmode.tools.property.freezing-never-widens",
    explains=("trace",),
)
@given(
    registry=s.registries,
    settings=s.settings_documents(),
    selection=s.selections,
    later=st.lists(s.later_events(), max_size=8),
)
def test_freezing_never_widens(
    planmode_target: Any,
    registry: list[dict[str, Any]],
    settings: dict[str, Any],
    selection: list[str] | None,
    later: list[list[dict[str, Any]]],
) -> None:
    """Later registrations, reactivations, declarations, saves, selections,
    reloads, resumes, contexts and tree navigation never add a name."""
    frozen = planmode_target.call(
        FREEZE,
        {"registry": registry, "settings": settings}
        | ({"sessionSelection": selection} if selection is not None else {}),
    )["allowlist"]
    out = planmode_target.call(AUTHORIZE, _script(registry, settings, selection, later))
    resolved = [e for e in out["trace"] if e["type"] == "resolved"]
    assert len(resolved) == 1, f"resolved {len(resolved)} times in one workflow"
    assert resolved[0]["allowlist"] == frozen, "script and freeze disagree on the same boundary"
    assert out["allowlist"] == frozen, f"allowlist changed from {frozen} to {out['allowlist']}"
    for verdict in out["verdicts"]:
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
