"""Properties of model switching that hold for any target.

pi-plan-mode-settings.md § Auto model switch and § Implementation model and
thinking; opl-modes.md § Tool inheritance warning and § Mode appearance.

The timing bound checked here, for one direction of the switch:

    elapsedMs <= 2000 * authAttempts + sum(changeLatencyMs of every model
                 change the log shows started, the restore included)

where authAttempts counts every authentication started (the saved-plan
preflight included). Authentication latencies of exactly 2,000 ms are left
out of these properties: whether such an answer is in time is a reference
choice, pinned by fixture cases, not a requirement.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given

from pytest_planmode.harness import TargetClient
from pytest_planmode.strategies import models as s

#: The section a failure of these checks cites (a marker's `spec=` overrides it).
SPEC = "pi-plan-mode-settings.md § Auto model switch"

SWITCH = "planmode.models.switch"
FRESH = "planmode.models.fresh"
SESSION = "planmode.models.session"
OPL = "oplmodes.models.script"


def _dedupe(chain: list[str]) -> list[str]:
    return list(dict.fromkeys(chain))


def _catalogue(data: dict[str, Any]) -> set[str]:
    return set(data["scopedModels"]) if data["scopedModels"] else set(data["availableModels"])


def _change_time(data: dict[str, Any], log: list[dict[str, Any]]) -> int:
    total = 0
    for entry in log:
        if entry["type"] in ("change.start", "restore.start"):
            total += data["models"].get(entry["model"], {}).get("changeLatencyMs", 0)
    return total


def _first_usable(data: dict[str, Any]) -> tuple[str, str | None]:
    """The spec's rule for which candidate ends the walk: (outcome, model)."""
    catalogue = _catalogue(data)
    for model in _dedupe(s.chain_of(data)):
        if model == data["currentModel"]:
            return "already-active", None
        b = data["models"][model]
        if not b["resolves"] or model not in catalogue:
            continue
        if b["auth"] == "hang" or b["authLatencyMs"] > s.BUDGET_MS:
            continue  # timed out: treated as failed, the late answer discarded
        # In time: `ok`, or a definite failure handed to the model change.
        if b["change"] == "hang":
            return "stalled", None
        if b["change"] == "accept" and b["credentials"]:
            return "applied", model
    return "all-failed", None


def _benign_current(data: dict[str, Any]) -> dict[str, Any]:
    """The active model answers its authentication at once and accepts a change:
    whether an active target is probed before it is left untouched is a
    reference choice, so must-level properties do not depend on it."""
    models = {
        **data["models"],
        data["currentModel"]: {
            **data["models"][data["currentModel"]],
            "resolves": True,
            "auth": "ok",
            "authLatencyMs": 0,
            "credentials": True,
            "change": "accept",
        },
    }
    return {**data, "models": models}


def _changes(log: list[dict[str, Any]]) -> list[str]:
    """The models handed to Pi's model change (`pi.setModel`), in order."""
    return [e["model"] for e in log if e["type"] == "change.start"]


@pytest.mark.planmode(
    operation=SWITCH,
    level="must",
    id="planmode.models.property.applied-is-first-usable",
)
@given(data=s.switch_inputs())
def test_applied_is_first_usable_candidate(planmode_target: TargetClient, data: dict[str, Any]) -> None:
    """The spec's rule decides which model the switch applies, read from
    effects: the model applied, the session model, the `setModel` calls
    and whether the direction completes."""
    data = _benign_current(data)
    out = planmode_target.call(SWITCH, data)
    outcome, model = _first_usable(data)
    assert out["applied"] == model, f"applied {out['applied']!r}, the spec's rule gives {model!r}"
    expected_model = model if model is not None else data["currentModel"]
    assert out["model"] == expected_model
    changes = _changes(out["log"])
    if outcome == "already-active":
        assert changes == [], f"the active target is left untouched, yet setModel was called: {changes}"
    elif outcome == "stalled":
        assert out["elapsedMs"] is None, "a model change hangs, yet the direction completed"
    else:
        assert out["elapsedMs"] is not None, "no model change hangs, yet the direction never completed"
    if model is not None:
        assert changes and changes[-1] == model, f"{model} applied without a model change to it: {changes}"


