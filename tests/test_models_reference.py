"""The reference's model switching, checked directly: the virtual clock, the
pi-plan-mode fallback chain and fresh screen, the opl-modes override script."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given

from pytest_planmode.reference import host_events as host
from pytest_planmode.reference.oplmodes import models_override as mo
from pytest_planmode.reference.planmode import models_switch as ms
from pytest_planmode.reference.virtual_time import Scheduler, race
from pytest_planmode.strategies import models as strategies
from pytest_planmode.targets.reference.adapter import REFERENCE

# -- virtual clock --------------------------------------------------------


@pytest.mark.parametrize(
    ("after", "in_time", "settled", "answer"),
    [
        (0, True, 100, 100),
        (1999, True, 2099, 2099),
        (2000, False, 2100, 2100),  # the timeout wins a tie
        (2001, False, 2100, 2101),
        (None, False, 2100, None),
    ],
)
def test_race_against_the_budget(after: int | None, in_time: bool, settled: int, answer: int | None) -> None:
    result = race(100, after, 2000)
    assert (result.in_time, result.settled_at, result.answer_at) == (in_time, settled, answer)


def test_race_rejects_negative_values() -> None:
    with pytest.raises(ValueError):
        race(0, -1, 2000)
    with pytest.raises(ValueError):
        race(-5, 0, 2000)


def test_scheduler_orders_by_instant_rank_then_arrival() -> None:
    clock: Scheduler[str] = Scheduler()
    clock.push(10, "event-late", rank=1)
    clock.push(10, "completion", rank=0)
    clock.push(5, "first", rank=9)
    clock.push(10, "event-later", rank=1)
    order = []
    while (item := clock.pop()) is not None:
        order.append(item)
    assert order == [(5, "first"), (10, "completion"), (10, "event-late"), (10, "event-later")]
    assert clock.now == 10
    with pytest.raises(ValueError, match="already at 10 ms"):
        clock.push(9, "past")


# -- pi-plan-mode switch ------------------------------------------------------


def _switch(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "trigger": {"type": "command", "name": "plan", "args": "start"},
        "currentModel": "acme/current",
        "availableModels": ["acme/current", "a/1", "b/2", "c/3"],
        "settings": {
            "autoSwitchModel": True,
            "planModel": [
                {"provider": "a", "modelId": "1"},
                {"provider": "b", "modelId": "2"},
                {"provider": "c", "modelId": "3"},
            ],
        },
    }
    data.update(overrides)
    answer = REFERENCE.call("planmode.models.switch", data)
    assert "output" in answer, answer
    return answer["output"]  # type: ignore[no-any-return]


def test_late_answer_is_logged_after_the_fallback_and_ignored() -> None:
    out = _switch(models={"a/1": {"authLatencyMs": 4000}, "b/2": {"authLatencyMs": 30}})
    assert out["applied"] == "b/2" and out["model"] == "b/2"
    assert out["log"][-1] == {"at": 4000, "type": "auth.late", "model": "a/1", "outcome": "ok"}
    assert out["elapsedMs"] == 2030


def test_definite_failure_goes_to_the_model_change() -> None:
    accepted = _switch(models={"a/1": {"auth": "fail", "credentials": True}})
    refused = _switch(models={"a/1": {"auth": "fail", "credentials": False}})
    assert accepted["applied"] == "a/1"
    assert refused["applied"] == "b/2"
    assert refused["candidates"][0] == {"model": "a/1", "result": "refused", "auth": "fail"}


def test_each_settings_field_can_invalidate_the_document() -> None:
    for key, bad in [
        ("autoSwitchModel", 1),
        ("planModel", {"provider": "a"}),
        ("normalModel", []),
        ("thinkingLevel", "turbo"),
        ("implementationPlanRetention", "forever"),
        ("defaultPlanTools", "read"),
        ("defaultPlanExportPath", ""),
        ("safeSubcommands", []),
        ("toggleShortcut", " "),
    ]:
        raw = {"autoSwitchModel": True, "planModel": {"provider": "a", "modelId": "1"}, key: bad}
        settings = ms.read_settings(raw, read_failed=False)
        assert settings.disabled_reason == "invalid-settings", key
        assert settings.error is not None and key in settings.error


def test_collapse_duplicates_keeps_first_positions() -> None:
    assert ms.collapse_duplicates(["b", "a", "b", "c", "a"]) == ("b", "a", "c")


def test_catalogue_prefers_a_non_empty_scope() -> None:
    assert ms.catalogue(["x"], ["y", "z"]) == frozenset({"x"})
    assert ms.catalogue([], ["y", "z"]) == frozenset({"y", "z"})


@given(data=strategies.switch_inputs())
def test_elapsed_equals_capped_authentications_plus_changes(data: dict[str, Any]) -> None:
    """The reference's exact timing: each authentication costs min(latency,
    2000) (a hang costs 2000) and each model change its latency; nothing
    else takes time. The conformance property only requires the bound."""
    answer = REFERENCE.call("planmode.models.switch", data)
    out = answer["output"]
    expected = 0
    for entry in out["log"]:
        behaviour = data["models"].get(entry["model"], {})
        if entry["type"] == "auth.start":
            latency = behaviour.get("authLatencyMs", 0)
            expected += 2000 if behaviour.get("auth") == "hang" else min(latency, 2000)
        elif entry["type"] == "change.start":
            expected += behaviour.get("changeLatencyMs", 0)
    if out["outcome"] == "stalled":
        assert out["elapsedMs"] is None
    else:
        assert out["elapsedMs"] == expected


@given(data=strategies.switch_inputs(hang_changes=True))
def test_a_hanging_model_change_stalls_only_after_authentication(data: dict[str, Any]) -> None:
    out = REFERENCE.call("planmode.models.switch", data)["output"]
    if out["outcome"] == "stalled":
        hung = [c for c in out["candidates"] if c["result"] == "change-hung"]
        assert len(hung) == 1 and hung[0]["auth"] in ("ok", "fail", "throw")
        assert out["log"][-1]["type"] in ("change.start", "auth.late")
        assert out["model"] == data["currentModel"]


# -- pi-plan-mode fresh screen --------------------------------------------------


def test_fresh_start_reports_and_uses_the_remaining_chain() -> None:
    out = REFERENCE.call(
        "planmode.models.fresh",
        {
            "currentModel": "plan/model",
            "availableModels": ["plan/model", "a/1", "b/2"],
            "startAvailableModels": ["plan/model", "b/2"],
            "settings": {
                "autoSwitchModel": True,
                "normalModel": [{"provider": "a", "modelId": "1"}, {"provider": "b", "modelId": "2"}],
            },
        },
    )["output"]
    assert (out["initialModel"], out["fallbacks"], out["chain"]) == ("a/1", ["b/2"], ["b/2"])
    assert out["notice"]["kind"] == "switched"
    assert out["model"] == "b/2" and out["planningModel"] == "plan/model"


# -- opl-modes overrides ------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ({"provider": "p", "id": "m"}, "p/m"),
        ({"provider": "", "id": ""}, None),
        ({"provider": "p", "id": ""}, None),
        ({"provider": "p"}, None),
        ({"id": "m"}, None),
        ({"provider": "p", "id": "\t"}, None),
        ({"provider": 1, "id": "m"}, None),
        ("p/m", None),
        (None, None),
    ],
)
def test_override_treats_blank_or_partial_as_none(model: Any, expected: str | None) -> None:
    found = mo.mode_overrides({"review": {"model": model}})
    assert found.get("review") == expected


def test_serialized_restore_waits_for_the_mode_change() -> None:
    result = mo.run_script(
        {"review": {"model": {"provider": "rev", "id": "m"}}},
        [("base/m", mo.RegistryEntry()), ("rev/m", mo.RegistryEntry(change_latency_ms=500))],
        "base/m",
        [host.Command(0, "mode", "review"), host.Command(100, "mode", "normal")],
    )
    ends = [(o.at, o.model) for o in result.trace if o.type == "change.end"]
    assert ends == [(500, "rev/m"), (500, "base/m")]
    assert result.model == "base/m" and result.restore_point is None


@given(data=strategies.opl_scripts())
def test_every_change_start_follows_the_previous_end(data: dict[str, Any]) -> None:
    out = REFERENCE.call("oplmodes.models.script", data)["output"]
    trace = out["trace"]
    open_change = False
    for obs in trace:
        if obs["type"] == "change.start":
            assert not open_change, "a change started while another was in flight"
            open_change = True
        elif obs["type"] == "change.end":
            assert open_change
            open_change = False
    assert not open_change
    assert len(out["changes"]) == sum(1 for o in trace if o["type"] == "change.start")


def test_session_transition_waits_for_the_previous_one() -> None:
    result = ms.run_session(
        settings={
            "autoSwitchModel": True,
            "planModel": [{"provider": "a", "modelId": "1"}, {"provider": "b", "modelId": "2"}],
            "normalModel": {"provider": "c", "modelId": "3"},
        },
        current="cur/0",
        thinking_level="high",
        scoped=(),
        available=("cur/0", "a/1", "b/2", "c/3"),
        behaviours={"a/1": ms.Behaviour(auth="hang")},
        events=[host.Command(0, "plan", "start"), host.Command(10, "plan", "exit")],
    )
    first, second = result.transitions
    assert first.result is not None and second.result is not None
    assert (first.started_at, first.result.elapsed_ms, first.result.applied) == (0, 2000, "b/2")
    assert (second.started_at, second.result.elapsed_ms, second.result.applied) == (2000, 2000, "c/3")
    assert result.model == "c/3"
