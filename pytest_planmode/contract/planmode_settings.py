"""pi-plan-mode settings: the `pi-plan-mode.json` document, how it loads from
the agent directory, and how Settings saves change it.

The agent directory is described as a map from file name to an entry: a
regular file with its content, or a directory, FIFO, symbolic link or an
entry that cannot be read. Only `pi-plan-mode.json` and the legacy
`plan-mode.json` are settings; any other name (for example a temporary file
left by a crashed save) is carried along and never read.
"""

from __future__ import annotations

import base64
import binascii
from itertools import permutations
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StringConstraints, model_validator

from pytest_planmode.contract import Operation
from pytest_planmode.contract.base import ContractInput, ContractOutput, effect, explanation
from pytest_planmode.spec_values import (
    EXPORT_PATH_MAX,
    KEY_CHARACTERS,
    KEY_MODIFIERS,
    KEY_NAMES,
    MODEL_FIELD_MAX,
)

# ------------------------------------------------------------------ document
#
# The whole `pi-plan-mode.json` document, published as
# `settings/pi-plan-mode.schema.json`. It mirrors the reference's validation:
# every known field optional, unknown fields (and the retired
# `toolVisibility`) allowed.

_NonBlank = Annotated[str, StringConstraints(strict=True, pattern=r"\S")]
_ModelText = Annotated[str, StringConstraints(strict=True, pattern=r"\S", max_length=MODEL_FIELD_MAX)]


def _any_case(word: str) -> str:
    return "".join(f"[{c.upper()}{c}]" if c.isalpha() else c for c in word)


def _key_identifier_pattern() -> str:
    """§ Toggle shortcut, "a Pi key identifier", as the reference reads it
    (`spec_values.KEY_*`): distinct modifiers in any order and one key joined
    by `+`, case-insensitive. Written without inline flags or lookarounds so
    that ECMAScript and Rust regular expressions read it alike."""
    prefixes = [
        "".join(_any_case(m) + r"\+" for m in order)
        for size in range(1, len(KEY_MODIFIERS) + 1)
        for order in permutations(KEY_MODIFIERS, size)
    ]
    # Longer names first, so that `f1` never shadows `f12` in engines that stop at the first alternative.
    named = [_any_case(k) for k in sorted(KEY_NAMES, key=len, reverse=True)]
    characters = "".join(
        "\\" + c if c in "\\[]-^" else c for c in sorted(set(KEY_CHARACTERS.upper() + KEY_CHARACTERS))
    )
    return "^(?:" + "|".join(prefixes) + ")?(?:" + "|".join([*named, f"[{characters}]"]) + ")$"


_KeyIdentifier = Annotated[str, StringConstraints(strict=True, pattern=_key_identifier_pattern())]
_ExportPath = Annotated[
    str,
    StringConstraints(
        strict=True, min_length=1, max_length=EXPORT_PATH_MAX, pattern=r"^[^\x00-\x1f\x7f-\x9f]*$"
    ),
]


class DocumentModelRef(BaseModel):
    """§ Auto model switch: non-empty `provider` and `modelId` strings of at
    most 512 characters each."""

    model_config = ConfigDict(extra="allow", strict=True, title="Model")

    provider: _ModelText
    modelId: _ModelText


_Chain = DocumentModelRef | Annotated[list[DocumentModelRef], Field(min_length=1)]


def _drop_defaults(schema: dict[str, Any]) -> None:
    # Omitted fields have no default in the document; the `None` defaults
    # below only make them optional.
    for prop in schema.get("properties", {}).values():
        prop.pop("default", None)
    subs = schema.get("properties", {}).get("safeSubcommands")
    if subs is not None:
        # Every key must be non-blank, not only the ones matching a pattern.
        subs["propertyNames"] = {"pattern": r"\S"}
        subs["additionalProperties"] = False


class PiPlanModeDocument(BaseModel):
    """`pi-plan-mode.json` (or the legacy `plan-mode.json`): pi-plan-mode-settings.md § Settings."""

    model_config = ConfigDict(
        extra="allow", strict=True, title="pi-plan-mode.json", json_schema_extra=_drop_defaults
    )

    thinkingLevel: Literal["inherit", "off", "minimal", "low", "medium", "high", "xhigh", "max"] = None  # type: ignore[assignment]
    defaultPlanTools: list[_NonBlank] = None  # type: ignore[assignment]
    implementationPlanRetention: Literal["clear-on-start", "clear-after-first-run", "keep"] = None  # type: ignore[assignment]
    autoSwitchModel: StrictBool = None  # type: ignore[assignment]
    planModel: _Chain = None  # type: ignore[assignment]
    normalModel: _Chain = None  # type: ignore[assignment]
    defaultPlanExportPath: _ExportPath = None  # type: ignore[assignment]
    safeSubcommands: dict[_NonBlank, list[_NonBlank]] = None  # type: ignore[assignment]
    toggleShortcut: _KeyIdentifier = None  # type: ignore[assignment]
    toolVisibility: Any = Field(
        default=None, description="Retired (§ Plan helper tools): ignored, preserved on save."
    )