@pytest.mark.planmode(operation=SWITCH, level="must", id="planmode.models.property.elapsed-bound")
@given(data=s.switch_inputs())
def test_elapsed_is_bounded_by_budgets(planmode_target: TargetClient, data: dict[str, Any]) -> None:
    out = planmode_target.call(SWITCH, data)
    starts = [e for e in out["log"] if e["type"] in ("auth.start", "preflight.start")]
    assert out["authAttempts"] == len(starts)
    assert out["elapsedMs"] is not None, "no model change hangs, yet the direction never completed"
    bound = s.BUDGET_MS * out["authAttempts"] + _change_time(data, out["log"])
    assert out["elapsedMs"] <= bound, f"elapsed {out['elapsedMs']} ms > bound {bound} ms"


@pytest.mark.planmode(operation=SWITCH, level="must", id="planmode.models.property.hang-never-stalls")
@given(data=s.switch_inputs(all_hang=True))
def test_hanging_providers_never_stall_a_direction(
    planmode_target: TargetClient, data: dict[str, Any]
) -> None:
    out = planmode_target.call(SWITCH, data)
    assert out["elapsedMs"] is not None, "every provider hangs and the direction never completed"
    assert out["elapsedMs"] <= s.BUDGET_MS * out["authAttempts"]
    assert out["applied"] is None, "a candidate whose authentication hung was applied"
    assert _changes(out["log"]) == [], "a candidate whose authentication hung was handed to setModel"
    assert out["model"] == data["currentModel"]


@pytest.mark.planmode(operation=SWITCH, level="must", id="planmode.models.property.late-result-discarded")
@given(data=s.switch_inputs())
def test_late_results_never_change_the_model(planmode_target: TargetClient, data: dict[str, Any]) -> None:
    out = planmode_target.call(SWITCH, data)
    timed_out = {e["model"] for e in out["log"] if e["type"] == "auth.timeout"}
    assert out["applied"] not in timed_out
    assert not timed_out & set(_changes(out["log"])), "a timed-out candidate was handed to setModel"
    final = out["applied"] if out["applied"] is not None else data["currentModel"]
    assert out["model"] == final, "a late authentication result changed the session model"
    for entry in out["log"]:
        if entry["type"] == "auth.late":
            assert entry["model"] in timed_out


@pytest.mark.planmode(operation=SWITCH, level="must", id="planmode.models.property.budget-is-two-seconds")
@given(data=s.switch_inputs())
def test_every_timeout_fires_two_seconds_after_its_start(
    planmode_target: TargetClient, data: dict[str, Any]
) -> None:
    out = planmode_target.call(SWITCH, data)
    started: dict[str, int] = {}
    last = 0
    for entry in out["log"]:
        if entry["type"] != "auth.late":
            assert entry["at"] >= last, "the log goes back in time"
            last = entry["at"]
        if entry["type"] == "auth.start":
            started[entry["model"]] = entry["at"]
        elif entry["type"] == "auth.timeout":
            assert entry["at"] - started[entry["model"]] == s.BUDGET_MS
        elif entry["type"] == "auth.end":
            assert entry["at"] - started[entry["model"]] < s.BUDGET_MS


@pytest.mark.planmode(operation=SWITCH, level="must", id="planmode.models.property.one-warning-per-direction")
@given(data=s.switch_inputs())
def test_one_warning_per_direction(planmode_target: TargetClient, data: dict[str, Any]) -> None:
    """Duplicates are collapsed (no candidate is tried twice, candidates are
    tried in chain order) and the switch reports at most one warning: one
    when a later candidate was applied or every candidate failed, none when
    the first was applied. The texts are not the spec's, so only the count
    is judged; an active model leading the chain is left to fixture cases."""
    out = planmode_target.call(SWITCH, data)
    chain = _dedupe(s.chain_of(data))
    tried = [e["model"] for e in out["log"] if e["type"] == "auth.start"]
    assert len(tried) == len(set(tried)), f"a candidate was authenticated twice: {tried}"
    assert tried == [m for m in chain if m in tried], f"candidates tried out of chain order: {tried}"
    assert len(out["warnings"]) <= 1
    if chain[0] != data["currentModel"] and out["elapsedMs"] is not None:
        expected = 0 if out["applied"] == chain[0] else 1
        assert len(out["warnings"]) == expected, (out["applied"], chain, out["warnings"])
    assert out["thinkingLevel"] == data["thinkingLevel"]


