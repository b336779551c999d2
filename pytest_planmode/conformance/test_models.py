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


@pytest.mark.planmode(
    operation=SWITCH,
    level="must",
    id="planmode.models.property.applied-is-first-usable",
    explains=("outcome",),
)
@given(data=s.switch_inputs())
def test_applied_is_first_usable_candidate(planmode_target: TargetClient, data: dict[str, Any]) -> None:
    data = _benign_current(data)
    out = planmode_target.call(SWITCH, data)
    outcome, model = _first_usable(data)
    assert out["outcome"] == outcome, (out["outcome"], outcome, out["candidates"])
    assert out["applied"] == model, f"applied {out['applied']!r}, the spec's rule gives {model!r}"
    expected_model = model if model is not None else data["currentModel"]
    assert out["model"] == expected_model


@pytest.mark.planmode(operation=SWITCH, level="must", id="planmode.models.property.elapsed-bound")
@given(data=s.switch_inputs())
def test_elapsed_is_bounded_by_budgets(planmode_target: TargetClient, data: dict[str, Any]) -> None:
    out = planmode_target.call(SWITCH, data)
    starts = [e for e in out["log"] if e["type"] in ("auth.start", "preflight.start")]
    assert out["authAttempts"] == len(starts)
    assert out["elapsedMs"] is not None, "no model change hangs, yet the direction never completed"
    bound = s.BUDGET_MS * out["authAttempts"] + _change_time(data, out["log"])
    assert out["elapsedMs"] <= bound, f"elapsed {out['elapsedMs']} ms > bound {bound} ms"


@pytest.mark.planmode(
    operation=SWITCH, level="must", id="planmode.models.property.hang-never-stalls", explains=("outcome",)
)
@given(data=s.switch_inputs(all_hang=True))
def test_hanging_providers_never_stall_a_direction(
    planmode_target: TargetClient, data: dict[str, Any]
) -> None:
    out = planmode_target.call(SWITCH, data)
    assert out["outcome"] != "stalled"
    assert out["elapsedMs"] is not None
    assert out["elapsedMs"] <= s.BUDGET_MS * out["authAttempts"]
    assert out["applied"] is None, "a candidate whose authentication hung was applied"
    assert out["model"] == data["currentModel"]


@pytest.mark.planmode(
    operation=SWITCH,
    level="must",
    id="planmode.models.property.late-result-discarded",
    explains=("candidates",),
)
@given(data=s.switch_inputs())
def test_late_results_never_change_the_model(planmode_target: TargetClient, data: dict[str, Any]) -> None:
    out = planmode_target.call(SWITCH, data)
    timed_out = {c["model"] for c in out["candidates"] if c["result"] == "auth-timeout"}
    assert out["applied"] not in timed_out
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


@pytest.mark.planmode(
    operation=SWITCH,
    level="must",
    id="planmode.models.property.one-warning-per-direction",
    explains=("candidates",),
)
@given(data=s.switch_inputs())
def test_one_warning_per_direction(planmode_target: TargetClient, data: dict[str, Any]) -> None:
    out = planmode_target.call(SWITCH, data)
    chain = _dedupe(s.chain_of(data))
    assert [c["model"] for c in out["candidates"]] == chain, "duplicates not collapsed in order"
    assert len(out["warnings"]) <= 1
    if out["outcome"] == "all-failed":
        assert [w["kind"] for w in out["warnings"]] == ["all-failed"]
    elif out["applied"] is not None:
        kinds = [w["kind"] for w in out["warnings"]]
        assert kinds == ([] if out["applied"] == chain[0] else ["fallback"])
    assert out["thinkingLevel"] == data["thinkingLevel"]


@pytest.mark.planmode(
    operation=SWITCH,
    level="must",
    id="planmode.models.property.preflight-timeout-aborts",
    explains=("outcome",),
)
@given(data=s.switch_inputs(trigger="implement"))
def test_saved_plan_preflight_timeout_aborts(planmode_target: TargetClient, data: dict[str, Any]) -> None:
    data = {**data, "how": "saved"}
    data["models"] = {**data["models"], s.CURRENT: {"auth": "hang"}}
    out = planmode_target.call(SWITCH, data)
    assert out["outcome"] == "aborted"
    assert out["savedPlanKept"] is True
    assert out["model"] == data["currentModel"]
    assert out["candidates"] == [] and out["authAttempts"] == 1
    assert out["elapsedMs"] == s.BUDGET_MS


@pytest.mark.planmode(
    operations=[SESSION, SWITCH],
    level="must",
    id="planmode.models.property.spaced-boundaries-independent",
    explains=("outcome",),
)
@given(data=s.session_inputs())
def test_each_spaced_boundary_starts_again_from_the_first_candidate(
    planmode_target: TargetClient, data: dict[str, Any]
) -> None:
    """Boundaries far enough apart never overlap (how overlapping transitions
    queue is a reference choice): each does exactly what one switch from the
    model active at that point does."""
    events = [{**e, "at": index * 100_000} for index, e in enumerate(data["events"])]
    data = {**data, "events": events}
    out = planmode_target.call(SESSION, data)
    model = data["currentModel"]
    world = {k: data[k] for k in ("settings", "thinkingLevel", "scopedModels", "availableModels", "models")}
    assert len(out["transitions"]) == len(events)
    for event, transition in zip(events, out["transitions"], strict=True):
        alone = planmode_target.call(
            SWITCH,
            {**world, "trigger": event["type"], "currentModel": model}
            | ({"how": event["how"]} if "how" in event else {}),
        )
        assert transition["startedAt"] == event["at"]
        for key in ("outcome", "applied", "model", "authAttempts"):
            assert transition[key] == alone[key], (key, event, transition, alone)
        assert [w["kind"] for w in transition["warnings"]] == [w["kind"] for w in alone["warnings"]]
        model = transition["model"]
    assert out["model"] == model