# ------------------------------------------------------------------ directory


class Fill(ContractInput):
    """Repeat `unit` `count` times in place of a placeholder: keeps long
    values (512-character model ids, 4,096-character paths) readable in
    fixtures."""

    unit: str = Field(min_length=1)
    count: int = Field(ge=0, le=200_000)


def _fill_text(text: str, fill: dict[str, Fill]) -> str:
    for placeholder, spec in fill.items():
        text = text.replace(placeholder, spec.unit * spec.count)
    return text


def fill_value(value: Any, fill: dict[str, Fill]) -> Any:
    """Apply placeholders to every string (and object key) of a JSON value."""
    if not fill:
        return value
    if isinstance(value, str):
        return _fill_text(value, fill)
    if isinstance(value, list):
        return [fill_value(item, fill) for item in value]
    if isinstance(value, dict):
        return {_fill_text(k, fill): fill_value(v, fill) for k, v in value.items()}
    return value


EntryKind = Literal["file", "directory", "fifo", "symlink", "unreadable"]


class FileEntry(ContractInput):
    """One entry of the agent directory.

    `file`: a regular file; its bytes are `text` encoded as UTF-8 or
    `base64` decoded (for BOMs and invalid UTF-8). `fill` expands
    placeholders in `text`; `padToBytes` then appends spaces (valid JSON
    whitespace) until the file has exactly that many bytes.
    `symlink`: a symbolic link; `to` says what it points at (it is never
    followed). `unreadable`: opening or reading it fails.
    """

    kind: EntryKind
    text: str | None = None
    base64: str | None = None
    fill: dict[str, Fill] = Field(default_factory=dict)
    pad_to_bytes: int | None = Field(default=None, ge=0, le=1_000_000)
    to: Literal["file", "directory", "fifo", "missing"] | None = None

    @model_validator(mode="after")
    def _shape(self) -> FileEntry:
        if self.kind == "file":
            if (self.text is None) == (self.base64 is None):
                raise ValueError("a file entry needs exactly one of `text` or `base64`")
            if self.base64 is not None:
                try:
                    base64.b64decode(self.base64, validate=True)
                except binascii.Error as exc:
                    raise ValueError(f"`base64` is not valid base64: {exc}") from None
                if self.fill:
                    raise ValueError("`fill` applies to `text` only")
            data = self.content()
            if self.pad_to_bytes is not None and len(data) > self.pad_to_bytes:
                raise ValueError(
                    f"the content is already {len(data)} bytes, more than padToBytes={self.pad_to_bytes}"
                )
        elif self.text is not None or self.base64 is not None or self.fill or self.pad_to_bytes:
            raise ValueError(f"a {self.kind} entry has no content fields")
        if self.to is not None and self.kind != "symlink":
            raise ValueError("`to` is for symlink entries only")
        return self

    def content(self) -> bytes:
        """The file's bytes (`file` entries)."""
        if self.base64 is not None:
            data = base64.b64decode(self.base64, validate=True)
        else:
            # A lone surrogate cannot be UTF-8: it becomes invalid bytes, as
            # a file holding them would be.
            data = _fill_text(self.text or "", self.fill).encode("utf-8", "surrogatepass")
        if self.pad_to_bytes is not None and len(data) < self.pad_to_bytes:
            data += b" " * (self.pad_to_bytes - len(data))
        return data


Files = dict[str, FileEntry]


class ModelRefOut(ContractOutput):
    provider: str = effect()
    model_id: str = effect()


class EffectiveSettingsOut(ContractOutput):
    """Every setting resolved: the file's values over the defaults, or the
    documented fallback."""

    thinking_level: str = effect(description="`inherit` unless configured.")
    default_plan_tools: Literal["automatic"] | list[str] = effect(
        description="`automatic`: already-active safe built-ins; []: no optional tools."
    )
    implementation_plan_retention: str = effect()
    auto_switch_model: bool = effect()
    plan_model: list[ModelRefOut] = effect(
        description="The chain; a single object becomes one item; [] when not configured."
    )
    normal_model: list[ModelRefOut] = effect(description="As `planModel`.")
    default_plan_export_path: str = effect()
    safe_subcommands: dict[str, list[str]] = effect(
        description="Keys and entries trimmed, merged and de-duplicated; empty arrays dropped."
    )
    toggle_shortcut: str = effect(description='"": the shortcut is disabled.')


Status = Literal["missing", "valid", "legacy", "invalid"]
Reason = Literal["invalid-json", "invalid-value", "too-large", "not-regular", "read-failed"]


