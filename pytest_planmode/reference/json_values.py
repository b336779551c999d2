"""Naming JSON values in messages without echoing them."""

from __future__ import annotations

import json


def json_kind(value: object) -> str:
    """`a string`, `an array`…: what a value is, for a message that must not
    quote the value itself (a warning never echoes file content)."""
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
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _plain_json(value: object) -> bool:
    kind = type(value)
    if kind is dict:
        return all(type(k) is str and _plain_json(v) for k, v in value.items())  # type: ignore[attr-defined]
    if kind is list:
        return all(_plain_json(v) for v in value)  # type: ignore[attr-defined]
    return value is None or kind in (str, int, float, bool)


def json_text(value: object) -> str | None:
    """`value` as JSON text when that text names it exactly (two values with
    the same text are equal and of the same types), else None: the key under
    which a value decoded from JSON can be remembered. A tuple, a subclass,
    a key that is not a string or a NaN has no such text."""
    if not _plain_json(value):
        return None
    try:
        return json.dumps(value, allow_nan=False)
    except (ValueError, RecursionError):
        return None
