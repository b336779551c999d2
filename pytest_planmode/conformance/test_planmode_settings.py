"""Properties of pi-plan-mode settings (pi-plan-mode-settings.md § Settings,
§ Thinking level; reference-choices.md § pi-plan-mode: settings file) that
hold for any target."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_planmode.harness import TargetClient
from pytest_planmode.strategies import planmode_settings as s

#: The section a failure of these checks cites (a marker's `spec=` overrides it).
SPEC = "pi-plan-mode-settings.md § Settings"

LOAD = "planmode.settings.load"
SAVE = "planmode.settings.save"

FALLBACK = {
    "thinkingLevel": "inherit",
    "defaultPlanTools": "automatic",
    "implementationPlanRetention": "clear-on-start",
    "autoSwitchModel": False,
    "planModel": [],
    "normalModel": [],
    "defaultPlanExportPath": "PLAN.md",
    "safeSubcommands": {},
    "toggleShortcut": "",
}
SETTINGS_KEYS = set(FALLBACK)


def _check_outcome(out: dict[str, Any], what: str) -> None:
    assert out["status"] in {"valid", "invalid"}, f"{what}: status {out['status']!r}"
    assert set(out["settings"]) >= SETTINGS_KEYS, f"{what}: settings lack fields: {out['settings']}"
    if out["status"] == "invalid":
        assert out["readOnly"] is True, f"{what}: an unusable file must make Settings read-only"
        assert out["warnings"], f"{what}: an unusable file must produce a warning"
        assert out["settings"] == FALLBACK, f"{what}: not the documented fallback: {out['settings']}"
    else:
        assert out["readOnly"] is False, f"{what}: a valid file is writable"


@pytest.mark.planmode(
    operation=LOAD, level="must", id="planmode.settings.property.any-bytes", explains=("status",)
)
@given(data=s.arbitrary_bytes)
def test_any_bytes_load_to_settings_or_fallback(planmode_target: TargetClient, data: bytes) -> None:
    out = planmode_target.call(LOAD, {"files": {s.CANONICAL: s.bytes_entry(data)}})
    _check_outcome(out, f"file bytes {data[:60]!r}")


@pytest.mark.planmode(
    operation=LOAD, level="must", id="planmode.settings.property.any-json", explains=("status",)
)
@given(value=s.json_values)
def test_any_json_value_loads_to_settings_or_fallback(planmode_target: TargetClient, value: Any) -> None:
    out = planmode_target.call(LOAD, {"files": {s.CANONICAL: s.document_entry(value)}})
    _check_outcome(out, f"document {json.dumps(value)[:80]}")
    if not isinstance(value, dict):
        assert out["status"] == "invalid", f"a non-object document was accepted: {value!r}"


@pytest.mark.planmode(
    operation=LOAD, level="must", id="planmode.settings.property.valid-document", explains=("status",)
)
@given(doc=s.valid_documents())
def test_valid_documents_load_their_values(planmode_target: TargetClient, doc: dict[str, Any]) -> None:
    out = planmode_target.call(LOAD, {"files": {s.CANONICAL: s.document_entry(doc)}})
    assert out["status"] == "valid", f"valid document rejected: {doc} -> {out['warnings']}"
    settings = out["settings"]
    for key in (
        "thinkingLevel",
        "implementationPlanRetention",
        "autoSwitchModel",
        "defaultPlanExportPath",
        "toggleShortcut",
    ):
        if key in doc:
            assert settings[key] == doc[key], f"{key}: {doc[key]!r} loaded as {settings[key]!r}"
        else:
            assert settings[key] == FALLBACK[key], f"{key} omitted but loaded as {settings[key]!r}"
    for key in ("planModel", "normalModel"):
        if key in doc:
            chain = doc[key] if isinstance(doc[key], list) else [doc[key]]
            want = [{"provider": m["provider"], "modelId": m["modelId"]} for m in chain]
            assert settings[key] == want, f"{key}: {doc[key]!r} loaded as {settings[key]!r}"


@pytest.mark.planmode(
    operation=LOAD, level="must", id="planmode.settings.property.one-invalid-field", explains=("status",)
)
@given(case=s.documents_with_one_invalid_field())
def test_one_invalid_field_invalidates_everything(
    planmode_target: TargetClient, case: tuple[dict[str, Any], str]
) -> None:
    doc, field = case
    out = planmode_target.call(LOAD, {"files": {s.CANONICAL: s.document_entry(doc)}})
    assert out["status"] == "invalid", f"invalid {field} accepted in {doc}"
    _check_outcome(out, f"invalid {field}")


@pytest.mark.planmode(operation=LOAD, level="reference", id="planmode.settings.property.warnings-never-echo")
@given(case=s.documents_with_one_invalid_field())
def test_warnings_never_echo_file_content(
    planmode_target: TargetClient, case: tuple[dict[str, Any], str]
) -> None:
    doc, _field = case
    out = planmode_target.call(LOAD, {"files": {s.CANONICAL: s.document_entry(doc)}})
    for warning in out["warnings"]:
        assert s.MARKER not in warning, f"warning echoes file content: {warning!r}"


@pytest.mark.planmode(
    operation=LOAD, level="must", id="planmode.settings.property.special-files-alone", explains=("status",)
)
@given(entry=st.sampled_from([{"kind": "directory"}, {"kind": "fifo"}, {"kind": "unreadable"}]))
def test_non_regular_or_unreadable_file_is_read_only(
    planmode_target: TargetClient, entry: dict[str, Any]
) -> None:
    """§ Thinking level: non-regular files and read failures make Settings
    read-only, with a warning and the fallback."""
    out = planmode_target.call(LOAD, {"files": {s.CANONICAL: entry}})
    assert out["status"] == "invalid", out
    _check_outcome(out, f"canonical {entry}")


# Reference level: symbolic links count as non-regular files (reference-choices.md) and an unusable
# canonical entry taking precedence over a legacy file is the area's reading of "the canonical
# filename takes precedence".
@pytest.mark.planmode(
    operation=LOAD, level="reference", id="planmode.settings.property.special-files", explains=("status",)
)
@given(entry=s.other_entries, legacy=st.none() | s.valid_documents())
def test_unusable_canonical_entry_wins_and_is_read_only(
    planmode_target: TargetClient, entry: dict[str, Any], legacy: dict[str, Any] | None
) -> None:
    files = {s.CANONICAL: entry}
    if legacy is not None:
        files[s.LEGACY] = s.document_entry(legacy)
    out = planmode_target.call(LOAD, {"files": files})
    assert out["status"] == "invalid" and out["source"] == s.CANONICAL, out
    _check_outcome(out, f"canonical {entry}")


def _effective(field: str, value: Any) -> Any:
    """The effective setting a valid saved value stands for (a model object is
    a one-item chain; tool names lose duplicates)."""
    if field in ("planModel", "normalModel"):
        chain = value if isinstance(value, list) else [value]
        return [{"provider": m["provider"], "modelId": m["modelId"]} for m in chain]
    if field == "defaultPlanTools":
        return list(dict.fromkeys(value))
    return value


@pytest.mark.planmode(
    operation=SAVE, level="must", id="planmode.settings.property.save-keeps-the-rest", explains=("status",)
)
@given(doc=s.valid_documents(), edit=s.edits)
def test_save_keeps_unknown_fields_and_other_settings(
    planmode_target: TargetClient, doc: dict[str, Any], edit: dict[str, Any]
) -> None:
    """§ Thinking level: a save preserves unknown top-level fields and unedited
    safeSubcommands as written, and changes no other setting."""
    before = planmode_target.call(LOAD, {"files": {s.CANONICAL: s.document_entry(doc)}})
    out = planmode_target.call(SAVE, {"files": {s.CANONICAL: s.document_entry(doc)}, "edits": [edit]})
    after = out["files"][s.CANONICAL]["document"]
    field = edit["field"]
    assert isinstance(after, dict), f"the saved file is not a JSON object: {out['files']}"
    for key, value in doc.items():
        if key not in s.KNOWN_FIELDS or (key == "safeSubcommands" and field != key):
            assert key in after and after[key] == value, f"{key} was not preserved: {after}"
    for key, value in before["settings"].items():
        if key != field:
            assert out["settings"][key] == value, f"{key} changed by a save of {field}"
    if out["results"][0]["ok"]:
        assert out["status"] == "valid"
        if not edit.get("reset"):
            want = _effective(field, edit["value"])
            got = out["settings"][field]
            assert got == want, f"{field}: saved {edit['value']!r}, in effect {got!r}"
    else:
        assert out["settings"] == before["settings"], "a refused save changed the settings"


# Reference level: every unedited key, known ones included, keeps its raw JSON form, and the saved
# value is written as given (a model object stays an object).
@pytest.mark.planmode(
    operation=SAVE, level="reference", id="planmode.settings.property.save-preserves", explains=("status",)
)
@given(doc=s.valid_documents(), edit=s.edits)
def test_save_changes_only_the_edited_field(
    planmode_target: TargetClient, doc: dict[str, Any], edit: dict[str, Any]
) -> None:
    out = planmode_target.call(SAVE, {"files": {s.CANONICAL: s.document_entry(doc)}, "edits": [edit]})
    after = out["files"][s.CANONICAL]["document"]
    field = edit["field"]
    assert isinstance(after, dict), f"the saved file is not a JSON object: {out['files']}"
    for key, value in doc.items():
        if key != field:
            assert key in after and after[key] == value, f"{key} was not preserved: {after}"
    if out["results"][0]["ok"]:
        if edit.get("reset") or (field == "defaultPlanExportPath" and edit.get("value") == ""):
            assert field not in after, f"reset {field} still present: {after}"
        else:
            assert after.get(field) == edit["value"], f"{field} not saved: {after}"
        assert out["status"] == "valid"
    else:
        assert after == doc, f"a refused save changed the file: {doc} -> {after}"


def _failed_save(target: TargetClient, doc: dict[str, Any], step: str, mode: str) -> dict[str, Any]:
    """A save of `doc` failing at `step`: the file and the settings stay as they were."""
    entry = s.document_entry(doc)
    before = target.call(LOAD, {"files": {s.CANONICAL: entry}})
    value = "off" if doc.get("thinkingLevel") != "off" else "max"
    out = target.call(
        SAVE,
        {
            "files": {s.CANONICAL: entry},
            "edits": [{"field": "thinkingLevel", "value": value}],
            "inject": {"edit": 0, "step": step, "mode": mode},
        },
    )
    assert out["results"][0]["ok"] is False, f"the save failing at {step} reported success"
    assert out["files"][s.CANONICAL]["text"] == entry["text"], f"{step}/{mode} changed the file"
    assert out["settings"] == before["settings"], f"{step}/{mode} changed the effective settings"
    return out


@pytest.mark.planmode(operation=SAVE, level="must", id="planmode.settings.property.failure-keeps-file")
@given(
    doc=s.valid_documents(),
    step=st.sampled_from(["read", "create-temp", "write", "rename"]),
    mode=st.sampled_from(["error", "crash"]),
)
def test_failed_save_keeps_file_and_settings(
    planmode_target: TargetClient, doc: dict[str, Any], step: str, mode: str
) -> None:
    """§ Thinking level: a save publishes through a temporary file and a
    rename, so a failure before the rename changes neither the file nor the
    settings."""
    _failed_save(planmode_target, doc, step, mode)


# Reference level: includes the sync step (not named by the spec) and checks that no temporary file is
# left after an I/O error (reference-choices.md: it is always removed).
@pytest.mark.planmode(operation=SAVE, level="reference", id="planmode.settings.property.failure-intact")
@given(doc=s.valid_documents(), step=s.save_steps, mode=st.sampled_from(["error", "crash"]))
def test_failed_save_leaves_old_file_and_settings(
    planmode_target: TargetClient, doc: dict[str, Any], step: str, mode: str
) -> None:
    out = _failed_save(planmode_target, doc, step, mode)
    if mode == "error":
        assert out["leftoverFiles"] == 0, f"{step}: a temporary file was left behind"


@pytest.mark.planmode(operation=SAVE, level="must", id="planmode.settings.property.saves-in-order-effective")
@given(edits=st.lists(s.edits, min_size=1, max_size=6))
def test_every_accepted_save_is_in_effect(planmode_target: TargetClient, edits: list[dict[str, Any]]) -> None:
    """§ Thinking level: saves are serialized in invocation order and each
    re-reads the latest document, so every accepted save stays in effect."""
    out = planmode_target.call(SAVE, {"files": {}, "edits": edits})
    expected = dict(FALLBACK)
    for edit, result in zip(edits, out["results"], strict=True):
        if not result["ok"]:
            continue
        field = edit["field"]
        if edit.get("reset"):
            expected[field] = FALLBACK[field]
        else:
            expected[field] = _effective(field, edit["value"])
    assert out["settings"] == expected, f"saves {edits} gave {out['settings']}, expected {expected}"


# Reference level: compares the raw saved document (a model object stays an object, names keep
# their duplicates) and reads an empty export path as a removal.
@pytest.mark.planmode(
    operation=SAVE, level="reference", id="planmode.settings.property.saves-in-order", explains=("status",)
)
@given(edits=st.lists(s.edits, min_size=1, max_size=6))
def test_every_accepted_save_is_kept(planmode_target: TargetClient, edits: list[dict[str, Any]]) -> None:
    out = planmode_target.call(SAVE, {"files": {}, "edits": edits})
    expected: dict[str, Any] = {}
    for edit, result in zip(edits, out["results"], strict=True):
        if not result["ok"]:
            continue
        field = edit["field"]
        if edit.get("reset") or (field == "defaultPlanExportPath" and edit.get("value") == ""):
            expected.pop(field, None)
        else:
            expected[field] = edit["value"]
    if not expected and out["status"] == "missing":
        return
    document = out["files"][s.CANONICAL]["document"]
    assert document == expected, f"saves {edits} gave {document}, expected {expected}"


@pytest.mark.planmode(operation=SAVE, level="must", id="planmode.settings.property.legacy-untouched")
@given(legacy=s.valid_documents(), edits=st.lists(s.edits, min_size=1, max_size=4))
def test_legacy_file_is_never_modified(
    planmode_target: TargetClient, legacy: dict[str, Any], edits: list[dict[str, Any]]
) -> None:
    entry = s.document_entry(legacy)
    out = planmode_target.call(SAVE, {"files": {s.LEGACY: entry}, "edits": edits})
    assert out["files"][s.LEGACY]["text"] == entry["text"], "the legacy file was modified"
    results = zip(edits, out["results"], strict=True)
    if not any(result["ok"] and "reset" not in edit for edit, result in results):
        return
    canonical = out["files"][s.CANONICAL]["document"]
    edited = {edit["field"] for edit in edits}
    for key, value in legacy.items():
        if key not in edited:
            assert canonical.get(key) == value, f"{key} lost in migration: {canonical}"
