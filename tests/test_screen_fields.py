"""The `screen` field class (what the extension shows the user): its
matchers, the four `must` cases that pin a screen, each failing its planted
bug in the reference and passing on it, and the `pi:` reading of the
host's recorded `ui` calls (the example extension, and the example with a
tools picker planted in it)."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pytest_planmode.contract import operations
from pytest_planmode.matching import mismatches
from pytest_planmode.observability import effects_only, explanation_pins, missing_effects, screen_pins
from pytest_planmode.reference.planmode import export as exporting
from pytest_planmode.reference.planmode import models_fresh, tools_authorize
from pytest_planmode.reference.planmode import shortcut as toggle
from pytest_planmode.targets.pi.translation import screen
from pytest_planmode.targets.pi_target import PiTarget
from pytest_planmode.targets.reference.ops import planmode_lifecycle as lifecycle_ops
from pytest_planmode.targets.reference.ops import planmode_models as models_ops
from pytest_planmode.targets.reference.ops import planmode_tools as tools_ops
from tests.pi_examples import case, planted, problems, running

PICKER = "planmode.tools.authorize.host.picker.screen.inactive-row-then-fresh-snapshot"
SHORTCUT = "planmode.lifecycle.host.shortcut.screen.configured-beside-loaded"
EXPORT = "planmode.export.screen.input-previews-resolved-destination"
FRESH = "planmode.models.fresh.screen.reports-unavailable"

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js (.ci/run installs it)")

#: The reference's handler of each case's operation (called directly: no memo).
HANDLERS: dict[str, Callable[[Any], Any]] = {
    "planmode.tools.authorize": tools_ops.authorize,
    "planmode.lifecycle.run": lifecycle_ops.run,
    "planmode.export.run": lifecycle_ops.export,
    "planmode.models.fresh": models_ops.fresh,
}


def reference_problems(case_id: str) -> list[str]:
    c = case(case_id)
    op = operations()[c.operation]
    answer = HANDLERS[c.operation](op.input.model_validate(c.input)).model_dump(by_alias=True, mode="json")
    return mismatches(c.expect, answer)


# --- the matchers ------------------------------------------------------------


def test_text_with_and_without_match_words_ignoring_case() -> None:
    row = "[x] grep (Inactive in Pi)"
    assert mismatches({"$textWith": ["grep", "inactive in pi"]}, row) == []
    assert mismatches({"$textWith": ["grep"], "$textWithout": ["blocked"]}, row) == []
    (lacking,) = mismatches({"$textWith": ["grep", "pending registration"]}, row)
    assert "holding" in lacking and "pending registration" in lacking
    (holding,) = mismatches({"$textWithout": ["inactive in Pi"]}, row)
    assert "without" in holding
    assert mismatches({"$textWith": ["grep"]}, ["grep"]) == ['output: expected a text, got ["grep"]']


def test_has_finds_a_distinct_item_per_pattern_among_others() -> None:
    shown = ["a status", "grep (inactive in Pi)", "read (available)"]
    assert mismatches({"$has": [{"$textWith": ["read"]}, {"$textWith": ["grep"]}]}, shown) == []
    # One item cannot answer two patterns.
    assert mismatches({"$has": [{"$textWith": ["grep"]}, {"$textWith": ["inactive"]}]}, shown)
    assert mismatches({"$has": [{"$textWith": ["find"]}]}, shown)
    assert mismatches({"$has": []}, "not a list") == ['output: expected a list, got "not a list"']


def test_a_screen_field_is_pinned_as_an_effect_and_optional() -> None:
    fresh = operations()["planmode.models.fresh"].output
    expect = case(FRESH).expect
    assert explanation_pins(fresh, expect) == []
    assert screen_pins(fresh, expect) == ["screen"]
    answer = {"screen": [{"ui": "notify", "title": None, "items": ["x"], "text": "x"}], "unavailable": ["a"]}
    assert effects_only(fresh, answer) == {"screen": answer["screen"]}
    assert "output.screen" not in missing_effects(fresh, {})


# --- the four cases on the reference and their planted bugs -------------------


@pytest.mark.parametrize("case_id", [PICKER, SHORTCUT, EXPORT, FRESH])
def test_each_screen_case_is_must_and_passes_on_the_reference(case_id: str) -> None:
    assert case(case_id).level == "must"
    assert reference_problems(case_id) == []


def test_a_picker_that_keeps_its_first_snapshot_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    first: list[Any] = []
    rows = tools_authorize.picker_rows

    def stale(registry: Any, chosen: Any) -> Any:
        if not first:
            first.append(rows(registry, chosen))
        return first[0]

    monkeypatch.setattr(tools_authorize, "picker_rows", stale)
    found = reference_problems(PICKER)
    assert found and found[0].startswith("output.screen: no item matches"), found


def test_a_picker_that_says_blocked_for_an_inactive_row_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        tools_authorize, "picker_rows", lambda r, c: (tools_row("grep", "blocked by Plan policy"),)
    )
    assert reference_problems(PICKER)


def tools_row(name: str, label: str) -> Any:
    from pytest_planmode.reference.planmode.tools_picker import PickerRow

    return PickerRow(name, label, True)


def test_settings_showing_only_the_configured_shortcut_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lifecycle_ops, "shortcut_row", lambda loaded, configured: f"Shortcut: {configured}")
    found = reference_problems(SHORTCUT)
    assert found and found[0].startswith("output.screen"), found


def test_a_save_that_leaves_the_configured_shortcut_unshown_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    # The reference core's planted bug: a save through Settings does not
    # record the configured value, so Settings shows only the loaded one.
    monkeypatch.setattr(toggle, "configure", lambda state, configured: state)
    found = reference_problems(SHORTCUT)
    assert found and found[0].startswith("output.screen"), found


def test_an_export_input_previewing_the_raw_path_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exporting, "preview", lambda destination, width: "plans/next.md")
    found = reference_problems(EXPORT)
    assert found and found[0].startswith("output.screen"), found


def test_a_fresh_screen_silent_about_unavailable_candidates_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = models_fresh.fresh
    monkeypatch.setattr(
        models_fresh, "fresh", lambda *a, **k: dataclasses.replace(fresh(*a, **k), unavailable=())
    )
    found = reference_problems(FRESH)
    assert found and found[0].startswith("output.screen"), found


# --- what a `pi:` translation reads from the host ----------------------------


def test_the_screen_is_read_from_the_recorded_ui_calls() -> None:
    trace: list[dict[str, Any]] = [
        {"call": "ui.select", "args": ["Tools", ["\x1b[38;pi:accentm[x] grep\x1b[39m", "Done"]]},
        {"call": "ui.input", "args": ["Export to /sandbox/cwd/PLAN.md", "PLAN.md"]},
        {"call": "ui.notify", "args": ["Saved.", "info"]},
        {"call": "ui.setStatus", "args": ["plan-mode", None]},
        {"call": "ui.setWidget", "args": ["plan", "line 1\nline 2"]},
        {"call": "pi.setModel", "args": [{"provider": "a"}]},
        {"call": "ui.custom", "args": [None]},
    ]
    shown = screen(trace, lambda text: text.replace("/sandbox/cwd", "$CWD"))
    assert [e["ui"] for e in shown] == ["select", "input", "notify", "setStatus", "setWidget"]
    assert shown[0]["items"] == ["[x] grep", "Done"] and shown[0]["text"] == "Tools\n[x] grep\nDone"
    assert shown[1]["title"] == "Export to $CWD/PLAN.md" and shown[1]["items"] == ["PLAN.md"]
    assert shown[2] == {"ui": "notify", "title": None, "items": ["Saved."], "text": "Saved."}
    assert shown[3]["items"] == [] and shown[4]["items"] == ["line 1", "line 2"]


#: A tools picker planted in the example (`/plan tools`): one row per
#: registered tool, labelled from Pi's active set when it opens.
PICKER_CODE = """if (sub === "tools") {
        const active = new Set(pi.getActiveTools());
        const rows = pi.getAllTools().map((t) => `${t.name}${active.has(t.name) ? "" : " (inactive in Pi)"}`);
        await ctx.ui.select("Plan policy tools", [...rows, "Done"]);
        return;
      }
      if (sub) { ctx.ui.notify(`Unknown /plan argument: ${sub}`, "warning"); return; }"""
UNKNOWN = 'if (sub) { ctx.ui.notify(`Unknown /plan argument: ${sub}`, "warning"); return; }'


@pytest.fixture(scope="module")
def example() -> Iterator[PiTarget]:
    from tests.pi_examples import PLAN_EXAMPLE

    yield from running(PLAN_EXAMPLE)


@needs_node
def test_the_example_shows_the_export_preview_through_pi(example: PiTarget) -> None:
    assert problems(example, EXPORT) == []


@needs_node
def test_a_planted_picker_passes_and_a_stale_one_fails_through_pi(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    fresh = planted(tmp_path_factory.mktemp("picker"), UNKNOWN, PICKER_CODE)
    for target in running(fresh):
        assert problems(target, PICKER) == []
    # The snapshot taken at the first opening, kept for every later one.
    stale_code = PICKER_CODE.replace(
        "const active = new Set(pi.getActiveTools());",
        "globalThis.firstActive ??= pi.getActiveTools(); const active = new Set(globalThis.firstActive);",
    )
    stale = planted(tmp_path_factory.mktemp("stale"), UNKNOWN, stale_code)
    for target in running(stale):
        found = problems(target, PICKER)
        assert found and found[0].startswith("output.screen: no item matches"), found
