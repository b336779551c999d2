"""Properties of opl-modes tool sets that hold for any target
(opl-modes.md § Lazy tool loading, § Tool inheritance warning): load_tools
never enables a tool the mode does not permit; a mode with its own list is
never wider than that list; off is never wider than its snapshot."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_planmode.strategies import oplmodes_modes as s

#: The section a failure of these checks cites (a marker's `spec=` overrides it).
SPEC = "opl-modes.md § Lazy tool loading"

if TYPE_CHECKING:
    from pytest_planmode.harness import TargetClient

ACTIVE = "oplmodes.tools.active"
LOAD = "oplmodes.tools.load"
HELPERS = {"plan_complete", "load_tools"}
modes = st.sampled_from(["off", "chat", "plan", "execute", *s.CUSTOM_NAMES])
#: Names `lazyTools` cannot withhold (§ Lazy tool loading: silently ignored if listed).
PROTECTED = {
    "read",
    "edit",
    "write",
    "bash",
    "powershell",
    "grep",
    "find",
    "ls",
    "plan_complete",
    "load_tools",
}


def mode_policy(target: TargetClient, request: dict[str, Any]) -> list[str]:
    """The tools a mode permits, as an implementation shows them: what the
    same mode activates when no tool is lazy. § Lazy tool loading: listed
    tools are removed from the active set, so the active set without
    `lazyTools` is the mode's policy before anything is withheld."""
    config = {key: value for key, value in request["config"].items() if key != "lazyTools"}
    out = target.call(ACTIVE, {**request, "config": config})
    return list(out["activeTools"])


@pytest.mark.planmode(
    operations=[ACTIVE, LOAD],
    level="must",
    id="oplmodes.tools.property.load-within-policy",
)
@given(scenario=s.lazy_scenarios(), snapshot=s.registries)
def test_load_tools_never_enables_what_the_mode_does_not_permit(
    planmode_target: TargetClient, scenario: tuple[dict[str, Any], str, list[str] | None], snapshot: list[str]
) -> None:
    document, mode, request = scenario
    base = {"config": document, "mode": mode, "registeredTools": s.TOOL_NAMES, "snapshot": snapshot}
    permitted = set(mode_policy(planmode_target, base))
    load_input = dict(base) if request is None else base | {"request": request}
    out = planmode_target.call(LOAD, load_input)
    what = f"{mode} with {json.dumps(load_input)[:400]}"
    assert set(out["enabled"]) <= permitted, f"{what}: enabled {out['enabled']} beyond {sorted(permitted)}"
    assert set(out["activeTools"]) <= permitted | {"load_tools"}, (
        f"{what}: active after load_tools {out['activeTools']} beyond {sorted(permitted)}"
    )
    assert set(out["enabled"]) <= set(document["lazyTools"]), (
        f"{what}: enabled non-lazy tools {out['enabled']}"
    )
    if request is not None:
        assert set(out["enabled"]) <= set(request), (
            f"{what}: enabled {out['enabled']} that were not requested"
        )
    own = document["modes"].get(mode, {}).get("tools")
    if own is not None:
        assert set(out["activeTools"]) <= set(own) | HELPERS, (
            f"{what}: {out['activeTools']} wider than the mode's own list"
        )


@pytest.mark.planmode(
    operations=["oplmodes.modes.script"],
    level="must",
    id="oplmodes.tools.property.session-load-within-policy",
)
@given(
    scenario=s.lazy_scenarios(),
    prefix=st.sampled_from(["/mode research", "/mode verify", "/chat", "", "/plan"]),
)
def test_load_tools_in_a_session_stays_within_the_mode(
    planmode_target: TargetClient, scenario: tuple[dict[str, Any], str, list[str] | None], prefix: str
) -> None:
    document, _mode, request = scenario
    call: dict[str, Any] = {
        "type": "tool.call",
        "tool": "load_tools",
        "input": {} if request is None else {"tools": request},
    }
    events = ([s.command_event(prefix)] if prefix else []) + [{"type": "agent.start"}, call]
    out = planmode_target.call(
        "oplmodes.modes.script", {"config": document, "registeredTools": s.TOOL_NAMES, "events": events}
    )
    before, after = (out["steps"][-3]["activeTools"] if prefix else None), out["steps"][-1]
    mode = after["mode"]
    policy = mode_policy(planmode_target, {"config": document, "mode": mode, "registeredTools": s.TOOL_NAMES})
    what = f"{prefix or 'normal'} then load_tools {request} with {json.dumps(document)[:300]}"
    assert set(after["activeTools"]) <= set(policy) | {"load_tools"}, (
        f"{what}: {after['activeTools']} beyond {policy}"
    )
    if before is not None and "load_tools" not in before:
        assert after["activeTools"] == before, f"{what}: load_tools was not offered but the tools changed"


@pytest.mark.planmode(operation=ACTIVE, level="must", id="oplmodes.tools.property.never-wider")
@given(document=s.well_formed_documents, mode=modes, registered=s.registries, snapshot=s.registries)
def test_active_set_never_wider_than_the_policy(
    planmode_target: TargetClient,
    document: dict[str, Any],
    mode: str,
    registered: list[str],
    snapshot: list[str],
) -> None:
    request = {"config": document, "mode": mode, "registeredTools": registered, "snapshot": snapshot}
    out = planmode_target.call(ACTIVE, request)
    what = f"{mode} with {json.dumps(document)[:300]}, registered {registered}, snapshot {snapshot}"
    if not out["known"]:
        # What a mode that cannot be entered activates is the reference's
        # (nothing: fixture group "A mode that cannot be entered").
        return
    active = set(out["activeTools"])
    assert active <= set(registered) | HELPERS, (
        f"{what}: {sorted(active - set(registered))} are not registered"
    )
    lazy = set(document["lazyTools"]) - PROTECTED
    assert not (active & lazy), f"{what}: lazy tools {sorted(active & lazy)} active on entry"
    withheld = set(mode_policy(planmode_target, request)) & lazy
    assert ("load_tools" in active) == bool(withheld), (
        f"{what}: load_tools offered iff a lazy tool is withheld (withheld: {sorted(withheld)})"
    )
    if mode == "off":
        assert active - {"load_tools"} <= set(snapshot), f"{what}: off is wider than the snapshot"
    if "plan_complete" in active:
        assert out["planCompleteAllowed"], f"{what}: plan_complete active where the predicate says no"
