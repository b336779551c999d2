"""Validation of individual pi-plan-mode setting values.

Each function takes the raw JSON value of one field and returns its
normalised form, or raises :class:`InvalidSetting` saying what is wrong.
Messages name the field and the rule, never the offending value: they end
up in warnings, and a warning never echoes file content.
One invalid field invalidates the whole settings document
(pi-plan-mode-settings.md § Thinking level), so callers never keep a
partially valid document.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pytest_planmode.reference.json_values import json_kind
from pytest_planmode.spec_values import (
    EXPORT_PATH_MAX,
    KEY_CHARACTERS,
    KEY_MODIFIERS,
    KEY_NAMES,
    MODEL_FIELD_MAX,
)

THINKING_LEVELS = ("inherit", "off", "minimal", "low", "medium", "high", "xhigh", "max")
RETENTION_POLICIES = ("clear-on-start", "clear-after-first-run", "keep")
DEFAULT_EXPORT_PATH = "PLAN.md"

# C0 controls (NUL included), DEL and C1 controls are terminal control
# characters; tab and newline among them (reference choice: a path never
# needs them and they corrupt the preview).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


# The extension is TypeScript: "trimmed" means String.prototype.trim(), whose
# whitespace set (ECMAScript WhiteSpace and LineTerminator) differs from
# Python's str.strip(): it keeps U+001C-U+001F and U+0085, and removes U+FEFF.
_JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def trim(text: str) -> str:
    """Trim as the upstream extension's `String.prototype.trim()` does."""
    return text.strip(_JS_WHITESPACE)


