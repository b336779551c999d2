"""The reference's Plan lifecycle modules, tested directly
(pi-plan-mode-settings.md § Plan reinjection, § Thinking level,
§ Toggle shortcut)."""

from __future__ import annotations

import typing
from typing import Any

import pytest

from pytest_planmode.contract.planmode_lifecycle import LifecycleEvent, LifecycleRunInput
from pytest_planmode.reference.planmode import lifecycle, reinjection, shortcut, thinking
from pytest_planmode.reference.planmode.settings_values import RETENTION_POLICIES, THINKING_LEVELS
from pytest_planmode.targets.reference.adapter import REFERENCE
from pytest_planmode.targets.reference.ops import planmode_lifecycle as lifecycle_ops

PLAN = "# Plan\n\n1. Step"


def run(events: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    answer = REFERENCE.call("planmode.lifecycle.run", {"events": events, **fields})
    assert "output" in answer, answer
    output: dict[str, Any] = answer["output"]
    return output


START = {"type": "command", "name": "plan", "args": "start"}
EXIT = {"type": "command", "name": "plan", "args": "exit"}


def ready(plan: str = PLAN) -> list[dict[str, Any]]:
    """A run in which the model hands in `plan`; its settle opens the ready menu."""
    return [
        {"type": "agent.start"},
        {"type": "tool.call", "tool": "plan_mode_complete", "input": {"plan": plan}},
        {"type": "agent.settle"},
    ]


def answer(label: str | None) -> dict[str, Any]:
    return {"type": "ui.answer", "label": label}


def test_every_contract_event_has_a_converter_and_every_reference_event_a_handler() -> None:
    union = typing.get_args(typing.get_args(LifecycleEvent)[0])
    assert set(union) == set(lifecycle_ops._EVENTS)
    assert set(lifecycle._EVENTS) == set(typing.get_args(lifecycle.LifecycleEvent))
    assert all(cls.__module__.endswith("host_events") for cls in union), "the lifecycle has events of its own"


def test_answers_must_fit_the_open_menu() -> None:
    nothing_open = REFERENCE.call("planmode.lifecycle.run", {"events": [START, answer("Implement here")]})
    assert "nothing is open to answer" in nothing_open["error"]["message"]
    wrong_item = REFERENCE.call("planmode.lifecycle.run", {"events": [START, *ready(), answer("Implement")]})
    assert "offers no item 'Implement'" in wrong_item["error"]["message"]
    unknown_label = REFERENCE.call(
        "planmode.lifecycle.run", {"events": [{"type": "session.tree", "to": "nowhere"}]}
    )
    assert "no entry is labelled 'nowhere'" in unknown_label["error"]["message"]


@pytest.mark.parametrize(
    ("events", "message"),
    [
        ([{"type": "context"}], "happens inside an agent run"),
        ([{"type": "agent.start"}, {"type": "agent.start"}], "a run is already open"),
        (
            [{"type": "agent.start"}, {"type": "session.label", "label": "x"}],
            "happens between runs",
        ),
        ([{"type": "agent.start"}, {"type": "session.reload"}, {"type": "context"}], "inside an agent run"),
    ],
)
def test_scripts_keep_to_the_runs(events: list[dict[str, Any]], message: str) -> None:
    answer = REFERENCE.call("planmode.lifecycle.run", {"events": events})
    assert message in answer["error"]["message"]


def test_a_kickoff_may_or_may_not_open_a_run() -> None:
    implement = {"type": "command", "name": "plan", "args": "implement"}
    for after in ([{"type": "context"}], [{"type": "agent.start"}, {"type": "context"}]):
        assert "output" in REFERENCE.call("planmode.lifecycle.run", {"events": [implement, *after]})


def test_a_partly_settled_run_opens_no_menu() -> None:
    partly = [
        START,
        {"type": "agent.start"},
        {"type": "tool.call", "tool": "plan_mode_complete", "input": {"plan": PLAN}},
        {"type": "agent.queue", "prompt": "more"},
        {"type": "agent.settle"},
        answer("Implement here"),
    ]
    assert (
        "nothing is open" in REFERENCE.call("planmode.lifecycle.run", {"events": partly})["error"]["message"]
    )


def test_a_reload_drops_the_queued_follow_up() -> None:
    """Pi aborts the open run on a reload, its queued follow-up with it: the
    next run settles fully, and its settling ends a first-run guarantee (the
    follow-up is not counted against a later run)."""
    events = [
        START,
        *ready(),
        answer("Implement here"),
        {"type": "agent.start"},
        {"type": "agent.queue", "prompt": "more"},
        {"type": "session.reload"},
        {"type": "agent.start"},
        {"type": "context"},
        {"type": "agent.settle"},
    ]
    out = run(events, settings={"implementationPlanRetention": "clear-after-first-run"})
    assert out["final"]["activePlan"] is None
    assert [o["reason"] for o in out["trace"] if o["type"] == "active-plan"][-1] == "first-run-settled"


def test_policy_table_matches_the_setting_values() -> None:
    assert tuple(reinjection.POLICY_RULES) == RETENTION_POLICIES
    assert not reinjection.rule("clear-on-start").guarantees
    assert reinjection.rule("clear-after-first-run").ends_after_first_run
    assert reinjection.rule("keep").guarantees and not reinjection.rule("keep").ends_after_first_run


@pytest.mark.parametrize(
    ("in_history", "guaranteed", "injected", "copies"),
    [(True, True, False, 1), (False, True, True, 1), (True, False, False, 1), (False, False, False, 0)],
)
def test_context_decision(in_history: bool, guaranteed: bool, injected: bool, copies: int) -> None:
    decision = reinjection.decide_context(in_history, guaranteed)
    assert (decision.injected, decision.copies) == (injected, copies)


def test_kickoffs() -> None:
    assert reinjection.kickoff("here", PLAN) == reinjection.Kickoff("Implement the plan.", False)
    for how in ("fresh", "saved"):
        kick = reinjection.kickoff(how, PLAN)
        assert kick.holds_plan and kick.text.endswith(PLAN)


@pytest.mark.parametrize("level", [lvl for lvl in THINKING_LEVELS if lvl != "inherit"])
def test_thinking_enter_and_leave(level: str) -> None:
    entry = thinking.enter(level, "medium")
    assert entry.level == level
    assert entry.snapshot == thinking.Snapshot("medium", level)
    assert thinking.leave(entry.snapshot, level) == ("medium", True)
    other = "off" if level != "off" else "max"
    assert thinking.leave(entry.snapshot, other) == (other, False)


def test_thinking_inherit_takes_no_snapshot() -> None:
    assert thinking.enter("inherit", "low") == thinking.Entry("low", None)
    assert thinking.leave(None, "low") == ("low", False)


def test_shortcut_transitions() -> None:
    state = shortcut.at_startup(None)
    assert (state.loaded, state.registrations, state.pending) == (None, 0, False)
    state = shortcut.configure(state, "alt+p")
    assert (state.loaded, state.configured, state.pending) == (None, "alt+p", True)
    state = shortcut.new_runtime(state)
    assert (state.loaded, state.registrations, state.pending) == ("alt+p", 1, False)
    state = shortcut.new_runtime(shortcut.configure(state, None))
    assert (state.loaded, state.registrations) == (None, 1)


def test_at_is_carried_into_the_trace() -> None:
    out = run([{**START, "at": 5}, {"type": "thinking.select", "level": "low", "at": 2500}])
    assert [obs["at"] for obs in out["trace"]] == [5, 2500]


def test_script_instants_never_go_back() -> None:
    answer = REFERENCE.call(
        "planmode.lifecycle.run",
        {"events": [{**START, "at": 10}, {**EXIT, "at": 9}]},
    )
    assert "error" in answer and "never go back" in answer["error"]["message"]


def test_unknown_event_type_is_an_input_error() -> None:
    answer = REFERENCE.call("planmode.lifecycle.run", {"events": [{"type": "plan.teleport"}]})
    assert "error" in answer


def test_keep_guarantees_until_exit() -> None:
    out = run(
        [
            START,
            *ready(),
            answer("Implement here"),
            {"type": "agent.settle"},
            *[
                {"type": "session.compact"},
                {"type": "agent.start"},
                {"type": "context"},
                {"type": "agent.settle"},
            ]
            * 3,
            EXIT,
            {"type": "agent.start"},
            {"type": "context"},
        ],
        settings={"implementationPlanRetention": "keep"},
    )
    copies = [c["planCopies"] for c in out["contexts"]]
    injections = [c["injection"] for c in out["contexts"]]
    assert copies == [1, 1, 1, 0]
    assert injections == [PLAN, PLAN, PLAN, None]


def test_first_run_cleanup_rearms_on_resume() -> None:
    out = run(
        [
            START,
            *ready(),
            answer("Implement here"),
            {"type": "context"},
            {"type": "session.resume"},
            {"type": "agent.start"},
            {"type": "agent.settle"},
            {"type": "session.compact"},
            {"type": "agent.start"},
            {"type": "context"},
            {"type": "agent.settle"},
            {"type": "agent.start"},
            {"type": "context"},
        ],
        settings={"implementationPlanRetention": "clear-after-first-run"},
    )
    assert [c["injected"] for c in out["contexts"]] == [False, True, False]
    assert out["final"]["activePlan"] is None


def test_handoff_failure_restores_everything_but_settings() -> None:
    out = run(
        [
            START,
            *ready(),
            {"type": "api.fail", "call": "newSession"},
            answer("Start fresh and implement"),
            answer("off"),
            answer("Start"),
        ],
        settings={"thinkingLevel": "high", "implementationPlanRetention": "keep"},
    )
    final = out["final"]
    assert (final["mode"], final["readyPlan"], final["thinking"], final["session"]) == (
        "ready",
        PLAN,
        "high",
        1,
    )
    assert final["activePlan"] is None


def test_lifecycle_export_writes_into_the_model_only() -> None:
    out = run(
        [{"type": "command", "name": "plan", "args": "export @plans/a.md"}],
        savedPlan=PLAN,
        paths=[{"path": "$CWD/plans", "kind": "directory"}],
    )
    assert out["final"]["written"] == [{"path": "$CWD/plans/a.md", "content": PLAN + "\n"}]


def test_input_schema_uses_a_discriminator() -> None:
    schema = LifecycleRunInput.model_json_schema()
    items = schema["properties"]["events"]["items"]
    assert items["discriminator"]["propertyName"] == "type"


@pytest.mark.parametrize(("length", "taken"), [(4096, True), (4097, False)])
def test_destination_length_boundary(length: int, taken: bool) -> None:
    value = "p" * (length - 3) + ".md"
    out = run(
        [
            {"type": "settings.screen", "settings": {"defaultPlanExportPath": value}},
            {"type": "command", "name": "plan", "args": "export"},
        ],
        savedPlan=PLAN,
    )
    assert (out["notices"] == []) is taken
    expected = "$CWD/" + value if taken else "$CWD/PLAN.md"
    assert out["exports"][0]["destination"] == expected
