"""Tests of the opl-modes session reference (opl-modes.md § Commands,
flags, and shortcuts; § Execute handoff; § Tool inheritance warning;
§ Architecture)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_planmode.contract.oplmodes_modes import ModesScriptInput
from pytest_planmode.reference.oplmodes import config as cfg
from pytest_planmode.reference.oplmodes import lifecycle, state
from pytest_planmode.reference.oplmodes.lifecycle import parse_version, refine_label
from pytest_planmode.strategies import oplmodes_modes as s
from pytest_planmode.targets.reference.ops.oplmodes_modes import script, script_events

DOCUMENT = {
    "shortcuts": {"cycleMode": "f2"},
    "modes": {"review": {"tools": ["read"]}, "secret": {"tools": ["read"], "visible": False}},
}
CONFIG = cfg.load(DOCUMENT)


def run_script(config: cfg.OplConfig, events: list[dict[str, Any]], **options: Any) -> lifecycle.Session:
    """The reference session over events written as the contract writes them."""
    inp = ModesScriptInput.model_validate(
        {"events": events, "piVersion": options.get("pi_version", "0.87.0")}
    )
    return lifecycle.run_script(config, script_events(inp), **options)


def cmd(text: str) -> dict[str, Any]:
    return s.command_event(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0.87.0", (0, 87, 0)),
        ("v1.2.3", (1, 2, 3)),
        ("0.87", None),
        ("x.y.z", None),
        ("0.87.0-rc.1", (0, 86, 10**9)),
    ],
)
def test_parse_version(text: str, expected: tuple[int, int, int] | None) -> None:
    assert parse_version(text) == expected


def test_prerelease_sorts_before_release() -> None:
    release = parse_version("0.87.0")
    pre = parse_version("0.87.0-beta")
    assert release is not None and pre is not None and pre < release


@pytest.mark.parametrize(
    ("cycles", "label"),
    [
        (0, "Refine"),
        (1, "Refine (1 cycle so far)"),
        (3, "Refine (3 cycles so far)"),
        (250, "Refine (250 cycles so far)"),
    ],
)
def test_refine_label(cycles: int, label: str) -> None:
    assert refine_label(cycles) == label


def test_toggle_and_restore_tools() -> None:
    session = run_script(CONFIG, [cmd("/chat"), cmd("/chat")], active=["read", "edit"])
    assert [st["mode"] for st in session.steps] == ["chat", "off"]
    assert session.final()["activeTools"] == ["read", "edit"]


def test_every_mode_change_is_persisted_and_published() -> None:
    session = run_script(CONFIG, [cmd("/chat"), cmd("/plan auth"), cmd("/plan off")])
    modes = [e["data"]["mode"] for e in session.final()["entries"]]
    assert modes == ["chat", "plan", "off"]
    assert session.steps[1]["published"]["__agentMode"]["planFile"] == ".pi/plans/plan-auth.md"


def test_cycle_skips_hidden_and_execute() -> None:
    session = run_script(CONFIG, [{"type": "key.press", "key": "f2"}] * 5, existing_plans=["plan-a.md"])
    assert [st["mode"] for st in session.steps] == ["chat", "plan", "review", "off", "chat"]


def test_hidden_mode_reachable_by_name() -> None:
    session = run_script(CONFIG, [cmd("/mode secret")])
    assert session.mode == "secret" and session.active == ("read",)


def test_plan_complete_message_and_cleanup() -> None:
    config = cfg.load({"cleanup": {"cleanupOnComplete": True}})
    session = run_script(
        config,
        [cmd("/execute a"), {"type": "agent.start"}, {"type": "tool.call", "tool": "plan_complete"}],
        existing_plans=["plan-a.md"],
    )
    assert session.steps[2]["result"]["message"] == "Plan implemented. Plan mode OFF."
    assert session.plans == [] and session.mode == "off"


@pytest.mark.parametrize(
    ("outcome", "mode"), [("completed", "off"), ("aborted", "execute"), ("error", "execute")]
)
def test_settle_outcomes(outcome: str, mode: str) -> None:
    session = run_script(
        CONFIG,
        [cmd("/execute a"), {"type": "agent.start"}, {"type": "agent.settle", "outcome": outcome}],
        existing_plans=["plan-a.md"],
    )
    assert session.mode == mode


def test_settle_ignored_before_087() -> None:
    session = run_script(
        CONFIG,
        [cmd("/execute a"), {"type": "agent.start"}, {"type": "agent.settle"}],
        existing_plans=["plan-a.md"],
        pi_version="0.86.0",
    )
    assert session.mode == "execute"


def test_allow_execute_false_hides_and_refuses_but_menu_executes() -> None:
    config = cfg.load({"modes": {"plan": {"allowExecute": False}}})
    session = run_script(
        config,
        [
            cmd("/plan a"),
            cmd("/mode"),
            cmd("/execute"),
            {"type": "agent.start"},
            {"type": "agent.settle"},
            {"type": "ui.answer", "label": "Execute"},
        ],
        existing_plans=["plan-a.md"],
    )
    assert not any(e.startswith("Execute:") for e in session.steps[1]["menu"]["entries"])
    assert session.steps[2]["notifications"][0]["level"] == "error"
    assert session.mode == "execute"


def test_restore_last_own_entry_and_fallbacks() -> None:
    entries = [
        state.mode_entry("chat", None, 0),
        {"type": "custom", "customType": "other", "data": {"mode": "execute"}},
    ]
    assert state.restore(entries, CONFIG, []).mode == "chat"
    assert (
        state.restore(
            [{"type": "custom", "customType": "mode-switcher", "data": {"mode": "yolo"}}], CONFIG, []
        ).mode
        == "off"
    )
    dropped = state.restore(
        [{"type": "custom", "customType": "mode-switcher", "data": {"mode": "plan", "planFile": "../x.md"}}],
        CONFIG,
        [],
    )
    assert dropped.mode == "plan" and dropped.plan_file is None and dropped.warnings


@given(entries=st.lists(s.foreign_or_stale_entries, max_size=5))
def test_stale_entries_never_restore_execute(entries: list[dict[str, Any]]) -> None:
    restored = state.restore(entries, CONFIG, ["plan-auth.md"])
    assert restored.mode != "execute"
    assert restored.plan_file is None or ("/" not in restored.plan_file and ".." not in restored.plan_file)


@given(events=s.event_lists)
def test_any_script_runs_and_stays_consistent(events: list[dict[str, Any]]) -> None:
    out = script(
        ModesScriptInput.model_validate({"config": DOCUMENT, "plans": ["plan-auth.md"], "events": events})
    )
    assert len(out.steps) == len(events), "one step per host event"
    for step in out.steps:
        assert step.published["__agentMode"]["mode"] == step.mode
        if step.mode in ("chat", "plan"):
            assert "write" not in step.active_tools and "edit" not in step.active_tools


def test_a_settle_is_agent_end_then_agent_before_settle_in_one_step() -> None:
    out = script(
        ModesScriptInput.model_validate(
            {
                "plans": ["plan-a.md"],
                "events": [
                    {"type": "command", "name": "execute", "args": "a"},
                    {"type": "agent.start"},
                    {"type": "agent.settle"},
                ],
            }
        )
    )
    assert [step.event for step in out.steps] == ["command", "agent.start", "agent.settle"]
    assert out.steps[-1].mode == "off"


def test_reload_reads_the_config_last_written() -> None:
    out = script(
        ModesScriptInput.model_validate(
            {
                "events": [
                    {"type": "config.write", "config": {"modes": {"chat": {"enabled": False}}}},
                    {"type": "command", "name": "chat"},
                    {"type": "session.reload"},
                    {"type": "command", "name": "chat"},
                ]
            }
        )
    )
    assert out.steps[1].mode == "chat", "a written file is read only when the module loads"
    assert out.steps[3].mode != "chat"


@pytest.mark.parametrize(
    ("events", "message"),
    [
        ([{"type": "tool.call", "tool": "read"}], "inside an agent run"),
        ([{"type": "agent.settle"}], "inside an agent run"),
        ([{"type": "agent.start"}, {"type": "session.reload"}], "between runs"),
        ([{"type": "agent.start"}, {"type": "tool.call", "tool": "bash"}], "carries its command"),
        ([{"type": "session.tree", "to": "x"}], "entries"),
    ],
)
def test_unreplayable_scripts_are_refused(events: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ModesScriptInput.model_validate({"events": events})


def test_operation_through_contract_model() -> None:
    inp = ModesScriptInput.model_validate(
        {"plans": ["plan-a.md"], "events": [{"type": "command", "name": "execute", "args": "a"}]}
    )
    out = script(inp)
    assert out.final.mode == "execute"
    assert out.steps[0].notifications[0].message == "Execute mode ON: .pi/plans/plan-a.md"
    assert [o.type for o in out.trace].count("persisted") == 1


def test_script_instants_must_not_go_back() -> None:
    with pytest.raises(ValueError, match="never go back"):
        ModesScriptInput.model_validate(
            {
                "events": [
                    {"type": "key.press", "key": "f2", "at": 5},
                    {"type": "key.press", "key": "f2", "at": 1},
                ]
            }
        )