class _Loaded(ContractOutput):
    status: Status = explanation(
        description=(
            "`missing`: no settings file (defaults); `valid`: pi-plan-mode.json is used; "
            "`legacy`: only a valid plan-mode.json exists and is used; `invalid`: the file "
            "that takes precedence cannot be used."
        )
    )
    source: Literal["pi-plan-mode.json", "plan-mode.json"] | None = explanation(
        description="The file that decided the outcome (null when missing)."
    )
    read_only: bool = explanation(description="Settings cannot be saved while true.")
    settings: EffectiveSettingsOut = effect(description="The settings in effect.")
    warnings: list[str] = effect(description="Warnings shown, as text; never echo file content.")
    reason: Reason | None = explanation(description="Why the file is unusable (status `invalid`).")
    invalid_field: str | None = explanation(
        description="The top-level field that invalidated the document, if any."
    )


class SettingsLoadInput(ContractInput):
    files: Files = Field(default_factory=dict, description="The agent directory's entries, by file name.")
    previous_files: Files | None = Field(
        default=None,
        description=(
            "For a watched reload: the directory as it was at the previous load in the same "
            "process. Omitted: a session start."
        ),
    )


class SettingsLoadOutput(_Loaded):
    pass


class SaveEdit(ContractInput):
    """One Settings save of one field: `value`, or `reset = true` to remove
    the field (back to its default)."""

    field: str
    value: Any = None
    reset: bool = False
    fill: dict[str, Fill] = Field(default_factory=dict, description="Placeholders in `value`.")

    @model_validator(mode="after")
    def _one(self) -> SaveEdit:
        if ("value" in self.model_fields_set) == self.reset:
            raise ValueError("an edit has either a `value` or `reset = true`")
        return self


class ManualEdit(ContractInput):
    """The file changes outside Settings (a manual edit, another process)
    between saves; the watcher reloads."""

    manual: Files = Field(default_factory=dict, description="Entries written or replaced.")
    remove: list[str] = Field(default_factory=list, description="Entries deleted.")


Step = Literal["read", "create-temp", "write", "fsync", "rename"]


class Inject(ContractInput):
    """Make the save at `edits[edit]` fail at `step`. `error`: an I/O error
    the save handles. `crash`: the process dies there (nothing after runs,
    no clean-up); the outcome is then what the next session loads."""

    edit: int = Field(ge=0)
    step: Step
    mode: Literal["error", "crash"] = "error"


class SettingsSaveInput(ContractInput):
    files: Files = Field(default_factory=dict, description="The agent directory before.")
    edits: list[SaveEdit | ManualEdit] = Field(
        min_length=1, description="In invocation order; saves are serialized in this order."
    )
    inject: Inject | None = None

    @model_validator(mode="after")
    def _target(self) -> SettingsSaveInput:
        if self.inject is not None:
            if self.inject.edit >= len(self.edits):
                raise ValueError(f"inject.edit={self.inject.edit} is past the last edit")
            if not isinstance(self.edits[self.inject.edit], SaveEdit):
                raise ValueError(f"inject.edit={self.inject.edit} is not a save")
        return self


class EditResult(ContractOutput):
    ok: bool = effect(description="The save happened.")
    reason: (
        Literal[
            "read-only",
            "not-editable",
            "invalid-value",
            "too-large",
            "read-failed",
            "write-failed",
            "crashed",
            "not-run",
        ]
        | None
    ) = explanation(description="Why the save did not happen.")
    message: str | None = effect(description="The error shown when it did not (null: none).")


class FileEntryOut(ContractOutput):
    kind: EntryKind = effect()
    text: str | None = effect(description="The content when it is valid UTF-8 (else null).")
    base64: str | None = effect(description="The content otherwise (else null).")
    to: str | None = effect(description="What a symlink points at (else null).")
    document: Any = effect(description="The content parsed as JSON, when it is JSON (else null).")
    keys: list[str] | None = effect(
        description="The top-level keys in file order, when it is a JSON object (else null)."
    )


class SettingsSaveOutput(_Loaded):
    """The directory after the saves and the settings then in effect (after
    the watcher's reload; after a crash, what the next session loads)."""

    files: dict[str, FileEntryOut] = effect()
    results: list[EditResult] = effect(description="One per edit, in order.")
    leftover_files: int = effect(
        description="Entries the saves left besides the settings files (0 unless a crash)."
    )


LOAD = Operation(
    name="planmode.settings.load",
    input=SettingsLoadInput,
    output=SettingsLoadOutput,
    summary=(
        "Load pi-plan-mode.json (or the legacy plan-mode.json) from the agent directory: "
        "status, effective settings, warnings, read-only."
    ),
)

SAVE = Operation(
    name="planmode.settings.save",
    input=SettingsSaveInput,
    output=SettingsSaveOutput,
    summary=(
        "Run Settings saves (and manual edits) in order over an agent directory, optionally "
        "failing one step: files after, per-edit results, effective settings."
    ),
    kind="script",
)

OPERATIONS = [LOAD, SAVE]

SCHEMAS = {"settings/pi-plan-mode.schema.json": PiPlanModeDocument}
