"""Naming JSON values in messages without echoing them."""

from __future__ import annotations


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