@pytest.mark.planmode(operation=SWITCH, level="must", id="planmode.models.property.preflight-timeout-aborts")
@given(data=s.switch_inputs(trigger="implement"))
def test_saved_plan_preflight_timeout_aborts(planmode_target: TargetClient, data: dict[str, Any]) -> None:
    """A saved-plan preflight that times out aborts with an error notice and
    keeps the saved plan: no candidate is authenticated or applied."""
    data = {**data, "trigger": s.TRIGGERS["implement.saved"]}
    data["models"] = {**data["models"], s.CURRENT: {"auth": "hang"}}
    out = planmode_target.call(SWITCH, data)
    assert out["error"], "the aborted implementation shows no error notice"
    assert out["savedPlanKept"] is True
    assert out["model"] == data["currentModel"]
    assert out["applied"] is None and _changes(out["log"]) == []
    assert out["authAttempts"] == 1
    assert out["elapsedMs"] == s.BUDGET_MS
    assert not [e for e in out["log"] if e["type"] == "request"], "the aborted implementation sent a request"


def _alone(world: dict[str, Any], event: dict[str, Any], model: str) -> dict[str, Any]:
    """The switch input of one boundary of a session, from the model active then."""
    return {**world, "trigger": s.as_trigger(event), "currentModel": model}


_WORLD = ("settings", "thinkingLevel", "scopedModels", "availableModels", "models")


def _same_switch(transition: dict[str, Any], alone: dict[str, Any], event: dict[str, Any]) -> None:
    for key in ("applied", "model", "authAttempts"):
        assert transition[key] == alone[key], (key, event, transition, alone)
    assert [w["message"] for w in transition["warnings"]] == [w["message"] for w in alone["warnings"]]


@pytest.mark.planmode(
    operations=[SESSION, SWITCH],
    level="must",
    id="planmode.models.property.spaced-boundaries-independent",
)
@given(data=s.session_inputs())
def test_each_spaced_boundary_starts_again_from_the_first_candidate(
    planmode_target: TargetClient, data: dict[str, Any]
) -> None:
    """Boundaries far enough apart never overlap (how overlapping transitions
    queue is a reference choice): each does exactly what one switch from the
    model active at that point does (the model applied, the session model,
    the authentications and the warnings shown)."""
    events = [{**e, "at": index * 100_000} for index, e in enumerate(data["events"])]
    data = {**data, "events": events}
    out = planmode_target.call(SESSION, data)
    model = data["currentModel"]
    world = {k: data[k] for k in _WORLD}
    boundaries = [e for e in events if s.is_transition(e)]
    assert len(out["transitions"]) == len(boundaries)
    for event, transition in zip(boundaries, out["transitions"], strict=True):
        alone = planmode_target.call(SWITCH, _alone(world, event, model))
        assert transition["startedAt"] == event["at"]
        _same_switch(transition, alone, event)
        model = transition["model"]
    assert out["model"] == model


# Reference level: boundaries asked for while another is switching queue in
# order, each starting when the one before it ends (the spec does not say).
@pytest.mark.planmode(
    operations=[SESSION, SWITCH],
    level="reference",
    id="planmode.models.property.boundaries-independent",
)
@given(data=s.session_inputs())
def test_each_boundary_starts_again_from_the_first_candidate(
    planmode_target: TargetClient, data: dict[str, Any]
) -> None:
    """Each transition of a session does exactly what one switch from the model
    active at that point does: nothing carries over from an earlier direction."""
    out = planmode_target.call(SESSION, data)
    model = data["currentModel"]
    world = {k: data[k] for k in _WORLD}
    boundaries = [e for e in data["events"] if s.is_transition(e)]
    assert len(out["transitions"]) == len(boundaries)
    previous_end = 0
    for event, transition in zip(boundaries, out["transitions"], strict=True):
        alone = planmode_target.call(SWITCH, _alone(world, event, model))
        assert transition["startedAt"] == max(event["at"], previous_end)
        _same_switch(transition, alone, event)
        assert transition["endedAt"] - transition["startedAt"] == alone["elapsedMs"]
        model = transition["model"]
        previous_end = transition["endedAt"]
    assert out["model"] == model


