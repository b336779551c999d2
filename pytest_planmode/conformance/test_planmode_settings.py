"""Properties of pi-plan-mode settings (pi-plan-mode-settings.md § Settings,
§ Thinking level; reference-choices.md § pi-plan-mode: settings file) that
hold for any target."""

from __future__ import annotations

import base64
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


def _bytes(entry: dict[str, Any]) -> tuple[Any, Any, bytes | None]:
    """An entry's kind, link target and, for a regular file, its bytes
    (input or output shape)."""
    if entry.get("kind") != "file":
        return entry.get("kind"), entry.get("to"), None
    if entry.get("text") is not None:
        return "file", None, str(entry["text"]).encode("utf-8")
    return "file", None, base64.b64decode(entry["base64"])


def _check_load(target: TargetClient, files: dict[str, Any], what: str) -> bool:
    """Load `files` and try one Settings save over them; True when the file
    is usable.

    § Thinking level, as an implementation shows it: a usable file loads
    without a warning and Settings can save over it; an unusable one shows a
    warning, the fallback is in effect, and Settings is read-only: a save
    is refused and the existing bytes and settings remain."""
    out = target.call(LOAD, {"files": files})
    settings = out["settings"]
    assert set(settings) >= SETTINGS_KEYS, f"{what}: settings lack fields: {settings}"
    usable = not out["warnings"]
    if not usable:
        assert settings == FALLBACK, f"{what}: an unusable file, but not the documented fallback: {settings}"
    value = "off" if settings["thinkingLevel"] != "off" else "max"
    probe = target.call(SAVE, {"files": files, "edits": [{"field": "thinkingLevel", "value": value}]})
    saved = probe["results"][0]["ok"]
    if usable:
        assert saved, f"{what}: loaded without a warning, yet a Settings save was refused: {probe['results']}"
        got = probe["settings"]["thinkingLevel"]
        assert got == value, f"{what}: saved thinkingLevel {value!r}, in effect {got!r}"
        assert not probe["warnings"], f"{what}: the saved file warns: {probe['warnings']}"
    else:
        assert not saved, f"{what}: an unusable file must make Settings read-only, but a save was accepted"
        for name, entry in files.items():
            after = probe["files"].get(name, {})
            assert _bytes(after) == _bytes(entry), f"{what}: a refused save changed {name}: {after}"
        assert probe["settings"] == FALLBACK, (
            f"{what}: a refused save changed the settings: {probe['settings']}"
        )
        assert probe["warnings"], f"{what}: the unusable file no longer warns after a save"
    return usable


@pytest.mark.planmode(
    operations=[LOAD, SAVE], level="must", id="planmode.settings.property.any-bytes-usable-or-read-only"
)
@given(data=s.arbitrary_bytes)
def test_any_bytes_load_to_settings_or_read_only_fallback(planmode_target: TargetClient, data: bytes) -> None:
    """Any file bytes load either as usable settings, with no warning and
    Settings writable, or as the fallback with a warning and Settings
    read-only."""
    _check_load(planmode_target, {s.CANONICAL: s.bytes_entry(data)}, f"file bytes {data[:60]!r}")


@pytest.mark.planmode(
    operations=[LOAD, SAVE], level="must", id="planmode.settings.property.any-json-usable-or-read-only"
)
@given(value=s.json_values)
def test_any_json_value_loads_to_settings_or_read_only_fallback(
    planmode_target: TargetClient, value: Any
) -> None:
    """Any JSON document loads as usable settings or as the read-only
    fallback with a warning; a document that is not an object is never
    usable."""
    what = f"document {json.dumps(value)[:80]}"
    usable = _check_load(planmode_target, {s.CANONICAL: s.document_entry(value)}, what)
    if not isinstance(value, dict):
        assert not usable, f"a non-object document was accepted: {value!r}"


@pytest.mark.planmode(operation=LOAD, level="must", id="planmode.settings.property.valid-document")
@given(doc=s.valid_documents())
def test_valid_documents_load_their_values(planmode_target: TargetClient, doc: dict[str, Any]) -> None:
    """A valid document loads without a warning and every setting it
    configures is in effect; every other one keeps its default."""
    out = planmode_target.call(LOAD, {"files": {s.CANONICAL: s.document_entry(doc)}})
    assert not out["warnings"], f"valid document rejected: {doc} -> {out['warnings']}"
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
    operations=[LOAD, SAVE], level="must", id="planmode.settings.property.one-invalid-field-read-only"
)
@given(case=s.documents_with_one_invalid_field())
def test_one_invalid_field_invalidates_everything(
    planmode_target: TargetClient, case: tuple[dict[str, Any], str]
) -> None:
    """One invalid field makes the whole document unusable: a warning, the
    fallback for every setting, and Settings read-only."""
    doc, field = case
    usable = _check_load(planmode_target, {s.CANONICAL: s.document_entry(doc)}, f"invalid {field}")
    assert not usable, f"invalid {field} accepted in {doc}"


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
    operations=[LOAD, SAVE], level="must", id="planmode.settings.property.special-files-alone-read-only"
)
@given(entry=st.sampled_from([{"kind": "directory"}, {"kind": "fifo"}, {"kind": "unreadable"}]))
def test_non_regular_or_unreadable_file_is_read_only(
    planmode_target: TargetClient, entry: dict[str, Any]
) -> None:
    """§ Thinking level: non-regular files and read failures make Settings
    read-only, with a warning and the fallback."""
    usable = _check_load(planmode_target, {s.CANONICAL: entry}, f"canonical {entry}")
    assert not usable, f"canonical {entry} loaded without a warning"


# Reference level: symbolic links count as non-regular files (reference-choices.md) and an unusable
# canonical entry taking precedence over a legacy file is the area's reading of "the canonical
# filename takes precedence".
@pytest.mark.planmode(
    operations=[LOAD, SAVE], level="reference", id="planmode.settings.property.special-files-win-read-only"
)
@given(entry=s.other_entries, legacy=st.none() | s.valid_documents())
def test_unusable_canonical_entry_wins_and_is_read_only(
    planmode_target: TargetClient, entry: dict[str, Any], legacy: dict[str, Any] | None
) -> None:
    """An unusable canonical entry wins over a valid legacy file: the
    fallback is in effect (not the legacy settings), with a warning, and
    Settings is read-only (no save migrates the legacy file)."""
    files = {s.CANONICAL: entry}
    if legacy is not None:
        files[s.LEGACY] = s.document_entry(legacy)
    usable = _check_load(planmode_target, files, f"canonical {entry} beside legacy {legacy}")
    assert not usable, f"canonical {entry}: loaded as usable settings"


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
    operations=[SAVE, LOAD], level="must", id="planmode.settings.property.save-keeps-the-rest"
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
        assert not out["warnings"], f"the saved file does not load cleanly: {out['warnings']}"
        if not edit.get("reset"):
            want = _effective(field, edit["value"])
            got = out["settings"][field]
            assert got == want, f"{field}: saved {edit['value']!r}, in effect {got!r}"
    else:
        assert out["settings"] == before["settings"], "a refused save changed the settings"


# Reference level: every unedited key, known ones included, keeps its raw JSON form, and the saved
# value is written as given (a model object stays an object).
@pytest.mark.planmode(operation=SAVE, level="reference", id="planmode.settings.property.save-preserves")
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
        assert not out["warnings"], f"the saved file does not load cleanly: {out['warnings']}"
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
@pytest.mark.planmode(operation=SAVE, level="reference", id="planmode.settings.property.saves-in-order")
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
    if not expected and s.CANONICAL not in out["files"]:
        # Only refused saves and resets: the file stays absent (§ Thinking level).
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
