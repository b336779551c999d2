"""The reference's Plan tool policy: registry data, resolution, call
authorization and the event-script replay."""

from __future__ import annotations

import pytest

from pytest_planmode.contract.planmode_tools import ToolsAuthorizeInput
from pytest_planmode.reference.planmode import tools_freeze as tf
from pytest_planmode.reference.planmode.plan_helpers import PlanContract, authorize_helper
from pytest_planmode.reference.planmode.tools_authorize import replay
from pytest_planmode.reference.planmode.tools_picker import picker_rows
from pytest_planmode.reference.planmode.tools_policy import CallContext, authorize
from pytest_planmode.reference.planmode.tools_registry import Registry, Tool, normalize_exposure
from pytest_planmode.targets.reference.adapter import REFERENCE
from pytest_planmode.targets.reference.ops.planmode_tools import script_events, tool_from_entry

PI_DEFAULTS = Registry.of(
    [
        Tool("read"),
        Tool("bash"),
        Tool("edit"),
        Tool("write"),
        Tool("grep", active=False),
        Tool("find", active=False),
        Tool("ls", active=False),
    ]
)


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        (None, "direct"),
        ("direct", "direct"),
        ("model-only", "model-only"),
        ("codemode", "codemode"),
        ("deferred", "deferred"),
        ("codemode-deferred", "deferred"),
        ("hidden", "hidden"),
        ("unsupported", "unsupported"),
        ("Direct", "unsupported"),
        ("", "unsupported"),
    ],
)
def test_exposure_normalisation(raw: str | None, normal: str) -> None:
    assert normalize_exposure(raw) == normal


def test_registering_a_known_name_replaces_the_entry_in_place() -> None:
    registry = Registry.of([Tool("read"), Tool("bash"), Tool("read", source="user-extension")])
    assert [t.name for t in registry.tools] == ["read", "bash"]
    read = registry.get("read")
    assert read is not None and read.source == "user-extension"


def test_updating_an_unknown_name_changes_nothing() -> None:
    assert PI_DEFAULTS.update("nope", active=True) == PI_DEFAULTS
    assert PI_DEFAULTS.update("grep", active=True).active_names() == (
        "read",
        "bash",
        "edit",
        "write",
        "grep",
    )


def test_automatic_defaults_with_pi_defaults() -> None:
    policy = tf.freeze(PI_DEFAULTS, tf.policy_names({}, None))
    assert policy.basis == "automatic"
    assert policy.allowlist == ("read", "bash")
    assert policy.pending == ()
    assert {r.name: r.reason for r in policy.resolutions}["grep"] == "inactive"


def test_automatic_defaults_skip_overrides_but_explicit_names_trust_them() -> None:
    registry = PI_DEFAULTS.register(Tool("read", source="override"))
    assert "read" not in tf.freeze(registry, tf.policy_names({}, None)).allowlist
    explicit = tf.freeze(registry, tf.policy_names({"defaultPlanTools": ["read"]}, None))
    assert explicit.allowlist == ("read",)


def test_invalid_setting_warns_and_falls_back_to_automatic() -> None:
    chosen = tf.settings_names({"defaultPlanTools": ["read", ""], "toolVisibility": {}})
    assert chosen.basis == "automatic" and chosen.names is None
    assert len(chosen.warnings) == 1
    assert "defaultPlanTools[1]" in chosen.warnings[0]


def test_tool_visibility_does_not_change_the_names() -> None:
    with_key = tf.settings_names({"defaultPlanTools": ["read"], "toolVisibility": {"edit": "on"}})
    assert with_key == tf.settings_names({"defaultPlanTools": ["read"]})


def test_malformed_selection_is_ignored_with_a_warning() -> None:
    chosen = tf.policy_names({"defaultPlanTools": ["bash"]}, ["read", " "])
    assert chosen.basis == "settings" and chosen.names == ("bash",)
    assert "session selection ignored" in chosen.warnings[0]


def test_pending_only_for_names_that_may_become_available() -> None:
    registry = Registry.of([Tool("x", exposure="hidden"), Tool("y", active=False), Tool("edit")])
    chosen = tf.PolicyNames("settings", ("x", "y", "z", "edit", "plan_mode_complete"))
    policy = tf.freeze(registry, chosen)
    assert policy.pending == ("x", "y", "z")
    assert [r.reason for r in policy.resolutions] == [
        "hidden",
        "inactive",
        "unregistered",
        "policy-blocked",
        "plan-helper",
    ]


