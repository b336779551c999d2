"""Properties of the opl-modes configuration loader that hold for any
target (opl-modes.md § Configuration): it never fails on arbitrary JSON,
and always answers with an effective registry (problems reported)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_planmode.strategies import oplmodes_modes as s

#: The section a failure of these checks cites (a marker's `spec=` overrides it).
SPEC = "opl-modes.md § Configuration"

if TYPE_CHECKING:
    from pytest_planmode.harness import TargetClient

OP = "oplmodes.config.load"
BUILTINS = ["off", "chat", "plan", "execute"]


def _check_registry(out: dict[str, Any], what: str) -> None:
    modes = out["modes"]
    for name in BUILTINS:
        assert name in modes, f"{what}: built-in mode {name!r} missing from the effective registry"
    # Built-ins first is the reference's order (fixture cases pin it).
    assert set(BUILTINS) <= set(out["modeOrder"]), f"{what}: built-ins missing from {out['modeOrder']}"
    assert "execute" not in out["cycle"], f"{what}: execute is in the cycle list {out['cycle']}"
    assert isinstance(out["problems"], list) and isinstance(out["warnings"], list)
    for problem in out["problems"]:
        assert isinstance(problem["message"], str) and problem["message"], f"{what}: empty problem {problem}"


@pytest.mark.planmode(operation=OP, level="must", id="oplmodes.config.property.any-json-value")
@given(document=s.json_values)
def test_any_json_value_gives_a_registry(planmode_target: TargetClient, document: Any) -> None:
    out = planmode_target.call(OP, {"document": document})
    _check_registry(out, f"document {json.dumps(document)[:200]}")
    if not isinstance(document, dict):
        assert out["problems"], f"a {type(document).__name__} document loaded without a problem"


@pytest.mark.planmode(operation=OP, level="must", id="oplmodes.config.property.any-shaped-document")
@given(document=s.documents)
def test_shaped_documents_give_a_registry(planmode_target: TargetClient, document: dict[str, Any]) -> None:
    out = planmode_target.call(OP, {"document": document})
    what = f"document {json.dumps(document)[:300]}"
    _check_registry(out, what)


@pytest.mark.planmode(operation=OP, level="reference", id="oplmodes.config.property.managed-names")
@given(document=s.documents)
def test_load_tools_unlisted_and_off_enabled(planmode_target: TargetClient, document: dict[str, Any]) -> None:
    # Reference choices: load_tools is managed by opl-modes and cannot be
    # listed in a mode's tools; off (normal) cannot be disabled.
    out = planmode_target.call(OP, {"document": document})
    what = f"document {json.dumps(document)[:300]}"
    for name, mode in out["modes"].items():
        if mode["tools"] is not None:
            assert "load_tools" not in mode["tools"], f"{what}: mode {name} lists load_tools"
        if name == "off":
            assert mode["enabled"] is True, f"{what}: off was disabled"


@pytest.mark.planmode(operation=OP, level="must", id="oplmodes.config.property.any-text")
@given(text=st.text(max_size=200) | s.json_values.map(json.dumps))
def test_any_text_gives_a_registry(planmode_target: TargetClient, text: str) -> None:
    out = planmode_target.call(OP, {"text": text})
    _check_registry(out, f"text {text[:200]!r}")


@pytest.mark.planmode(operation=OP, level="must", id="oplmodes.config.property.shift-tab-notice")
@given(key=st.sampled_from(["shift+tab", "ctrl+alt+m", "f2", "tab", "shift+enter", "ctrl+shift+tab"]))
def test_shift_tab_notice_exactly_for_the_thinking_key(planmode_target: TargetClient, key: str) -> None:
    """The default shift+tab is also Pi's app.thinking.cycle: the notice is
    given for that binding (explicit or default) and for no other."""
    for document in ({"shortcuts": {"cycleMode": key}}, {}):
        out = planmode_target.call(OP, {"document": document})
        effective = out["shortcuts"]["cycleMode"]
        if effective == "shift+tab":
            assert out["shortcutConflict"], f"{document}: shift+tab without the app.thinking.cycle notice"
        else:
            assert out["shortcutConflict"] is None, f"{document}: notice for {effective!r}"