@pytest.mark.planmode(operation=FRESH, level="must", id="planmode.models.property.fresh-menu-one-shot")
@given(data=s.fresh_inputs())
def test_fresh_menu_values_are_one_shot(planmode_target: TargetClient, data: dict[str, Any]) -> None:
    """Menu choices are one-shot and never touch the planning session; Start
    applies only a candidate still usable then (the picked model when one
    was picked)."""
    out = planmode_target.call(FRESH, data)
    assert out["settingsWritten"] is False
    assert out["planningModel"] == data["currentModel"]
    assert out["planningThinking"] == data["thinkingLevel"]
    configured = [f"{m['provider']}/{m['modelId']}" for m in data["settings"].get("normalModel", [])]
    assert out["model"] in (*configured, data.get("pick"), data["currentModel"])
    assert out["model"] == (out["applied"] or data["currentModel"])
    if data["action"] == "screen" and out["applied"] is not None:
        scoped = data["scopedModels"]
        start = set(scoped) if scoped else set(data["startAvailableModels"])
        assert out["applied"] in start, "Start applied a candidate that is no longer available"
        if "pick" in data:
            assert out["applied"] == data["pick"], "the picked model replaces the chain"


@pytest.mark.planmode(operation=OPL, level="must", id="oplmodes.models.property.no-superseded-model")
@given(data=s.opl_scripts())
def test_rapid_exit_never_leaves_a_mode_model(planmode_target: TargetClient, data: dict[str, Any]) -> None:
    out = planmode_target.call(OPL, data)
    assert out["mode"] == "off"
    assert out["model"] == data["initialModel"], (
        f"after the last exit the session runs {out['model']!r}, not the model from before the modes"
    )
    end = 0
    for change in out["changes"]:
        assert change["at"] >= end, "two model changes overlapped: changes must be serialized"
        end = change["end"]
    if out["changes"]:
        assert out["changes"][-1]["model"] == data["initialModel"], "the last model change is not the restore"


@pytest.mark.planmode(operation=OPL, level="must", id="oplmodes.models.property.override-model-while-in-mode")
@given(data=s.opl_scripts(end_in_off=False))
def test_mode_model_active_once_settled_spec(planmode_target: TargetClient, data: dict[str, Any]) -> None:
    """Settled in an overriding mode, its model is active and the mode session
    entry persists the model from before the modes as its restore point;
    settled in OFF, that model is back. (Which model a mode without override
    runs on is a reference choice.)"""
    out = planmode_target.call(OPL, data)
    expected = {"alpha": "alpha/model", "beta": "beta/model", "gamma": "gamma/model"}
    if out["mode"] in expected:
        assert out["model"] == expected[out["mode"]]
        assert out["persisted"] is not None and out["persisted"]["mode"] == out["mode"]
        assert out["persisted"]["restoreModel"] == data["initialModel"]
    elif out["mode"] == "off":
        assert out["model"] == data["initialModel"]


# Reference level: a mode without override (`plain`) runs on the model from
# before any overriding mode.
@pytest.mark.planmode(operation=OPL, level="reference", id="oplmodes.models.property.override-active-in-mode")
@given(data=s.opl_scripts(end_in_off=False))
def test_mode_model_active_once_settled(planmode_target: TargetClient, data: dict[str, Any]) -> None:
    out = planmode_target.call(OPL, data)
    expected = {"alpha": "alpha/model", "beta": "beta/model", "gamma": "gamma/model"}
    if out["mode"] in expected:
        assert out["model"] == expected[out["mode"]]
        assert out["persisted"] is not None
        assert out["persisted"]["restoreModel"] == data["initialModel"]
    else:
        assert out["model"] == data["initialModel"]
