"""Properties of the Plan lifecycle and exports that hold for any target
(pi-plan-mode-settings.md § Plan reinjection, § Export destination)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given

from pytest_planmode.harness import TargetClient
from pytest_planmode.strategies import planmode_lifecycle as s

#: The section a failure of these checks cites (a marker's `spec=` overrides it).
SPEC = "pi-plan-mode-settings.md § Plan reinjection"

RUN = "planmode.lifecycle.run"
EXPORT = "planmode.export.run"


@pytest.mark.planmode(operation=RUN, level="must", id="planmode.lifecycle.host.property.deterministic")
@given(script=s.scripts())
def test_same_script_same_trace(planmode_target: TargetClient, script: dict[str, Any]) -> None:
    first = planmode_target.call(RUN, script)
    second = planmode_target.call(RUN, script)
    assert first == second, "running the same script twice gave two different answers"


@pytest.mark.planmode(
    operation=RUN, level="must", id="planmode.lifecycle.host.property.clear-on-start-never-injects"
)
@given(script=s.scripts(policy="clear-on-start", retention_saves=False))
def test_clear_on_start_never_injects(planmode_target: TargetClient, script: dict[str, Any]) -> None:
    """clear-on-start has "no active-plan state or hidden context injection":
    whatever the events, no `context` hook result adds the plan."""
    out = planmode_target.call(RUN, script)
    for index, context in enumerate(out["contexts"]):
        assert context["injected"] is False, f"context {index} carries a hidden injection: {context}"
        assert context["injection"] is None, f"context {index} carries injected text: {context}"


def _contexts_by_event(events: list[dict[str, Any]], contexts: list[dict[str, Any]]) -> list[tuple[int, Any]]:
    makers = [i for i, e in enumerate(events) if e["type"] == "context"]
    assert len(contexts) == len(makers), (
        f"expected one observed context per context event ({len(makers)}), got {len(contexts)}"
    )
    return list(zip(makers, contexts, strict=True))


def _injection_only_when_missing(index: int, context: dict[str, Any], plan: str) -> None:
    """The `context` hook restores the exact plan "when ordinary model context
    no longer contains it": an injection is the exact plan, and never beside
    a copy the history already holds."""
    if context["injected"]:
        assert context["injection"] == plan, f"context {index}: the injection is not the exact plan"
        assert not context["planInHistory"], f"context {index}: injected although the history holds the plan"


@pytest.mark.planmode(
    operation=RUN, level="must", id="planmode.lifecycle.host.property.keep-carried-until-exit"
)
@given(case=s.guaranteed_implementations(policy="keep"))
def test_keep_carries_plan_until_exit(planmode_target: TargetClient, case: dict[str, Any]) -> None:
    """keep guarantees and reinjects the exact plan "until `/plan exit` or
    supersession": every context in between carries it (from history or
    injected, an injection only where the history lacks it), and no context
    after gets it injected."""
    inp, plan, end = case["input"], case["plan"], case["end"]
    out = planmode_target.call(RUN, inp)
    events = inp["events"]
    for index, context in _contexts_by_event(events, out["contexts"]):
        if case["implemented"] < index < end:
            assert context["planCopies"] >= 1, f"event {index}: the plan is not carried"
            _injection_only_when_missing(index, context, plan)
        elif index > end:
            assert context["injected"] is False, f"event {index}: injected after {events[end]['args']!r}"


@pytest.mark.planmode(
    operation=RUN, level="must", id="planmode.lifecycle.host.property.first-run-no-duplicate-injection"
)
@given(case=s.guaranteed_implementations(policy="clear-after-first-run"))
def test_first_run_policy_never_injects_a_duplicate(
    planmode_target: TargetClient, case: dict[str, Any]
) -> None:
    """Through the first implementation run the exact plan is guaranteed:
    any injection is the exact plan and only where the history lacks it."""
    out = planmode_target.call(RUN, case["input"])
    for index, context in enumerate(out["contexts"]):
        _injection_only_when_missing(index, context, case["plan"])


@pytest.mark.planmode(
    operation=EXPORT, level="must", id="planmode.export.property.settings-and-working-directory"
)
@given(inp=s.exports())
def test_export_keeps_settings_and_resolves_under_cwd(
    planmode_target: TargetClient, inp: dict[str, Any]
) -> None:
    """An explicit path "is a one-off override and does not edit Settings"; relative
    values "are resolved against the current working directory"."""
    out = planmode_target.call(EXPORT, inp)
    assert out["settingsAfter"] == inp["settings"], "an export edited the settings"
    if out["destination"] is not None:
        assert out["destination"].startswith("$CWD/"), f"a relative path left the cwd: {out}"


# Reference level: the bytes written (Markdown plus one newline), creating missing
# parents and removing a leading '@' are choices the spec does not state.
@pytest.mark.planmode(operation=EXPORT, level="reference", id="planmode.export.property.bytes-and-settings")
@given(inp=s.exports())
def test_export_writes_plan_plus_newline_and_keeps_settings(
    planmode_target: TargetClient, inp: dict[str, Any]
) -> None:
    out = planmode_target.call(EXPORT, inp)
    assert out["outcome"] == "written", f"nothing exists at the destination, yet: {out}"
    assert out["content"] == inp["state"]["plan"] + "\n", (
        "the Markdown was not written byte-exact plus one newline"
    )
    assert out["settingsAfter"] == inp["settings"], "an export edited the settings"
    assert out["destination"].startswith("$CWD/"), f"a relative path left the working directory: {out}"


@pytest.mark.planmode(
    operation=RUN, level="must", id="planmode.lifecycle.host.property.thinking-restored-on-exit"
)
@given(script=s.plan_thinking_round_trips(spec_only=True))
def test_leaving_plan_mode_restores_the_prior_level_spec_paths(
    planmode_target: TargetClient, script: dict[str, Any]
) -> None:
    """The round trip restricted to what the spec states: no `/reload` in
    Plan mode, and Plan mode left by exit, save, discard or Implement (what a
    written export or a reload does to Plan thinking is a reference choice)."""
    out = planmode_target.call(RUN, script)
    assert out["final"]["mode"] == "normal", "the script leaves Plan mode"
    assert out["final"]["thinking"] == script["thinking"], (
        f"Pi was at {script['thinking']!r} before Plan mode and nobody changed it by hand, "
        f"but it is at {out['final']['thinking']!r} afterwards"
    )


# Reference level: includes a ready-plan export as a way out of Plan mode and
# `/reload` inside Plan mode, neither of which the spec describes.
@pytest.mark.planmode(
    operation=RUN, level="reference", id="planmode.lifecycle.host.property.thinking-round-trip"
)
@given(script=s.plan_thinking_round_trips())
def test_leaving_plan_mode_restores_the_prior_level(
    planmode_target: TargetClient, script: dict[str, Any]
) -> None:
    out = planmode_target.call(RUN, script)
    assert out["final"]["mode"] == "normal", "the script leaves Plan mode"
    assert out["final"]["thinking"] == script["thinking"], (
        f"Pi was at {script['thinking']!r} before Plan mode and nobody changed it by hand, "
        f"but it is at {out['final']['thinking']!r} afterwards"
    )


@pytest.mark.planmode(
    operation=RUN,
    level="must",
    id="planmode.lifecycle.host.property.shortcut-waits-for-reload-same-runtime",
    spec="pi-plan-mode-settings.md § Toggle shortcut",
)
@given(script=s.shortcut_scripts())
def test_shortcut_changes_wait_for_a_new_runtime(
    planmode_target: TargetClient, script: dict[str, Any]
) -> None:
    """Saves and JSON edits of `toggleShortcut`, tree navigation, compaction
    and Plan commands never change the registered binding; one `/reload`
    registers the last value saved (the one loaded at startup if none was)."""
    startup = script["settings"].get("toggleShortcut")
    out = planmode_target.call(RUN, script)
    shortcut = out["final"]["shortcut"]
    assert shortcut["loaded"] == startup, "the binding changed without /reload or a restart"
    assert shortcut["registrations"] == (0 if startup is None else 1), (
        f"registrations without a new runtime: {shortcut['registrations']}"
    )
    saves = [
        e["settings"]["toggleShortcut"]
        for e in script["events"]
        if e["type"] in ("settings.screen", "settings.write")
    ]
    configured = saves[-1] if saves else startup
    reload = {"type": "session.reload"}
    reloaded = planmode_target.call(RUN, {**script, "events": [*script["events"], reload]})
    assert reloaded["final"]["shortcut"]["loaded"] == configured, (
        f"/reload did not register the last value saved ({configured!r})"
    )
