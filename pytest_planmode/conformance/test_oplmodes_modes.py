"""Properties of the opl-modes session that hold for any target:
resume from a foreign or stale entry never leaves the session unrestricted
(opl-modes.md § Tool inheritance warning), and the cycle shortcut never
reaches execute, a hidden or a disabled mode (§ Commands, flags, and
shortcuts)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pytest_planmode.strategies import oplmodes_modes as s

#: The section a failure of these checks cites (a marker's `spec=` overrides it).
SPEC = "opl-modes.md § Tool inheritance warning"

if TYPE_CHECKING:
    from pytest_planmode.harness import TargetClient

OP = "oplmodes.modes.script"
ACTIVE = "oplmodes.tools.active"
CONFIG = {
    "shortcuts": {"cycleMode": "f2"},
    "modes": {
        "review": {"tools": ["read", "grep"]},
        "secret": {"tools": ["read"], "visible": False},
    },
}
PLANS = ["plan-auth.md"]
OWN_TYPES = {"mode-switcher", "chat-mode", "plan-mode"}


def _is_own(entry: dict[str, Any]) -> bool:
    return entry.get("type") == "custom" and entry.get("customType") in OWN_TYPES


def _check_restricted(planmode_target: TargetClient, out: dict[str, Any], what: str) -> None:
    final = out["final"]
    mode = final["mode"]
    policy = planmode_target.call(
        ACTIVE,
        {"config": CONFIG, "mode": mode, "snapshot": None}
        | {"registeredTools": ["read", "bash", "edit", "write", "grep", "find", "ls"]},
    )
    assert policy["known"], f"{what}: the session is in {mode!r}, which is not a registered enabled mode"
    # CONFIG has no lazyTools: the active set on entering the mode is its whole policy.
    allowed = set(policy["activeTools"]) | {"load_tools"}
    extra = set(final["activeTools"]) - allowed
    assert not extra, f"{what}: {mode} mode has tools beyond its policy: {sorted(extra)}"
    plan_file = final["planFile"]
    if plan_file is not None:
        name = plan_file.removeprefix(".pi/plans/")
        assert (
            plan_file.startswith(".pi/plans/") and "/" not in name and "\\" not in name and ".." not in name
        ), f"{what}: plan file {plan_file!r} points outside .pi/plans/"
    published = final["published"]["__agentMode"]
    assert published["mode"] == mode, f"{what}: published {published['mode']!r} but the mode is {mode!r}"


def _resume(
    target: TargetClient, entries: list[dict[str, Any]], kind: str, before: list[dict[str, Any]]
) -> tuple[dict[str, Any], str]:
    """Any earlier events, then a resume (or start, or branch change) from `entries`."""
    out = target.call(
        OP,
        {
            "config": CONFIG,
            "plans": PLANS,
            "events": [*before, {"type": kind, "entries": entries}],
        },
    )
    what = f"{json.dumps(before)[:200]} then {kind} from {json.dumps(entries)[:300]}"
    return out, what


@pytest.mark.planmode(
    operations=[OP, ACTIVE],
    level="must",
    id="oplmodes.modes.property.stale-resume-falls-back",
)
@given(
    entries=st.lists(s.foreign_or_stale_entries, min_size=1, max_size=4),
    kind=st.sampled_from(["session.start", "session.resume", "session.tree"]),
    before=s.event_lists,
)
# A mode name that differs only in case is not that mode: it must not resume
# into a read-only mode's name with wider tools, whatever the draw finds.
@example(
    entries=[{"type": "custom", "customType": "mode-switcher", "data": {"mode": "Chat"}}],
    kind="session.resume",
    before=[],
)
def test_only_foreign_or_stale_entries_resume_to_normal(
    planmode_target: TargetClient, entries: list[dict[str, Any]], kind: str, before: list[dict[str, Any]]
) -> None:
    # Whatever happened earlier in the session (any mode, any plan), the
    # resume decides from the entries alone.
    out, what = _resume(planmode_target, entries, kind, before)
    _check_restricted(planmode_target, out, what)
    # The last own entry decides; a foreign or stale one can only yield normal,
    # or a legacy/own entry that happens to name a valid read-only mode.
    own = [e for e in entries if _is_own(e)]
    if not own:
        assert out["final"]["mode"] == "off", (
            f"{what}: no opl-modes entry, yet the mode is {out['final']['mode']!r}"
        )


@pytest.mark.planmode(
    operations=[OP, ACTIVE], level="reference", id="oplmodes.modes.property.stale-execute-falls-back"
)
@given(
    entries=st.lists(s.foreign_or_stale_entries, min_size=1, max_size=4),
    kind=st.sampled_from(["session.start", "session.resume", "session.tree"]),
    before=s.event_lists,
)
def test_stale_entries_never_resume_into_execute(
    planmode_target: TargetClient, entries: list[dict[str, Any]], kind: str, before: list[dict[str, Any]]
) -> None:
    # The spec drops an unsafe plan filename but does not say what becomes
    # of execute mode without it; the reference falls back to normal, since
    # execute needs an active plan (reference choice, like a plan file that
    # no longer exists).
    out, what = _resume(planmode_target, entries, kind, before)
    assert out["final"]["mode"] != "execute", f"{what}: resumed into execute mode without a usable plan"


@pytest.mark.planmode(
    operations=[OP, ACTIVE],
    level="must",
    id="oplmodes.modes.property.restricted-survives-foreign",
)
@given(
    restricted=s.restricted_entries,
    foreign=st.lists(s.foreign_or_stale_entries.filter(lambda e: not _is_own(e)), max_size=3),
    events=s.event_lists,
)
def test_foreign_entries_after_a_restricted_one_keep_it(
    planmode_target: TargetClient,
    restricted: dict[str, Any],
    foreign: list[dict[str, Any]],
    events: list[dict[str, Any]],
) -> None:
    entries = [restricted, *foreign]
    out = planmode_target.call(
        OP, {"config": CONFIG, "plans": PLANS, "events": [{"type": "session.resume", "entries": entries}]}
    )
    what = f"resume from {json.dumps(entries)[:300]}"
    assert out["final"]["mode"] == restricted["data"]["mode"], (
        f"{what}: resumed into {out['final']['mode']!r} instead of the restricted "
        f"{restricted['data']['mode']!r}"
    )
    _check_restricted(planmode_target, out, what)
    # Whatever follows, every step stays within the policy of its mode.
    out = planmode_target.call(
        OP,
        {
            "config": CONFIG,
            "plans": PLANS,
            "events": [{"type": "session.resume", "entries": entries}, *events],
        },
    )
    _check_restricted(planmode_target, out, f"{what} then {json.dumps(events)[:300]}")


@pytest.mark.planmode(
    operations=[OP, "oplmodes.config.load"], level="must", id="oplmodes.modes.property.cycle-visible-enabled"
)
@given(
    document=s.well_formed_documents,
    start=st.sampled_from(["", "/chat", "/plan", "/mode review", "/mode secret", "/execute auth"]),
    presses=st.integers(min_value=1, max_value=8),
)
def test_cycling_never_reaches_execute_hidden_or_disabled(
    planmode_target: TargetClient, document: dict[str, Any], start: str, presses: int
) -> None:
    registry = planmode_target.call("oplmodes.config.load", {"document": document})
    modes = registry["modes"]
    events = ([s.command_event(start)] if start else []) + [{"type": "key.press", "key": "f2"}] * presses
    out = planmode_target.call(OP, {"config": document, "plans": PLANS, "events": events})
    what = f"config {json.dumps(document)[:300]}, {start or 'normal'} then {presses} presses"
    before = out["steps"][0]["mode"] if start else "off"
    for step in out["steps"][1 if start else 0 :]:
        mode = step["mode"]
        if mode != before:
            assert mode != "execute", f"{what}: the cycle reached execute"
            assert modes[mode]["visible"], f"{what}: the cycle reached hidden mode {mode!r}"
            assert modes[mode]["enabled"], f"{what}: the cycle reached disabled mode {mode!r}"
        before = mode
