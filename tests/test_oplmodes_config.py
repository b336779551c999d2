"""Tests of the opl-modes configuration loader in the reference
(opl-modes.md § Configuration, § Mode appearance)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError
from schema_check import errors

from pytest_planmode.contract.oplmodes_config import ConfigLoadInput, OplModesDocument
from pytest_planmode.reference.oplmodes import appearance as ap
from pytest_planmode.reference.oplmodes import config as cfg
from pytest_planmode.reference.oplmodes.config_fs import load_bytes
from pytest_planmode.strategies import oplmodes_modes as s
from pytest_planmode.suite import decode_nulls
from pytest_planmode.targets.reference.ops.oplmodes_config import load as load_op

FIXTURES = Path(__file__).resolve().parent.parent / "pytest_planmode" / "fixtures" / "oplmodes"


@given(document=s.json_values)
def test_loader_never_raises_on_any_json(document: Any) -> None:
    loaded = cfg.load(document)
    assert set(loaded.modes) >= {"off", "chat", "plan", "execute"}
    if not isinstance(document, dict):
        assert loaded.problems and loaded.problems[0].field == "(document)"


@given(document=s.documents)
def test_loader_never_raises_on_shaped_documents(document: dict[str, Any]) -> None:
    loaded = cfg.load(document)
    assert loaded.modes["off"].enabled
    assert loaded.modes["execute"].allow_plan_complete
    for mode in loaded.modes.values():
        assert mode.tools is None or "load_tools" not in mode.tools


@given(document=s.documents)
def test_operation_never_raises_and_serialises(document: dict[str, Any]) -> None:
    out = load_op(ConfigLoadInput(document=document)).model_dump(mode="json", by_alias=True)
    json.dumps(out)
    assert out["modeOrder"][:4] == ["off", "chat", "plan", "execute"]


@given(text=st.text(max_size=100))
def test_text_never_raises(text: str) -> None:
    out = load_op(ConfigLoadInput(text=text))
    assert "off" in out.modes


@given(data=st.binary(max_size=200) | s.json_values.map(lambda v: json.dumps(v).encode()))
def test_any_bytes_never_raise(data: bytes) -> None:
    loaded = load_bytes(data)
    assert "off" in loaded.modes


@pytest.mark.parametrize("data", [b"\xff\xfe{}", b"\xef\xbb\xbf{}", b"{", b"", b"NaN"])
def test_unreadable_bytes_are_a_document_problem(data: bytes) -> None:
    loaded = load_bytes(data)
    assert loaded.problems and loaded.problems[0].field == "(document)"
    assert loaded.modes["chat"].tools == ("read", "bash", "grep", "find", "ls")


def test_invalid_json_text_is_a_problem_with_defaults() -> None:
    out = load_op(ConfigLoadInput(text='{"modes": '))
    assert out.problems[0].field == "(document)"
    assert "not valid JSON" in out.problems[0].message
    assert out.mode_order == ["off", "chat", "plan", "execute"]


def test_document_and_text_together_rejected() -> None:
    with pytest.raises(ValidationError):
        ConfigLoadInput.model_validate({"document": {}, "text": "{}"})


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("#abc", "#aabbcc"),
        ("#ABC", "#aabbcc"),
        ("#157CD6", "#157cd6"),
        ("accent", "accent"),
        ("muted", "muted"),
    ],
)
def test_colours_accepted(value: str, expected: str) -> None:
    assert ap.normalize_color(value, "x").color == expected


@pytest.mark.parametrize(
    "value", ["red", "#12", "#1234", "#12345", "#1234567", "abc", "", "Accent", 3, None, "selectedBg"]
)
def test_colours_rejected_with_the_field_named(value: object) -> None:
    result = ap.normalize_color(value, "modes.chat.appearance.modeColor")
    assert result.color is None
    assert result.error is not None and result.error.startswith("modes.chat.appearance.modeColor:")


def test_label_colours_take_tokens_only() -> None:
    assert ap.normalize_color("#aabbcc", "l", tokens_only=True).color is None
    assert ap.normalize_color("accent", "l", tokens_only=True).color == "accent"


@pytest.mark.parametrize(
    ("name", "text"), [("review", "Review"), ("code-review", "Code-review"), ("QA", "QA"), ("2fa", "2fa")]
)
def test_template_capitalises(name: str, text: str) -> None:
    assert ap.render_template("{Name}", name) == text


def test_alias_only_when_tools_omitted() -> None:
    used = cfg.load({"chatAllowedTools": ["read"]})
    assert used.modes["chat"].tools == ("read",) and used.modes["chat"].tools_source == "alias"
    ignored = cfg.load({"chatAllowedTools": ["read"], "modes": {"chat": {"tools": ["ls"]}}})
    assert ignored.modes["chat"].tools == ("ls",)
    assert any("ignored because modes.chat.tools is set" in w.message for w in ignored.warnings)


def test_custom_mode_without_tools_is_reported_write_capable() -> None:
    loaded = cfg.load({"modes": {"scratch": {}}})
    assert loaded.modes["scratch"].tools is None
    assert any(w.mode == "scratch" and "write-capable" in w.message for w in loaded.warnings)


def test_malformed_custom_tools_fail_closed() -> None:
    loaded = cfg.load({"modes": {"review": {"tools": "read"}}})
    assert loaded.modes["review"].tools == ()


def test_protected_lazy_tools_ignored() -> None:
    loaded = cfg.load({"lazyTools": ["read", "browser", "load_tools"]})
    assert loaded.lazy_tools == ("browser",)
    assert loaded.ignored_lazy_tools == ("read", "load_tools")
    assert not loaded.problems and not loaded.warnings


def test_shortcut_conflict_only_for_thinking_key() -> None:
    assert cfg.shortcut_conflict("shift+tab") is not None
    assert cfg.shortcut_conflict("ctrl+alt+m") is None
    assert cfg.shortcut_conflict("ctrl+t", "ctrl+t") is not None


def _config_documents() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for name in ("config.toml", "appearance.toml"):
        data = tomllib.loads((FIXTURES / name).read_text(encoding="utf-8"))
        for group in data["group"]:
            if group["operation"] != "oplmodes.config.load":
                continue
            for case in group["case"]:
                inp = decode_nulls({**group.get("defaults", {}), **case["input"]})
                if isinstance(inp.get("document"), dict):
                    found.append((case["id"], inp["document"]))
    return found


CONFIG_DOCUMENTS = _config_documents()


def test_fixture_documents_were_found() -> None:
    assert len(CONFIG_DOCUMENTS) > 80


@pytest.mark.parametrize(("case_id", "document"), CONFIG_DOCUMENTS, ids=[c for c, _ in CONFIG_DOCUMENTS])
def test_document_schema_agrees_with_the_loader(case_id: str, document: dict[str, Any]) -> None:
    """The published JSON Schema of opl-modes.json accepts exactly the fixture
    documents the loader reads without a problem (Bash patterns are the
    gate's to judge: a regular expression's validity is not a schema
    property)."""
    problems = cfg.load(document).problems
    violations = errors("settings/opl-modes.schema.json", document)
    assert (not violations) == (not problems), (
        f"{case_id}: schema violations={violations}, loader problems={problems}"
    )
    try:
        OplModesDocument.model_validate(document)
        model_accepts = True
    except ValidationError:
        model_accepts = False
    assert model_accepts == (not violations), f"{case_id}: the model and its schema disagree"


def test_schema_is_published() -> None:
    from pytest_planmode.contract import oplmodes_config

    schema = oplmodes_config.OplModesDocument.model_json_schema(by_alias=True)
    assert "settings/opl-modes.schema.json" in oplmodes_config.SCHEMAS
    mode = schema["$defs"]["ModeConfig"]["properties"]
    assert mode["enabled"] == {"title": "Enabled", "type": "boolean"}
    assert schema["properties"]["modes"]["additionalProperties"] is False