def _ctx(registry: Registry, names: tuple[str, ...] | None, active: bool = True) -> CallContext:
    chosen = tf.PolicyNames("automatic" if names is None else "settings", names)
    return CallContext(PlanContract("c1", active), tf.freeze(registry, chosen), registry)


def test_current_hidden_exposure_wins_over_admission() -> None:
    ctx = _ctx(PI_DEFAULTS, ("read",))
    hidden = CallContext(ctx.contract, ctx.policy, PI_DEFAULTS.update("read", exposure="hidden"))
    assert authorize(ctx, "read").reason == "allowed"
    assert authorize(hidden, "read").reason == "hidden"


def test_blocked_names_are_checked_before_anything_else_in_plan_mode() -> None:
    ctx = _ctx(Registry.of([Tool("edit", exposure="hidden", source="override")]), ("edit",))
    assert authorize(ctx, "edit").reason == "policy-blocked"
    assert authorize(ctx, "edit", via="codemode").reason == "policy-blocked"


def test_nested_call_reports_the_orchestrator_reason() -> None:
    registry = Registry.of([Tool("codemode", source="user-extension"), Tool("read")])
    ctx = _ctx(registry, ("codemode", "read"))
    assert authorize(ctx, "read", via="codemode").reason == "allowed"
    later = CallContext(ctx.contract, ctx.policy, registry.update("codemode", active=False))
    verdict = authorize(later, "read", via="codemode")
    assert (verdict.verdict, verdict.reason, verdict.cause) == (
        "deny",
        "orchestrator-not-admitted",
        "inactive",
    )


def test_outside_plan_mode_the_policy_does_not_apply() -> None:
    ctx = _ctx(PI_DEFAULTS, (), active=False)
    assert authorize(ctx, "edit").verdict == "allow"
    assert authorize(ctx, "plan_mode_question").reason == "no-active-plan-contract"


@pytest.mark.parametrize(
    ("effective", "cited", "reason"),
    [
        (None, None, "no-active-plan-contract"),
        (PlanContract("c1", False), None, "no-active-plan-contract"),
        (PlanContract("c1", True), "c0", "stale-plan-contract"),
        (PlanContract("c1", True), "c1", "plan-helper"),
        (PlanContract("c1", True), None, "plan-helper"),
    ],
)
def test_helper_authorization(effective: PlanContract | None, cited: str | None, reason: str) -> None:
    assert authorize_helper(effective, cited)[1] == reason


def test_picker_labels_inactive_search_tools_as_inactive_in_pi() -> None:
    rows = {r.name: r.label for r in picker_rows(PI_DEFAULTS, tf.policy_names({}, None))}
    assert rows == {
        "read": "available",
        "bash": "available",
        "edit": "blocked by Plan policy",
        "write": "blocked by Plan policy",
        "grep": "inactive in Pi",
        "find": "inactive in Pi",
        "ls": "inactive in Pi",
    }


def _replay(events: list[dict[str, object]], **extra: object):  # type: ignore[no-untyped-def]
    inp = ToolsAuthorizeInput.model_validate(
        {
            "registry": [{"name": "read"}, {"name": "grep", "active": False}],
            "events": events,
            **extra,
        }
    )
    registry = [tool_from_entry(e) for e in inp.registry]
    return replay(registry, inp.settings, inp.session_selection, script_events(inp))


START = {"type": "command", "name": "plan", "args": "start"}
EXIT = {"type": "command", "name": "plan", "args": "exit"}
RUN = {"type": "agent.start"}


def test_resolution_waits_for_the_last_handler_to_settle() -> None:
    result = _replay(
        [
            START,
            {"type": "extension.hold", "handler": "a"},
            {"type": "extension.hold", "handler": "b"},
            RUN,
            {"at": 10, "type": "context"},
            {"at": 30, "type": "extension.settle", "handler": "b"},
            {"at": 50, "type": "tools.activate", "names": ["grep"]},
            {"type": "extension.settle", "handler": "a"},
            {"at": 51, "type": "tool.call", "tool": "grep"},
        ],
        settings={"defaultPlanTools": ["grep"]},
    )
    resolved = [e for e in result.trace if e["type"] == "resolved"]
    assert resolved[0]["at"] == 50
    assert result.allowlist == ("grep",)
    assert result.trace[-1]["verdict"] == "allow"


