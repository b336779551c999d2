"""The reference's settings document logic, tested directly."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_planmode.reference.planmode.settings import (
    CANONICAL_NAME,
    FALLBACK,
    LEGACY_NAME,
    MAX_BYTES,
    Absent,
    Contents,
    Edit,
    LoadOutcome,
    NotRegular,
    Parsed,
    Problem,
    Publish,
    ReadFailed,
    Refused,
    Unchanged,
    decide_load,
    effective_settings,
    nesting_depth,
    parse_document,
    plan_edit,
    read_document,
    render_document,
)
from pytest_planmode.reference.planmode.settings_store import MemoryDirectory, SettingsStore
from pytest_planmode.strategies import planmode_settings as s

file_states = st.one_of(
    st.just(Absent()),
    st.sampled_from([NotRegular("directory"), NotRegular("fifo"), NotRegular("symbolic link")]),
    st.just(ReadFailed("PermissionError")),
    s.arbitrary_bytes.map(Contents),
    s.json_values.map(lambda v: Contents(json.dumps(v).encode())),
    s.valid_documents().map(lambda d: Contents(json.dumps(d).encode())),
)


def _assert_usable(outcome: LoadOutcome) -> None:
    assert outcome.status in {"missing", "valid", "legacy", "invalid"}
    if outcome.status == "invalid":
        assert outcome.read_only and outcome.warnings and outcome.settings == FALLBACK
        assert outcome.reason is not None
    else:
        assert not outcome.read_only and outcome.reason is None


@given(data=st.binary(max_size=2000))
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    result = parse_document(data)
    assert isinstance(result, Parsed | Problem)
    _assert_usable(decide_load(Contents(data), Absent()))


@given(value=s.json_values)
def test_arbitrary_json_values_never_raise(value: Any) -> None:
    outcome = decide_load(Contents(json.dumps(value).encode()), Absent())
    _assert_usable(outcome)
    if not isinstance(value, dict):
        assert outcome.reason == "invalid-value"


@given(canonical=file_states, legacy=file_states)
@settings(max_examples=300)
def test_any_pair_of_entries_loads(canonical: Any, legacy: Any) -> None:
    outcome = decide_load(canonical, legacy)
    _assert_usable(outcome)
    if not isinstance(canonical, Absent):
        # The canonical name takes precedence whenever it exists.
        assert outcome.source == CANONICAL_NAME
    elif isinstance(legacy, Absent):
        assert outcome.status == "missing" and outcome.settings == FALLBACK


@given(case=s.documents_with_one_invalid_field())
def test_warnings_never_echo_content(case: tuple[dict[str, Any], str]) -> None:
    doc, field = case
    outcome = decide_load(Contents(json.dumps(doc).encode()), Absent())
    assert outcome.status == "invalid" and outcome.field == field
    assert all(s.MARKER not in w for w in outcome.warnings), outcome.warnings


@given(doc=s.valid_documents())
def test_render_then_parse_round_trips(doc: dict[str, Any]) -> None:
    data = render_document(doc)
    assert data.endswith(b"\n")
    parsed = parse_document(data)
    assert isinstance(parsed, Parsed)
    assert parsed.document == doc and list(parsed.document) == list(doc)
    assert parsed.settings == effective_settings(doc)


def test_lone_surrogate_survives_a_save_as_an_escape() -> None:
    parsed = parse_document(b'{"note": "\\ud800x"}')
    assert isinstance(parsed, Parsed)
    data = render_document(parsed.document)
    assert b"\\ud800" in data
    again = parse_document(data)
    assert isinstance(again, Parsed) and again.document == {"note": "\ud800x"}


@pytest.mark.parametrize(
    "text",
    [
        "[" * 60_000,
        '{"x": ' + "[" * 5000 + "]" * 5000 + "}",
        '{"x": 1e999}',
        '{"x": -Infinity}',
        '{"x": ' + "9" * 5000 + "}",
    ],
    ids=["unclosed-deep", "closed-deep", "overflow", "infinity", "huge-integer"],
)
def test_pathological_json_is_invalid_json_not_a_crash(text: str) -> None:
    result = parse_document(text.encode())
    assert isinstance(result, Problem) and result.reason == "invalid-json", result


def test_nesting_depth_ignores_brackets_in_strings() -> None:
    assert nesting_depth('{"a": "[[[[\\"{{{"}') == 1
    assert nesting_depth('[[{"a": []}]]') == 4


def test_size_limit_counts_bytes_not_characters() -> None:
    # 2 bytes per "é": 32,759 of them plus the JSON around them is over the limit.
    text = '{"n": "' + "é" * ((MAX_BYTES - 8) // 2) + '"}'
    assert len(text) < MAX_BYTES < len(text.encode())
    result = parse_document(text.encode())
    assert isinstance(result, Problem) and result.reason == "too-large"


def _valid(doc: dict[str, Any]) -> LoadOutcome:
    outcome = decide_load(Contents(json.dumps(doc).encode()), Absent())
    assert outcome.status == "valid"
    return outcome


def test_edit_keeps_key_order_and_appends() -> None:
    plan = plan_edit(_valid({"b": 1, "thinkingLevel": "low"}), Edit("toggleShortcut", "x"))
    assert isinstance(plan, Publish)
    assert list(plan.document) == ["b", "thinkingLevel", "toggleShortcut"]
    plan = plan_edit(_valid({"b": 1, "thinkingLevel": "low"}), Edit("thinkingLevel", "max"))
    assert isinstance(plan, Publish) and list(plan.document) == ["b", "thinkingLevel"]


def test_edit_does_not_mutate_the_loaded_document() -> None:
    current = _valid({"thinkingLevel": "low"})
    plan_edit(current, Edit("thinkingLevel", "max"))
    assert current.document == {"thinkingLevel": "low"}


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (Edit("safeSubcommands", {"git": ["blame"]}), "not-editable"),
        (Edit("toolVisibility", {}), "not-editable"),
        (Edit("nonsense", 1), "not-editable"),
        (Edit("thinkingLevel", None), "invalid-value"),
        (Edit("planModel", []), "invalid-value"),
    ],
)
def test_refused_edits(edit: Edit, reason: str) -> None:
    plan = plan_edit(_valid({}), edit)
    assert isinstance(plan, Refused) and plan.reason == reason


def test_read_only_refuses_before_looking_at_the_value() -> None:
    outcome = decide_load(NotRegular("directory"), Absent())
    plan = plan_edit(outcome, Edit("thinkingLevel", "high"))
    assert isinstance(plan, Refused) and plan.reason == "read-only"


def test_reset_without_a_file_is_unchanged() -> None:
    assert isinstance(
        plan_edit(decide_load(Absent(), Absent()), Edit("thinkingLevel", reset=True)), Unchanged
    )


def test_legacy_document_is_the_starting_point() -> None:
    outcome = decide_load(Absent(), Contents(b'{"x": 1, "thinkingLevel": "high"}'))
    assert outcome.status == "legacy" and outcome.source == LEGACY_NAME and outcome.warnings
    plan = plan_edit(outcome, Edit("autoSwitchModel", True))
    assert isinstance(plan, Publish)
    assert plan.document == {"x": 1, "thinkingLevel": "high", "autoSwitchModel": True}


def test_store_load_turns_directory_errors_into_read_failures() -> None:
    def broken(step: str) -> None:
        raise OSError("device gone")

    store = SettingsStore(MemoryDirectory(fault=broken))
    outcome = store.load()
    assert (outcome.status, outcome.reason, outcome.read_only) == ("invalid", "read-failed", True)


def test_store_reload_keeps_previous_settings_on_invalid_file() -> None:
    directory = MemoryDirectory()
    store = SettingsStore(directory)
    assert store.save(Edit("thinkingLevel", "high")).ok
    directory.entries[CANONICAL_NAME].data = b"{"
    outcome = store.load()
    assert outcome.status == "invalid" and outcome.settings.thinking_level == "high"
    assert "previous settings" in outcome.warnings[0]
    assert SettingsStore(directory).load().settings == FALLBACK


@pytest.mark.parametrize(
    "document, field",
    [
        ({"thinkingLevel": None}, "thinkingLevel"),
        ({"thinkingLevel": "high", "autoSwitchModel": "yes"}, "autoSwitchModel"),
        ({"defaultPlanExportPath": "docs/p.md", "planModel": []}, "planModel"),
        ({"safeSubcommands": {"git": ["blame"]}, "toggleShortcut": ""}, "toggleShortcut"),
        ([], None),
    ],
)
def test_the_one_reader_discards_a_document_with_one_invalid_field(
    document: object, field: str | None
) -> None:
    reading = read_document(document)
    assert reading.settings == FALLBACK
    assert reading.invalid is not None and reading.invalid.field == field


def test_the_one_reader_keeps_a_valid_document_and_knows_an_unset_export_path() -> None:
    reading = read_document({"thinkingLevel": "high", "toolVisibility": {}, "custom": 1})
    assert reading.invalid is None
    assert reading.settings.thinking_level == "high"
    assert reading.settings.default_plan_export_path is None
    assert reading.settings.as_json()["defaultPlanExportPath"] == "PLAN.md"
