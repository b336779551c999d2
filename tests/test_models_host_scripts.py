"""The model operations' host scripts: a script no Pi host could replay is
refused with a message naming the event, and each host event reaches the
reference as the boundary or change it is."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_planmode.targets.reference.adapter import REFERENCE

PLAN = "planmode.models.session"
SWITCH = "planmode.models.switch"
OPL = "oplmodes.models.script"

SETTINGS = {
    "autoSwitchModel": True,
    "planModel": [{"provider": "a", "modelId": "plan"}, {"provider": "b", "modelId": "plan"}],
    "normalModel": {"provider": "a", "modelId": "build"},
}
CATALOGUE = ["a/current", "a/plan", "b/plan", "a/build"]


def _plan(*args: str, at: int = 0) -> dict[str, Any]:
    return {"at": at, "type": "command", "name": "plan", "args": " ".join(args)}


def _propose(at: int) -> list[dict[str, Any]]:
    return [
        {"at": at, "type": "agent.start"},
        {"at": at, "type": "tool.call", "tool": "plan_mode_complete", "input": {"plan": "Plan."}},
        {"at": at, "type": "agent.settle"},
    ]


def _answer(label: str | None, at: int) -> dict[str, Any]:
    return {"at": at, "type": "ui.answer", "label": label}


def _session(events: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    answer = REFERENCE.call(
        PLAN,
        {"settings": SETTINGS, "currentModel": "a/current", "availableModels": CATALOGUE, "events": events}
        | extra,
    )
    return answer


def _error(answer: dict[str, Any]) -> str:
    assert "error" in answer, answer
    return str(answer["error"]["message"])


@pytest.mark.parametrize(
    ("events", "message"),
    [
        ([_plan("exit")], "events[0] (command): /plan exit needs Plan mode"),
        ([_plan("start"), _answer("Implement here", 10)], "events[1] (ui.answer): no menu is open"),
        (
            [_plan("start"), {"at": 5, "type": "tool.call", "tool": "bash", "input": {"command": "ls"}}],
            "inside an agent run",
        ),
        (
            [_plan("start"), *_propose(5), _plan("exit", at=6)],
            "events[4] (command): the ready screen is open",
        ),
        (
            [_plan("start"), *_propose(5), _answer("Export plan…", 6)],
            "the ready menu is answered here with one of",
        ),
        (
            [_plan("start"), *_propose(5), _answer("Start fresh and implement", 6), _answer("Done", 7)],
            "with Start",
        ),
        ([_plan("start"), _plan("start", at=1)], "/plan start needs normal mode without a saved plan"),
        ([_plan("implement")], "/plan implement needs a ready plan, or a saved plan outside Plan mode"),
        ([_plan("tools")], "/plan start | exit | off | implement, not /plan tools"),
        (
            [
                {"at": 0, "type": "agent.start"},
                {"at": 0, "type": "tool.call", "tool": "plan_mode_complete", "input": {"plan": "P"}},
            ],
            "in Plan mode",
        ),
        (
            [
                _plan("start"),
                {"at": 1, "type": "agent.start"},
                {"at": 1, "type": "tool.call", "tool": "plan_mode_complete"},
            ],
            "carries its plan",
        ),
    ],
)
def test_a_session_script_no_host_can_replay_is_refused(events: list[dict[str, Any]], message: str) -> None:
    assert message in _error(_session(events))


def test_the_ready_menu_answers_are_the_boundaries_they_name() -> None:
    out = _session(
        [
            _plan("start"),
            *_propose(10),
            _answer("Save for later", 10),
            _plan("implement", at=20),
            _plan("start", at=30),
            *_propose(40),
            _answer(None, 40),
            _plan("implement", at=50),
            _plan("start", at=60),
            *_propose(70),
            _answer("Start fresh and implement", 70),
            {"at": 75, "type": "models.catalogue", "availableModels": CATALOGUE},
            _answer("Start", 80),
        ]
    )["output"]
    assert [(t["at"], t["trigger"]) for t in out["transitions"]] == [
        (0, "plan.start"),
        (10, "plan.save"),
        (20, "implement"),
        (30, "plan.start"),
        (50, "implement"),
        (60, "plan.start"),
        (80, "implement"),
    ]
    # The saved plan's implementation preflights the active model first.
    assert out["transitions"][2]["authAttempts"] == 1


def test_a_settings_write_changes_only_the_fields_it_gives() -> None:
    out = _session(
        [
            {
                "at": 0,
                "type": "settings.write",
                "settings": {"planModel": {"provider": "b", "modelId": "plan"}},
            },
            _plan("start", at=1),
            _plan("exit", at=2),
            {"at": 3, "type": "settings.screen", "settings": {"autoSwitchModel": None}},
            _plan("start", at=4),
        ]
    )["output"]
    # normalModel and autoSwitchModel were kept by the first write; the
    # second removed autoSwitchModel (off by default).
    assert [t["applied"] for t in out["transitions"]] == ["b/plan", "a/build", None]


def test_an_unreadable_settings_file_stops_switching_until_it_is_written() -> None:
    out = _session(
        [
            {"at": 0, "type": "settings.unreadable"},
            _plan("start", at=1),
            {"at": 2, "type": "settings.write", "settings": {}},
            _plan("exit", at=3),
        ]
    )["output"]
    assert [t["applied"] for t in out["transitions"]] == [None, "a/build"]


def test_a_provider_change_keeps_the_fields_it_does_not_give() -> None:
    out = _session(
        [
            {"at": 0, "type": "provider.change", "model": "a/plan", "credentials": False},
            _plan("start", at=10),
        ],
        models={"a/plan": {"authLatencyMs": 300}},
    )["output"]
    log = [(e["at"], e["type"], e["model"]) for e in out["log"] if e["model"] == "a/plan"]
    # Still 300 ms to authenticate; then the change is refused (no credentials).
    assert log[:2] == [(10, "auth.start", "a/plan"), (310, "auth.end", "a/plan")]
    assert out["transitions"][0]["applied"] == "b/plan"


def test_a_transition_fault_fails_the_next_boundary_only() -> None:
    out = _session(
        [{"at": 0, "type": "transition.fault"}, _plan("start"), _plan("exit", at=10), _plan("start", at=20)]
    )["output"]
    assert [t["restored"] for t in out["transitions"]] == [True, False, False]


@pytest.mark.parametrize(
    ("trigger", "message"),
    [
        (
            {"type": "command", "name": "plan", "args": "tools"},
            "trigger '/plan tools' is not a Plan boundary",
        ),
        ({"type": "ui.answer", "label": "Export plan…"}, "is not a Plan boundary"),
        ({"type": "command", "name": "plan", "args": "start", "at": 5}, "the trigger happens at 0 ms"),
        ({"type": "key.press", "key": "shift+tab"}, "trigger"),
    ],
)
def test_a_switch_trigger_that_is_no_boundary_is_refused(trigger: dict[str, Any], message: str) -> None:
    answer = REFERENCE.call(
        SWITCH,
        {"trigger": trigger, "settings": SETTINGS, "currentModel": "a/current", "availableModels": CATALOGUE},
    )
    assert message in _error(answer)


OPL_INPUT = {
    "initialModel": "base/m",
    "registry": [{"model": "base/m"}, {"model": "rev/m", "changeLatencyMs": 100}],
    "modes": {"review": {"model": {"provider": "rev", "id": "m"}}},
}


def _mode(arg: str, at: int) -> dict[str, Any]:
    return {"at": at, "type": "command", "name": "mode", "args": arg}


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ({"type": "command", "name": "chat"}, "select modes with /mode <name>"),
        ({"type": "command", "name": "mode", "args": ""}, "select modes with /mode <name>"),
        (
            {"type": "command", "name": "mode", "args": "off"},
            "/mode off is not a mode command here (use /mode normal)",
        ),
        ({"type": "provider.change", "model": "rev/m", "auth": "hang"}, "reads only resolves, credentials"),
        ({"type": "session.resume", "entries": []}, "resumes this session here"),
    ],
)
def test_an_opl_script_no_host_can_replay_is_refused(event: dict[str, Any], message: str) -> None:
    answer = REFERENCE.call(OPL, {**OPL_INPUT, "events": [{"at": 0, **event}]})
    assert message in _error(answer)
    assert "events[0]" in _error(answer)


def test_opl_provider_changes_keep_what_they_do_not_give() -> None:
    out = REFERENCE.call(
        OPL,
        {
            **OPL_INPUT,
            "events": [
                {"at": 0, "type": "provider.change", "model": "rev/m", "credentials": False},
                {"at": 1, "type": "provider.change", "model": "rev/m", "credentials": True},
                _mode("review", 10),
                _mode("normal", 200),
                {"at": 300, "type": "provider.change", "model": "base/m", "resolves": False},
                _mode("review", 400),
                _mode("normal", 600),
            ],
        },
    )["output"]
    # rev/m kept its 100 ms latency through both credential changes; the
    # second restore target was gone, so the second exit changes nothing.
    assert [(c["at"], c["end"], c["model"]) for c in out["changes"]] == [
        (10, 110, "rev/m"),
        (200, 200, "base/m"),
        (400, 500, "rev/m"),
    ]
