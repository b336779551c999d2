"""The `pi-plan-mode.json` document: parsing, validation, effective settings,
the load decision (canonical, legacy, fallback) and the edit a save applies.

Everything here is pure: file states come in as values, bytes go out as
values. Directory access lives in `settings_store` (the serialized save
queue over an abstract directory) and `settings_fs` (the real one).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from functools import partial
from typing import Any, Literal

from pytest_planmode.reference.planmode.settings_values import (
    DEFAULT_EXPORT_PATH,
    RETENTION_POLICIES,
    THINKING_LEVELS,
    InvalidSetting,
    ModelRef,
    boolean,
    export_path,
    model_chain,
    retention_policy,
    safe_subcommands,
    thinking_level,
    toggle_shortcut,
    tool_names,
)

CANONICAL_NAME = "pi-plan-mode.json"
LEGACY_NAME = "plan-mode.json"
MAX_BYTES = 65536
# Deeper nesting is rejected as invalid JSON so that the outcome never depends
# on the interpreter's recursion limit (reference choice; JSON.parse has no
# such limit, but no valid settings document nests this deep).
MAX_DEPTH = 256
TEMP_PREFIX = "." + CANONICAL_NAME + "."
TEMP_SUFFIX = ".tmp"

Reason = Literal["invalid-json", "invalid-value", "too-large", "not-regular", "read-failed"]
Status = Literal["missing", "valid", "legacy", "invalid"]

FALLBACK_SUMMARY = (
    "inherited Plan thinking, automatic safe built-in tools, clear-on-start, "
    "no implementation-model switch, PLAN.md"
)


# ---------------------------------------------------------------- effective


@dataclass(frozen=True)
class EffectiveSettings:
    """All fields resolved. The defaults are the documented fallback
    (§ Thinking level: "Invalid settings produce a warning and fall back to
    inherited Plan thinking, available safe-built-in tool defaults,
    `clear-on-start`, no implementation-model switch, and `PLAN.md`")."""

    thinking_level: str = "inherit"
    #: None means automatic safe built-ins; () means "No optional tools".
    default_plan_tools: tuple[str, ...] | None = None
    implementation_plan_retention: str = "clear-on-start"
    auto_switch_model: bool = False
    plan_model: tuple[ModelRef, ...] | None = None
    normal_model: tuple[ModelRef, ...] | None = None
    #: None: not configured, exports use `PLAN.md` (§ Export destination).
    default_plan_export_path: str | None = None
    safe_subcommands: tuple[tuple[str, tuple[str, ...]], ...] = ()
    toggle_shortcut: str | None = None

    def as_json(self) -> dict[str, Any]:
        """The camelCase JSON form used on the wire. It has no nulls (fixtures
        are TOML): automatic tools are `"automatic"`, an omitted model chain
        is `[]` (a configured chain is never empty), a disabled shortcut `""`
        (a configured one is never blank)."""

        def chain(models: tuple[ModelRef, ...] | None) -> list[dict[str, str]]:
            return [] if models is None else [m.as_json() for m in models]

        return {
            "thinkingLevel": self.thinking_level,
            "defaultPlanTools": "automatic"
            if self.default_plan_tools is None
            else list(self.default_plan_tools),
            "implementationPlanRetention": self.implementation_plan_retention,
            "autoSwitchModel": self.auto_switch_model,
            "planModel": chain(self.plan_model),
            "normalModel": chain(self.normal_model),
            "defaultPlanExportPath": self.default_plan_export_path or DEFAULT_EXPORT_PATH,
            "safeSubcommands": {key: list(values) for key, values in self.safe_subcommands},
            "toggleShortcut": self.toggle_shortcut or "",
        }


FALLBACK = EffectiveSettings()


@dataclass(frozen=True)
class FieldRule:
    """One known top-level field: how it validates, where it lands in the
    effective settings, whether Settings can edit it, and the rule a warning
    states (never the offending value: a warning does not echo content)."""

    key: str
    attr: str
    validate: Callable[[Any], Any]
    editable: bool
    rule: str


def _subcommands(value: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple(safe_subcommands(value).items())


FIELDS: tuple[FieldRule, ...] = (
    FieldRule(
        "thinkingLevel",
        "thinking_level",
        thinking_level,
        True,
        "must be one of " + ", ".join(THINKING_LEVELS),
    ),
    FieldRule(
        "defaultPlanTools",
        "default_plan_tools",
        tool_names,
        True,
        "must be an array of non-empty tool-name strings",
    ),
    FieldRule(
        "implementationPlanRetention",
        "implementation_plan_retention",
        retention_policy,
        True,
        "must be one of " + ", ".join(RETENTION_POLICIES),
    ),
    FieldRule(
        "autoSwitchModel",
        "auto_switch_model",
        partial(boolean, "autoSwitchModel"),
        True,
        "must be true or false",
    ),
    FieldRule(
        "planModel",
        "plan_model",
        partial(model_chain, "planModel"),
        True,
        "must be a model object or a non-empty array of them, with non-empty provider "
        "and modelId strings of at most 512 characters",
    ),
    FieldRule(
        "normalModel",
        "normal_model",
        partial(model_chain, "normalModel"),
        True,
        "must be a model object or a non-empty array of them, with non-empty provider "
        "and modelId strings of at most 512 characters",
    ),
    FieldRule(
        "defaultPlanExportPath",
        "default_plan_export_path",
        export_path,
        True,
        "must be a non-empty string of at most 4,096 characters without control characters or NUL",
    ),
    # § Settings: "`safeSubcommands` is JSON-only."
    FieldRule(
        "safeSubcommands",
        "safe_subcommands",
        _subcommands,
        False,
        "must be an object mapping non-empty command strings to arrays of non-empty strings",
    ),
    FieldRule(
        "toggleShortcut",
        "toggle_shortcut",
        toggle_shortcut,
        True,
        "must be a non-empty Pi key identifier string",
    ),
)
RULES: Mapping[str, FieldRule] = {rule.key: rule for rule in FIELDS}
#: § Plan helper tools: ignored, and preserved as unknown data.
RETIRED = frozenset({"toolVisibility"})

# Sub-paths such as `planModel[1].modelId` name a place, not content; any
# other path (a safeSubcommands key is file content) is cut to its field.
_SAFE_PATH = re.compile(r"^[A-Za-z]+(\[\d+\])?(\.(provider|modelId))?$")


class DocumentInvalid(ValueError):
    """The document is not a valid settings document; the message never
    contains file content. `detail` is the failed rule as the field's
    validator words it (`planModel[1].modelId: must be a non-empty string`)."""

    def __init__(self, field: str | None, message: str, detail: str | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.detail = detail if detail is not None else message


def effective_settings(document: Any) -> EffectiveSettings:
    """§ Settings and every § section's validation sentences: a JSON object
    whose known fields are all valid gives effective settings; a single
    invalid field invalidates the whole document (§ Thinking level). Unknown
    and retired fields are ignored here and preserved by saves."""
    if not isinstance(document, dict):
        raise DocumentInvalid(None, "the top level must be a JSON object")
    values: dict[str, Any] = {}
    for key, raw in document.items():
        rule = RULES.get(key)
        if rule is None:
            continue
        try:
            values[rule.attr] = rule.validate(raw)
        except InvalidSetting as exc:
            where = exc.field if _SAFE_PATH.match(exc.field) else key
            at = f" (the problem is at {where})" if where != key else ""
            raise DocumentInvalid(key, f"{key} {rule.rule}{at}", str(exc)) from None
    return EffectiveSettings(**values)


@dataclass(frozen=True)
class SettingsReading:
    """A settings document as every consumer reads it: its effective
    settings, or the documented fallback and why the document is invalid."""

    settings: EffectiveSettings
    invalid: DocumentInvalid | None = None


def read_document(document: Any) -> SettingsReading:
    """The one reader of a raw `pi-plan-mode.json` document (§ Thinking
    level: "Invalid settings produce a warning and fall back to inherited
    Plan thinking, available safe-built-in tool defaults, `clear-on-start`,
    no implementation-model switch, and `PLAN.md`"; § Auto model switch:
    "Invalid values invalidate the settings document like every other
    field"). Loads, saves, the lifecycle, the model switch, exports, the
    tool policy and the shell trust all read through it."""
    try:
        return SettingsReading(effective_settings(document))
    except DocumentInvalid as exc:
        return SettingsReading(FALLBACK, exc)


# ---------------------------------------------------------------- parsing


class _Rejected(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    # JSON.parse rejects NaN and Infinity; Python's parser would accept them.
    raise _Rejected(f"{name} is not a JSON value")


def _parse_float(text: str) -> float:
    number = float(text)
    if number in (float("inf"), float("-inf")):
        # Reference choice, fail closed: a number beyond the double range
        # could not be written back as JSON.
        raise _Rejected("a number is out of range")
    return number


def nesting_depth(text: str) -> int:
    """Deepest array/object nesting of JSON text, ignoring brackets in strings."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def parse_json(text: str) -> Any:
    """Strict JSON as JSON.parse reads it (no NaN or Infinity); numbers
    beyond the double range are refused. Raises ValueError."""
    return json.loads(text, parse_constant=_reject_constant, parse_float=_parse_float)


@dataclass(frozen=True)
class Parsed:
    """A valid document: its raw JSON (kept for saves) and what it means."""

    document: dict[str, Any]
    settings: EffectiveSettings


@dataclass(frozen=True)
class Problem:
    """Why a file cannot be used. `detail` never contains file content."""

    reason: Reason
    detail: str
    field: str | None = None


def parse_document(data: bytes) -> Parsed | Problem:
    """Reference choices § pi-plan-mode: settings file: at most 65,536 bytes,
    strict UTF-8 (a byte-order mark is invalid JSON), then strict JSON, then
    the document rules of `effective_settings`. Never raises."""
    if len(data) > MAX_BYTES:
        return Problem("too-large", f"is larger than {MAX_BYTES:,} bytes")
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        return Problem("invalid-json", f"is not valid UTF-8 (byte {exc.start})")
    if text.startswith("\ufeff"):
        return Problem("invalid-json", "is not valid JSON (it starts with a byte-order mark)")
    if nesting_depth(text) > MAX_DEPTH:
        return Problem("invalid-json", f"is not valid JSON here (nested deeper than {MAX_DEPTH} levels)")
    try:
        document = parse_json(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        return Problem("invalid-json", f"is not valid JSON ({exc.msg} at {where})")
    except _Rejected as exc:
        return Problem("invalid-json", f"is not valid JSON ({exc})")
    except (ValueError, RecursionError):
        return Problem("invalid-json", "is not valid JSON (a value cannot be represented)")
    try:
        settings = effective_settings(document)
    except DocumentInvalid as exc:
        return Problem("invalid-value", f"has an invalid value: {exc}", exc.field)
    assert isinstance(document, dict)
    return Parsed(document, settings)


def render_document(document: Mapping[str, Any]) -> bytes:
    """Reference choices § pi-plan-mode: settings file: 2-space-indented JSON
    with a trailing newline, key order as given. Lone surrogates (which
    JSON.parse admits through escapes) are written back as escapes so the
    file stays valid UTF-8."""
    text = json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)
    text = re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", text)
    return (text + "\n").encode("utf-8")


# ---------------------------------------------------------------- loading


@dataclass(frozen=True)
class Absent:
    """No directory entry of that name."""


@dataclass(frozen=True)
class NotRegular:
    """A directory, FIFO, symbolic link (to anything) or other special file."""

    what: str


@dataclass(frozen=True)
class ReadFailed:
    """Opening or reading failed; `why` is an error name, never content."""

    why: str


@dataclass(frozen=True)
class Contents:
    """The bytes read (a reader stops after MAX_BYTES + 1, enough to tell
    an oversized file)."""

    data: bytes


FileState = Absent | NotRegular | ReadFailed | Contents


@dataclass(frozen=True)
class LoadOutcome:
    status: Status
    source: str | None
    settings: EffectiveSettings
    read_only: bool
    warnings: tuple[str, ...] = ()
    reason: Reason | None = None
    field: str | None = None
    #: The raw document a save starts from (valid canonical or legacy).
    document: dict[str, Any] | None = dataclass_field(default=None, compare=False)


def examine(state: FileState) -> Parsed | Problem | None:
    """What one directory entry holds: None when absent."""
    if isinstance(state, Absent):
        return None
    if isinstance(state, NotRegular):
        return Problem("not-regular", f"is not a regular file (it is a {state.what})")
    if isinstance(state, ReadFailed):
        return Problem("read-failed", f"could not be read ({state.why})")
    return parse_document(state.data)


def decide_load(
    canonical: FileState, legacy: FileState, previous: EffectiveSettings | None = None
) -> LoadOutcome:
    """§ Settings and § Thinking level: missing → defaults (nothing created);
    valid canonical → its settings; otherwise the canonical name, whenever an
    entry of that name exists, takes precedence; a valid legacy
    `plan-mode.json` alone is readable with a warning; anything unusable →
    a warning, read-only, and the fallback — or, on a reload, the previous
    effective settings (reference reading of "the existing bytes and previous
    effective settings remain")."""
    found = examine(canonical)
    source = CANONICAL_NAME
    if found is None:
        found = examine(legacy)
        source = LEGACY_NAME
        if found is None:
            return LoadOutcome("missing", None, FALLBACK, read_only=False)
    if isinstance(found, Parsed):
        if source == CANONICAL_NAME:
            return LoadOutcome("valid", source, found.settings, False, document=found.document)
        return LoadOutcome(
            "legacy",
            source,
            found.settings,
            False,
            (
                f"Using the legacy settings file {LEGACY_NAME}; it is never modified "
                f"automatically. Saving Settings creates {CANONICAL_NAME} from it.",
            ),
            document=found.document,
        )
    kept = previous if previous is not None else FALLBACK
    using = "keeping the previous settings" if previous is not None else f"using {FALLBACK_SUMMARY}"
    warning = (
        f"Settings file {source} {found.detail}. Settings is read-only until the file "
        f"is fixed; its bytes are left untouched; {using}."
    )
    return LoadOutcome("invalid", source, kept, True, (warning,), found.reason, found.field)


# ---------------------------------------------------------------- editing


@dataclass(frozen=True)
class Edit:
    """One Settings save: set `field` to `value`, or remove it (`reset`)."""

    field: str
    value: Any = None
    reset: bool = False


RefusalReason = Literal["read-only", "not-editable", "invalid-value", "too-large"]


@dataclass(frozen=True)
class Refused:
    reason: RefusalReason
    message: str


@dataclass(frozen=True)
class Publish:
    """Write `data` as the canonical file; `settings` is what it means."""

    document: dict[str, Any]
    data: bytes
    settings: EffectiveSettings


@dataclass(frozen=True)
class Unchanged:
    """Nothing to write (a reset while no settings file exists)."""


def plan_edit(current: LoadOutcome, edit: Edit) -> Refused | Publish | Unchanged:
    """§ Thinking level (save rules): a save starts from the latest valid
    document — canonical, or the complete legacy document when only that
    exists — changes only the edited field (existing keys keep their place,
    a new key is appended, a reset removes it) and preserves everything else
    (unknown fields, `toolVisibility`, unedited `safeSubcommands`). An
    unusable document makes Settings read-only."""
    rule = RULES.get(edit.field)
    if rule is None or not rule.editable:
        what = "is JSON-only" if edit.field == "safeSubcommands" else "is not a Settings field"
        return Refused("not-editable", f"{edit.field} {what}; edit {CANONICAL_NAME} instead")
    if current.read_only:
        return Refused(
            "read-only",
            f"Settings is read-only: {current.source} cannot be used; fix or remove it first",
        )
    reset = edit.reset
    # § Export destination: "Omit it—or submit an empty value in Settings—to use PLAN.md."
    if edit.field == "defaultPlanExportPath" and edit.value == "" and not reset:
        reset = True
    if reset and current.document is None:
        return Unchanged()
    document = dict(current.document or {})
    if reset:
        document.pop(edit.field, None)
    else:
        try:
            rule.validate(edit.value)
        except InvalidSetting:
            return Refused("invalid-value", f"{edit.field} {rule.rule}")
        document[edit.field] = edit.value
    data = render_document(document)
    if len(data) > MAX_BYTES:
        # Writing it would leave a file the next load rejects.
        return Refused("too-large", f"the saved file would be larger than {MAX_BYTES:,} bytes")
    return Publish(document, data, effective_settings(document))


def is_temporary_name(name: str) -> bool:
    """Names a save uses for its temporary file; never read as settings."""
    return name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX)