def test_a_call_before_the_late_handler_settles_precedes_resolution() -> None:
    result = _replay(
        [
            START,
            {"type": "extension.hold", "handler": "a"},
            RUN,
            {"type": "context"},
            {"type": "tool.call", "tool": "read"},
            {"type": "extension.settle", "handler": "a"},
            {"type": "tool.call", "tool": "read"},
        ]
    )
    verdicts = [e["reason"] for e in result.trace if e["type"] == "verdict"]
    assert verdicts == ["before-resolution", "allowed"]


def test_a_handler_held_after_the_run_started_waits_for_the_next_run() -> None:
    result = _replay([START, RUN, {"type": "extension.hold", "handler": "a"}, {"type": "context"}])
    assert result.allowlist == ("read",), "resolved at the context: the hold is for the next run"


def test_script_without_context_never_resolves() -> None:
    result = _replay([START])
    assert result.allowlist is None
    assert not [e for e in result.trace if e["type"] == "resolved"]


def test_plan_exit_before_context_closes_the_boundary() -> None:
    result = _replay([START, EXIT, RUN, {"type": "context"}])
    assert result.allowlist is None


def test_pi_refuses_an_inactive_tool_before_the_extension() -> None:
    result = _replay([START, RUN, {"type": "context"}, {"type": "tool.call", "tool": "grep"}])
    verdict = result.trace[-1]
    assert (verdict["decidedBy"], verdict["verdict"], verdict["reason"]) == ("pi", "deny", "not-found")


def test_an_admitted_bash_call_is_decided_by_its_command() -> None:
    result = _replay(
        [
            START,
            RUN,
            {"type": "context"},
            {"type": "tool.call", "tool": "bash", "input": {"command": "ls -la"}},
            {"type": "tool.call", "tool": "bash", "input": {"command": "rm -rf build"}},
        ],
        registry=[{"name": "bash"}],
        settings={"defaultPlanTools": ["bash"]},
    )
    verdicts = [(e["decidedBy"], e["verdict"]) for e in result.trace if e["type"] == "verdict"]
    assert verdicts == [("extension", "allow"), ("extension", "deny")]


def test_a_stale_helper_call_belongs_to_a_run_of_an_earlier_workflow() -> None:
    result = _replay(
        [
            START,
            RUN,
            {"type": "context"},
            START,
            {"type": "tool.call", "tool": "plan_mode_complete"},
            {"type": "agent.settle"},
            RUN,
            {"type": "tool.call", "tool": "plan_mode_complete"},
        ]
    )
    assert [e["reason"] for e in result.trace if e["type"] == "verdict"] == [
        "stale-plan-contract",
        "plan-helper",
    ]


@pytest.mark.parametrize(
    ("events", "message"),
    [
        ([{"type": "context"}], "inside an agent run"),
        ([{"type": "tool.call", "tool": "read"}], "inside an agent run"),
        ([RUN, {"type": "session.reload"}], "between runs"),
        ([RUN, RUN], "already open"),
        ([{"type": "agent.settle"}], "no agent run is open"),
        ([{"type": "command", "name": "plan", "args": "frobnicate"}], "/plan start"),
        ([{"type": "command", "name": "mode", "args": "plan"}], "/plan start"),
        ([{"type": "ui.answer", "label": "Start Plan mode"}], "dismissed"),
        ([{"type": "extension.settle", "handler": "x"}], "no extension.hold"),
        ([{"type": "session.tree", "to": "x"}], "no session.label"),
        ([RUN, {"type": "tool.call", "tool": "bash"}], "carries its command"),
        (
            [{"at": 5, "type": "command", "name": "plan", "args": "start"}, {"at": 1, "type": "agent.start"}],
            "never go back",
        ),
    ],
)
def test_unreplayable_scripts_are_refused(events: list[dict[str, object]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ToolsAuthorizeInput.model_validate({"events": events})


def test_omitted_instants_follow_the_clock() -> None:
    inp = ToolsAuthorizeInput.model_validate(
        {"events": [{"at": 5, **START}, {"type": "clock.advance", "ms": 20}, RUN, {"type": "context"}]}
    )
    assert [e.at for e in inp.events] == [5, 25, 25, 25]


def test_adapter_round_trip_reports_json_shapes() -> None:
    answer = REFERENCE.call(
        "planmode.tools.freeze",
        {"registry": [{"name": "read"}], "settings": {"defaultPlanTools": ["read", "mcp__x"]}},
    )
    out = answer["output"]
    assert out["allowlist"] == ["read"]
    assert out["pending"] == ["mcp__x"]
    assert out["activeTools"] == ["read"]
    assert out["helpers"] == ["plan_mode_question", "plan_mode_complete"]