class InvalidSetting(ValueError):
    """A setting value is invalid; `field` names it, the message says why."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


@dataclass(frozen=True)
class ModelRef:
    provider: str
    model_id: str

    def as_json(self) -> dict[str, str]:
        return {"provider": self.provider, "modelId": self.model_id}


def thinking_level(value: Any) -> str:
    """§ Thinking level: the supported values and nothing else."""
    if not isinstance(value, str) or value not in THINKING_LEVELS:
        raise InvalidSetting(
            "thinkingLevel", f"must be one of {', '.join(THINKING_LEVELS)}; got {json_kind(value)}"
        )
    return value


def retention_policy(value: Any) -> str:
    """§ Plan reinjection: `clear-on-start`, `clear-after-first-run` or `keep`."""
    if not isinstance(value, str) or value not in RETENTION_POLICIES:
        raise InvalidSetting(
            "implementationPlanRetention",
            f"must be one of {', '.join(RETENTION_POLICIES)}; got {json_kind(value)}",
        )
    return value


def boolean(field: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise InvalidSetting(field, f"must be true or false; got {json_kind(value)}")
    return value


def tool_names(value: Any) -> tuple[str, ...]:
    """§ Default Plan policy tools: an array of non-empty strings, duplicates
    removed in first-seen order. Names are kept exactly as written; a name of
    only whitespace counts as empty (reference choice)."""
    if not isinstance(value, list):
        raise InvalidSetting("defaultPlanTools", f"must be an array of tool names; got {json_kind(value)}")
    seen: dict[str, None] = {}
    for index, name in enumerate(value):
        if not isinstance(name, str) or not trim(name):
            raise InvalidSetting(
                f"defaultPlanTools[{index}]", f"must be a non-empty string; got {json_kind(name)}"
            )
        seen.setdefault(name, None)
    return tuple(seen)


def _model(field: str, value: Any) -> ModelRef:
    if not isinstance(value, dict):
        raise InvalidSetting(
            field, f"a model must be an object with provider and modelId; got {json_kind(value)}"
        )
    parts = []
    for key in ("provider", "modelId"):
        text = value.get(key)
        # Reference choice: a provider or model id of only whitespace is empty.
        if not isinstance(text, str) or not trim(text):
            raise InvalidSetting(f"{field}.{key}", "must be a non-empty string")
        if len(text) > MODEL_FIELD_MAX:
            raise InvalidSetting(
                f"{field}.{key}", f"must be at most {MODEL_FIELD_MAX} characters; got {len(text)}"
            )
        parts.append(text)
    return ModelRef(parts[0], parts[1])


def model_chain(field: str, value: Any) -> tuple[ModelRef, ...]:
    """§ Auto model switch: one model object or a non-empty array of them,
    array order being the fallback order. Duplicates are kept here (the
    switch collapses them when it runs)."""
    if isinstance(value, list):
        if not value:
            raise InvalidSetting(field, "an array of models must not be empty")
        return tuple(_model(f"{field}[{i}]", item) for i, item in enumerate(value))
    return (_model(field, value),)


def export_path(value: Any) -> str:
    """§ Export destination: a non-empty string of at most 4,096 characters
    without terminal control characters or NUL."""
    if not isinstance(value, str) or not value:
        raise InvalidSetting("defaultPlanExportPath", "must be a non-empty string")
    if len(value) > EXPORT_PATH_MAX:
        raise InvalidSetting(
            "defaultPlanExportPath", f"must be at most {EXPORT_PATH_MAX} characters; got {len(value)}"
        )
    if match := _CONTROL.search(value):
        raise InvalidSetting(
            "defaultPlanExportPath",
            f"must not contain control characters or NUL (found U+{ord(match.group()):04X})",
        )
    return value


def safe_subcommands(value: Any) -> dict[str, tuple[str, ...]]:
    """§ Safe shell subcommands: an object mapping command prefixes to arrays
    of subcommand prefixes. Keys and entries are trimmed and must be
    non-empty strings; keys equal after trimming are merged and duplicate
    entries removed, in first-seen order. Empty arrays and an empty object
    preserve the default policy (they trust nothing)."""
    if not isinstance(value, dict):
        raise InvalidSetting("safeSubcommands", f"must be an object; got {json_kind(value)}")
    merged: dict[str, dict[str, None]] = {}
    for position, (raw_key, entries) in enumerate(value.items(), start=1):
        where = f"safeSubcommands (key {position})"
        key = trim(raw_key)
        if not key:
            raise InvalidSetting("safeSubcommands", "a command key is empty after trimming")
        if not isinstance(entries, list):
            raise InvalidSetting(where, f"must be an array; got {json_kind(entries)}")
        bucket = merged.setdefault(key, {})
        for index, entry in enumerate(entries):
            if not isinstance(entry, str):
                raise InvalidSetting(f"{where}[{index}]", f"must be a string; got {json_kind(entry)}")
            text = trim(entry)
            if not text:
                raise InvalidSetting(f"{where}[{index}]", "is empty after trimming")
            bucket.setdefault(text, None)
    return {key: tuple(entries) for key, entries in merged.items() if entries}


def is_key_identifier(text: str) -> bool:
    """Reference choice (`spec_values.KEY_*`): zero or more distinct
    modifiers (`ctrl`, `shift`, `alt`), then one key (a named key such as
    `tab`, `pageUp` or `f5`, or a single typed character), joined by `+`
    without spaces, compared case-insensitively."""
    *modifiers, key = text.lower().split("+")
    if any(m not in KEY_MODIFIERS for m in modifiers) or len(set(modifiers)) != len(modifiers):
        return False
    return key in KEY_NAMES or (len(key) == 1 and key in KEY_CHARACTERS)


def toggle_shortcut(value: Any) -> str:
    """§ Toggle shortcut: a Pi key identifier (reference choice: the grammar
    of :func:`is_key_identifier`). The value is kept as written."""
    if not isinstance(value, str) or not trim(value):
        raise InvalidSetting("toggleShortcut", "must be a non-empty Pi key identifier string")
    if not is_key_identifier(value):
        raise InvalidSetting(
            "toggleShortcut",
            "must be a Pi key identifier: modifiers ctrl, shift, alt and one key joined by '+' "
            "(for example ctrl+alt+p)",
        )
    return value
