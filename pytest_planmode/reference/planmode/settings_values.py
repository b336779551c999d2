"""Validation of individual pi-plan-mode setting values.

Each function takes the raw JSON value of one field and returns its
normalised form, or raises :class:`InvalidSetting` saying what is wrong.
One invalid field invalidates the whole settings document
(pi-plan-mode-settings.md § Thinking level), so callers never keep a
partially valid document.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

THINKING_LEVELS = ("inherit", "off", "minimal", "low", "medium", "high", "xhigh", "max")
RETENTION_POLICIES = ("clear-on-start", "clear-after-first-run", "keep")
MODEL_FIELD_MAX = 512
EXPORT_PATH_MAX = 4096
DEFAULT_EXPORT_PATH = "PLAN.md"

# C0 controls (NUL included), DEL and C1 controls are terminal control
# characters; tab and newline among them (reference choice: a path never
# needs them and they corrupt the preview).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


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


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def thinking_level(value: Any) -> str:
    """§ Thinking level: the supported values and nothing else."""
    if not isinstance(value, str) or value not in THINKING_LEVELS:
        raise InvalidSetting(
            "thinkingLevel", f"must be one of {', '.join(THINKING_LEVELS)}; got {value!r:.80}"
        )
    return value


def retention_policy(value: Any) -> str:
    """§ Plan reinjection: `clear-on-start`, `clear-after-first-run` or `keep`."""
    if not isinstance(value, str) or value not in RETENTION_POLICIES:
        raise InvalidSetting(
            "implementationPlanRetention",
            f"must be one of {', '.join(RETENTION_POLICIES)}; got {value!r:.80}",
        )
    return value


def boolean(field: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise InvalidSetting(field, f"must be true or false; got {_kind(value)}")
    return value


def tool_names(value: Any) -> tuple[str, ...]:
    """§ Default Plan policy tools: an array of non-empty strings, duplicates
    removed in first-seen order. Names are kept exactly as written; a name of
    only whitespace counts as empty (reference choice)."""
    if not isinstance(value, list):
        raise InvalidSetting("defaultPlanTools", f"must be an array of tool names; got {_kind(value)}")
    seen: dict[str, None] = {}
    for index, name in enumerate(value):
        if not isinstance(name, str) or not name.strip():
            raise InvalidSetting(
                f"defaultPlanTools[{index}]", f"must be a non-empty string; got {name!r:.80}"
            )
        seen.setdefault(name, None)
    return tuple(seen)


def _model(field: str, value: Any) -> ModelRef:
    if not isinstance(value, dict):
        raise InvalidSetting(
            field, f"a model must be an object with provider and modelId; got {_kind(value)}"
        )
    parts = []
    for key in ("provider", "modelId"):
        text = value.get(key)
        if not isinstance(text, str) or not text.strip():
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
        raise InvalidSetting("safeSubcommands", f"must be an object; got {_kind(value)}")
    merged: dict[str, dict[str, None]] = {}
    for raw_key, entries in value.items():
        key = raw_key.strip()
        if not key:
            raise InvalidSetting("safeSubcommands", f"command key {raw_key!r} is empty after trimming")
        if not isinstance(entries, list):
            raise InvalidSetting(f"safeSubcommands.{raw_key}", f"must be an array; got {_kind(entries)}")
        bucket = merged.setdefault(key, {})
        for index, entry in enumerate(entries):
            if not isinstance(entry, str):
                raise InvalidSetting(
                    f"safeSubcommands.{raw_key}[{index}]", f"must be a string; got {_kind(entry)}"
                )
            text = entry.strip()
            if not text:
                raise InvalidSetting(f"safeSubcommands.{raw_key}[{index}]", "is empty after trimming")
            bucket.setdefault(text, None)
    return {key: tuple(entries) for key, entries in merged.items() if entries}


def toggle_shortcut(value: Any) -> str:
    """§ Toggle shortcut: a Pi key identifier (reference choice: any non-blank string)."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidSetting("toggleShortcut", "must be a non-empty Pi key identifier string")
    return value