# Reference level: boundaries asked for while another is switching queue in
# order, each starting when the one before it ends (the spec does not say).
@pytest.mark.planmode(
    operations=[SESSION, SWITCH],
    level="reference",
    id="planmode.models.property.boundaries-independent",
    explains=("outcome",),
)
@given(data=s.session_inputs())
def test_each_boundary_starts_again_from_the_first_candidate(
    planmode_target: TargetClient, data: dict[str, Any]
) -> None:
    """Each transition of a session does exactly what one switch from the model
    active at that point does: nothing carries over from an earlier direction."""
    out = planmode_target.call(SESSION, data)
    model = data["currentModel"]
    world = {k: data[k] for k in ("settings", "thinkingLevel", "scopedModels", "availableModels", "models")}
    assert len(out["transitions"]) == len(data["events"])
    previous_end = 0
    for event, transition in zip(data["events"], out["transitions"], strict=True):
        alone = planmode_target.call(
            SWITCH,
            {**world, "trigger": event["type"], "currentModel": model}
            | ({"how": event["how"]} if "how" in event else {}),
        )
        assert transition["startedAt"] == max(event["at"], previous_end)
        for key in ("outcome", "applied", "model", "authAttempts"):
            assert transition[key] == alone[key], (key, event, transition, alone)
        assert [w["kind"] for w in transition["warnings"]] == [w["kind"] for w in alone["warnings"]]
        assert transition["endedAt"] - transition["startedAt"] == alone["elapsedMs"]
        model = transition["model"]
        previous_end = transition["endedAt"]
    assert out["model"] == model


@pytest.mark.planmode(
    operation=FRESH, level="must", id="planmode.models.property.fresh-menu-one-shot", explains=("chain",)
)
@given(data=s.fresh_inputs())
def test_fresh_menu_values_are_one_shot(planmode_target: TargetClient, data: dict[str, Any]) -> None:
    out = planmode_target.call(FRESH, data)
    assert out["settingsWritten"] is False
    assert out["planningModel"] == data["currentModel"]
    assert out["planningThinking"] == data["thinkingLevel"]
    assert out["model"] in (*out["chain"], data["currentModel"])
    if data["action"] == "screen":
        scoped = data["scopedModels"]
        start = set(scoped) if scoped else set(data["startAvailableModels"])
        assert set(out["chain"]) <= start, "Start kept a candidate that is no longer available"
        if "pick" in data:
            assert out["chain"] in ([data["pick"]], [])


@pytest.mark.planmode(
    operation=OPL, level="must", id="oplmodes.models.property.no-superseded-model", explains=("restorePoint",)
)
@given(data=s.opl_scripts())
def test_rapid_exit_never_leaves_a_mode_model(planmode_target: TargetClient, data: dict[str, Any]) -> None:
    out = planmode_target.call(OPL, data)
    assert out["mode"] == "off"
    assert out["model"] == data["initialModel"], (
        f"after the last exit the session runs {out['model']!r}, not the model from before the modes"
    )
    assert out["restorePoint"] is None
    end = 0
    for change in out["changes"]:
        assert change["at"] >= end, "two model changes overlapped: changes must be serialized"
        end = change["end"]


@pytest.mark.planmode(
    operation=OPL,
    level="must",
    id="oplmodes.models.property.override-model-while-in-mode",
    explains=("restorePoint",),
)
@given(data=s.opl_scripts(end_in_off=False))
def test_mode_model_active_once_settled_spec(planmode_target: TargetClient, data: dict[str, Any]) -> None:
    """Settled in an overriding mode, its model is active and the restore point
    is the model from before the modes; settled in OFF, that model is back.
    (Which model a mode without override runs on is a reference choice.)"""
    out = planmode_target.call(OPL, data)
    expected = {"alpha": "alpha/model", "beta": "beta/model", "gamma": "gamma/model"}
    if out["mode"] in expected:
        assert out["model"] == expected[out["mode"]]
        assert out["restorePoint"] == data["initialModel"]
    elif out["mode"] == "off":
        assert out["model"] == data["initialModel"]


# Reference level: a mode without override (`plain`) runs on the model from
# before any overriding mode.
@pytest.mark.planmode(
    operation=OPL,
    level="reference",
    id="oplmodes.models.property.override-active-in-mode",
    explains=("restorePoint",),
)
@given(data=s.opl_scripts(end_in_off=False))
def test_mode_model_active_once_settled(planmode_target: TargetClient, data: dict[str, Any]) -> None:
    out = planmode_target.call(OPL, data)
    expected = {"alpha": "alpha/model", "beta": "beta/model", "gamma": "gamma/model"}
    if out["mode"] in expected:
        assert out["model"] == expected[out["mode"]]
        assert out["restorePoint"] == data["initialModel"]
    else:
        assert out["model"] == data["initialModel"]
